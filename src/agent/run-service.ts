/**
 * `ws.runs` (issue 36): every run of a session's agent goes through here, whoever starts it
 * (the page, AG-UI, the AI SDK route, the terminal, `golem ask`, MCP's `send_message`). A run
 * is claimed (its lease, and its record in the store: run-records.ts), run in the background,
 * renewed while it runs, and released with how it ended and what its model calls used. It
 * can be read (`get`, `list`) and cancelled (`cancel`) from any process on the workspace: the
 * holder hears of the cancel (at once in its own process, on its next catch-up in another)
 * and stops, aborting a model call in flight.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { GolemError, toGolemError } from '../core/errors.js';
import { decodeCursor, encodeCursor, newestFirst, type CursorPoint } from '../core/page-cursor.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Turn } from '../core/records.js';
import type { RunLease } from './agent-records.js';
import { RunLeases, type HeldLease, type RunLeaseOptions } from './run-leases.js';
import { addUsage, NO_USAGE, RUN_STATUSES, type RunEnd, type RunRecord, type RunStatus, type RunUsage } from './run-records.js';
import type { WorkerOutcome } from './worker/index.js';

/** How a run is claimed. */
export interface RunClaimOptions {
  /** The run's id (default: a new one; with `resume`, the session's paused run's). */
  id?: string;
  /** Resume the session's paused run, under its id, when it has one (an approval answered, a client's result). */
  resume?: boolean;
  /** Who runs it, for people reading a list or a refusal (default: the service's). */
  by?: string;
  /** Whether another process may take it over and resume it when this one dies (default: the service's, true). */
  resumable?: boolean;
  /** Stops the run too (Esc in a terminal, a client gone). */
  signal?: AbortSignal;
  /** Told once when the run must stop before its end: its lease was taken over (LEASE_LOST) or it was cancelled (RUN_CANCELLED). */
  onStop?: (error: GolemError) => void;
}

/** A claimed run, before it runs: `run` starts it, `drop` gives it up. */
export interface RunClaim {
  readonly id: string;
  readonly sessionId: string;
  /** Aborted when the run must stop: cancelled, taken over, or the caller's own signal. */
  readonly signal: AbortSignal;
  /**
   * Runs `body` (a worker's run, or any model work) in the background, holding the lease until
   * it ends; its outcome says how the run ended (a worker's; none: it succeeded).
   */
  run(body: (run: { id: string; signal: AbortSignal }) => Promise<WorkerOutcome | void>): RunHandle;
  /** Gives the claim up before it runs: the lease is let go, and a new run leaves no record. */
  drop(): Promise<void>;
}

/** What a run came to: its record, and the worker's outcome or the error that ended it. */
export interface RunResult {
  record: RunRecord | undefined;
  outcome?: WorkerOutcome;
  error?: GolemError;
}

export interface RunHandle {
  readonly id: string;
  readonly sessionId: string;
  /** Resolves when the run ended and its record says so (never rejects). */
  readonly done: Promise<RunResult>;
  /** Asks the run to stop (as `ws.runs.cancel(id)`). */
  cancel(): Promise<void>;
  /**
   * Lets the run's lease go now, while it waits for a person (its process is closing): it is
   * recorded as paused, and resumed wherever it is asked for next.
   */
  pause(): Promise<void>;
}

export interface RunListOptions {
  sessionId?: string;
  status?: RunStatus;
  /** At most this many (1 to 500; default 50). */
  limit?: number;
  /** Where the previous page ended (its `cursor`). */
  cursor?: string;
}

export interface RunPage {
  /** Newest first. */
  runs: RunRecord[];
  /** Present when there are more: pass it to get the next page. */
  cursor?: string;
}

/** How often a holder on SQLite catches up with other processes' commands, to hear of a cancel. */
const CANCEL_POLL_MS = 500;

interface Held {
  controller: AbortController;
  stop: (error: GolemError) => void;
}

export class RunService {
  readonly #manager: WorkspaceManager;
  readonly #leases: RunLeases;
  readonly #by: string;
  /** The runs this service holds now, by id. */
  readonly #held = new Map<string, Held>();
  readonly #offs: (() => void)[];
  /** On a store that tells no process of another's commits (SQLite), how a holder hears of a cancel: it catches up this often. */
  #polling: NodeJS.Timeout | undefined;

  constructor(manager: WorkspaceManager, options: RunLeaseOptions = {}) {
    this.#manager = manager;
    this.#by = options.by ?? `pid ${process.pid} on ${hostname()}`;
    this.#leases = new RunLeases(manager, { ...options, by: this.#by });
    // A cancel: committed here (at once), or by another process (heard when this one catches up).
    const check = () => {
      for (const [id, held] of this.#held) {
        const cancel = this.get(id)?.cancel;
        if (cancel !== undefined) held.stop(cancelled(id, cancel.by));
      }
    };
    this.#offs = [
      manager.events.on('run:cancel', check),
      manager.events.on('index:rebuilt', (event) => {
        if (event.collections === undefined || event.collections.includes('run_record')) check();
      }),
    ];
  }

  /** How long a lease lasts unless renewed. */
  get ttlMs(): number {
    return this.#leases.ttlMs;
  }

  get(id: string): RunRecord | undefined {
    return this.#manager.workspace().collection('run_record').get(id);
  }

  /** The runs, newest first, a page at a time. INVALID_ARGUMENT for a bad status, limit or cursor. */
  list(options: RunListOptions = {}): RunPage {
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw new GolemError('INVALID_ARGUMENT', `limit is a whole number from 1 to 500, not ${String(options.limit)}`);
    if (options.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(options.status))
      throw new GolemError('INVALID_ARGUMENT', `status is one of ${RUN_STATUSES.join(', ')}, not "${String(options.status)}"`);
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const runs = [...this.#manager.workspace().collection('run_record').values()]
      .filter((r) => (options.sessionId === undefined || r.sessionId === options.sessionId) && (options.status === undefined || r.status === options.status))
      .sort((a, b) => newestFirst(pointOf(a), pointOf(b)))
      .filter((r) => after === undefined || newestFirst(pointOf(r), after) > 0);
    const page = runs.slice(0, limit);
    const last = page.at(-1);
    return { runs: page, ...(runs.length > limit && last !== undefined && { cursor: encodeCursor(pointOf(last)) }) };
  }

  /**
   * Asks a run to stop, from any process: its holder stops at its next step boundary (a model
   * call in flight is aborted); one no live process holds is cancelled at once. Resolves with
   * its record as the cancel left it. RUN_NOT_FOUND for no such run.
   */
  async cancel(id: string, options: { by?: string } = {}): Promise<RunRecord> {
    const result = await this.#manager.dispatch({ type: 'run:cancel', payload: { runId: id, by: options.by ?? this.#by } });
    if (!result.ok) throw result.error;
    return result.value;
  }

  /**
   * Claims the session's run (SESSION_BUSY while a run holds it, here or in another process).
   * Nothing runs until `run`; `drop` gives it up.
   */
  async claim(sessionId: string, options: RunClaimOptions = {}): Promise<RunClaim> {
    const id = options.id ?? (options.resume === true ? this.#paused(sessionId) : undefined) ?? randomUUID();
    const controller = new AbortController();
    let stopped = false;
    const stop = (error: GolemError) => {
      if (stopped) return;
      stopped = true;
      controller.abort(error);
      options.onStop?.(error);
    };
    const lease = await this.#leases.claim(sessionId, id, stop, {
      ...(options.by !== undefined && { by: options.by }),
      ...(options.resumable !== undefined && { resumable: options.resumable }),
    });
    const mine: Held = { controller, stop };
    this.#held.set(id, mine);
    this.#poll();
    // Cancelled while its last holder still had it (and then died): it stops as soon as it starts here.
    const asked = this.get(id)?.cancel;
    if (asked !== undefined) stop(cancelled(id, asked.by));
    const outer = options.signal;
    const onOuter = () => controller.abort(outer?.reason);
    if (outer?.aborted === true) onOuter();
    else outer?.addEventListener('abort', onOuter, { once: true });
    const letGo = () => {
      outer?.removeEventListener('abort', onOuter);
      if (this.#held.get(id) === mine) this.#held.delete(id);
      this.#poll();
    };
    let started = false;
    return {
      id,
      sessionId,
      signal: controller.signal,
      run: (body) => {
        if (started) throw new GolemError('INVALID_ARGUMENT', `run ${id} was started already`);
        started = true;
        const done = this.#run(id, sessionId, lease, controller, body).finally(letGo);
        return { id, sessionId, done, cancel: async () => void (await this.cancel(id)), pause: () => lease.release({ status: 'paused' }) };
      },
      drop: async () => {
        if (started) return;
        started = true;
        letGo();
        await lease.release({ status: 'dropped' });
      },
    };
  }

  /** The runs of other processes whose lease lapsed (their process died or stalls): runs to take over under their own id. */
  lapsed(): RunLease[] {
    return this.#leases.lapsed();
  }

  /** Catches up every CANCEL_POLL_MS while this service holds a run, on a store that does not tell it of other processes' commits. */
  #poll(): void {
    const wanted = this.#held.size > 0 && this.#manager.store.subscribe === undefined && !this.#manager.closed;
    if (wanted && this.#polling === undefined) {
      this.#polling = setInterval(() => void this.#manager.refresh().catch(() => undefined), CANCEL_POLL_MS);
      this.#polling.unref();
    } else if (!wanted && this.#polling !== undefined) {
      clearInterval(this.#polling);
      this.#polling = undefined;
    }
  }

  /** Stops renewing and guarding (the runs held here are left to lapse). */
  dispose(): void {
    clearInterval(this.#polling);
    for (const off of this.#offs) off();
    this.#leases.dispose();
  }

  async #run(
    id: string,
    sessionId: string,
    lease: HeldLease,
    controller: AbortController,
    body: (run: { id: string; signal: AbortSignal }) => Promise<WorkerOutcome | void>,
  ): Promise<RunResult> {
    // What the run's model calls use: each assistant turn of its tree written here while it runs.
    let usage: RunUsage = NO_USAGE;
    const rootOf = (s: string) => this.#manager.workspace().collection('worker').get(s)?.rootSessionId ?? s;
    const off = this.#manager.events.on('turn:add', (event) => {
      const turn = event.result as Turn;
      if (turn.role === 'assistant' && rootOf(turn.sessionId) === sessionId) usage = addUsage(usage, usageOf(turn));
    });
    let outcome: WorkerOutcome | undefined;
    let error: GolemError | undefined;
    try {
      outcome = (await body({ id, signal: controller.signal })) ?? undefined;
    } catch (thrown) {
      error = toGolemError(thrown);
    } finally {
      off();
    }
    const reason: unknown = controller.signal.reason;
    const stoppedBy = controller.signal.aborted && GolemError.isInstance(reason) ? reason : undefined;
    const end = endOf(outcome, error, stoppedBy);
    await lease.release({ ...end, usage }).catch((thrown: unknown) => {
      this.#manager.events.emit('listener:error', { type: 'runs:release', error: thrown });
    });
    return { record: this.get(id), ...(outcome !== undefined && { outcome }), ...(error !== undefined && { error }) };
  }

  /** The session's run that waits (paused on an approval or a client's result), newest first. */
  #paused(sessionId: string): string | undefined {
    return this.list({ sessionId, status: 'paused', limit: 1 }).runs[0]?.id;
  }
}

/** How a run ended, for its record: from the worker's outcome, or the error, or why it was stopped. */
function endOf(outcome: WorkerOutcome | undefined, error: GolemError | undefined, stoppedBy: GolemError | undefined): RunEnd {
  const failure = (e: GolemError) => ({ code: e.code, message: e.message });
  if (stoppedBy?.code === 'RUN_CANCELLED') return { status: 'cancelled', ...(outcome !== undefined && { outcome: outcome.status }), error: failure(stoppedBy) };
  if (error !== undefined) return { status: 'failed', error: failure(error) };
  if (outcome === undefined) return { status: 'succeeded' };
  switch (outcome.status) {
    case 'done':
    case 'question':
      return { status: 'succeeded', outcome: outcome.status };
    case 'paused':
      return { status: 'paused', outcome: outcome.status };
    case 'aborted':
      return { status: 'cancelled', outcome: outcome.status, error: failure(stoppedBy ?? new GolemError('ABORTED', 'the run was stopped')) };
    case 'step_limit':
      return {
        status: 'failed',
        outcome: outcome.status,
        error: { code: 'STEP_LIMIT', message: `stopped after ${outcome.steps} model calls (the step limit)` },
      };
    default:
      return { status: 'failed', outcome: outcome.status, error: failure(outcome.error ?? new GolemError('INTERNAL', `the run ended: ${outcome.status}`)) };
  }
}

function usageOf(turn: Turn): RunUsage {
  const usage = turn.meta.usage as { inputTokens?: unknown; outputTokens?: unknown; cachedInputTokens?: unknown } | undefined;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : 0);
  const cost = turn.meta.cost;
  return {
    inputTokens: count(usage?.inputTokens),
    outputTokens: count(usage?.outputTokens),
    cachedInputTokens: count(usage?.cachedInputTokens),
    cost: typeof cost === 'number' && Number.isFinite(cost) ? cost : usage === undefined ? 0 : null,
    modelCalls: 1,
  };
}

function cancelled(id: string, by: string): GolemError {
  return new GolemError('RUN_CANCELLED', `run ${id} was cancelled${by === '' ? '' : ` by ${by}`}`, { details: { runId: id } });
}

function pointOf(record: RunRecord): CursorPoint {
  return { at: record.createdAt, id: record.id };
}
