/**
 * The runs `golem serve` makes of a session's agent: at most one per session, claimed with a
 * run lease (so one across the processes on a store, too), streamed to the pages, stopped on
 * request, and taken over from a process whose lease lapsed (it died or stalls), resuming
 * from the log.
 */
import type { ContentBlock } from '../core/blocks.js';
import { randomUUID } from 'node:crypto';
import type { Action } from '../action/action.js';
import { leaseOf, live } from '../agent/run-commands.js';
import type { RunLeaseOptions } from '../agent/run-leases.js';
import type { RunPolicy } from '../agent/inbox.js';
import { RunService, type RunClaim, type RunHandle, type RunMessage, type SendResult } from '../agent/run-service.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Trust } from '../action/action.js';
import type { Worker, WorkerOutcome } from '../agent/worker/index.js';
import { GolemError, toGolemError } from '../core/errors.js';
import { askParentAction, spawnWorkerAction } from '../agent/worker-tree.js';
import type { Workspace } from '../create-workspace.js';
import type { Session } from '../prompt/session.js';
import type { BrowserAdapter } from './browser-adapter.js';
import { pageTranslator } from './run-events.js';
import { RemoteRuns } from './remote-runs.js';
import type { RunLog } from '../agent/run-log.js';

/** The agent `golem serve` runs on a session when a page sends it a message. */
export interface ServeAgentOptions {
  model: ModelAdapter;
  /** Its actions; the UI tools (`ws.ui.actions()`: patch_ui_state, get_ui_state, list_ui_instances) are added, each unless one of its name is given. */
  actions?: Action[];
  /** Put first in its system prompt. */
  instructions?: string;
  /** The project its file actions work on. */
  project?: { root: string };
  /** Trust modes above the actions' defaults. */
  trust?: Readonly<Record<string, Trust>>;
  /** Offer sub-workers (default false). */
  subWorkers?: boolean;
  /** Offer plans: `propose_plan` and `update_plan`, the page's Plans panel shows them (default false). */
  plans?: boolean;
  /** Model calls at most per run (default 12). */
  maxSteps?: number;
  /**
   * The lease each run holds in the workspace (see RunLeases): while a process runs a
   * session, another refuses to; a run whose process died or stalls past its lease is
   * taken over and resumed by another `golem serve` process on the same store.
   */
  lease?: RunLeaseOptions;
}

/** How a run started by a protocol route (AG-UI, the AI SDK's stream) differs from a page's. */
export interface RunStartOptions {
  /**
   * Approvals pause the run (its outcome is 'paused', the approval pending in the workspace)
   * instead of waiting in a page: the client answers on its next request, and the run resumes
   * from the log then, in whichever process gets it.
   */
  pause?: boolean;
  /** Actions for this run only (a client's own tools), made with the run's log. */
  actions?: (log: RunLog) => Action[];
  /** Put after the agent's instructions, for this run only (a client's context). */
  instructions?: string;
}

/** How many threads' protocol-run options are kept for their resumed runs. */
const STARTED_KEPT = 10_000;

/** How long the log of an ended run is kept, for a client that comes back to it. */
const LOG_KEPT_MS = 5 * 60_000;

/** A run claimed for this process, before it starts (`ServeRuns.claim`; `run` starts it, `drop` gives it up). */
export interface Claim {
  runId: string;
  controller: AbortController;
  claim: RunClaim;
}

interface Run {
  controller: AbortController;
  done: Promise<void>;
  handle: RunHandle;
}

/** How long `close` waits for runs to end after aborting them. */
const CLOSE_GRACE_MS = 5_000;

/** Whether the error says another process runs the session (or took its run over). */
export const elsewhere = (error: unknown) => GolemError.isInstance(error) && (error.code === 'SESSION_BUSY' || error.code === 'LEASE_LOST');

/** The name of the worker's own action that starts a sub-worker (a client's tool may not take it). */
const spawnWorkerName = spawnWorkerAction(() => Promise.reject(new Error('never run'))).name;

const textOf = (blocks: readonly ContentBlock[]) => blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');

/** Names the chat after the first line of its first message (lists and approval paths show it). */
async function labelled(session: Session, text: string): Promise<void> {
  if (session.label === null && text !== '') await session.update({ label: text.split('\n')[0]?.slice(0, 60) ?? null });
}

export interface ServeRunsOptions {
  ws: Workspace;
  adapter: BrowserAdapter;
  agent: ServeAgentOptions | undefined;
  actions: Action[];
  /** Sends an event to every page. */
  broadcast(event: object): void;
  /** The session's runs changed (one started or ended). */
  changed(sessionId: string): void;
}

export class ServeRuns {
  readonly #o: ServeRunsOptions;
  readonly #runs = new Map<string, Run>();
  /** Each session's last run here, running or ended a short while ago. */
  readonly #logs = new Map<string, RunLog>();
  /** How each session's last protocol run was started: a run resumed on it (an answer, a take-over) starts the same way. */
  readonly #started = new Map<string, RunStartOptions>();
  /** Sessions a change is being made to (an edit, a version switch, a claim) before a run starts: taken before any await. */
  readonly #reserved = new Set<string>();
  /** The runs themselves (ws.runs' kind, with this server's lease): their leases and records. */
  readonly #service: RunService | undefined;
  /** The runs other processes hold, followed for the pages here. */
  readonly #remote: RemoteRuns;
  #sweeper: NodeJS.Timeout | undefined;
  #sweeping = false;
  #closed = false;

  constructor(options: ServeRunsOptions) {
    this.#o = options;
    if (options.agent !== undefined) this.#service = new RunService(options.ws.manager, options.agent.lease);
    this.#remote = new RemoteRuns(
      options.ws,
      (event) => options.broadcast(event),
      (sessionId) => this.busy(sessionId),
    );
  }

  /**
   * Starts taking over the runs whose process died or stalls (at once, then every half
   * lease), each resumed in the background. A server calls it once it listens, so a resumed
   * run never keeps it from answering.
   */
  resumeRuns(): void {
    const service = this.#service;
    if (service === undefined || this.#sweeper !== undefined || this.#closed) return;
    this.#sweeper = setInterval(() => void this.#takeOver(), Math.max(50, Math.floor(service.ttlMs / 2)));
    this.#sweeper.unref();
    setImmediate(() => void this.#takeOver());
  }

  /** The sessions running here now. */
  running(): string[] {
    return [...this.#runs.keys()];
  }

  isRunning(sessionId: string): boolean {
    return this.#runs.has(sessionId);
  }

  /** Whether a run or a change holds the session here now. */
  busy(sessionId: string): boolean {
    return this.#runs.has(sessionId) || this.#reserved.has(sessionId);
  }

  /** Whether a run holds the session here, or in another process (its lease is live). */
  busyAnywhere(sessionId: string): boolean {
    if (this.busy(sessionId)) return true;
    const lease = leaseOf(this.#o.ws.manager.workspace(), sessionId);
    return lease !== undefined && lease.holder !== this.#o.ws.manager.instanceId && live(lease, new Date().toISOString());
  }

  requireIdle(sessionId: string): void {
    if (this.busy(sessionId)) throw new GolemError('SESSION_BUSY', `session "${sessionId}" is running; wait for its answer or stop it first`);
  }

  requireAgent(): ServeAgentOptions {
    if (this.#o.agent === undefined)
      throw new GolemError('NO_MODEL', 'golem serve was started without a model; start it with --model (or GOLEM_MODEL) to chat');
    return this.#o.agent;
  }

  /** Runs `change` with the session reserved: no run starts on it meanwhile, nor another change. */
  async reserving<T>(sessionId: string, change: () => Promise<T>): Promise<T> {
    this.requireIdle(sessionId);
    this.#reserved.add(sessionId);
    try {
      return await change();
    } finally {
      this.#reserved.delete(sessionId);
    }
  }

  /** The session's last run here: running, or ended a short while ago. */
  log(sessionId: string): RunLog | undefined {
    return this.#logs.get(sessionId);
  }

  /**
   * Claims the session's run and runs the worker on it in the background; resolves with the
   * run's id. A resumed run (no input, no options) starts as the session's last protocol run
   * here did (pausing on approvals, with the client's tools and context).
   */
  async start(session: Session, input: string | ContentBlock[] | undefined, options?: RunStartOptions, runId?: string): Promise<string> {
    const claim = await this.claim(session.id, runId, input === undefined);
    return this.run(session, input, claim, options ?? (input === undefined ? this.#started.get(session.id) : undefined)).runId;
  }

  /**
   * Refuses (INVALID_ARGUMENT) a run's own actions (a client's tools) whose names clash with
   * the agent's, the worker's own or each other: checked before anything is written.
   */
  checkActions(own: readonly Action[]): void {
    const taken = new Set([...this.#o.actions.map((a) => a.name), spawnWorkerName, askParentAction.name]);
    const seen = new Set<string>();
    for (const action of own) {
      if (taken.has(action.name))
        throw new GolemError('INVALID_ARGUMENT', `the client's tool "${action.name}" has the name of one of the agent's own actions; rename it`);
      if (seen.has(action.name)) throw new GolemError('INVALID_ARGUMENT', `two of the client's tools are named "${action.name}"`);
      seen.add(action.name);
    }
  }

  /**
   * Claims the session's run, adds the user's turn, and runs the worker on it in the
   * background; resolves with the run's log. Nothing is added when the claim is refused.
   * `id`, a client's id for its message, is the turn's, so the client and Golem name it
   * alike: DUPLICATE_ID when a turn of this session has it (the same message sent again). An
   * id that is not a turn id (letters, digits, `_ . : -`, at most 200), or that another
   * session's turn has, is not taken: the turn gets one of its own.
   */
  async startWith(session: Session, turn: { blocks: ContentBlock[]; id?: string }, options: RunStartOptions = {}): Promise<RunLog> {
    const claim = await this.claim(session.id);
    try {
      await session.addTurn({ role: 'user', blocks: turn.blocks, ...(this.#takes(session.id, turn.id) && { id: turn.id }) });
      await labelled(session, textOf(turn.blocks));
    } catch (error) {
      await this.drop(session.id, claim);
      throw error;
    }
    return this.run(session, undefined, claim, options);
  }

  /** Whether a client's id can be the session's new turn's (see `startWith`). */
  #takes(sessionId: string, id: string | undefined): id is string {
    if (id === undefined || !/^[\w.:-]{1,200}$/.test(id)) return false;
    const versions = this.#o.ws.manager.workspace().node(id)?.versions ?? [];
    return versions.length === 0 || versions.some((turn) => turn.sessionId === sessionId);
  }

  /**
   * Claims the session's run for this process (SESSION_BUSY while a run holds it, here or in
   * another process). The session stays reserved until the run starts or the claim is dropped.
   * `resume`: the session's paused run goes on under its id (a new run otherwise).
   */
  async claim(sessionId: string, runId?: string, resume = false): Promise<Claim> {
    this.requireAgent();
    this.requireIdle(sessionId);
    // Its run followed from another process until now: from here this server's own log tells the pages.
    this.#remote.stop(sessionId);
    this.#reserved.add(sessionId);
    try {
      const controller = new AbortController();
      const held = await (this.#service as RunService).claim(sessionId, {
        ...(runId !== undefined && { id: runId }),
        resume,
        signal: controller.signal,
        onStop: (error) => {
          const text =
            error.code === 'RUN_CANCELLED' ? `This run was cancelled: ${error.message}` : `This run was taken over by another process: ${error.message}`;
          this.#o.adapter.updateStatus({ text, level: 'warning' });
        },
      });
      const claim = { runId: held.id, controller, claim: held };
      if (this.#closed) {
        await this.drop(sessionId, claim);
        throw new GolemError('WORKSPACE_CLOSED', 'golem serve is closing');
      }
      return claim;
    } catch (error) {
      this.#reserved.delete(sessionId);
      throw error;
    }
  }

  /** Gives up a claim whose run will not start. */
  async drop(sessionId: string, claim: Claim): Promise<void> {
    this.#reserved.delete(sessionId);
    await claim.claim.drop();
  }

  /** Runs the worker on a claimed session, in the background; returns the run's log (its `runId` the run's id). */
  run(session: Session, input: string | ContentBlock[] | undefined, claim: Claim, options: RunStartOptions = {}): RunLog {
    const agent = this.requireAgent();
    const { runId, controller } = claim;
    const log = claim.claim.log;
    let worker: Worker;
    // What the user sent meanwhile with the steer policy, read before each model call (the run's own, once it runs).
    let steer: (() => Promise<number>) | undefined;
    try {
      if (this.#closed) throw new GolemError('WORKSPACE_CLOSED', 'golem serve is closing');
      const own = options.actions?.(log) ?? [];
      this.checkActions(own);
      if (options.pause === true || own.length > 0 || options.instructions !== undefined) {
        // The newest last: past STARTED_KEPT threads, the oldest is forgotten (its resumed run then asks in the page).
        this.#started.delete(session.id);
        this.#started.set(session.id, options);
        if (this.#started.size > STARTED_KEPT) this.#started.delete(this.#started.keys().next().value as string);
      } else if (input !== undefined) this.#started.delete(session.id);
      // The pages follow the run through its log, whose end says how it ended (the cause's code).
      const pages = pageTranslator(session.id, runId);
      log.follow((entry) => {
        for (const event of pages.entry(entry)) this.#o.broadcast(event);
      });
      const instructions = [agent.instructions, options.instructions].filter((text) => text !== undefined && text !== '').join('\n\n');
      worker = this.#o.ws.worker({
        session,
        model: agent.model,
        actions: own.length === 0 ? this.#o.actions : [...this.#o.actions, ...own],
        ui: this.#o.adapter,
        // Waiting in memory for a page's answer, the run says so in its log: a protocol client following it is asked too.
        requestApproval:
          options.pause === true
            ? null
            : (request) => {
                log.push({ type: 'approval', approvalId: request.id });
                return this.#o.adapter.requestApproval(request, controller.signal);
              },
        onEvent: (event) => log.push({ type: 'event', event }),
        ...(instructions !== '' && { instructions }),
        ...(agent.project !== undefined && { project: agent.project }),
        ...(agent.trust !== undefined && { trust: agent.trust }),
        ...(agent.maxSteps !== undefined && { maxSteps: agent.maxSteps }),
        subWorkers: agent.subWorkers ?? false,
        plans: agent.plans ?? false,
        steer: () => steer?.() ?? Promise.resolve(0),
      });
    } catch (error) {
      void this.drop(session.id, claim);
      throw error;
    }
    let outcome: WorkerOutcome | undefined;
    const handle = claim.claim.run(async (run) => {
      const { signal } = run;
      steer = run.steer;
      if (input !== undefined) await labelled(session, typeof input === 'string' ? input : textOf(input));
      return worker.run(input, { signal });
    });
    const done = (async () => {
      // Its log's end (told to the followers here once its lease went) says how it ended.
      const ended = await handle.done;
      outcome = ended.outcome;
      try {
        if (outcome !== undefined) this.#report(outcome);
      } finally {
        this.#runs.delete(session.id);
        this.#o.changed(session.id);
        setTimeout(() => {
          if (this.#logs.get(session.id) === log) this.#logs.delete(session.id);
        }, LOG_KEPT_MS).unref();
      }
      // Paused on an approval answered while the run was ending (nobody resumed it then, as it still ran): resume it now.
      const approval = outcome?.status === 'paused' ? outcome.approval : undefined;
      const now =
        approval === undefined ? undefined : this.#o.ws.approvals.pending({ rootSessionId: approval.rootSessionId }).find((a) => a.id === approval.id);
      if (approval !== undefined && now === undefined && !this.#closed && !this.busy(session.id)) {
        await this.start(session, undefined).catch((error: unknown) => {
          if (!elsewhere(error)) this.#o.ws.manager.events.emit('listener:error', { type: 'serve:resume', error });
        });
      }
      // What was sent while it ran (ws.runs.send: enqueue, interrupt, a steer it had no step left for): the next run.
      if (outcome?.status !== 'paused') {
        await this.#next(session).catch((error: unknown) => {
          if (!elsewhere(error)) this.#o.ws.manager.events.emit('listener:error', { type: 'serve:inbox', error });
        });
      }
    })();
    this.#logs.set(session.id, log);
    this.#runs.set(session.id, { controller, done, handle });
    this.#reserved.delete(session.id);
    this.#o.changed(session.id);
    return log;
  }

  /** Starts the session's next run on the oldest message its inbox holds, delivered as its user turn; nothing when none waits. */
  async #next(session: Session): Promise<void> {
    const service = this.#service as RunService;
    if (this.#closed || this.busy(session.id) || service.inbox(session.id).length === 0) return;
    const claim = await this.claim(session.id);
    let delivered;
    try {
      delivered = await service.deliver(session.id);
    } catch (error) {
      await this.drop(session.id, claim);
      throw error;
    }
    // Another process delivered it first (and runs it).
    if (delivered === null) return this.drop(session.id, claim);
    this.run(session, undefined, claim);
  }

  /**
   * A message for the session while a run holds it, here or in another process (`ws.runs.send`,
   * under this server's name): kept in its inbox by `policy` (the service's default when none),
   * SESSION_BUSY for `reject`; `idle` when no run holds it (start one with the message).
   */
  send(sessionId: string, message: RunMessage, policy?: RunPolicy): Promise<SendResult> {
    this.requireAgent();
    return (this.#service as RunService).send(sessionId, message, policy === undefined ? {} : { policy });
  }

  /** Stops the session's run (a pending approval is answered no); false when none runs here. */
  stop(sessionId: string): boolean {
    const run = this.#runs.get(sessionId);
    run?.controller.abort();
    return run !== undefined;
  }

  /** Waits for the session's run (and the queued inputs after it) to end. */
  async settled(sessionId: string): Promise<void> {
    for (let run = this.#runs.get(sessionId); run !== undefined; run = this.#runs.get(sessionId)) await run.done;
  }

  /** Tells the pages a run failed. */
  failed(sessionId: string, error: unknown, runId: string = randomUUID()): void {
    const failure = toGolemError(error);
    this.#o.broadcast({ type: 'RUN_ERROR', message: failure.message, code: failure.code, threadId: sessionId, runId, timestamp: Date.now() });
  }

  /**
   * Runs in progress are aborted and waited for (at most a few seconds), except those waiting
   * for an approval (`waiting`): that stays pending in the workspace, and their leases are let
   * go at once, so the run resumes (and asks again) wherever the approval is answered next.
   */
  async close(waiting: ReadonlySet<string>): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    this.#remote.close();
    const ending: Promise<void>[] = [];
    for (const [sessionId, run] of this.#runs) {
      if (waiting.has(sessionId)) {
        ending.push(run.handle.pause());
        continue;
      }
      run.controller.abort();
      ending.push(run.done);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(ending), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    this.#service?.dispose();
  }

  /** Takes over the runs whose holder's lease lapsed (its process died or stalls), resuming each from the log. */
  async #takeOver(): Promise<void> {
    if (this.#closed || this.#service === undefined || this.#sweeping) return;
    this.#sweeping = true;
    const { manager } = this.#o.ws;
    const report = (error: unknown) => {
      if (!this.#closed) manager.events.emit('listener:error', { type: 'serve:take-over', error });
    };
    try {
      await manager.refresh();
      for (const lease of this.#service.lapsed()) {
        const id = lease.sessionId;
        const session = this.#o.ws.sessions.get(id);
        if (this.#closed || this.busy(id) || session === undefined) continue;
        // The same run goes on here, under its id. One that fails is reported, and the others are taken over all the same.
        await this.start(session, undefined, undefined, lease.runId).catch((error: unknown) => {
          if (!elsewhere(error)) report(error);
        });
      }
      // Messages left waiting for a session no run holds now: its run was one that does not deliver them when it ends
      // (golem ask's, MCP's), or whose process died and that nobody may carry on. The next run starts here.
      const now = new Date().toISOString();
      const waiting = new Set([...manager.workspace().collection('inbox').values()].map((m) => m.sessionId));
      for (const id of waiting) {
        const lease = leaseOf(manager.workspace(), id);
        const session = this.#o.ws.sessions.get(id);
        if (this.#closed || this.busy(id) || session === undefined || (lease !== undefined && live(lease, now))) continue;
        await this.#next(session).catch((error: unknown) => {
          if (!elsewhere(error)) report(error);
        });
      }
    } catch (error) {
      report(error);
    } finally {
      this.#sweeping = false;
    }
  }

  #report(outcome: WorkerOutcome): void {
    const say = (text: string, level: 'warning' | 'error') => this.#o.adapter.updateStatus({ text, level });
    // A failed run's cause is its RUN_ERROR's.
    if (outcome.status === 'step_limit') say(`Stopped after ${outcome.steps} model calls (the step limit). Say "go on" to continue.`, 'warning');
    else if (outcome.status === 'aborted') say('Stopped.', 'warning');
  }
}
