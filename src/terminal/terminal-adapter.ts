/**
 * The terminal's UIAdapter (seed 003 sections 2, 3 and 5): the chat prompt, the root
 * worker's streamed answers, sub-workers framed in boxes, the approval and clearance
 * prompts, the progress tree and diffs, on one pair of streams.
 *
 * Ctrl-C: while a run is in progress (`setBusy(true)`) it calls `onInterrupt` and
 * prints a notice, and answers a pending approval "no" (clearance: "later"). At the
 * chat prompt when idle it clears typed text, or on an empty line ends the input
 * (`getUserInput` resolves null). Ctrl-D on an empty line ends the input too.
 */
import { createInterface, type Interface } from 'node:readline';
import type { JsonValue } from '../core/blocks.js';
import type {
  ApprovalRequest,
  ApprovalResult,
  ClearanceDecision,
  ClearanceItem,
  ClearanceResult,
  DiffContent,
  StatusUpdate,
  TaskProgress,
  UIAdapter,
  UIMessage,
  WorkerEvent,
  WorkerInfo,
} from '../agent/ui-adapter.js';

export interface TerminalAdapterOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** ANSI colors; default: the output is a TTY and NO_COLOR is unset. */
  color?: boolean;
  /** Columns for boxes and wrapping; default: the output's columns, else 80. */
  width?: number;
  /** Called on Ctrl-C while a run is in progress (see `setBusy`). */
  onInterrupt?: () => void;
}

/** What the user typed at a prompt, or why there is nothing. */
type Read = { kind: 'line'; text: string } | { kind: 'end' } | { kind: 'interrupt' };

/** A worker being shown: its box name and the part of a line not yet printed. */
interface Shown {
  info: WorkerInfo;
  name: string;
  partial: string;
  streamed: string;
  printedLine: boolean;
}

type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'cyan';
const SGR: Record<Style, [number, number]> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
};

const APPROVAL_PROMPT = '[y]es / [n]o / [a]lways / [s]ession: ';
const CLEARANCE_PROMPT = '[p]ush / [d]iscard / [l]ater: ';
const PROGRESS_SYMBOL = { complete: '✓', running: '●', waiting: '○', failed: '✗' } as const;
const PROGRESS_STYLE = { complete: 'green', running: 'cyan', waiting: 'dim', failed: 'red' } as const;
const GOLEM_LABEL = 'Golem: ';

/**
 * Reads an answer to the approval prompt: a result, `'reason'` for a no (ask for the
 * reason next), or undefined when the answer is not one of y/n/a/s (ask again).
 */
export function parseApprovalAnswer(text: string): ApprovalResult | 'reason' | undefined {
  switch (text.trim().toLowerCase()) {
    case 'y':
    case 'yes':
      return { approved: true };
    case 'n':
    case 'no':
      return 'reason';
    case 'a':
    case 'always':
      return { approved: 'always' };
    case 's':
    case 'session':
      return { approved: 'session' };
    default:
      return undefined;
  }
}

/**
 * Reads an answer to the clearance prompt (`push`, `push <target>`, `discard`,
 * `later`/`defer`, or their first letters); undefined when it is none of them.
 */
export function parseClearanceAnswer(text: string): ClearanceDecision | undefined {
  const [word = '', ...rest] = text.trim().split(/\s+/);
  const target = rest.join(' ');
  switch (word.toLowerCase()) {
    case 'p':
    case 'push':
      return target === '' ? { action: 'push' } : { action: 'push', target };
    case 'd':
    case 'discard':
      return rest.length === 0 ? { action: 'discard' } : undefined;
    case 'l':
    case 'later':
    case 'defer':
      return rest.length === 0 ? { action: 'defer' } : undefined;
    default:
      return undefined;
  }
}

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

/**
 * The terminal implementation of UIAdapter, with one readline interface for the chat
 * prompt and the approval and clearance questions.
 */
export class TerminalAdapter implements UIAdapter {
  private readonly input: NodeJS.ReadableStream;
  private readonly output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  private readonly color: boolean;
  private readonly fixedWidth: number | undefined;
  private readonly onInterrupt: (() => void) | undefined;
  private readonly terminal: boolean;
  private rl: Interface | undefined;
  private closed = false;
  private busy = false;
  private readonly typedAhead: string[] = [];
  private reader: { chat: boolean; resolve: (read: Read) => void } | undefined;
  private dialogs: Promise<void> = Promise.resolve();
  private openDialogs = 0;
  /** The last two characters written (without ANSI codes); '' before any output. */
  private tail = '';
  private readonly workers = new Map<string, Shown>();
  /** The root's answer being streamed: `Golem: ` is printed and the line may be open. */
  private answer: { indent: boolean } | undefined;
  private readonly clearanceListeners = new Set<(items: ClearanceItem[]) => void>();

  constructor(options: TerminalAdapterOptions) {
    this.input = options.input;
    this.output = options.output;
    this.terminal = this.output.isTTY === true;
    this.color = options.color ?? (this.terminal && !process.env.NO_COLOR);
    this.fixedWidth = options.width;
    this.onInterrupt = options.onInterrupt;
  }

  /** Creates the readline interface (also done by the first prompt). */
  async initialize(): Promise<void> {
    this.readline();
  }

  /** Closes the readline interface; a pending prompt resolves as end of input. Idempotent. */
  async shutdown(): Promise<void> {
    this.closed = true;
    this.rl?.close();
  }

  /** Prints text of the caller's own (help, listings) on a line of its own, keeping the layout's account of the output. */
  print(text: string): void {
    this.endAnswer();
    this.lineStart();
    const body = sanitize(text);
    this.write(body.endsWith('\n') || body === '' ? body : body + '\n');
  }

  /** Tells the adapter whether a run is in progress, which decides what Ctrl-C does. */
  setBusy(busy: boolean): void {
    this.busy = busy;
  }

  async displayMessage(msg: UIMessage): Promise<void> {
    this.endAnswer();
    const label = msg.role === 'user' ? 'You: ' : msg.role === 'assistant' ? GOLEM_LABEL : '[System] ';
    const pad = ' '.repeat(label.length);
    const lines = sanitize(msg.content).split('\n');
    const body = lines.map((line, i) => (i === 0 || line === '' ? line : pad + line)).join('\n');
    if (msg.role === 'system') {
      this.lineStart();
      this.write(this.paint('dim', label + body) + '\n');
    } else {
      this.blankLine();
      this.write(this.paint('bold', label) + body + '\n');
    }
    for (const call of msg.metadata?.toolCalls ?? []) {
      this.write(this.paint('dim', cutTo(`${pad}${call.name}(${formatArgs(call.input)})`, this.width())) + '\n');
    }
  }

  /** Prompts `> `; the line typed, or null when the input ended (Ctrl-D, end of stream). */
  async getUserInput(): Promise<string | null> {
    return this.exclusive(async () => {
      this.endAnswer();
      const read = await this.read('> ', true);
      return read.kind === 'line' ? read.text : null;
    });
  }

  async requestApproval(request: ApprovalRequest): Promise<ApprovalResult> {
    return this.exclusive(async () => {
      this.endAnswer();
      this.blankLine();
      this.write(`${this.paint('yellow', this.paint('bold', '[Approval Required]'))} ${sanitize(request.description)}\n`);
      const riskStyle = request.risk === 'high' ? 'red' : request.risk === 'medium' ? 'yellow' : 'green';
      this.write(`Risk: ${this.paint(riskStyle, request.risk)}\n`);
      if (request.workerPath.length > 0) {
        this.write(`Path: ${request.workerPath.map((w) => taskSlug(w.task)).join(' → ')}\n`);
      }
      this.write('\n');
      for (;;) {
        const read = await this.read(APPROVAL_PROMPT, false);
        if (read.kind === 'end') return { approved: false, reason: 'no answer (input closed)' };
        if (read.kind === 'interrupt') return { approved: false, reason: 'interrupted by the user' };
        const answer = parseApprovalAnswer(read.text);
        if (answer === undefined) {
          this.write('Please answer y, n, a or s.\n');
          continue;
        }
        if (answer !== 'reason') return answer;
        const reason = await this.read('Reason (optional): ', false);
        const text = reason.kind === 'line' ? reason.text.trim() : '';
        return text === '' ? { approved: false } : { approved: false, reason: text };
      }
    });
  }

  notifyClearancePending(items: ClearanceItem[]): void {
    if (items.length === 0) return;
    this.endAnswer();
    this.blankLine();
    this.write(this.paint('yellow', `[!] ${items.length} item(s) pending clearance`) + '\n');
    this.write('    Run: golem clearance list (or /clearance in this chat)\n');
  }

  async getClearanceDecision(item: ClearanceItem): Promise<ClearanceDecision> {
    return this.exclusive(async () => {
      this.endAnswer();
      this.blankLine();
      this.write(`${this.paint('bold', '[Clearance]')} ${sanitize(item.description)}\n`);
      const when = Number.isFinite(item.createdAt) ? new Date(item.createdAt).toISOString() : '?';
      this.write(this.paint('dim', `${item.type.replace(/_/g, ' ')} · ${item.id} · ${when}`) + '\n');
      for (;;) {
        const read = await this.read(CLEARANCE_PROMPT, false);
        if (read.kind !== 'line') return { action: 'defer' };
        const decision = parseClearanceAnswer(read.text);
        if (decision !== undefined) return decision;
        this.write('Please answer p, d or l.\n');
      }
    });
  }

  displayClearanceResult(result: ClearanceResult): void {
    this.endAnswer();
    this.lineStart();
    const verb = { push: 'push', discard: 'discard', defer: 'defer' }[result.decision.action];
    const done = { push: 'Pushed', discard: 'Discarded', defer: 'Deferred' }[result.decision.action];
    const head = result.ok
      ? `${this.paint('green', '✓')} ${done}: ${sanitize(result.item.description)}`
      : `${this.paint('red', '✗')} Could not ${verb}: ${sanitize(result.item.description)}`;
    const message = sanitize(result.message).trim();
    this.write(head + (message === '' ? '' : ` (${message})`) + '\n');
  }

  onClearanceStateChange(callback: (items: ClearanceItem[]) => void): void {
    this.clearanceListeners.add(callback);
  }

  /** Reports the items pending clearance to the callbacks of `onClearanceStateChange`. */
  clearanceChanged(items: ClearanceItem[]): void {
    for (const listener of this.clearanceListeners) listener(items);
  }

  showProgress(task: TaskProgress): void {
    this.endAnswer();
    this.lineStart();
    const symbol = this.paint(PROGRESS_STYLE[task.status], PROGRESS_SYMBOL[task.status]);
    // A sub-worker's line goes inside its parent's box, when the parent is a sub-worker too.
    const line = `${symbol} ${sanitize(task.description)}`;
    if (task.depth > 1) this.boxLine(task.depth - 1, line);
    else this.write(`${'  '.repeat(Math.max(0, task.depth))}${line}\n`);
  }

  updateStatus(status: StatusUpdate): void {
    this.endAnswer();
    this.lineStart();
    const style = status.level === 'error' ? 'red' : status.level === 'warning' ? 'yellow' : 'dim';
    this.write(this.paint(style, sanitize(status.text)) + '\n');
  }

  async displayDiff(diff: DiffContent): Promise<void> {
    this.endAnswer();
    this.blankLine();
    this.write(this.paint('bold', sanitize(diff.title)) + '\n');
    const body = sanitize(diff.diff).replace(/\n$/, '');
    if (body === '') return;
    for (const line of body.split('\n')) this.write(this.paint(diffStyle(line), line) + '\n');
  }

  onEvent(event: WorkerEvent): void {
    const { worker } = event;
    if (event.type === 'answer' || event.type === 'step') return; // the text was shown as it streamed; its actions follow
    if (worker.depth <= 0) {
      this.onRootEvent(event);
      return;
    }
    if (event.type === 'worker-start') {
      const parent = event.parent === null ? undefined : this.workers.get(event.parent.id);
      if (parent !== undefined && parent.info.depth > 0) this.flushPartial(parent);
      // A worker started again (a run resumed after a pause) gets a new header.
      const again = this.workers.get(worker.id);
      if (again !== undefined) this.flushPartial(again);
      this.workers.delete(worker.id);
      this.shown(worker);
      return;
    }
    const shown = this.shown(worker);
    switch (event.type) {
      case 'text-delta': {
        const text = sanitize(event.text);
        shown.streamed += text;
        const lines = (shown.partial + text).split('\n');
        shown.partial = lines.pop() ?? '';
        for (const line of lines) this.boxText(shown, line);
        return;
      }
      case 'action':
        this.flushPartial(shown);
        this.boxLine(worker.depth, this.actionLine(event, this.innerWidth(worker.depth)));
        shown.printedLine = true;
        return;
      case 'worker-end': {
        this.flushPartial(shown);
        const text = sanitize(event.text).trim();
        if (text !== '' && !shown.streamed.includes(text)) for (const line of text.split('\n')) this.boxText(shown, line);
        this.workers.delete(worker.id);
        const status = event.status === 'done' ? '' : event.status;
        this.boxRule(worker.depth, '└', '┘', status, event.status === 'failed' ? 'red' : 'yellow');
        return;
      }
    }
  }

  /**
   * What Ctrl-C does (readline's SIGINT calls it; see the file's comment). Public so a
   * caller without a terminal can wire the process's SIGINT to it.
   */
  interrupt(): void {
    const reader = this.reader;
    if (reader?.chat === true && !this.busy) {
      if (this.terminal && this.rl !== undefined && this.rl.line !== '') {
        this.rl.write(null, { ctrl: true, name: 'e' });
        this.rl.write(null, { ctrl: true, name: 'u' });
        return;
      }
      this.reader = undefined;
      this.write('\n');
      reader.resolve({ kind: 'end' });
      return;
    }
    if (reader?.chat === false) {
      this.reader = undefined;
      this.write('\n');
      reader.resolve({ kind: 'interrupt' });
      if (!this.busy) return;
    }
    this.onInterrupt?.();
    this.endAnswer();
    this.lineStart();
    this.write(this.paint('yellow', 'stopping… the session is kept') + '\n');
  }

  // The root worker: its answer streams straight out after `Golem: `.

  private onRootEvent(event: WorkerEvent): void {
    switch (event.type) {
      case 'worker-start':
        this.workers.set(event.worker.id, { info: event.worker, name: '', partial: '', streamed: '', printedLine: false });
        return;
      case 'text-delta': {
        const text = sanitize(event.text);
        const shown = this.workers.get(event.worker.id);
        if (shown !== undefined) shown.streamed += text;
        this.streamAnswer(text);
        return;
      }
      case 'action': {
        this.endAnswer();
        this.lineStart();
        const call = cutTo(`${event.name}(${formatArgs(event.input)})`, this.width() - 2);
        this.write(`${this.paint('dim', call)} ${this.mark(event.ok)}\n`);
        return;
      }
      case 'worker-end': {
        const shown = this.workers.get(event.worker.id);
        this.workers.delete(event.worker.id);
        // Without its worker-start there is no telling what streamed: the text is not repeated.
        const text = sanitize(event.text).trim();
        if (shown !== undefined && text !== '' && !shown.streamed.includes(text) && this.answer === undefined) this.streamAnswer(text);
        this.endAnswer();
        if (event.status === 'failed') this.write(this.paint('red', '(failed)') + '\n');
        return;
      }
    }
  }

  private streamAnswer(text: string): void {
    if (this.answer === undefined) {
      text = text.replace(/^\n+/, '');
      if (text === '') return;
      this.blankLine();
      this.write(this.paint('bold', GOLEM_LABEL));
      this.answer = { indent: false };
    }
    const answer = this.answer;
    text.split('\n').forEach((piece, i) => {
      if (i > 0) {
        this.write('\n');
        answer.indent = true;
      }
      if (piece === '') return;
      this.write((answer.indent ? ' '.repeat(GOLEM_LABEL.length) : '') + piece);
      answer.indent = false;
    });
  }

  /** Ends the root's answer: the next delta starts a new `Golem: ` line. */
  private endAnswer(): void {
    if (this.answer === undefined) return;
    this.answer = undefined;
    this.lineStart();
  }

  // Sub-workers: a box per worker, nested by depth.

  /** The worker's state; the first time, prints `[Calling worker: ...]` and its box's header. */
  private shown(worker: WorkerInfo): Shown {
    const known = this.workers.get(worker.id);
    if (known !== undefined) return known;
    const shown: Shown = { info: worker, name: taskSlug(sanitize(worker.task)), partial: '', streamed: '', printedLine: false };
    this.workers.set(worker.id, shown);
    this.endAnswer();
    const calling = this.paint('cyan', `[Calling worker: ${shown.name}]`);
    if (worker.depth === 1) {
      this.blankLine();
      this.write(calling + '\n');
    } else {
      this.boxLine(worker.depth - 1, calling);
    }
    this.boxRule(worker.depth, '┌', '┐', shown.name, 'bold');
    return shown;
  }

  private flushPartial(shown: Shown): void {
    if (shown.partial === '') return;
    const line = shown.partial;
    shown.partial = '';
    this.boxText(shown, line);
  }

  /** One line of a worker's text in its box, wrapped to the box; blank lines before any text are dropped. */
  private boxText(shown: Shown, line: string): void {
    const text = line.replace(/\t/g, '    ').trimEnd();
    if (text === '' && !shown.printedLine) return;
    shown.printedLine = true;
    for (const piece of wrap(text, this.innerWidth(shown.info.depth))) this.boxLine(shown.info.depth, piece);
  }

  /** A line inside the boxes of `depth` levels: `│ ` before and ` │` after per level. */
  private boxLine(depth: number, content: string): void {
    this.endAnswer();
    this.lineStart();
    const pad = Math.max(0, this.innerWidth(depth) - displayWidth(stripAnsi(content)));
    const left = this.paint('dim', '│ '.repeat(depth));
    const right = this.paint('dim', ' │'.repeat(depth));
    this.write(`${left}${content}${' '.repeat(pad)}${right}\n`);
  }

  /** A box's header (`┌─ name ───┐`) or footer (`└─ status ───┘`), inside its parents' boxes. */
  private boxRule(depth: number, leftCorner: string, rightCorner: string, label: string, style: Style): void {
    this.endAnswer();
    this.lineStart();
    const boxWidth = Math.max(8, this.innerWidth(depth - 1));
    const name = label === '' ? '' : cutTo(label, boxWidth - 6);
    const head = name === '' ? `${leftCorner}─` : `${leftCorner}─ `;
    const fill = '─'.repeat(Math.max(1, boxWidth - head.length - displayWidth(name) - (name === '' ? 0 : 1) - 1));
    const rule =
      this.paint('dim', head) + (name === '' ? '' : this.paint(style, name) + ' ') + this.paint('dim', fill + rightCorner);
    const outer = depth - 1;
    this.write(`${this.paint('dim', '│ '.repeat(outer))}${rule}${this.paint('dim', ' │'.repeat(outer))}\n`);
  }

  private actionLine(event: Extract<WorkerEvent, { type: 'action' }>, width: number): string {
    const call = cutTo(`${event.name}(${formatArgs(event.input)})`, Math.max(4, width - 2));
    const room = width - displayWidth(call) - 3;
    const detail = event.ok || room < 8 ? '' : summarize(event.output);
    return `${call} ${this.mark(event.ok)}${detail === '' ? '' : ' ' + this.paint('red', cutTo(detail, room))}`;
  }

  private mark(ok: boolean): string {
    return ok ? this.paint('green', '✓') : this.paint('red', '✗');
  }

  private width(): number {
    return Math.max(20, this.fixedWidth ?? this.output.columns ?? 80);
  }

  /** The columns for text inside the box of a worker at `depth` (0: the whole width). */
  private innerWidth(depth: number): number {
    return Math.max(8, this.width() - 4 * depth);
  }

  // Input: one readline interface; lines typed while no prompt waits are kept for the chat prompt.

  private readline(): Interface | undefined {
    if (this.rl !== undefined || this.closed) return this.rl;
    const rl = createInterface({ input: this.input, output: this.output, terminal: this.terminal, crlfDelay: Infinity });
    rl.on('line', (line: string) => {
      const reader = this.reader;
      if (reader === undefined) {
        this.typedAhead.push(line);
        return;
      }
      this.reader = undefined;
      this.echo(line);
      reader.resolve({ kind: 'line', text: line });
    });
    rl.on('close', () => {
      this.closed = true;
      const reader = this.reader;
      this.reader = undefined;
      if (reader !== undefined) {
        this.write('\n');
        reader.resolve({ kind: 'end' });
      }
    });
    rl.on('SIGINT', () => this.interrupt());
    this.rl = rl;
    return rl;
  }

  /**
   * Prompts and reads a line. The chat prompt takes lines typed ahead first; a question
   * does so only from piped input, so a keystroke typed early never answers an approval.
   */
  private read(prompt: string, chat: boolean): Promise<Read> {
    const rl = this.readline();
    const ahead = chat || !this.terminal ? this.typedAhead.shift() : undefined;
    if (ahead !== undefined) {
      this.write(prompt + sanitize(ahead) + '\n');
      return Promise.resolve({ kind: 'line', text: ahead });
    }
    if (rl === undefined || this.closed) {
      this.write(prompt + '\n');
      return Promise.resolve({ kind: 'end' });
    }
    return new Promise((resolve) => {
      this.reader = { chat, resolve };
      if (this.terminal) {
        rl.setPrompt(prompt);
        rl.prompt();
      } else {
        this.write(prompt);
      }
    });
  }

  /** After a line is typed at a prompt: the terminal has moved to the next line; other output shows the line. */
  private echo(line: string): void {
    if (this.terminal) this.tail = '\n';
    else this.write(sanitize(line) + '\n');
  }

  /**
   * Runs prompts one at a time (parallel workers may ask for approval together); with
   * none running, the prompt starts at once, so a key pressed right after finds it.
   */
  private exclusive<T>(dialog: () => Promise<T>): Promise<T> {
    const run = this.openDialogs === 0 ? dialog() : this.dialogs.then(dialog);
    this.openDialogs++;
    this.dialogs = run.then(
      () => void this.openDialogs--,
      () => void this.openDialogs--,
    );
    return run;
  }

  // Output.

  private write(text: string): void {
    if (text === '') return;
    this.output.write(text);
    const plain = stripAnsi(text);
    if (plain !== '') this.tail = (this.tail + plain).slice(-2);
  }

  private lineStart(): void {
    if (this.tail !== '' && !this.tail.endsWith('\n')) this.write('\n');
  }

  private blankLine(): void {
    if (this.tail === '' || this.tail === '\n\n') return;
    this.write(this.tail.endsWith('\n') ? '\n' : '\n\n');
  }

  private paint(style: Style | undefined, text: string): string {
    if (!this.color || style === undefined || text === '') return text;
    const [open, close] = SGR[style];
    return `\x1b[${open}m${text}\x1b[${close}m`;
  }
}

function diffStyle(line: string): Style | undefined {
  if (/^(diff |index |--- |\+\+\+ |---$|\+\+\+$)/.test(line)) return 'bold';
  if (line.startsWith('@@')) return 'cyan';
  if (line.startsWith('+')) return 'green';
  if (line.startsWith('-')) return 'red';
  return undefined;
}

/** A call's input as arguments: an object's values, each short JSON. */
function formatArgs(input: JsonValue): string {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return Object.values(input).map((v) => shortJson(v)).join(', ');
  return shortJson(input);
}

function shortJson(value: JsonValue, max = 40): string {
  if (typeof value === 'string') return JSON.stringify(displayWidth(value) > max ? cutTo(value, max - 2) : value);
  return cutTo(JSON.stringify(value), max);
}

/** A failed action's output, shortened to its first line. */
function summarize(output: JsonValue): string {
  let text: string;
  if (typeof output === 'string') text = output;
  else if (output !== null && typeof output === 'object' && !Array.isArray(output) && typeof output.error === 'string') text = output.error;
  else if (output !== null && typeof output === 'object' && !Array.isArray(output) && typeof output.message === 'string') text = output.message;
  else text = output === null ? '' : JSON.stringify(output);
  return sanitize(text).trim().split('\n')[0] ?? '';
}

// Text for the terminal: no control characters from model or tool text, widths in columns.

/** Drops control characters (escape sequences among them) except newlines and tabs. */
function sanitize(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\r\n?/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
}

function stripAnsi(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\x1b\[[0-9;]*m/g, '');
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** The columns a grapheme takes: 2 for East Asian wide characters and emoji, 0 for marks alone. */
function graphemeWidth(g: string): number {
  const cp = g.codePointAt(0) ?? 0;
  if (/^[\p{Mn}\p{Me}\p{Cf}]/u.test(g)) return 0;
  if (/\p{Emoji_Presentation}/u.test(g) || (g.includes('\uFE0F') && /\p{Extended_Pictographic}/u.test(g))) return 2;
  const wide =
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd);
  return wide ? 2 : 1;
}

function displayWidth(text: string): number {
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  return graphemes(text).reduce((sum, g) => sum + graphemeWidth(g), 0);
}

/** The text cut to `width` columns, ending with `ellipsis` when it was cut. */
function cutTo(text: string, width: number, ellipsis = '…'): string {
  if (displayWidth(text) <= width) return text;
  const room = width - displayWidth(ellipsis);
  let used = 0;
  let out = '';
  for (const g of graphemes(text)) {
    const w = graphemeWidth(g);
    if (used + w > room) break;
    used += w;
    out += g;
  }
  return out + ellipsis;
}

/** Wraps a line to `width` columns, at spaces where it can. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let rest = graphemes(text);
  while (rest.reduce((sum, g) => sum + graphemeWidth(g), 0) > width) {
    let used = 0;
    let fit = 0;
    let space = -1;
    for (const [i, g] of rest.entries()) {
      const w = graphemeWidth(g);
      if (used + w > width) {
        if (g === ' ') space = i;
        break;
      }
      used += w;
      fit = i + 1;
      if (g === ' ') space = i;
    }
    const at = space > 0 ? space : Math.max(1, fit);
    lines.push(rest.slice(0, at).join('').trimEnd());
    rest = rest.slice(space > 0 ? at + 1 : at);
    while (rest[0] === ' ') rest = rest.slice(1);
  }
  lines.push(rest.join(''));
  return lines;
}
