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
import { chatSessions, recordsOf, type ApprovalRecord, type ClearanceRecord } from '../agent/agent-plugin.js';
import type { ApprovalResult, WorkerEvent } from '../agent/ui-adapter.js';
import type { WorkerOutcome } from '../agent/worker/index.js';
import type { ContentBlock } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Workspace } from '../create-workspace.js';
import type { CommittedEvent } from '../core/manager.js';
import type { Session as SessionRecord, Turn } from '../core/records.js';
import type { Session } from '../prompt/session.js';
import { pathLength, pathTo, SessionView } from '../core/turn-tree.js';
import type { ApprovalAnswerBody, ApprovalView, ClearanceView, ServeState, SessionDetail, SessionSummary, TurnView, WorkerView } from './api-types.js';
import type { BrowserAdapter } from './browser-adapter.js';
import type { UIActionEvent } from './ui-actions.js';

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
}

interface Run {
  controller: AbortController;
  done: Promise<void>;
}

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
    // Each summary counts its session's turns, which are read from the store for a session not in memory.
    await this.#ws.manager.load(chats.map((s) => s.id));
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
    return { runId: this.#start(session, text) };
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
    const runId = edited.role === 'user' && this.#agent !== undefined ? this.#start(session, undefined) : null;
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
    // Its run is gone (an earlier server): resume it here. With a store other processes share, the run may be waiting
    // in one of them, which takes the answer from the workspace; a second run here would perform the call twice.
    const shared = this.#ws.manager.store.exclusive !== undefined;
    if (!shared && this.#agent !== undefined && !this.#runs.has(root) && !this.#reserved.has(root) && this.#ws.manager.workspace().sessions.has(root)) {
      this.#start(this.#session(root), undefined);
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
    this.#start(this.#session(sessionId), text);
  }

  /**
   * Runs in progress are aborted and waited for (at most a few seconds), except those
   * waiting for an approval: that stays pending in the workspace for the next server.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const off of this.#offs) off();
    const waiting = this.#adapter.waitingSessions();
    const ending: Promise<void>[] = [];
    for (const [sessionId, run] of this.#runs) {
      if (waiting.has(sessionId)) continue;
      run.controller.abort();
      ending.push(run.done);
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(ending), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS)))]);
    clearTimeout(timer);
  }

  /** Waits for the session's run (and the queued inputs after it) to end. */
  async settled(sessionId: string): Promise<void> {
    for (let run = this.#runs.get(sessionId); run !== undefined; run = this.#runs.get(sessionId)) await run.done;
  }

  // --- runs ---

  #start(session: Session, input: string | undefined): string {
    const agent = this.#requireAgent();
    this.#requireIdle(session.id);
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
    const done = (async () => {
      try {
        // Names the chat in lists and approval paths.
        if (input !== undefined && session.label === null) await session.update({ label: input.split('\n')[0]?.slice(0, 60) ?? null });
        this.#report(await worker.run(input, { signal: controller.signal }));
      } catch (error) {
        const failure = error instanceof GolemError ? error : new GolemError('INTERNAL', (error as Error).message, { cause: error });
        this.#broadcast({ type: 'RUN_ERROR', message: failure.message, code: failure.code, threadId: session.id, runId, timestamp: Date.now() });
      } finally {
        this.#runs.delete(session.id);
        this.#change(['sessions'], session.id);
      }
    })();
    this.#runs.set(session.id, { controller, done });
    this.#change(['sessions'], session.id);
    return runId;
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
    return { id: record.id, label: record.label, updatedAt: record.updatedAt, turns: turns ?? pathLength(this.#ws.manager.workspace(), record.head) };
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

function turnView(turn: Turn, view: SessionView): TurnView {
  const text: string[] = [];
  const toolCalls: TurnView['toolCalls'] = [];
  const toolResults: TurnView['toolResults'] = [];
  for (const b of turn.blocks) {
    if (b.type === 'text') text.push(b.text);
    else if (b.type === 'tool_use') toolCalls.push({ callId: b.callId, name: b.name, input: b.args });
    else if (b.type === 'tool_result') {
      const content = b.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      toolResults.push({ callId: b.callId, text: content, isError: b.isError === true });
    }
  }
  const branch = view.branchInfo(turn.id) ?? { versions: [turn.version], currentIndex: 0, total: 1, hasPrev: false, hasNext: false };
  return {
    id: turn.id,
    version: turn.version,
    role: turn.role as TurnView['role'],
    text: text.join('\n\n'),
    toolCalls,
    toolResults,
    branch,
    createdAt: turn.createdAt,
  };
}

function approvalView(a: ApprovalRecord): ApprovalView {
  return {
    id: a.id,
    rootSessionId: a.rootSessionId,
    action: a.action,
    type: a.type,
    description: a.description,
    details: a.details,
    risk: a.risk,
    workerPath: a.workerPath,
    createdAt: a.createdAt,
  };
}

function clearanceView(c: ClearanceRecord): ClearanceView {
  return { id: c.id, sessionId: c.sessionId, type: c.type, description: c.description, status: c.status, createdAt: c.createdAt };
}

function resultOf(body: ApprovalAnswerBody): ApprovalResult {
  if (body.answer === 'yes') return { approved: true };
  if (body.answer === 'always') return { approved: 'always' };
  if (body.answer === 'session') return { approved: 'session' };
  return body.reason === undefined || body.reason === '' ? { approved: false } : { approved: false, reason: body.reason };
}
