/**
 * Sub-workers on the terminal: a box per worker, named by its task, nested by depth
 * (`│ ` before and ` │` after per level), with the worker's text wrapped inside, a line
 * per action, and a footer with how it ended.
 */
import type { WorkerEvent, WorkerInfo } from '../agent/ui-adapter.js';
import { sanitize, stripAnsi, type Style } from './ansi.js';
import { drawCall } from './calls.js';
import type { Screen } from './screen.js';
import { MarkdownStream } from './markdown.js';
import { cutTo, displayWidth } from './text-width.js';

/**
 * A worker's box name: its task as a lowercase slug of letters and digits, cut at a
 * word boundary to at most `max` columns.
 * @example taskSlug('Analyze the payment module') // 'analyze-the-payment-module'
 */
export function taskSlug(task: string, max = 40): string {
  const slug = task
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  if (slug === '') return 'worker';
  if (displayWidth(slug) <= max) return slug;
  const cut = cutTo(slug, max, '');
  const hyphen = cut.lastIndexOf('-');
  return hyphen >= max / 2 ? cut.slice(0, hyphen) : cut.replace(/-+$/, '');
}

/** A worker event a box shows (an answer's and a step's text were shown as they streamed). */
export type BoxedEvent = Exclude<WorkerEvent, { type: 'answer' | 'step' }>;

/** A worker being shown: its box name and the part of a line not yet printed. */
interface Shown {
  info: WorkerInfo;
  name: string;
  /** Its text (markdown), drawn a complete line at a time. */
  markdown: MarkdownStream;
  streamed: string;
  printedLine: boolean;
}

/** The boxes of the sub-workers (depth 1 and below) on a `Screen`. */
export class WorkerBoxes {
  readonly #screen: Screen;
  readonly #workers = new Map<string, Shown>();

  constructor(screen: Screen) {
    this.#screen = screen;
  }

  /** Shows an event of a sub-worker (depth above 0) in its box. */
  onEvent(event: BoxedEvent): void {
    const { worker } = event;
    if (event.type === 'worker-start') {
      const parent = event.parent === null ? undefined : this.#workers.get(event.parent.id);
      if (parent !== undefined && parent.info.depth > 0) this.#flushPartial(parent);
      // A worker started again (a run resumed after a pause) gets a new header.
      const again = this.#workers.get(worker.id);
      if (again !== undefined) this.#flushPartial(again);
      this.#workers.delete(worker.id);
      this.#shown(worker);
      return;
    }
    const shown = this.#shown(worker);
    switch (event.type) {
      case 'text-delta': {
        const text = sanitize(event.text);
        shown.streamed += text;
        for (const line of shown.markdown.push(text)) this.#text(shown, line);
        return;
      }
      case 'action':
        this.#flushPartial(shown);
        for (const line of drawCall(this.#screen, event, this.#innerWidth(worker.depth))) this.line(worker.depth, line);
        shown.printedLine = true;
        return;
      case 'worker-end': {
        this.#flushPartial(shown);
        const text = sanitize(event.text).trim();
        if (text !== '' && !shown.streamed.includes(text)) for (const line of [...shown.markdown.push(text), ...shown.markdown.end()]) this.#text(shown, line);
        this.#workers.delete(worker.id);
        const status = event.status === 'done' ? '' : event.status;
        this.#rule(worker.depth, '└', '┘', status, event.status === 'failed' ? 'red' : 'yellow');
        return;
      }
    }
  }

  /** The worker's answer is complete (its actions run next): what its text held back is drawn now. */
  answered(worker: WorkerInfo): void {
    const shown = this.#workers.get(worker.id);
    if (shown !== undefined) this.#flushPartial(shown);
  }

  /** A line inside the boxes of `depth` levels: `│ ` before and ` │` after per level. */
  line(depth: number, content: string): void {
    const screen = this.#screen;
    screen.endAnswer();
    screen.lineStart();
    const pad = Math.max(0, this.#innerWidth(depth) - displayWidth(stripAnsi(content)));
    const left = screen.paint('dim', '│ '.repeat(depth));
    const right = screen.paint('dim', ' │'.repeat(depth));
    screen.write(`${left}${content}${' '.repeat(pad)}${right}\n`);
  }

  /** The worker's state; the first time, prints `[Calling worker: ...]` and its box's header. */
  #shown(worker: WorkerInfo): Shown {
    const known = this.#workers.get(worker.id);
    if (known !== undefined) return known;
    const markdown = new MarkdownStream({ width: () => this.#innerWidth(worker.depth), color: this.#screen.colored });
    const shown: Shown = { info: worker, name: taskSlug(sanitize(worker.task)), markdown, streamed: '', printedLine: false };
    this.#workers.set(worker.id, shown);
    const screen = this.#screen;
    screen.endAnswer();
    const calling = screen.paint('cyan', `[Calling worker: ${shown.name}]`);
    if (worker.depth === 1) {
      screen.blankLine();
      screen.write(calling + '\n');
    } else {
      this.line(worker.depth - 1, calling);
    }
    this.#rule(worker.depth, '┌', '┐', shown.name, 'bold');
    return shown;
  }

  /** Draws what the worker's text held back (its last line, a table): an action or its end comes next. */
  #flushPartial(shown: Shown): void {
    for (const line of shown.markdown.end()) this.#text(shown, line);
  }

  /** One drawn line of a worker's text in its box; blank lines before any text are dropped. */
  #text(shown: Shown, line: string): void {
    if (line === '' && !shown.printedLine) return;
    shown.printedLine = true;
    this.line(shown.info.depth, line);
  }

  /** A box's header (`┌─ name ───┐`) or footer (`└─ status ───┘`), inside its parents' boxes. */
  #rule(depth: number, leftCorner: string, rightCorner: string, label: string, style: Style): void {
    const screen = this.#screen;
    screen.endAnswer();
    screen.lineStart();
    const boxWidth = Math.max(8, this.#innerWidth(depth - 1));
    const name = label === '' ? '' : cutTo(label, boxWidth - 6);
    const head = name === '' ? `${leftCorner}─` : `${leftCorner}─ `;
    const fill = '─'.repeat(Math.max(1, boxWidth - head.length - displayWidth(name) - (name === '' ? 0 : 1) - 1));
    const rule = screen.paint('dim', head) + (name === '' ? '' : screen.paint(style, name) + ' ') + screen.paint('dim', fill + rightCorner);
    const outer = depth - 1;
    screen.write(`${screen.paint('dim', '│ '.repeat(outer))}${rule}${screen.paint('dim', ' │'.repeat(outer))}\n`);
  }

  /** The columns for text inside the box of a worker at `depth` (0: the whole width). */
  #innerWidth(depth: number): number {
    return Math.max(8, this.#screen.width() - 4 * depth);
  }
}
