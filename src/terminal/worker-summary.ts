/**
 * Sub-workers in a summary (`golem --progress summary`): one line per worker instead of its
 * box. While it runs, a live terminal keeps its line at the bottom (its name, what it is
 * doing, its actions so far and its time, nested under the worker that started it); once it
 * ends, one line says how: `✓ name · 3 actions · 4.2s`, `✗ name · failed: why`. What it
 * wrote goes to the worker that started it, not to the screen.
 */
import type { WorkerEvent, WorkerInfo } from '../agent/ui-adapter.js';
import { sanitize } from './ansi.js';
import { taskSlug } from './boxes.js';
import type { Screen } from './screen.js';
import { cutTo } from './text-width.js';

/** How the terminal shows sub-workers: a box each, with what they write and do, or a line each. */
export type ProgressMode = 'boxes' | 'summary';

/** The progress modes, as `--progress` takes them. */
export const PROGRESS_MODES: readonly ProgressMode[] = ['boxes', 'summary'];

interface Summarized {
  info: WorkerInfo;
  parentId: string | undefined;
  name: string;
  startedAt: number;
  state: string;
  actions: number;
  failedActions: number;
}

const END_MARK = { done: ['green', '✓'], question: ['yellow', '?'], waiting: ['yellow', '○'], failed: ['red', '✗'] } as const;

/** The sub-workers of a run as a line each. */
export class WorkerSummary {
  readonly #screen: Screen;
  readonly #now: () => number;
  /** The sub-workers running now, in the order they started. */
  readonly #running = new Map<string, Summarized>();
  #timer: NodeJS.Timeout | undefined;

  constructor(screen: Screen, options: { now?: () => number } = {}) {
    this.#screen = screen;
    this.#now = options.now ?? Date.now;
  }

  /** Takes a sub-worker's event (depth above 0); false for the root's, which the caller shows. */
  onEvent(event: WorkerEvent): boolean {
    const { worker } = event;
    if (worker.depth <= 0) return false;
    if (event.type === 'worker-start') {
      this.#running.set(worker.id, {
        info: worker,
        parentId: event.parent?.id,
        name: taskSlug(sanitize(worker.task)),
        startedAt: this.#now(),
        state: 'starting',
        actions: 0,
        failedActions: 0,
      });
      this.#screen.setFooter(() => this.#footer());
      this.#timer ??= setInterval(() => this.#screen.refreshFooter(), 500).unref();
      return true;
    }
    const shown = this.#running.get(worker.id);
    if (shown === undefined) return true;
    if (event.type === 'worker-end') {
      this.#running.delete(worker.id);
      this.#ended(shown, event);
      if (this.#running.size === 0) this.#stop();
      return true;
    }
    if (event.type === 'action') {
      shown.actions++;
      if (!event.ok) shown.failedActions++;
      shown.state = `${sanitize(event.name)} ${event.ok ? '✓' : '✗'}`;
    } else if (event.type === 'text-delta') shown.state = 'writing…';
    else if (event.type === 'step') shown.state = event.requested > 0 ? `step ${event.step}: ${plural(event.requested, 'action')}` : `step ${event.step}`;
    this.#screen.refreshFooter();
    return true;
  }

  /** Takes the running lines away (the run ended without their ends: stopped, or its process died). */
  clear(): void {
    this.#running.clear();
    this.#stop();
  }

  #stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#screen.setFooter(this.#running.size === 0 ? undefined : () => this.#footer());
  }

  /** The worker's one line, printed as it ends. */
  #ended(shown: Summarized, event: Extract<WorkerEvent, { type: 'worker-end' }>): void {
    const screen = this.#screen;
    const [style, mark] = END_MARK[event.status];
    const text = sanitize(event.text).trim().split('\n')[0] ?? '';
    const outcome =
      event.status === 'done'
        ? plural(shown.actions, 'action') + (shown.failedActions > 0 ? ` (${shown.failedActions} failed)` : '')
        : event.status === 'failed'
          ? `failed: ${text}`
          : event.status === 'question'
            ? `asks: ${text}`
            : text;
    const indent = '  '.repeat(shown.info.depth - 1);
    const tail = ` · ${seconds(this.#now() - shown.startedAt)}`;
    const line = cutTo(`${indent}${mark} ${shown.name} · ${outcome}`, screen.width() - 1 - tail.length);
    screen.endAnswer();
    screen.lineStart();
    screen.write(screen.paint(style, line.slice(0, indent.length + 1)) + line.slice(indent.length + 1) + screen.paint('dim', tail) + '\n');
  }

  /** One line per running sub-worker, nested by depth: `● name · state · n actions · 2.1s`. */
  #footer(): string[] {
    const width = this.#screen.width() - 1;
    return this.#inTreeOrder().map((r) => {
      const indent = '  '.repeat(r.info.depth);
      const tail = ` · ${seconds(this.#now() - r.startedAt)}`;
      const actions = r.actions === 0 ? '' : ` · ${plural(r.actions, 'action')}`;
      const body = cutTo(`${r.name} · ${r.state}${actions}`, Math.max(8, width - indent.length - 2 - tail.length));
      return `${indent}${this.#screen.paint('cyan', '●')} ${body}${this.#screen.paint('dim', tail)}`;
    });
  }

  /** The running sub-workers, each followed by those it started (depth first). */
  #inTreeOrder(): Summarized[] {
    const all = [...this.#running.values()];
    const ordered: Summarized[] = [];
    const visit = (parentId: string | undefined) => {
      for (const r of all) {
        if (r.parentId !== parentId) continue;
        ordered.push(r);
        visit(r.info.id);
      }
    };
    // The top: those whose parent is not a running sub-worker (the root, or one that ended).
    for (const r of all) {
      if (r.parentId !== undefined && this.#running.has(r.parentId)) continue;
      ordered.push(r);
      visit(r.info.id);
    }
    return ordered;
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function seconds(ms: number): string {
  return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
}
