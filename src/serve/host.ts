/**
 * What `golem serve` does for its pages: the views they read (sessions, a session's path
 * with its versions, approvals, clearance) and the changes they ask for (send a message,
 * edit a past one, switch versions, fork, answer an approval, decide a clearance item),
 * each through the workspace's own API, so the command log has them all. With a model it
 * runs the root worker of a session, one run at a time per session, its work streamed to
 * every page; a user's click on a model-built UI goes to the session whose agent built it.
 */
import { randomUUID } from 'node:crypto';
import type { Action, Trust } from '../action/action.js';
import { ClearanceApi } from '../agent/clearance.js';
import { chatSessions, recordsOf, type ApprovalRecord } from '../agent/agent-plugin.js';
import { RunLeases, type HeldLease, type RunLeaseOptions } from '../agent/run-leases.js';
import type { WorkerEvent } from '../agent/ui-adapter.js';
import type { WorkerOutcome } from '../agent/worker/index.js';
import type { ContentBlock } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Workspace } from '../create-workspace.js';
import type { CommittedEvent } from '../core/manager.js';
import type { Session as SessionRecord, Turn } from '../core/records.js';
import type { Session } from '../prompt/session.js';
import { pathLength, pathTo, SessionView } from '../core/turn-tree.js';
import type { ApprovalAnswerBody, ClearanceView, ServeState, SessionDetail, SessionSummary, WorkerView } from './api-types.js';
import type { BrowserAdapter } from './browser-adapter.js';
import type { UIActionEvent } from './ui-actions.js';
import { approvalView, clearanceView, resultOf, turnView } from './views.js';

/** The agent `golem serve` runs on a session when a page sends it a message. */
export interface ServeAgentOptions {
  model: ModelAdapter;
  /** Its actions; `patch_ui_state` (ws.ui.action()) is added unless one of that name is given. */
  actions?: Action[];
  /** Put first in its system prompt. */
  instructions?: string;
  /** The project its file actions work on. */
  project?: { root: string };
  /** Trust modes above the actions' defaults. */
  trust?: Readonly<Record<string, Trust>>;
  /** Offer sub-workers (default false). */
  subWorkers?: boolean;
  /** Model calls at most per run (default 12). */
  maxSteps?: number;
  /**
   * The lease each run holds in the workspace (see RunLeases): while a process runs a
   * session, another refuses to; a run whose process died or stalls past its lease is
   * taken over and resumed by another `golem serve` process on the same store.
   */
  lease?: RunLeaseOptions;
}

interface Run {
  controller: AbortController;
  done: Promise<void>;
  lease: HeldLease;
}

/** Whether the error says another process runs the session (or took its run over). */
const elsewhere = (error: unknown) => error instanceof GolemError && (error.code === 'SESSION_BUSY' || error.code === 'LEASE_LOST');

/** How long `close` waits for runs to end after aborting them. */
const CLOSE_GRACE_MS = 5_000;

type Broadcast = (event: object) => void;
type RunEvents = (threadId: string, runId: string) => (event: WorkerEvent) => void;

export class ServeHost {
  readonly #ws: Workspace;
  readonly #adapter: BrowserAdapter;
  readonly #broadcast: Broadcast;
  readonly #runEvents: RunEvents;
  readonly #agent: ServeAgentOptions | undefined;
  readonly #actions: Action[];
  readonly #clearance: ClearanceApi;
  readonly #runs = new Map<string, Run>();
  /** Sessions a change is being made to (an edit, a version switch) before a run starts: taken before any await. */
  readonly #reserved = new Set<string>();
  /** Approvals answered through a page and not yet recorded by the run that asked. */
  readonly #answered = new Set<string>();
  readonly #offs: (() => void)[];
  readonly #leases: RunLeases | undefined;
  readonly #sweeper: NodeJS.Timeout | undefined;
  #changed: { topics: Set<'sessions' | 'approvals' | 'clearance'>; sessionIds: Set<string> } | undefined;
  #closed = false;

  constructor(ws: Workspace, adapter: BrowserAdapter, broadcast: Broadcast, runEvents: RunEvents, agent?: ServeAgentOptions) {
    this.#ws = ws;
    this.#adapter = adapter;
    this.#broadcast = broadcast;
    this.#runEvents = runEvents;
    this.#agent = agent;
    const given = agent?.actions ?? [];
    this.#actions = given.some((a) => a.name === 'patch_ui_state') ? given : [...given, ws.ui.action()];
    this.#clearance = new ClearanceApi(ws.manager, { actions: this.#actions });
    if (agent !== undefined) {
      const leases = (this.#leases = new RunLeases(ws.manager, agent.lease));
      // Runs whose process died or stalls are looked for at once, then every half lease.
      this.#sweeper = setInterval(() => void this.#takeOver(), Math.max(50, Math.floor(leases.ttlMs / 2)));
      this.#sweeper.unref();
      setImmediate(() => void this.#takeOver());
    }
    this.#offs = [
      ws.manager.events.on('command', (event) => this.#onCommand(event)),
      ws.manager.events.on('index:rebuilt', () => {
        for (const s of ws.sessions.list()) this.#change(['sessions', 'approvals', 'clearance'], s.id);
        this.#answeredElsewhere();
      }),
    ];
  }

  // --- views ---

  async state(): Promise<ServeState> {
    const model = this.#agent?.model;
    const chats = chatSessions(this.#ws.manager.workspace(), this.#ws.sessions.list());
    // Each session record counts its turns; one last written by an older Golem is counted on its path, loaded for that.
    await this.#ws.manager.load(chats.filter((s) => s.length === undefined).map((s) => s.id));
    return {
      sessions: chats.map((s) => this.#summary(s)),
      // An answer given in a page is not pending any more, though the run that asked may not have recorded it yet.
      approvals: this.#ws.approvals
        .pending()
        .filter((a) => !this.#answered.has(a.id))
        .map(approvalView),
      clearance: this.#clearance.list().map(clearanceView),
      model: model === undefined ? null : { provider: model.provider, modelId: model.modelId },
      running: [...this.#runs.keys()],
    };
  }

  async session(sessionId: string): Promise<SessionDetail> {
    const record = this.#record(sessionId);
    await this.#ws.manager.load([record.id]);
    const view = this.#ws.manager.workspace();
    const sessionView = new SessionView(view, record);
    const turns = pathTo(view, record.head).map((turn) => turnView(turn, sessionView));
    const workers = recordsOf(view, 'worker')
      .filter((w) => w.rootSessionId === record.id)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((w): WorkerView => ({ id: w.id, parentSessionId: w.parentSessionId, depth: w.depth, task: w.task, status: w.status, result: w.result }));
    return { session: { ...this.#summary(record, turns.length), head: record.head }, turns, workers, running: this.#runs.has(record.id) };
  }

  // --- changes ---

  async createSession(label: string | null): Promise<SessionSummary> {
    const session = await this.#ws.sessions.create({ label });
    return this.#summary(session.record(), 0);
  }

  /** Adds the user's message and runs the agent on it; resolves with the run's id. */
  async send(sessionId: string, text: string): Promise<{ runId: string }> {
    const session = this.#session(sessionId);
    this.#requireIdle(session.id);
    this.#requireAgent();
    return { runId: await this.#start(session, text) };
  }

  /** A new version of a past message (the head moves to it); a user message is then answered by the agent. */
  async edit(sessionId: string, turnId: string, text: string): Promise<{ runId: string | null; turn: { id: string; version: number } }> {
    const session = await this.#session(sessionId).load();
    const turn = session.turn(turnId);
    if (turn === undefined) throw new GolemError('TURN_NOT_FOUND', `session "${session.id}" has no turn "${turnId}"`);
    if (turn.blocks.some((b) => b.type !== 'text'))
      throw new GolemError(
        'INVALID_ARGUMENT',
        `turn "${turnId}" holds more than text (${turn.blocks.map((b) => b.type).join(', ')}); only text messages are edited here`,
      );
    const blocks: ContentBlock[] = [{ type: 'text', text }];
    const edited = await this.#reserving(session.id, () => session.editTurn(turn.id, blocks));
    const runId = edited.role === 'user' && this.#agent !== undefined ? await this.#start(session, undefined) : null;
    return { runId, turn: { id: edited.id, version: edited.version } };
  }

  async switchVersion(sessionId: string, turnId: string, direction: 'left' | 'right'): Promise<{ head: { id: string; version: number } }> {
    const session = this.#session(sessionId);
    return { head: await this.#reserving(session.id, () => (direction === 'left' ? session.switchVersionLeft(turnId) : session.switchVersionRight(turnId))) };
  }

  async fork(sessionId: string, at: string | undefined): Promise<SessionSummary> {
    const record = this.#record(sessionId);
    const fork = await this.#ws.sessions.fork(record.id, at, { label: `fork of ${record.label ?? 'untitled'}` });
    return this.#summary(fork.record());
  }

  /** A message for a user's click on an instance whose agent cannot take it now (busy), or undefined when it can. */
  refuseAction(instanceId: string): string | undefined {
    if (this.#agent === undefined) return undefined;
    const sessionId = this.#builderOf(instanceId);
    if (sessionId !== undefined && (this.#runs.has(sessionId) || this.#reserved.has(sessionId))) {
      return 'the agent is still working on its last answer; click again once it has answered';
    }
    return undefined;
  }

  /** Stops the session's run (a pending approval is answered no); false when none runs. */
  stop(sessionId: string): boolean {
    const run = this.#runs.get(sessionId);
    run?.controller.abort();
    return run !== undefined;
  }

  /**
   * Answers an approval. The run that asked gets the answer and goes on; an approval
   * left by an earlier server (its run is gone) is answered in the workspace and its
   * session's run resumed, performing the call if it was approved.
   */
  async answerApproval(approvalId: string, body: ApprovalAnswerBody): Promise<ApprovalRecord> {
    const approval = this.#ws.approvals.get(approvalId);
    if (approval.status !== 'pending' || this.#answered.has(approval.id)) {
      throw new GolemError('APPROVAL_ANSWERED', `approval ${approval.id} was already answered${approval.answer === null ? '' : ` (${approval.answer})`}`);
    }
    const result = resultOf(body);
    if (this.#adapter.answer(approval.id, result)) {
      this.#answered.add(approval.id);
      this.#change(['approvals'], approval.rootSessionId); // every tab closes its dialog, before the run records the answer
      return approval;
    }
    const answered = await this.#ws.approvals.answer(approval.id, result, { fingerprint: approval.fingerprint });
    const root = approval.rootSessionId;
    // Its run is not here: resume it here, unless another process holds its lease (that run takes the answer from the
    // workspace; the claim refuses a second run, which would perform the call twice).
    if (this.#agent !== undefined && !this.#runs.has(root) && !this.#reserved.has(root) && this.#ws.manager.workspace().sessions.has(root)) {
      await this.#start(this.#session(root), undefined).catch((error: unknown) => {
        if (!elsewhere(error)) throw error;
      });
    }
    return answered;
  }

  /**
   * Another process sharing the store answered an approval a run here waits for: the run
   * takes that answer (and records nothing twice: the answer is on record already).
   */
  #answeredElsewhere(): void {
    for (const id of this.#adapter.waitingApprovals()) {
      const record = recordsOf(this.#ws.manager.workspace(), 'approval').find((a) => a.id === id);
      if (record === undefined || record.status === 'pending' || record.answer === null) continue;
      this.#adapter.answer(id, resultOf({ answer: record.answer, ...(record.reason !== null && { reason: record.reason }) }));
    }
  }

  async clearanceDiff(itemId: string): Promise<string> {
    return this.#clearance.diff(itemId);
  }

  async decideClearance(itemId: string, action: 'push' | 'discard' | 'defer'): Promise<{ item: ClearanceView; message: string }> {
    const decided = await this.#clearance[action](itemId);
    const message = decided.outcome ?? { push: 'Pushed.', defer: 'Deferred; it stays staged.', discard: 'Discarded; the files are as they were.' }[action];
    this.#adapter.decided(decided.id, { action });
    this.#adapter.displayClearanceResult({
      item: { id: decided.id, type: decided.type, description: decided.description, createdAt: Date.parse(decided.createdAt), metadata: {} },
      decision: { action },
      ok: true,
      message,
    });
    return { item: clearanceView(decided), message };
  }

  /**
   * A click on a model-built UI (its values already applied): told to the session whose
   * agent built the instance. `refuseAction` turned clicks away while that agent is busy,
   * so nothing acknowledged waits in memory here.
   */
  uiAction(event: UIActionEvent): void {
    if (this.#agent === undefined || this.#closed) return;
    const sessionId = this.#builderOf(event.instanceId);
    if (sessionId === undefined || this.#runs.has(sessionId) || this.#reserved.has(sessionId)) return;
    const text = [
      `[UI action] The user clicked "${event.actionLabel}" (action "${event.actionId}") on the UI "${event.instanceId}" (version ${event.version}).`,
      `The form's values: ${JSON.stringify(event.values)}`,
    ].join('\n');
    this.#start(this.#session(sessionId), text).catch((error: unknown) => this.#failed(sessionId, error));
  }

  /**
   * Runs in progress are aborted and waited for (at most a few seconds), except those
   * waiting for an approval: that stays pending in the workspace for the next server.
   */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    for (const off of this.#offs) off();
    const waiting = this.#adapter.waitingSessions();
    const ending: Promise<void>[] = [];
    for (const [sessionId, run] of this.#runs) {
      if (waiting.has(sessionId)) {
        // Its lease is let go at once, so the next server (or another process now) resumes it and asks again.
        ending.push(run.lease.release());
        continue;
      }
      run.controller.abort();
      ending.push(run.done);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(ending), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
    this.#leases?.dispose();
  }

  /** Waits for the session's run (and the queued inputs after it) to end. */
  async settled(sessionId: string): Promise<void> {
    for (let run = this.#runs.get(sessionId); run !== undefined; run = this.#runs.get(sessionId)) await run.done;
  }

  // --- runs ---

  /** Claims the session's run (SESSION_BUSY while another process holds it), then runs the worker in the background. */
  async #start(session: Session, input: string | undefined): Promise<string> {
    const agent = this.#requireAgent();
    const leases = this.#leases as RunLeases;
    const runId = randomUUID();
    const controller = new AbortController();
    const worker = this.#ws.worker({
      session,
      model: agent.model,
      actions: this.#actions,
      ui: this.#adapter,
      requestApproval: (request) => this.#adapter.requestApproval(request, controller.signal),
      onEvent: this.#runEvents(session.id, runId),
      ...(agent.instructions !== undefined && { instructions: agent.instructions }),
      ...(agent.project !== undefined && { project: agent.project }),
      ...(agent.trust !== undefined && { trust: agent.trust }),
      ...(agent.maxSteps !== undefined && { maxSteps: agent.maxSteps }),
      subWorkers: agent.subWorkers ?? false,
    });
    const lease = await this.#reserving(session.id, () =>
      leases.claim(session.id, runId, (error) => {
        controller.abort();
        this.#adapter.updateStatus({ text: `This run was taken over by another process: ${error.message}`, level: 'warning' });
      }),
    );
    const done = (async () => {
      try {
        // Names the chat in lists and approval paths.
        if (input !== undefined && session.label === null) await session.update({ label: input.split('\n')[0]?.slice(0, 60) ?? null });
        this.#report(await worker.run(input, { signal: controller.signal }));
      } catch (error) {
        this.#failed(session.id, error, runId);
      } finally {
        await lease.release();
        this.#runs.delete(session.id);
        this.#change(['sessions'], session.id);
      }
    })();
    this.#runs.set(session.id, { controller, done, lease });
    this.#change(['sessions'], session.id);
    return runId;
  }

  /** Takes over the runs whose holder's lease lapsed (its process died or stalls), resuming each from the log. */
  async #takeOver(): Promise<void> {
    if (this.#closed || this.#leases === undefined) return;
    try {
      await this.#ws.manager.refresh();
      for (const lease of this.#leases.lapsed()) {
        const id = lease.sessionId;
        if (this.#closed || this.#runs.has(id) || this.#reserved.has(id) || !this.#ws.manager.workspace().sessions.has(id)) continue;
        await this.#start(this.#session(id), undefined).catch((error: unknown) => {
          if (!elsewhere(error)) throw error;
        });
      }
    } catch (error) {
      if (!this.#closed) this.#ws.manager.events.emit('listener:error', { type: 'serve:take-over', error });
    }
  }

  #failed(sessionId: string, error: unknown, runId: string = randomUUID()): void {
    const failure = error instanceof GolemError ? error : new GolemError('INTERNAL', (error as Error).message, { cause: error });
    this.#broadcast({ type: 'RUN_ERROR', message: failure.message, code: failure.code, threadId: sessionId, runId, timestamp: Date.now() });
  }

  #report(outcome: WorkerOutcome): void {
    const say = (text: string, level: 'warning' | 'error') => this.#adapter.updateStatus({ text, level });
    if (outcome.status === 'error') say(`The run failed${outcome.error === undefined ? '' : ` [${outcome.error.code}]: ${outcome.error.message}`}`, 'error');
    else if (outcome.status === 'step_limit') say(`Stopped after ${outcome.steps} model calls (the step limit). Say "go on" to continue.`, 'warning');
    else if (outcome.status === 'aborted') say('Stopped.', 'warning');
  }

  // --- helpers ---

  #onCommand(event: CommittedEvent): void {
    const type = event.command.type;
    const domain = type.slice(0, type.indexOf(':'));
    const payload = event.command.payload as { sessionId?: unknown };
    const result = event.result as { sessionId?: unknown; rootSessionId?: unknown } | null;
    const ids = [payload.sessionId, result?.sessionId, result?.rootSessionId].filter((id): id is string => typeof id === 'string');
    if (domain === 'approval' || domain === 'grant') {
      if (type === 'approval:answer' && typeof (result as { id?: unknown } | null)?.id === 'string') this.#answered.delete((result as { id: string }).id);
      this.#change(['approvals'], ...ids);
    } else if (domain === 'clearance') this.#change(['clearance', 'sessions'], ...ids);
    else if (domain === 'session' || domain === 'turn' || domain === 'worker') this.#change(['sessions'], ...ids);
  }

  /** Tells the pages what to read again; changes within one tick go out as one event. */
  #change(topics: ('sessions' | 'approvals' | 'clearance')[], ...sessionIds: string[]): void {
    if (this.#closed) return;
    if (this.#changed === undefined) {
      const changed = (this.#changed = { topics: new Set(), sessionIds: new Set() });
      setImmediate(() => {
        this.#changed = undefined;
        if (this.#closed) return;
        this.#broadcast({
          type: 'CUSTOM',
          name: 'golem.changed',
          value: { topics: [...changed.topics], sessionIds: [...changed.sessionIds] },
          timestamp: Date.now(),
        });
      });
    }
    for (const topic of topics) this.#changed.topics.add(topic);
    for (const id of sessionIds) this.#changed.sessionIds.add(this.#rootOf(id));
  }

  /** The session whose agent last patched an instance (the root of its worker tree), from the calls on record. */
  #builderOf(instanceId: string): string | undefined {
    let latest: Turn | undefined;
    for (const turn of this.#ws.manager.workspace().turns.values()) {
      if (latest !== undefined && turn.seq < latest.seq) continue;
      const names = turn.blocks.some(
        (b) => b.type === 'tool_use' && b.name === 'patch_ui_state' && (b.args.instanceId === instanceId || b.args.newInstanceId === instanceId),
      );
      if (names) latest = turn;
    }
    if (latest === undefined) return undefined;
    const root = this.#rootOf(latest.sessionId);
    // The session may be gone since (its turns live on in forks): then nobody is told.
    return this.#ws.manager.workspace().sessions.has(root) ? root : undefined;
  }

  #rootOf(sessionId: string): string {
    const worker = this.#ws.manager.workspace().collection('worker').get(sessionId);
    return worker?.rootSessionId ?? sessionId;
  }

  #summary(record: SessionRecord, turns?: number): SessionSummary {
    return {
      id: record.id,
      label: record.label,
      updatedAt: record.updatedAt,
      turns: turns ?? record.length ?? pathLength(this.#ws.manager.workspace(), record.head),
    };
  }

  #record(sessionId: string): SessionRecord {
    return this.#session(sessionId).record();
  }

  #session(sessionId: string): Session {
    const session = this.#ws.sessions.get(sessionId);
    if (session === undefined) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${sessionId}"`);
    return session;
  }

  /** Runs `change` with the session reserved: no run starts on it meanwhile, nor another change. */
  async #reserving<T>(sessionId: string, change: () => Promise<T>): Promise<T> {
    this.#requireIdle(sessionId);
    this.#reserved.add(sessionId);
    try {
      return await change();
    } finally {
      this.#reserved.delete(sessionId);
    }
  }

  #requireIdle(sessionId: string): void {
    if (this.#runs.has(sessionId) || this.#reserved.has(sessionId))
      throw new GolemError('SESSION_BUSY', `session "${sessionId}" is running; wait for its answer or stop it first`);
  }

  #requireAgent(): ServeAgentOptions {
    if (this.#agent === undefined) throw new GolemError('NO_MODEL', 'golem serve was started without a model; start it with --model (or GOLEM_MODEL) to chat');
    return this.#agent;
  }
}
