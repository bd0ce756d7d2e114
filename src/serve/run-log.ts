/**
 * One run's stream of work, kept while it runs and for a while after it ends, so that the
 * clients of a protocol route (AG-UI over SSE, the AI SDK's UI message stream) can follow a
 * run they did not start, or come back to one they lost the connection to: a follower gets
 * every entry from the run's start (or from the entry it names), then each new one as it
 * comes, then the end. Each route translates the entries into its own protocol; the log
 * holds Golem's events, not any protocol's.
 */
import type { WorkerEvent } from '../agent/ui-adapter.js';
import type { WorkerOutcome } from '../agent/worker/index.js';
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

export class RunLog {
  readonly sessionId: string;
  readonly runId: string;
  readonly #entries: RunLogEntry[] = [];
  readonly #listeners = new Set<(entry: RunLogEntry, index: number) => void>();
  #end: RunEnd | undefined;

  constructor(sessionId: string, runId: string) {
    this.sessionId = sessionId;
    this.runId = runId;
  }

  /** How the run ended; undefined while it runs. */
  get end(): RunEnd | undefined {
    return this.#end;
  }

  /** The entries so far (a copy). */
  entries(): RunLogEntry[] {
    return [...this.#entries];
  }

  push(entry: RunLogEntry): void {
    if (this.#end !== undefined) return;
    if (entry.type === 'end') this.#end = entry.end;
    const index = this.#entries.push(entry) - 1;
    for (const listener of [...this.#listeners]) listener(entry, index);
    if (entry.type === 'end') this.#listeners.clear();
  }

  /**
   * Calls `listener` with each entry from `from` (default: the first), those logged so far
   * at once, then each new one; after the end, nothing more. Returns the unsubscribe.
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
