/**
 * The chat route's streams (chat.ts): a run's log told as one assistant message of the AI
 * SDK's UI message stream (ui-message-chunks.ts), with the UI instances its agent changed at
 * their places, live once caught up; or a message told from the thread's turns alone, nothing
 * running. A run the route started is a `ChatRun`: how it started (the user's message, or
 * answers that resumed the message's earlier run, kept while this process has it) and the UI
 * changes it made, so a client that comes back gets the message it had.
 */
import type { ApprovalRecord } from '../agent/agent-plugin.js';
import type { Turn, TurnRef } from '../core/records.js';
import type { RunLog, RunLogEntry } from '../agent/run-log.js';
import { UIMessageChunks, type MessageContext } from './ui-message-chunks.js';
import { randomUUID } from 'node:crypto';
import { eventId, type RunSource } from './run-source.js';
import { queuedView, type WireSend } from './wire-policy.js';
import { uiMessageStreamResponse, type FinishReason, type UIInstancePart, type UIMessageChunk } from './ui-message-stream.js';

/** How a chat run started. */
export type ChatStart =
  /** The user's message (the client's id for it). */
  | { type: 'message'; messageId: string }
  /**
   * Answers to these approvals resumed the message (`from`: the thread's head then); the run
   * before it in the message, when this process started it and keeps it.
   */
  | { type: 'answers'; approvalIds: ReadonlySet<string>; from: TurnRef | null; previous: ChatRun | undefined };

/** A run the chat route started: its log, the message it builds, how it started, and the UI instances its agent changed, each at its place in the log. */
export class ChatRun {
  readonly log: RunLog;
  readonly context: MessageContext;
  readonly start: ChatStart;
  readonly ui: { at: number; part: UIInstancePart }[] = [];
  readonly #listeners = new Set<() => void>();

  constructor(log: RunLog, context: MessageContext, start: ChatStart) {
    this.log = log;
    this.context = context;
    this.start = start;
  }

  /** Whether answers to all these approvals started the run. */
  answered(approvalIds: readonly string[]): boolean {
    const { start } = this;
    return start.type === 'answers' && approvalIds.every((id) => start.approvalIds.has(id));
  }

  /** The runs of the message before this one, oldest first (its first the user's message's), or undefined when this process has not all of them. */
  earlier(): ChatRun[] | undefined {
    const runs: ChatRun[] = [];
    let start = this.start;
    while (start.type === 'answers') {
      const { previous } = start;
      if (previous === undefined) return undefined;
      runs.unshift(previous);
      start = previous.start;
    }
    return runs;
  }

  /** An instance changed before the log's entry `at`. */
  push(part: UIInstancePart, at: number): void {
    this.ui.push({ at, part });
    for (const listener of this.#listeners) listener();
  }

  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}

/** How a log's stream goes. */
export interface RunStreamOptions {
  /** The chat run the log is (its UI changes are told with it). */
  run?: ChatRun | undefined;
  /** The first entry told (default 0: the run from its start). */
  from?: number;
  /** What the message holds before the log's first entry told (its earlier turns, or runs). */
  before?: (chunks: UIMessageChunks) => UIMessageChunk[];
  /** The run waits in memory for this entry's approval (a page's dialog), still pending: the message ends with it. */
  asked?: (entry: RunLogEntry) => ApprovalRecord | undefined;
  /** Only the entries after this seq are sent (a client's `Last-Event-ID`), and the message's start is not sent again. */
  after?: number;
}

/** A log's stream: `before`, then its entries from `from` and the UI changes in their order, live once caught up. */
export function runStream(log: RunLog, context: MessageContext, options: RunStreamOptions = {}): Response {
  return uiMessageStreamResponse((sink) => {
    const chunks = new UIMessageChunks(context);
    const after = options.after ?? 0;
    const write = (list: UIMessageChunk[], seq?: number) => {
      if (seq !== undefined && seq <= after) return;
      list.forEach((chunk, i) => sink.write(chunk, seq !== undefined && i === list.length - 1 ? eventId(log.runId, seq) : undefined));
    };
    if (after === 0) write(chunks.start());
    // Told again only to build the message's state: a client that came back with an event id has them.
    const before = options.before?.(chunks) ?? [];
    if (after === 0) write(before);
    const from = options.from ?? 0;
    const ui = options.run?.ui ?? [];
    let shown = ui.findIndex((change) => change.at >= from);
    if (shown === -1) shown = ui.length;
    const flush = (before: number) => {
      for (let next = ui[shown]; next !== undefined && next.at <= before; next = ui[++shown]) write(chunks.ui(next.part));
    };
    const offLog = log.follow((entry, index) => {
      flush(index);
      const seq = log.first + index;
      write(chunks.entry(entry), seq);
      if (entry.type === 'end') return sink.end();
      const asked = options.asked?.(entry);
      if (asked === undefined) return;
      write(chunks.paused(asked));
      sink.end();
    }, from);
    const offUi = options.run?.listen(() => flush(Infinity));
    flush(log.entries().length);
    return () => {
      offLog();
      offUi?.();
    };
  });
}

/**
 * The stream of a run another process holds, from its kept events (after seq `after`): its
 * message from where the client has it, live to its end. The UI instances it changes are not
 * among its events: the client reads them from the thread's state.
 */
export function sourceStream(source: RunSource, context: MessageContext, after = 0): Response {
  return uiMessageStreamResponse((sink) => {
    const chunks = new UIMessageChunks(context);
    const start = chunks.start();
    if (after === 0) start.forEach((chunk) => sink.write(chunk));
    // From the run's start, whatever the client has: the message's state (its open text, its calls' parts) is built from
    // every entry, and only those after `after` are sent.
    return source.follow((entry, seq) => {
      const out = chunks.entry(entry);
      if (seq > after) out.forEach((chunk, i) => sink.write(chunk, i === out.length - 1 ? eventId(source.runId, seq) : undefined));
      if (entry.type === 'end') sink.end();
    }, 0);
  });
}

/**
 * A message kept for the thread's run (queued, or steering it): an assistant message with no
 * parts that says so in a transient `data-golem-queued` chunk (useChat's `onData` gets it) and
 * finishes. The message becomes a user turn when its run takes it.
 */
export function queuedStream(sent: Extract<WireSend, { type: 'queued' }>): Response {
  return uiMessageStreamResponse((sink) => {
    const chunks: UIMessageChunk[] = [
      { type: 'start', messageId: randomUUID() },
      { type: 'data-golem-queued', data: queuedView(sent), transient: true },
      { type: 'finish', finishReason: 'stop' },
    ];
    for (const chunk of chunks) sink.write(chunk);
    sink.end();
    return () => undefined;
  });
}

/** The runs of a message told again, as they streamed (their UI changes at their places), each paused run's end without its finish. */
export function toldAgain(chunks: UIMessageChunks, runs: readonly ChatRun[]): UIMessageChunk[] {
  const out: UIMessageChunk[] = [];
  for (const run of runs) {
    if (run.start.type === 'answers') chunks.resumedBy(run.context.answered ?? []);
    let shown = 0;
    for (const [index, entry] of run.log.entries().entries()) {
      for (let next = run.ui[shown]; next !== undefined && next.at <= index; next = run.ui[++shown]) out.push(...chunks.ui(next.part));
      out.push(...(entry.type === 'end' ? chunks.endOfCycle(entry) : chunks.entry(entry)));
    }
  }
  return out;
}

/** What a message told from the turns holds. */
export interface ToldMessage {
  /** Chunks told first (results of calls the turns do not hold, for parts the client has). */
  first: readonly UIMessageChunk[];
  turns: readonly Turn[];
  /** The approvals on record for their calls. */
  approvals: readonly ApprovalRecord[];
  finishReason: FinishReason;
}

/** A message told from the thread's turns, nothing running: `first`, the turns, then `finish`. */
export function turnsStream(context: MessageContext, told: ToldMessage): Response {
  return uiMessageStreamResponse((sink) => {
    const chunks = new UIMessageChunks(context);
    const all = [...chunks.start(), ...told.first, ...chunks.turns(told.turns, told.approvals), ...chunks.finish(told.finishReason)];
    for (const chunk of all) sink.write(chunk);
    sink.end();
    return () => undefined;
  });
}
