/**
 * One run's stream of work (issue 36): what the page, AG-UI and the AI SDK route show of a run,
 * as Golem's events, not any protocol's. Each entry has a `seq`, from 1 for a run's first and
 * on through its take-overs and resumptions (a run resumed under its id goes on after the
 * last entry it kept). Followers in the run's own process are told each entry as it is pushed;
 * the entries are also kept in the store a batch at a time (`keep`, see run-event-store.ts), so
 * that any process can follow the run (`ws.runs.follow`) or come back to it after a lost
 * connection. A batch goes at most `batchMs` after its first entry, at once for an entry the
 * run then waits on (an approval, a client's call) and with the run's release for its end.
 */
import type { WorkerEvent } from './ui-adapter.js';
import type { WorkerOutcome } from './worker/outcome.js';
import type { GolemError } from '../core/errors.js';

/** How a run ended: the worker's outcome, or the error that ended it before an outcome. */
export type RunEnd = { outcome: WorkerOutcome; error?: undefined } | { outcome?: undefined; error: GolemError };

/**
 * A call of a client's own tool (an AG-UI frontend tool, an AI SDK tool without `execute`):
 * the run waits for the client to send its result.
 */
export interface ClientCall {
  callId: string;
  name: string;
  input: unknown;
}

export type RunLogEntry =
  | { type: 'event'; event: WorkerEvent }
  /** The run waits for the client's result of this call. */
  | { type: 'client-call'; call: ClientCall }
  /** The run waits, in memory, for the answer to this approval (a page may give it, or a protocol client's resume). */
  | { type: 'approval'; approvalId: string }
  | { type: 'end'; end: RunEnd };

/** An entry with its place in the run. */
export interface SeqEntry {
  seq: number;
  entry: RunLogEntry;
}

/** A batch of entries to keep: `entries[i]` has seq `first + i`. */
export interface RunLogBatch {
  first: number;
  entries: RunLogEntry[];
}

export interface RunLogOptions {
  /** The seq of the log's first entry (default 1; a run resumed or taken over goes on after what it kept). */
  first?: number;
  /** Keeps a batch (in the store); called one batch at a time, in order. A failure is reported, and the run goes on. */
  keep?: (batch: RunLogBatch) => Promise<void>;
  /** Told when `keep` failed. */
  onKeepError?: (error: unknown) => void;
  /** How long an entry waits for others to be kept with it (default RUN_LOG_BATCH_MS, 12 ms). */
  batchMs?: number;
}

/** How long an entry waits, by default, for others to be kept with it. */
export const RUN_LOG_BATCH_MS = 12;

/** An entry the run waits on after pushing it: kept at once, so another process's follower sees it now. */
const urgent = (entry: RunLogEntry) => entry.type === 'approval' || entry.type === 'client-call';

export class RunLog {
  readonly sessionId: string;
  readonly runId: string;
  /** The seq of this log's first entry. */
  readonly first: number;
  readonly #entries: RunLogEntry[] = [];
  readonly #listeners = new Set<(entry: RunLogEntry, index: number) => void>();
  readonly #options: RunLogOptions;
  #end: RunEnd | undefined;
  /** Entries pushed and not yet handed to `keep`: from `#entries[#kept]` on. */
  #kept = 0;
  #timer: NodeJS.Timeout | undefined;
  /** The last `keep` called (each waits for the one before). */
  #keeping: Promise<void> = Promise.resolve();

  constructor(sessionId: string, runId: string, options: RunLogOptions = {}) {
    this.sessionId = sessionId;
    this.runId = runId;
    this.first = options.first ?? 1;
    this.#options = options;
  }

  /** How the run ended; undefined while it runs. */
  get end(): RunEnd | undefined {
    return this.#end;
  }

  /** The seq the next entry gets. */
  get nextSeq(): number {
    return this.first + this.#entries.length;
  }

  /** The entries so far (a copy): the first has seq `first`. */
  entries(): RunLogEntry[] {
    return [...this.#entries];
  }

  /** Adds an entry: told to the followers here at once, kept with its batch. Nothing is added after the end. */
  push(entry: RunLogEntry): void {
    if (this.#end !== undefined) return;
    if (entry.type === 'end') this.#end = entry.end;
    const index = this.#entries.push(entry) - 1;
    for (const listener of [...this.#listeners]) listener(entry, index);
    if (entry.type === 'end') this.#listeners.clear();
    if (this.#options.keep === undefined || entry.type === 'end') return;
    if (urgent(entry)) this.#keep();
    else this.#timer ??= setTimeout(() => this.#keep(), this.#options.batchMs ?? RUN_LOG_BATCH_MS);
  }

  /**
   * Hands what is pushed and not kept to `keep` now (the end excepted: the run's release keeps
   * it); resolves once everything handed so far is kept (or failed to be).
   */
  flush(): Promise<void> {
    this.#keep();
    return this.#keeping;
  }

  /** Resolves once the batches handed to `keep` so far are kept (or failed to be), handing over nothing more. */
  keeping(): Promise<void> {
    return this.#keeping;
  }

  /** The entries not kept yet (the end among them), as one batch: what a release keeps with the run's end. */
  takeRest(): RunLogBatch | undefined {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#kept === this.#entries.length) return undefined;
    const batch = { first: this.first + this.#kept, entries: this.#entries.slice(this.#kept) };
    this.#kept = this.#entries.length;
    return batch;
  }

  #keep(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const keep = this.#options.keep;
    // The end is kept by the release that ends the run.
    const upTo = this.#end === undefined ? this.#entries.length : this.#entries.length - 1;
    if (keep === undefined || this.#kept >= upTo) return;
    const batch = { first: this.first + this.#kept, entries: this.#entries.slice(this.#kept, upTo) };
    this.#kept = upTo;
    this.#keeping = this.#keeping.then(() => keep(batch)).catch((error: unknown) => this.#options.onKeepError?.(error));
  }

  /**
   * Calls `listener` with each entry from index `from` (default: the first), those pushed so
   * far at once, then each new one; after the end, nothing more. Returns the unsubscribe.
   */
  follow(listener: (entry: RunLogEntry, index: number) => void, from = 0): () => void {
    const past = this.#entries.slice(Math.max(0, from));
    const start = Math.max(0, from);
    past.forEach((entry, i) => listener(entry, start + i));
    if (this.#end !== undefined) return () => undefined;
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}
