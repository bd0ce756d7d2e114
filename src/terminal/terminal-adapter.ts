/**
 * The terminal's UIAdapter (seed 003 sections 2, 3 and 5): the chat prompt, the root
 * worker's streamed answers, sub-workers framed in boxes, the approval and clearance
 * prompts, the progress tree and diffs, on one pair of streams.
 *
 * Ctrl-C: while a run is in progress (`setBusy(true)`) it calls `onInterrupt` and
 * prints a notice, and answers a pending approval "no" (clearance: "later"). At the
 * chat prompt when idle it clears typed text, or on an empty line ends the input
 * (`getUserInput` resolves null). Ctrl-D on an empty line ends the input too.
 *
 * A message typed while a run is in progress goes to the run (`messages`): Enter queues it,
 * Tab steers with it, ↑ on an empty line takes the last queued back; those that wait are
 * listed above the progress line.
 */
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
} from '../agent/ui-adapter.js';
import { approvalExplanation, type ToolChange } from '../action/approval.js';
import { showBidiControls } from '../core/text.js';
import { colorsWanted, sanitize, type Style } from './ansi.js';
import { APPROVAL_PROMPT, APPROVAL_WORDS, CLEARANCE_PROMPT, parseApprovalAnswer, parseClearanceAnswer } from './answers.js';
import { taskSlug, WorkerBoxes, type BoxedEvent } from './boxes.js';
import { SideBySide } from './side-by-side.js';
import { askElicitation } from './elicit.js';
import type { ElicitationAnswer, ElicitationRequest } from '../mcp/connection.js';
import { drawCall, formatArgs } from './calls.js';
import { diffRows } from './diff-view.js';
import { LineReader, type Completer, type LineHistory, type RunMessagePolicy } from './line-reader.js';
import { Progress } from './progress.js';
import { WorkerSummary, type ProgressMode } from './worker-summary.js';
import { askPlan, planLines, type PlanEdits, type PlanTask } from './plan-view.js';
import { GOLEM_LABEL, Screen } from './screen.js';
import { cutTo } from './text-width.js';

/** The streams a `TerminalAdapter` works on, and how it lays out and interrupts. */
export interface TerminalAdapterOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** ANSI colors; default: FORCE_COLOR set (not 0), else NO_COLOR unset and the output a TTY. */
  color?: boolean;
  /** Columns for boxes and wrapping; default: the output's columns, else 80. */
  width?: number;
  /** Called on Ctrl-C while a run is in progress (see `setBusy`). */
  onInterrupt?: () => void;
  /** The chat prompt's history across runs, and its Tab completion. */
  history?: LineHistory;
  complete?: Completer;
  /** Where a message typed while a run is in progress goes (without it, it waits for the chat prompt). */
  messages?: RunMessages;
  /** Sub-workers as a box each (the default), or as a line each (`summary`). */
  progress?: ProgressMode;
  /** The plans to show as a checklist above the progress line while a run goes (`plansChanged` redraws it). */
  plans?: () => readonly PlanTask[];
  /** Keeps the user's edits of a proposed plan (then the plan is accepted as edited); without it a plan cannot be edited here. */
  editPlan?: (taskId: string, edits: PlanEdits) => Promise<void>;
}

/** The messages typed while a run is in progress, and those that wait for it (issue 36). */
export interface RunMessages {
  /** Sends a message typed during a run: Enter queues it, Tab steers. False when no run takes it now (it waits for the chat prompt). */
  send(text: string, policy: RunMessagePolicy): boolean;
  /** Takes the last message queued from here back: its text (one line) once taken; undefined when there is none. */
  takeBack(): Promise<string | undefined> | undefined;
  /** The messages waiting for the run, oldest first: `steer` ones go to it before its next model call, the others after it. */
  waiting(): { text: string; policy: RunMessagePolicy | 'interrupt' }[];
}

const PROGRESS_SYMBOL = { complete: '✓', running: '●', waiting: '○', failed: '✗' } as const;
const PROGRESS_STYLE = { complete: 'green', running: 'cyan', waiting: 'dim', failed: 'red' } as const;

/**
 * The terminal implementation of UIAdapter, with one readline interface for the chat
 * prompt and the approval and clearance questions.
 */
export class TerminalAdapter implements UIAdapter {
  readonly #screen: Screen;
  readonly #input: LineReader;
  readonly #boxes: WorkerBoxes;
  readonly #side: SideBySide;
  /** The sub-workers as a line each, in the summary progress mode. */
  readonly #summary: WorkerSummary | undefined;
  readonly #onInterrupt: (() => void) | undefined;
  /** The spinner while a run is in progress, and the calls of the root's last answer still to run (their names for it). */
  readonly #progress: Progress;
  #pendingCalls: string[] = [];
  #busy = false;
  /** The user stopped the run in progress (Ctrl-C): its end is not shown as a failure. */
  #stopping = false;
  /** The root workers being shown: what each streamed so far. */
  readonly #rootStreamed = new Map<string, string>();
  readonly #clearanceListeners = new Set<(items: ClearanceItem[]) => void>();
  /** How many items of the session wait for clearance (the status line says it while there are any). */
  #clearanceWaiting = 0;
  readonly #editPlan: TerminalAdapterOptions['editPlan'];

  constructor(options: TerminalAdapterOptions) {
    const output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number } = options.output;
    const terminal = output.isTTY === true;
    const color = options.color ?? colorsWanted(process.env, terminal);
    this.#screen = new Screen({ output, color, width: options.width, live: terminal });
    this.#side = new SideBySide(this.#screen, { color });
    this.#summary = options.progress === 'summary' ? new WorkerSummary(this.#screen) : undefined;
    this.#input = new LineReader({
      input: options.input,
      output,
      screen: this.#screen,
      terminal,
      onSigint: () => this.interrupt(),
      // A worker's number typed while workers run side by side expands it (and is not kept for the chat prompt).
      onTypedAhead: (line) => this.#side.active && this.#side.expand(line),
      ...(options.messages !== undefined && {
        onMessage: options.messages.send.bind(options.messages),
        onTakeBack: options.messages.takeBack.bind(options.messages),
      }),
      ...(options.history !== undefined && { history: options.history }),
      ...(options.complete !== undefined && { complete: options.complete }),
    });
    this.#boxes = new WorkerBoxes(this.#screen);
    this.#progress = new Progress(this.#screen);
    // What is typed while a run is in progress is echoed under the footer: drawn again with it.
    this.#screen.setTyping(() => {
      const rl = this.#input.open();
      return { text: rl?.line ?? '', cursor: rl?.cursor ?? 0 };
    });
    this.#onInterrupt = options.onInterrupt;
    const messages = options.messages;
    const plans = options.plans;
    this.#editPlan = options.editPlan;
    // Above the progress line: the plans' checklist, the messages waiting for the run, then what waits for clearance.
    this.#screen.setWaiting(() => [
      ...(plans === undefined ? [] : planLines(this.#screen, plans())),
      ...(messages?.waiting().map((m) => this.#waitingLine(m)) ?? []),
      ...this.#clearanceLine(),
    ]);
  }

  /** Draws the plans' checklist again (a plan was proposed, accepted, or its steps marked). */
  plansChanged(): void {
    this.#screen.refreshFooter();
  }

  /** The status line while items wait for clearance: `2 items wait for clearance · /clearance`; none when nothing waits. */
  #clearanceLine(): string[] {
    const n = this.#clearanceWaiting;
    if (n === 0) return [];
    const text = `${n} item${n === 1 ? ' waits' : 's wait'} for clearance · /clearance`;
    return [this.#screen.paint('yellow', cutTo(text, this.#screen.width() - 1))];
  }

  /** Sets how many items wait for clearance (the status line's count), and redraws it. */
  #setClearanceWaiting(items: readonly ClearanceItem[]): void {
    const n = items.length;
    if (n === this.#clearanceWaiting) return;
    this.#clearanceWaiting = n;
    this.#screen.refreshFooter();
  }

  /** A message waiting for the run, on one line above the progress line: `queued: …` or `steering: …`. */
  #waitingLine(message: { text: string; policy: RunMessagePolicy | 'interrupt' }): string {
    const [first = '', ...more] = sanitize(message.text).split('\n');
    const text = `${message.policy === 'steer' ? 'steering' : 'queued'}: ${first}${more.length > 0 ? ' …' : ''}`;
    return this.#screen.paint('dim', cutTo(text, this.#screen.width() - 1));
  }

  /** Creates the readline interface (also done by the first prompt). */
  async initialize(): Promise<void> {
    this.#input.open();
  }

  /** Closes the readline interface; a pending prompt resolves as end of input. Idempotent. */
  async shutdown(): Promise<void> {
    this.#input.close();
  }

  /** Prints text of the caller's own (help, listings) on a line of its own, keeping the layout's account of the output. */
  print(text: string): void {
    this.#screen.endAnswer();
    this.#screen.lineStart();
    const body = sanitize(text);
    this.#screen.write(body.endsWith('\n') || body === '' ? body : body + '\n');
  }

  /** Tells the adapter whether a run is in progress, which decides what Ctrl-C does. */
  setBusy(busy: boolean): void {
    this.#busy = busy;
    this.#stopping = false;
    this.#pendingCalls = [];
    if (busy) this.#progress.start('Thinking…');
    else {
      this.#progress.stop();
      this.#summary?.clear();
    }
  }

  /** Prints a message of the conversation after its role's label, with the tools it called. */
  async displayMessage(msg: UIMessage): Promise<void> {
    const screen = this.#screen;
    screen.endAnswer();
    const label = msg.role === 'user' ? 'You: ' : msg.role === 'assistant' ? GOLEM_LABEL : '[System] ';
    const pad = ' '.repeat(label.length);
    if (msg.role === 'assistant') {
      // The model's text is markdown: drawn as it was when it streamed.
      screen.streamAnswer(sanitize(msg.content));
      screen.endAnswer();
    } else {
      const lines = sanitize(msg.content).split('\n');
      const body = lines.map((line, i) => (i === 0 || line === '' ? line : pad + line)).join('\n');
      if (msg.role === 'system') {
        screen.lineStart();
        screen.write(screen.paint('dim', label + body) + '\n');
      } else {
        screen.blankLine();
        screen.write(screen.paint('bold', label) + body + '\n');
      }
    }
    for (const call of msg.metadata?.toolCalls ?? []) {
      screen.write(screen.paint('dim', cutTo(`${pad}${sanitize(call.name)}(${formatArgs(call.input)})`, screen.width())) + '\n');
    }
  }

  /** Prompts `> `; the line typed, or null when the input ended (Ctrl-D, end of stream). */
  async getUserInput(): Promise<string | null> {
    return this.#input.exclusive(async () => {
      this.#screen.endAnswer();
      // The status line, kept over the prompt while items wait for clearance (over the progress line while a run goes).
      for (const line of this.#clearanceLine()) {
        this.#screen.lineStart();
        this.#screen.write(line + '\n');
      }
      const read = await this.#input.read('> ', true);
      return read.kind === 'line' ? read.text : null;
    });
  }

  /** Asks the user to approve an action: yes, no (with a reason), always or for the session. */
  async requestApproval(request: ApprovalRequest): Promise<ApprovalResult> {
    return this.#dialog(async () => {
      const screen = this.#screen;
      screen.endAnswer();
      screen.blankLine();
      // A proposed plan: accept, edit or decline (one key).
      if (request.type === 'plan') return askPlan(screen, (prompt, words) => this.#input.read(prompt, false, words), request, this.#editPlan);
      // What the user approves shows its direction controls by their codes (showBidiControls): none can turn it round.
      screen.write(`${screen.paint('yellow', screen.paint('bold', '[Approval Required]'))} ${showBidiControls(sanitize(request.description))}\n`);
      const riskStyle = RISK_STYLE[request.risk];
      const { riskReason: why, toolChange } = approvalExplanation(request.details);
      screen.write(`Risk: ${screen.paint(riskStyle, request.risk)}${why === undefined ? '' : ` (${showBidiControls(sanitize(why))})`}\n`);
      if (request.workerPath.length > 0) {
        screen.write(`Path: ${request.workerPath.map((w) => showBidiControls(taskSlug(w.task))).join(' → ')}\n`);
      }
      for (const line of toolChangeLines(toolChange)) screen.write(`${sanitize(line)}\n`);
      screen.write('\n');
      for (;;) {
        const read = await this.#input.read(APPROVAL_PROMPT, false, APPROVAL_WORDS); // one key answers, no Enter
        if (read.kind === 'end') return { approved: false, reason: 'no answer (input closed)' };
        if (read.kind === 'interrupt') return { approved: false, reason: 'interrupted by the user' };
        const answer = parseApprovalAnswer(read.text);
        if (answer === undefined) {
          screen.write('Please answer y, n, a or s.\n');
          continue;
        }
        if (answer !== 'reason') return answer;
        const reason = await this.#input.read('Reason (optional): ', false);
        const text = reason.kind === 'line' ? reason.text.trim() : '';
        return text === '' ? { approved: false } : { approved: false, reason: text };
      }
    });
  }

  /** Asks the user for what an MCP server wants to know (elicitation): its fields one by one, then send, decline or cancel. */
  async requestInput(request: ElicitationRequest): Promise<ElicitationAnswer> {
    return this.#dialog(() => askElicitation(this.#screen, (prompt) => this.#input.read(prompt, false), request));
  }

  /** Tells the user that items wait for clearance, and how to see them. */
  notifyClearancePending(items: ClearanceItem[]): void {
    this.#setClearanceWaiting(items);
    if (items.length === 0) return;
    const screen = this.#screen;
    screen.endAnswer();
    screen.blankLine();
    screen.write(screen.paint('yellow', `[!] ${items.length} item(s) pending clearance`) + '\n');
    screen.write('    Run: golem clearance list (or /clearance in this chat)\n');
  }

  /** Asks the user what to do with an item pending clearance: push, discard or later. */
  async getClearanceDecision(item: ClearanceItem): Promise<ClearanceDecision> {
    return this.#dialog(async () => {
      const screen = this.#screen;
      screen.endAnswer();
      screen.blankLine();
      screen.write(`${screen.paint('bold', '[Clearance]')} ${sanitize(item.description)}\n`);
      const when = Number.isFinite(item.createdAt) ? new Date(item.createdAt).toISOString() : '?';
      screen.write(screen.paint('dim', `${item.type.replace(/_/g, ' ')} · ${item.id} · ${when}`) + '\n');
      for (;;) {
        const read = await this.#input.read(CLEARANCE_PROMPT, false);
        if (read.kind !== 'line') return { action: 'defer' };
        const decision = parseClearanceAnswer(read.text);
        if (decision !== undefined) return decision;
        screen.write('Please answer p, d or l.\n');
      }
    });
  }

  /** Prints how a clearance decision went. */
  displayClearanceResult(result: ClearanceResult): void {
    const screen = this.#screen;
    screen.endAnswer();
    screen.lineStart();
    const verb = { push: 'push', discard: 'discard', defer: 'defer' }[result.decision.action];
    const done = { push: 'Pushed', discard: 'Discarded', defer: 'Deferred' }[result.decision.action];
    const head = result.ok
      ? `${screen.paint('green', '✓')} ${done}: ${sanitize(result.item.description)}`
      : `${screen.paint('red', '✗')} Could not ${verb}: ${sanitize(result.item.description)}`;
    const message = sanitize(result.message).trim();
    screen.write(head + (message === '' ? '' : ` (${message})`) + '\n');
  }

  /** Calls `callback` with the items pending clearance each time `clearanceChanged` reports them. */
  onClearanceStateChange(callback: (items: ClearanceItem[]) => void): void {
    this.#clearanceListeners.add(callback);
  }

  /** Reports the items pending clearance to the callbacks of `onClearanceStateChange`. */
  clearanceChanged(items: ClearanceItem[]): void {
    this.#setClearanceWaiting(items);
    for (const listener of this.#clearanceListeners) listener(items);
  }

  /** Prints a task's line of the progress tree. */
  showProgress(task: TaskProgress): void {
    // In the summary mode a sub-worker's line is its summary's.
    if (this.#summary !== undefined && task.depth > 0) return;
    // A worker running side by side is on the live list (or got its line as it started) until its box is printed.
    if (task.status === 'running' && this.#side.running(task.id)) return;
    const screen = this.#screen;
    screen.endAnswer();
    screen.lineStart();
    const symbol = screen.paint(PROGRESS_STYLE[task.status], PROGRESS_SYMBOL[task.status]);
    // A sub-worker's line goes inside its parent's box, when the parent is a sub-worker too.
    const line = `${symbol} ${sanitize(task.description)}`;
    if (task.depth > 1) this.#boxes.line(task.depth - 1, line);
    else screen.write(`${'  '.repeat(Math.max(0, task.depth))}${line}\n`);
  }

  /** Prints a status line, colored by its level. */
  updateStatus(status: StatusUpdate): void {
    const screen = this.#screen;
    screen.endAnswer();
    screen.lineStart();
    const style = status.level === 'error' ? 'red' : status.level === 'warning' ? 'yellow' : 'dim';
    screen.write(screen.paint(style, sanitize(status.text)) + '\n');
  }

  /** Prints a diff under its title: its lines colored, their code highlighted in its file's language. */
  async displayDiff(diff: DiffContent): Promise<void> {
    const rows = await diffRows(this.#screen, diff.diff);
    const screen = this.#screen;
    screen.endAnswer();
    screen.blankLine();
    screen.write(screen.paint('bold', sanitize(diff.title)) + '\n');
    for (const row of rows) screen.write(row + '\n');
  }

  /** Shows a worker's event: the root's answer streams after `Golem: `, a sub-worker's goes in its box. */
  onEvent(event: WorkerEvent): void {
    // Sub-workers as a line each (summary), or side by side: each box kept aside until it ends, a live line each meanwhile.
    if (this.#summary?.onEvent(event) === true || this.#side.onEvent(event)) return;
    if (event.type === 'step' && event.worker.depth <= 0) this.#stepped(event);
    // The answer is complete: what its markdown held back (its last line) is drawn before its actions run.
    if (event.type === 'answer') {
      if (event.worker.depth <= 0) this.#screen.endAnswer();
      else this.#boxes.answered(event.worker);
    }
    if (event.type === 'answer' || event.type === 'step') return; // the text was shown as it streamed; its actions follow
    if (event.worker.depth <= 0) this.#onRootEvent(event);
    else this.#boxes.onEvent(event);
  }

  /**
   * What Ctrl-C does (readline's SIGINT calls it; see the file's comment). Public so a
   * caller without a terminal can wire the process's SIGINT to it.
   */
  interrupt(): void {
    if (this.#input.interrupt(this.#busy)) return;
    this.#stopping = true;
    this.#progress.set('Stopping…');
    this.#onInterrupt?.();
    this.#screen.endAnswer();
    this.#screen.lineStart();
    this.#screen.write(this.#screen.paint('yellow', 'stopping… the session is kept') + '\n');
  }

  /** The root's answer asks for actions: the spinner names the first, then each next as the one before ends. */
  #stepped(event: Extract<WorkerEvent, { type: 'step' }>): void {
    this.#pendingCalls = event.turn.blocks.flatMap((b) =>
      b.type === 'tool_use' && b.providerExecuted !== true ? [`${sanitize(b.name)}(${formatArgs(b.args)})`] : [],
    );
    this.#progress.set(this.#pendingCalls.length === 0 ? 'Thinking…' : `Running ${this.#pendingCalls[0]}…`);
  }

  /** A question, one at a time, with the live list of workers taken away while it is asked. */
  #dialog<T>(ask: () => Promise<T>): Promise<T> {
    return this.#input.exclusive(() => this.#screen.withoutFooter(ask));
  }

  // The root worker: its answer streams straight out after `Golem: `.

  #onRootEvent(event: BoxedEvent): void {
    const screen = this.#screen;
    switch (event.type) {
      case 'worker-start':
        this.#rootStreamed.set(event.worker.id, '');
        return;
      case 'text-delta': {
        const text = sanitize(event.text);
        const streamed = this.#rootStreamed.get(event.worker.id);
        if (streamed !== undefined) this.#rootStreamed.set(event.worker.id, streamed + text);
        if (!this.#stopping) this.#progress.set('Writing…');
        screen.streamAnswer(text);
        return;
      }
      case 'action': {
        screen.endAnswer();
        screen.lineStart();
        for (const line of drawCall(screen, event, screen.width())) screen.write(line + '\n');
        this.#pendingCalls.shift();
        const next = this.#pendingCalls[0];
        if (!this.#stopping) this.#progress.set(next === undefined ? 'Thinking…' : `Running ${next}…`);
        return;
      }
      case 'worker-end': {
        const streamed = this.#rootStreamed.get(event.worker.id);
        this.#rootStreamed.delete(event.worker.id);
        // Without its worker-start there is no telling what streamed: the text is not repeated.
        const text = sanitize(event.text).trim();
        if (streamed !== undefined && text !== '' && !streamed.includes(text) && !screen.answering) screen.streamAnswer(text);
        screen.endAnswer();
        // A run the user stopped is not a failure: the chat says "Stopped." itself.
        if (event.status === 'failed' && !this.#stopping) screen.write(screen.paint('red', '(failed)') + '\n');
        return;
      }
    }
  }
}

/** The color of each risk; unknown has its own, since the rules could not judge it. */
const RISK_STYLE: Record<ApprovalRequest['risk'], Style> = { low: 'green', medium: 'yellow', unknown: 'magenta', high: 'red' };

/** What an MCP server changed in the tool asked about, as lines: the description and input schema, before and now. */
function toolChangeLines(change: ToolChange | undefined): string[] {
  if (change === undefined) return [];
  const lines = ['The MCP server changed this tool:'];
  const { before, now } = change;
  if (before.description !== now.description) lines.push(`  description before: ${before.description}`, `  description now:    ${now.description}`);
  const [schemaBefore, schemaNow] = [JSON.stringify(before.inputSchema), JSON.stringify(now.inputSchema)];
  if (schemaBefore !== schemaNow) lines.push(`  input schema before: ${schemaBefore}`, `  input schema now:    ${schemaNow}`);
  return lines;
}
