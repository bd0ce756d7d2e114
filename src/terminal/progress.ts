/**
 * The progress line at the bottom of a live terminal while a run is in progress: a
 * spinner, what is going on (thinking, writing, running an action), the time since the
 * run started, and how to interrupt it. Other outputs get none.
 */
import type { Screen } from './screen.js';
import { cutTo } from './text-width.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** How often the spinner turns (and the elapsed time is drawn again). */
const TICK_MS = 150;

/** The time since a run started, as the progress line says it: `7s`, `2m 05s`. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  return `${Math.floor(seconds / 60)}m ${String(seconds % 60).padStart(2, '0')}s`;
}

/** The spinner and its line, kept in the screen's footer while a run is in progress. */
export class Progress {
  readonly #screen: Screen;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #startedAt = 0;
  #frame = 0;
  #label = '';

  constructor(screen: Screen, options: { now?: () => number } = {}) {
    this.#screen = screen;
    this.#now = options.now ?? Date.now;
  }

  /** Shows the line (on a live terminal), saying `label`; the time counts from now. */
  start(label: string): void {
    this.#label = label;
    if (!this.#screen.live || this.#timer !== undefined) return;
    this.#startedAt = this.#now();
    this.#frame = 0;
    this.#screen.setStatus(() => this.line());
    this.#timer = setInterval(() => {
      this.#frame++;
      this.#screen.refreshFooter();
    }, TICK_MS).unref();
  }

  /** Says what is going on now. */
  set(label: string): void {
    if (label === this.#label) return;
    this.#label = label;
    if (this.#timer !== undefined) this.#screen.refreshFooter();
  }

  /** Takes the line away. */
  stop(): void {
    if (this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#screen.setStatus(undefined);
  }

  /** The line as drawn now: `⠹ Thinking… (3s · Esc to interrupt)`, cut to the width. */
  line(): string {
    const screen = this.#screen;
    const frame = FRAMES[this.#frame % FRAMES.length] ?? '·';
    const tail = ` (${formatElapsed(this.#now() - this.#startedAt)} · Esc to interrupt)`;
    const room = screen.width() - 1 - 2 - tail.length;
    return `${screen.paint('cyan', frame)} ${cutTo(this.#label, Math.max(8, room))}${screen.paint('dim', tail)}`;
  }
}
