/**
 * Sub-workers running side by side on the terminal (seed 003: "progress bar with
 * expand-on-demand"). Their streams would interleave line by line, so each one's box is
 * kept aside and printed whole when it ends; meanwhile a live terminal shows one line per
 * running worker at the bottom (its number, state and elapsed time), and typing a worker's
 * number (then Enter) expands it: its box so far is printed and the rest streams as it
 * comes. Other outputs get a line as each starts, and each box when it ends.
 */
import type { WorkerEvent, WorkerInfo } from '../agent/ui-adapter.js';
import { sanitize } from './ansi.js';
import { taskSlug, WorkerBoxes, type BoxedEvent } from './boxes.js';
import { Screen } from './screen.js';
import { cutTo, displayWidth } from './text-width.js';

/** Where a box kept aside goes: held until it ends (or is expanded), then straight through. */
class Aside {
  held = '';
  through = false;
  constructor(readonly target: Screen) {}
  write(text: string): boolean {
    // While a question is asked (an approval), even an expanded box waits: nothing is written into the dialog.
    if (this.through && !this.target.asking) {
      if (this.held !== '') this.flush();
      this.target.write(text);
    } else this.held += text;
    return true;
  }

  /** Writes what is held (once a question is answered). */
  flush(): void {
    if (!this.through || this.target.asking || this.held === '') return;
    const held = this.held;
    this.held = '';
    this.target.write(held);
  }
  /** Prints what is held, and lets the rest through. */
  open(): void {
    if (this.through) return;
    this.through = true;
    if (this.held === '' || this.target.asking) return;
    this.target.endAnswer();
    this.target.blankLine();
    this.flush();
  }
}

/** A worker of a batch, shown aside. */
interface Running {
  number: number;
  info: WorkerInfo;
  name: string;
  startedAt: number;
  state: string;
  aside: Aside;
  boxes: WorkerBoxes;
  /** Its own screen (writing into `aside`), for the nested workers that go in its box. */
  screen: Screen;
}

/** The workers shown aside, and the live list of those running. */
export class SideBySide {
  readonly #main: Screen;
  readonly #color: boolean;
  /** The running batch workers, by id. */
  readonly #running = new Map<string, Running>();
  /** Every worker whose events go to one kept aside (batch workers and the workers under them), by id. */
  readonly #owner = new Map<string, Running>();
  #numbers = 0;
  #timer: NodeJS.Timeout | undefined;
  readonly #now: () => number;

  /** Boxes that ended (or were expanded) while a question was asked: written once it is answered. */
  readonly #unwritten = new Set<Aside>();

  constructor(main: Screen, options: { color: boolean; now?: () => number }) {
    this.#main = main;
    this.#color = options.color;
    this.#now = options.now ?? Date.now;
    main.afterDialog(() => {
      for (const aside of [...this.#unwritten, ...[...this.#running.values()].map((r) => r.aside)]) aside.flush();
      this.#unwritten.clear();
    });
  }

  /** Shows `event` if it belongs to a worker kept aside (or starts one); false when it is not one of theirs. */
  onEvent(event: WorkerEvent): boolean {
    const { worker } = event;
    if (event.type === 'worker-start' && event.batch !== undefined && event.batch.size > 1) {
      this.#start(event, this.#owner.get(event.parent?.id ?? '')?.screen ?? this.#main);
      return true;
    }
    const owner = this.#owner.get(worker.id) ?? (event.type === 'worker-start' ? this.#owner.get(event.parent?.id ?? '') : undefined);
    if (owner === undefined) return false;
    if (event.type === 'worker-start') this.#owner.set(worker.id, owner);
    const top = this.#running.get(worker.id);
    if (top !== undefined) top.state = stateOf(event, top.state);
    if (event.type === 'answer') owner.boxes.answered(worker);
    else if (event.type !== 'step') owner.boxes.onEvent(event as BoxedEvent);
    if (event.type === 'worker-end') this.#end(worker.id);
    else this.#main.refreshFooter();
    return true;
  }

  /** Expands the worker numbered `text` (a line typed while they run): true when it names one. */
  expand(text: string): boolean {
    const number = /^\s*(\d{1,3})\s*$/.exec(text)?.[1];
    if (number === undefined) return false;
    const running = [...this.#running.values()].find((r) => r.number === Number(number));
    if (running === undefined) return false;
    running.aside.open();
    return true;
  }

  /** Whether the worker is one of those running side by side (the live list shows it). */
  running(workerId: string): boolean {
    return this.#running.has(workerId);
  }

  /** Whether workers are running side by side now. */
  get active(): boolean {
    return this.#running.size > 0;
  }

  #start(event: Extract<WorkerEvent, { type: 'worker-start' }>, target: Screen): void {
    const aside = new Aside(target);
    const screen = new Screen({ output: aside as unknown as NodeJS.WritableStream, color: this.#color, width: target.width() });
    const running: Running = {
      number: ++this.#numbers,
      info: event.worker,
      name: taskSlug(sanitize(event.worker.task)),
      startedAt: this.#now(),
      state: 'starting',
      aside,
      boxes: new WorkerBoxes(screen),
      screen,
    };
    running.boxes.onEvent(event);
    this.#owner.set(event.worker.id, running);
    if (target !== this.#main) return; // nested in a box kept aside: shown when that box is
    this.#running.set(event.worker.id, running);
    // The parent's answer ends here: the list (or the lines) go under it.
    this.#main.endAnswer();
    this.#main.lineStart();
    if (!this.#main.live) {
      this.#main.write(this.#paint('dim', `[worker ${running.number} of ${event.batch?.size ?? 1} side by side: ${running.name}]`) + '\n');
      return;
    }
    this.#main.setFooter(() => this.#footer());
    this.#timer ??= setInterval(() => this.#main.refreshFooter(), 500).unref();
  }

  #end(workerId: string): void {
    const running = this.#owner.get(workerId);
    if (running === undefined || running.info.id !== workerId) return;
    for (const [id, owner] of this.#owner) if (owner === running) this.#owner.delete(id);
    running.aside.open();
    // Asked something meanwhile: written once it is answered (afterDialog).
    if (running.aside.held !== '') this.#unwritten.add(running.aside);
    if (!this.#running.delete(workerId)) return;
    if (this.#running.size > 0) {
      this.#main.refreshFooter();
      return;
    }
    this.#main.setFooter(undefined);
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#numbers = 0;
  }

  /** One line per running worker: its number (type it to expand), name, state and elapsed time. */
  #footer(): string[] {
    const width = this.#main.width() - 1;
    const lines = [...this.#running.values()].map((r) => {
      const elapsed = `${((this.#now() - r.startedAt) / 1000).toFixed(1)}s`;
      const head = `  ${r.number} ● `;
      const tail = ` ${elapsed}`;
      const body = cutTo(`${r.name} · ${r.aside.through ? 'expanded · ' : ''}${r.state}`, Math.max(8, width - displayWidth(head) - displayWidth(tail)));
      return this.#paint('cyan', head) + body + this.#paint('dim', tail);
    });
    // How to stop the run is said on the progress line under it.
    const hint = cutTo('  type a number and Enter to expand a worker', width);
    return [...lines, this.#paint('dim', hint)];
  }

  #paint(style: 'dim' | 'cyan', text: string): string {
    return this.#main.paint(style, text);
  }
}

/** What a worker is doing, as its last event says. */
function stateOf(event: WorkerEvent, before: string): string {
  switch (event.type) {
    case 'text-delta':
      return 'writing…';
    case 'step':
      return event.requested > 0 ? `step ${event.step}: ${event.requested} action${event.requested > 1 ? 's' : ''}` : `step ${event.step}`;
    case 'action':
      return `${event.name} ${event.ok ? '✓' : '✗'}`;
    case 'worker-end':
      return event.status;
    default:
      return before;
  }
}
