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
import type { ContentBlock, JsonObject } from '../core/blocks.js';
import { GolemError, toGolemError, unwrap } from '../core/errors.js';
import { decodeCursor, encodeCursor, newestFirst, type CursorPoint } from '../core/page-cursor.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Turn } from '../core/records.js';
import type { RunLease } from './agent-records.js';
import { RunLeases, type HeldLease, type RunLeaseOptions } from './run-leases.js';
import { DEFAULT_INBOX_LIMIT, inboxOf, RUN_POLICIES, type InboxMessage, type RunPolicy } from './inbox.js';
import { leaseOf, live } from './run-commands.js';
import type { RunLog } from './run-log.js';
import { type RunLogEntry, type SeqEntry } from './run-log.js';
import { keeperOf, type Keeper } from './run-keeper.js';
import { followRun, type FollowOptions } from './run-follow.js';
import { addUsage, endOf, NO_USAGE, usageOf, RUN_STATUSES, type RunCancelOutcome, type RunRecord, type RunStatus, type RunUsage } from './run-records.js';
import type { Worker, WorkerOptions, WorkerOutcome } from './worker/index.js';
import type { WorkerEvent } from './ui-adapter.js';
import type { Session } from '../prompt/session.js';

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
  /** The run's events: push what the run does (`WorkerOptions.onEvent`); kept in the store for any process to follow. Its end is the service's. */
  readonly log: RunLog;
  /**
   * Runs `body` (a worker's run, or any model work) in the background, holding the lease until
   * it ends; its outcome says how the run ended (a worker's; none: it succeeded).
   */
  run(body: (run: RunContext) => Promise<WorkerOutcome | void>): RunHandle;
  /** Gives the claim up before it runs: the lease is let go, and a new run leaves no record. */
  drop(): Promise<void>;
}

/** What a claimed run's body is given. */
export interface RunContext {
  id: string;
  /** The run's events (the claim's `log`). */
  log: RunLog;
  /** Aborted when the run must stop. */
  signal: AbortSignal;
  /** Delivers the messages sent with the `steer` policy as user turns: give it to the worker (`WorkerOptions.steer`). */
  steer: () => Promise<number>;
}

/** What `send` did with a message: queued behind the session's run, or nothing (no run holds it: start one with the message). */
export type SendResult = { status: 'idle' } | { status: 'queued'; message: InboxMessage; runId: string };

/** A message for `send`: its blocks, and optionally the id its user turn takes and what the turn keeps. */
export interface RunMessage {
  blocks: ContentBlock[];
  id?: string;
  meta?: JsonObject;
}

/** How the service runs: its leases, and its inbox's limit and default policy. */
export interface RunServiceOptions extends RunLeaseOptions {
  /** How many messages a session's inbox holds (default 50): past it, INBOX_FULL. */
  inboxLimit?: number;
  /** What `send` does when no policy is given (default 'enqueue'). */
  policy?: RunPolicy;
  /** Whether a run's events are kept in the store for other processes to follow (default true). */
  keepEvents?: boolean;
  /** How long an event waits to be kept with others (default 12 ms): see RunLog. */
  batchMs?: number;
  /** What `start` needs (createWorkspace gives ws.runs them): a worker made, a session found. */
  worker?: (options: WorkerOptions) => Worker;
  session?: (sessionId: string) => Session | undefined;
}

/** What `start` runs: a session, its user's message, and the worker's options. */
export interface RunStartRequest extends Omit<RunClaimOptions, 'onStop'> {
  sessionId: string;
  /** The user's message (none: the session goes on from its head, as a resumed run does). */
  input?: string | ContentBlock[];
  agent: Omit<WorkerOptions, 'session' | 'steer'>;
}

/** A started run: its handle, and its events (from its start, or after a seq), live to its end. */
export interface StartedRun extends RunHandle {
  events(after?: number): AsyncGenerator<SeqEntry, void, undefined>;
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
  /** Only the runs this lets through (e.g. those of sessions a user may see); pages still fill. */
  where?: (run: RunRecord) => boolean;
}

/** How many runs a page of `list` holds when the caller names no limit. */
export const DEFAULT_RUN_PAGE = 50;

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

export type { FollowOptions };

export class RunService {
  readonly #manager: WorkspaceManager;
  readonly #leases: RunLeases;
  readonly #by: string;
  readonly #inboxLimit: number;
  readonly #policy: RunPolicy;
  readonly #keepEvents: boolean;
  readonly #parts: Pick<RunServiceOptions, 'worker' | 'session'>;
  readonly #batchMs: number | undefined;
  /** The runs this service holds now, by id. */
  readonly #held = new Map<string, Held>();
  readonly #offs: (() => void)[];
  /** On a store that tells no process of another's commits (SQLite), how a holder hears of a cancel: it catches up this often. */
  #polling: NodeJS.Timeout | undefined;

  constructor(manager: WorkspaceManager, options: RunServiceOptions = {}) {
    const { inboxLimit = DEFAULT_INBOX_LIMIT, policy = 'enqueue', keepEvents = true, batchMs, worker, session, ...lease } = options;
    this.#parts = { ...(worker !== undefined && { worker }), ...(session !== undefined && { session }) };
    if (!Number.isInteger(inboxLimit) || inboxLimit < 1 || inboxLimit > 10_000)
      throw new GolemError('INVALID_ARGUMENT', `inboxLimit is a whole number from 1 to 10000, not ${String(inboxLimit)}`);
    this.#manager = manager;
    this.#by = lease.by ?? `pid ${process.pid} on ${hostname()}`;
    this.#leases = new RunLeases(manager, { ...lease, by: this.#by });
    this.#inboxLimit = inboxLimit;
    this.#policy = policyOf(policy);
    this.#keepEvents = keepEvents;
    this.#batchMs = batchMs;
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
    const limit = options.limit ?? DEFAULT_RUN_PAGE;
    if (!Number.isInteger(limit) || limit < 1 || limit > 500)
      throw new GolemError('INVALID_ARGUMENT', `limit is a whole number from 1 to 500, not ${String(options.limit)}`);
    if (options.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(options.status))
      throw new GolemError('INVALID_ARGUMENT', `status is one of ${RUN_STATUSES.join(', ')}, not "${String(options.status)}"`);
    const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);
    const runs = [...this.#manager.workspace().collection('run_record').values()]
      .filter(
        (r) =>
          (options.sessionId === undefined || r.sessionId === options.sessionId) &&
          (options.status === undefined || r.status === options.status) &&
          (options.where?.(r) ?? true),
      )
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
    return (await this.cancelling(id, options)).run;
  }

  /** `cancel`, and what it did: the holder asked to stop, the run cancelled at once (a dead holder here is not waited for), or it had ended. */
  async cancelling(id: string, options: { by?: string } = {}): Promise<{ run: RunRecord; outcome: RunCancelOutcome }> {
    const gone = await this.#leases.goneHolder(id);
    return unwrap(await this.#manager.dispatch({ type: 'run:cancel', payload: { runId: id, by: options.by ?? this.#by, ...gone } }));
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
    let keeper: Keeper;
    try {
      keeper = await keeperOf(this.#manager, sessionId, id, { keep: this.#keepEvents, ...(this.#batchMs !== undefined && { batchMs: this.#batchMs }) });
    } catch (error) {
      await lease.release({ status: 'dropped' });
      throw error;
    }
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
      log: keeper.log,
      run: (body) => {
        if (started) throw new GolemError('INVALID_ARGUMENT', `run ${id} was started already`);
        started = true;
        const done = this.#run(id, sessionId, lease, keeper, controller, body).finally(letGo);
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

  /**
   * A message for a session while a run holds it (here or in another process), by `policy`
   * (default: the service's, 'enqueue'): `reject` refuses it (SESSION_BUSY); `enqueue` keeps it
   * for the session's next run, which its holder starts once this one ends; `steer` gives it to
   * the running worker before its next model call; `interrupt` cancels the run and keeps it for
   * the next. Accepted messages are kept in the store and delivered once, in order, as user
   * turns. With no run on the session it does nothing and says `idle`: start a run with the
   * message. INVALID_ARGUMENT for an unknown policy; INBOX_FULL past the inbox's limit.
   */
  async send(sessionId: string, message: RunMessage, options: { policy?: RunPolicy; by?: string } = {}): Promise<SendResult> {
    const policy = policyOf(options.policy ?? this.#policy);
    // Whether a run holds it is the store's word (another process's claim may not have reached this one yet).
    await this.#manager.refresh();
    const lease = leaseOf(this.#manager.workspace(), sessionId);
    if (lease === undefined || !live(lease, new Date().toISOString())) return { status: 'idle' };
    if (policy === 'reject') {
      throw new GolemError('SESSION_BUSY', `session "${sessionId}" is running (run ${lease.runId}); send with another policy to queue the message`, {
        details: { sessionId, runId: lease.runId },
      });
    }
    const added = await this.#manager.dispatch({
      type: 'inbox:add',
      payload: {
        sessionId: lease.sessionId,
        id: message.id ?? this.#manager.newId(),
        blocks: message.blocks,
        policy,
        by: options.by ?? this.#by,
        limit: this.#inboxLimit,
        ...(message.meta !== undefined && { meta: message.meta }),
      },
    });
    if (!added.ok) throw added.error;
    // Not kept when the run ended meanwhile (its holder found nothing waiting); an interrupt stops the run it was accepted for.
    if (added.value === null) return { status: 'idle' };
    const { message: accepted, runId } = added.value;
    if (policy === 'interrupt') await this.cancel(runId, { by: options.by ?? this.#by });
    return { status: 'queued', message: accepted, runId };
  }

  /** The messages waiting for a session's next run or step, oldest first. */
  inbox(sessionId: string): InboxMessage[] {
    return inboxOf(this.#manager.workspace(), sessionId);
  }

  /** Takes back a message not delivered yet; MESSAGE_NOT_FOUND when none waits with that id. */
  async unsend(id: string): Promise<InboxMessage> {
    return unwrap(await this.#manager.dispatch({ type: 'inbox:remove', payload: { id } }));
  }

  /**
   * Delivers the session's oldest waiting message (of `policy`, when given) as a user turn at
   * its head: what the holder of its run does before the next step or run. Null when none waits.
   */
  async deliver(sessionId: string, policy?: Exclude<RunPolicy, 'reject'>): Promise<Turn | null> {
    const session = this.#manager.workspace().sessions.get(sessionId);
    if (session !== undefined) await this.#manager.load([sessionId]);
    const delivered = unwrap(await this.#manager.dispatch({ type: 'inbox:deliver', payload: { sessionId, ...(policy !== undefined && { policy }) } }));
    return delivered?.turn ?? null;
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
    keeper: Keeper,
    controller: AbortController,
    body: (run: RunContext) => Promise<WorkerOutcome | void>,
  ): Promise<RunResult> {
    const { log } = keeper;
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
      // At every step boundary: a command only when a steering message waits (as this process knows it: caught up on a
      // notice from PostgreSQL, by the holder's poll on SQLite), not a commit of nothing each step.
      const steer = async () => {
        let delivered = 0;
        while (this.inbox(sessionId).some((m) => m.policy === 'steer') && (await this.deliver(sessionId, 'steer')) !== null) delivered++;
        return delivered;
      };
      outcome = (await body({ id, log, signal: controller.signal, steer })) ?? undefined;
    } catch (thrown) {
      error = toGolemError(thrown);
    } finally {
      off();
    }
    const reason: unknown = controller.signal.reason;
    const stoppedBy = controller.signal.aborted && GolemError.isInstance(reason) ? reason : undefined;
    const end = endOf(outcome, error, stoppedBy);
    // The run's last events and its end are kept with its release; the followers here are told the end once it is released.
    await log.keeping();
    const last: RunLogEntry = { type: 'end', end: outcome !== undefined ? { outcome } : error !== undefined ? { error } : { outcome: succeeded() } };
    const rest = log.takeRest();
    const events = keeper.keeps ? keeper.encode({ first: rest?.first ?? log.nextSeq, entries: [...(rest?.entries ?? []), last] }) : undefined;
    await lease.release({ ...end, usage }, events).catch((thrown: unknown) => {
      this.#manager.events.emit('listener:error', { type: 'runs:release', error: thrown });
    });
    log.push(last);
    return { record: this.get(id), ...(outcome !== undefined && { outcome }), ...(error !== undefined && { error }) };
  }

  /**
   * Claims the session's run and runs a worker on it in the background (SESSION_BUSY while a
   * run holds it): `agent` is the worker's options, less what the run gives (its session, the
   * steer hook; its events go to the run's log and to `agent.onEvent`). `input` is the user's
   * message (none: the session goes on from its head). The handle's `events()` follows the run.
   */
  async start(request: RunStartRequest): Promise<StartedRun> {
    const { sessionId, input, agent, ...claiming } = request;
    const session = this.#parts.session?.(sessionId);
    const makeWorker = this.#parts.worker;
    if (makeWorker === undefined) throw new GolemError('INTERNAL', 'this run service starts no workers (use ws.runs, or claim and run)');
    if (session === undefined) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${sessionId}"`);
    const claim = await this.claim(sessionId, claiming);
    const handle = claim.run(({ signal, log, steer }) => {
      const onEvent = (event: WorkerEvent) => (log.push({ type: 'event', event }), agent.onEvent?.(event));
      return makeWorker({ ...agent, session, steer, onEvent }).run(input, { signal });
    });
    return { ...handle, events: (after = 0) => this.follow(handle.id, { after }) };
  }

  /**
   * A run's events, from any process: those kept so far (after `after`), then each as it is
   * kept, until the run's end or its pause (see `followRun`). RUN_NOT_FOUND for no such run.
   */
  follow(id: string, options: FollowOptions = {}): AsyncGenerator<SeqEntry, void, undefined> {
    return followRun(this.#manager, id, options);
  }

  /** The session's run that waits (paused on an approval or a client's result), newest first. */
  #paused(sessionId: string): string | undefined {
    return this.list({ sessionId, status: 'paused', limit: 1 }).runs[0]?.id;
  }
}

function policyOf(policy: unknown): RunPolicy {
  if (typeof policy === 'string' && (RUN_POLICIES as readonly string[]).includes(policy)) return policy as RunPolicy;
  throw new GolemError('INVALID_ARGUMENT', `policy is one of ${RUN_POLICIES.join(', ')}, not ${JSON.stringify(policy)}`);
}

/** The outcome of a run whose body said nothing of how it ended: it ended well. */
function succeeded(): WorkerOutcome {
  return { status: 'done', steps: 0, actions: [], turn: undefined };
}

function cancelled(id: string, by: string): GolemError {
  return new GolemError('RUN_CANCELLED', `run ${id} was cancelled${by === '' ? '' : ` by ${by}`}`, { details: { runId: id } });
}

function pointOf(record: RunRecord): CursorPoint {
  return { at: record.createdAt, id: record.id };
}
