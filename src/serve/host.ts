/**
 * What `golem serve` does for its pages: the views they read (sessions, a session's path
 * with its versions, approvals, clearance) and the changes they ask for (send a message,
 * edit a past one, switch versions, fork, answer an approval, decide a clearance item),
 * each through the workspace's own API, so the command log has them all. With a model it
 * runs the root worker of a session, one run at a time per session, its work streamed to
 * every page (the runs themselves: runs.ts); a user's click on a model-built UI goes to the
 * session whose agent built it.
 */
import { promptCommands, promptMessage, promptUsage, type PromptCommand } from '../mcp/prompts.js';
import type { Action } from '../action/action.js';
import { ClearanceApi } from '../agent/clearance.js';
import type { RunPolicy } from '../agent/inbox.js';
import { chatSessions, recordsOf, type ApprovalRecord } from '../agent/agent-plugin.js';
import type { ContentBlock } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { Workspace } from '../create-workspace.js';
import type { CommittedEvent } from '../core/manager.js';
import type { Turn } from '../core/records.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Session } from '../prompt/session.js';
import { pathTo, SessionView } from '../core/turn-tree.js';
import type { ApprovalAnswerBody, ClearanceView, SendMessageResult, ServeState, SessionDetail, SessionSummary, WorkerView } from './api-types.js';
import type { BrowserAdapter } from './browser-adapter.js';
import { ClientCalls } from './client-tools.js';
import type { UIActionEvent } from './ui-actions.js';
import { elsewhere, ServeRuns, type ServeAgentOptions } from './runs.js';
import { SessionAccess } from './session-access.js';
import { uiInstance, uiInstances, type UIInstanceRecord } from '../ui/ui-plugin.js';
import { shownInstanceId, storedInstanceId, userScope } from '../ui/ui-scope.js';
import { inConversation, uiVisibleTo } from '../ui/ui-visibility.js';
import { imageBlobs } from '../ui/block-data.js';
import { fieldImageBlobs } from '../ui/instance-checks.js';
import { IMAGE_MEDIA_TYPES } from '../ui/block-data-keys.js';
import { approvalView, clearanceView, inboxView, resultOf, sessionSummary, turnView, UI_ACTION_BLOCK } from './views.js';
import { sessionTasks, taskSessionIds } from './task-views.js';

export type { ServeAgentOptions };

type Broadcast = (event: object) => void;

export class ServeHost {
  #promptList: Promise<PromptCommand[]> | undefined;
  readonly #ws: Workspace;
  readonly #adapter: BrowserAdapter;
  readonly #broadcast: Broadcast;
  readonly #agent: ServeAgentOptions | undefined;
  readonly #actions: Action[];
  readonly #clearance: ClearanceApi;
  readonly #runs: ServeRuns;
  readonly #access: SessionAccess;
  /** Approvals answered through a page and not yet recorded by the run that asked. */
  readonly #answered = new Set<string>();
  readonly #offs: (() => void)[];
  #changed: { topics: Set<'sessions' | 'approvals' | 'clearance'>; sessionIds: Set<string> } | undefined;
  #closed = false;

  constructor(ws: Workspace, adapter: BrowserAdapter, broadcast: Broadcast, agent?: ServeAgentOptions) {
    // The agent may write in its project: a renderer from there is refused before anything serves (RENDERER_IN_PROJECT).
    if (agent?.project !== undefined) ws.ui.catalog.excludeProject(agent.project.root);
    this.#ws = ws;
    this.#adapter = adapter;
    this.#broadcast = broadcast;
    this.#agent = agent;
    const given = agent?.actions ?? [];
    const ownerOf = (sessionId: string) => this.ownerOf(sessionId);
    // The UI tools (patch_ui_state, get_ui_state, list_ui_instances) the agent was not given its own of. The reads show
    // a session's agent its conversation's instances, and of those its user's alone (not, with users, one of no known
    // builder: it may be another user's); any other is refused as an id no instance has. With users, each user's ids
    // are their own: the instances are kept under the user's prefix (ui-scope.ts), so no user takes an id from another.
    const ui = ws.ui.actions({
      sees: (instance, sessionId) => uiVisibleTo(instance, ownerOf(sessionId) ?? null, ownerOf),
      scope: (sessionId) => this.#scope(ownerOf(sessionId) ?? null),
    });
    this.#actions = [...given, ...ui.filter((a) => !given.some((g) => g.name === a.name))];
    this.#clearance = new ClearanceApi(ws.manager, { actions: this.#actions });
    this.#access = new SessionAccess(ws);
    this.#runs = new ServeRuns({ ws, adapter, agent, actions: this.#actions, broadcast, changed: (id) => this.#change(['sessions'], id) });
    this.#offs = [
      ws.manager.events.on('command', (event) => this.#onCommand(event)),
      ws.manager.events.on('index:rebuilt', (event) => {
        // Only run leases and events caught up (another process renewing or streaming its run): nothing the pages show changed.
        if (event.collections?.every((c) => c === 'run' || c === 'run_event') === true) return;
        for (const s of ws.sessions.list()) this.#change(['sessions', 'approvals', 'clearance'], s.id);
        this.#answeredElsewhere();
      }),
    ];
  }

  /** The calls of clients' own tools that runs wait for (AG-UI frontend tools, AI SDK tools without execute). */
  readonly clientCalls = new ClientCalls();

  /** The runs of this server (the protocol routes start and follow runs through them). */
  get runs(): ServeRuns {
    return this.#runs;
  }

  get workspace(): Workspace {
    return this.#ws;
  }

  /** The model answering (undefined: the server has none). */
  get model(): ModelAdapter | undefined {
    return this.#agent?.model;
  }

  /** The actions the agent has (its own, and the UI tools it was not given its own of). */
  get actions(): readonly Action[] {
    return this.#actions;
  }

  /**
   * The session a protocol route names as its thread, for `user` (null: a server without
   * users): one that exists and `user` may see, or a new one with that id when there is none
   * (`create`). A session `user` may not see is SESSION_NOT_FOUND, as if there were none;
   * one made meanwhile by another request (the same first message sent twice at once) is
   * SESSION_BUSY: that request's run has it.
   */
  async thread(user: string | null, threadId: string, create: boolean): Promise<Session> {
    if (this.#ws.sessions.get(threadId) !== undefined) return this.#access.session(user, threadId);
    if (!create) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${threadId}"`);
    try {
      // The id is claimed for the user first: another user's (being made, or reserved) is SESSION_NOT_FOUND.
      return await this.#access.create(user, { id: threadId });
    } catch (error) {
      if (!GolemError.isInstance(error) || error.code !== 'DUPLICATE_ID' || this.#ws.sessions.get(threadId) === undefined) throw error;
      throw new GolemError('SESSION_BUSY', `thread "${threadId}" was started meanwhile by another request, whose run has it; wait for that run to end`);
    }
  }

  // --- views ---

  /** What a page lists: `user`'s sessions (every one without users), and the approvals and clearance items of those. */
  async state(user: string | null): Promise<ServeState> {
    const model = this.#agent?.model;
    const sees = (sessionId: string) => this.#access.sees(user, sessionId);
    const chats = chatSessions(this.#ws.manager.workspace(), this.#ws.sessions.list()).filter((s) => sees(s.id));
    // Each session record counts its turns; one last written by an older Golem is counted on its path, loaded for that.
    await this.#ws.manager.load(chats.filter((s) => s.length === undefined).map((s) => s.id));
    return {
      sessions: chats.map((s) => sessionSummary(this.#ws.manager.workspace(), s)),
      // An answer given in a page is not pending any more, though the run that asked may not have recorded it yet.
      approvals: this.#ws.approvals
        .pending()
        .filter((a) => !this.#answered.has(a.id) && sees(a.rootSessionId))
        .map(approvalView),
      clearance: this.#clearance
        .list()
        .filter((c) => sees(c.sessionId))
        .map(clearanceView),
      model: model === undefined ? null : { provider: model.provider, modelId: model.modelId },
      running: this.#runs.running().filter(sees),
      commands: (await this.#prompts()).map(({ command, prompt }) => ({
        command,
        usage: promptUsage(prompt),
        description: prompt.description ?? '',
      })),
    };
  }

  /** The MCP servers' prompts, read once (the servers are connected before golem serve starts). */
  #prompts(): Promise<PromptCommand[]> {
    this.#promptList ??= promptCommands(this.#ws.mcp.connections());
    return this.#promptList;
  }

  async session(user: string | null, sessionId: string): Promise<SessionDetail> {
    const record = this.#access.session(user, sessionId).record();
    await this.#ws.manager.load([record.id]);
    const view = this.#ws.manager.workspace();
    const sessionView = new SessionView(view, record);
    const turns = pathTo(view, record.head).map((turn) => turnView(turn, sessionView));
    const workers = recordsOf(view, 'worker')
      .filter((w) => w.rootSessionId === record.id)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((w): WorkerView => ({ id: w.id, parentSessionId: w.parentSessionId, depth: w.depth, task: w.task, status: w.status, result: w.result }));
    // An allow-list: an instance built after this read (by another conversation, or another process) is not shown until a read names it.
    // With users, only what this session's agent built: an instance of no known builder may be another user's.
    // With users, by the ids their agent gave (ui-scope.ts), as uiRecord and uiImage take them.
    const shown = uiInstances(view).flatMap((ui) =>
      inConversation(view, ui, record.id) && uiVisibleTo(ui, user, (id) => this.ownerOf(id)) ? [this.shownUiId(user, ui.id)] : [],
    );
    return {
      session: { ...sessionSummary(view, record, turns.length), head: record.head },
      turns,
      workers,
      uiInstances: shown,
      running: this.#runs.isRunning(record.id),
      inbox: this.#ws.runs.inbox(record.id).map(inboxView),
      tasks: sessionTasks(view, record.id),
    };
  }

  /**
   * An image by blob that a UI instance `user` may see shows (`state.runtime.images`, an image field): its
   * bytes and type, for the page to draw. Any other blob (another user's instance's, one no
   * image of it names, one that is no raster image) is BLOB_NOT_FOUND, worded alike.
   */
  async uiImage(user: string | null, instanceId: string, sha256: string): Promise<{ bytes: Uint8Array; mediaType: string }> {
    const absent = () => new GolemError('BLOB_NOT_FOUND', `no image ${sha256} on the UI "${instanceId}"`);
    const record = this.#visibleUi(user, instanceId);
    if (record === undefined) throw absent();
    const shown = [...imageBlobs(record.instance), ...fieldImageBlobs(record.instance)];
    const blob = shown.includes(sha256) ? this.#ws.blobs.get(sha256) : undefined;
    if (blob === undefined || !(IMAGE_MEDIA_TYPES as readonly string[]).includes(blob.mediaType)) throw absent();
    return { bytes: await this.#ws.blobs.read(sha256), mediaType: blob.mediaType };
  }

  /** A UI instance `user` may see (one their agent built; any, without users): UI_FIELD_NOT_FOUND otherwise, worded as for none. */
  uiRecord(user: string | null, instanceId: string): UIInstanceRecord {
    const record = this.#visibleUi(user, instanceId);
    if (record === undefined) throw new GolemError('UI_FIELD_NOT_FOUND', `no UI "${instanceId}"`);
    return record;
  }

  /** The instance `user` calls `instanceId` (their agent's id for it: ui-scope.ts), when they may see it. */
  #visibleUi(user: string | null, instanceId: string): UIInstanceRecord | undefined {
    const view = this.#ws.manager.workspace();
    const visible = (record: UIInstanceRecord) => uiVisibleTo(record, user, (id) => this.ownerOf(id));
    const record = uiInstance(view, storedInstanceId(view, this.#scope(user), instanceId, visible));
    return record !== undefined && visible(record) ? record : undefined;
  }

  /** The id `user` knows a stored instance by: the one their agent gave it, without their prefix (ui-scope.ts). */
  shownUiId(user: string | null, instanceId: string): string {
    return shownInstanceId(this.#scope(user), instanceId);
  }

  /** How the user of session `sessionId` knows each instance (see shownUiId): for the streams of their threads. */
  uiIdsOf(sessionId: string): (instanceId: string) => string {
    const user = this.#access.ownerOf(sessionId) ?? null;
    return (instanceId) => this.shownUiId(user, instanceId);
  }

  /** The prefix `user`'s instances are kept under (none without users). */
  #scope(user: string | null): string | undefined {
    return user === null ? undefined : userScope(user);
  }

  // --- changes ---

  async createSession(user: string | null, label: string | null): Promise<SessionSummary> {
    const session = await this.#access.create(user, { label });
    return sessionSummary(this.#ws.manager.workspace(), session.record(), 0);
  }

  /**
   * Adds the user's message and runs the agent on it; resolves with the run's id. While a run
   * holds the session (here or in another process), the message goes to its inbox by `policy`
   * (`ws.runs.send`: SESSION_BUSY for reject; the server's default when none), and the answer
   * names it and the run it waits for.
   */
  async send(user: string | null, sessionId: string, text: string, policy?: RunPolicy): Promise<SendMessageResult> {
    const session = this.#access.session(user, sessionId);
    this.#runs.requireAgent();
    // A message that starts with an MCP prompt's command sends what the prompt expands to (INVALID_ARGUMENT for a missing argument).
    const name = /^(\/mcp__\S+)/.exec(text)?.[1];
    const prompt = name === undefined ? undefined : (await this.#prompts()).find((p) => p.command === name);
    const message = prompt === undefined ? text : await promptMessage(prompt, text.slice(prompt.command.length));
    // Twice at most: a run that another request started between the look and the claim takes the message in its inbox.
    for (let tries = 0; ; tries++) {
      const sent = await this.#runs.send(session.id, { blocks: [{ type: 'text', text: message }] }, policy);
      if (sent.status === 'queued') return { runId: sent.runId, queued: inboxView(sent.message) };
      try {
        return { runId: await this.#runs.start(session, message) };
      } catch (error) {
        if (tries > 0 || policy === 'reject' || !GolemError.isInstance(error) || error.code !== 'SESSION_BUSY') throw error;
      }
    }
  }

  /** A new version of a past message (the head moves to it); a user message is then answered by the agent. */
  async edit(user: string | null, sessionId: string, turnId: string, text: string): Promise<{ runId: string | null; turn: { id: string; version: number } }> {
    const session = await this.#access.session(user, sessionId).load();
    const turn = session.turn(turnId);
    if (turn === undefined) throw new GolemError('TURN_NOT_FOUND', `session "${session.id}" has no turn "${turnId}"`);
    if (turn.blocks.some((b) => b.type !== 'text'))
      throw new GolemError(
        'INVALID_ARGUMENT',
        `turn "${turnId}" holds more than text (${turn.blocks.map((b) => b.type).join(', ')}); only text messages are edited here`,
      );
    const blocks: ContentBlock[] = [{ type: 'text', text }];
    if (turn.role !== 'user' || this.#agent === undefined) {
      const edited = await this.#runs.reserving(session.id, () => session.editTurn(turn.id, blocks));
      return { runId: null, turn: { id: edited.id, version: edited.version } };
    }
    // The run is claimed first: an edit another process's run would refuse is not made.
    const claim = await this.#runs.claim(session.id);
    let edited: Turn;
    try {
      edited = await session.editTurn(turn.id, blocks);
    } catch (error) {
      await this.#runs.drop(session.id, claim);
      throw error;
    }
    return { runId: this.#runs.run(session, undefined, claim).runId, turn: { id: edited.id, version: edited.version } };
  }

  async switchVersion(user: string | null, sessionId: string, turnId: string, direction: 'left' | 'right'): Promise<{ head: { id: string; version: number } }> {
    const session = this.#access.session(user, sessionId);
    return {
      head: await this.#runs.reserving(session.id, () => (direction === 'left' ? session.switchVersionLeft(turnId) : session.switchVersionRight(turnId))),
    };
  }

  async fork(user: string | null, sessionId: string, at: string | undefined): Promise<SessionSummary> {
    const record = this.#access.session(user, sessionId).record();
    const fork = await this.#access.fork(user, record.id, at, { label: `fork of ${record.label ?? 'untitled'}` });
    return sessionSummary(this.#ws.manager.workspace(), fork.record());
  }

  /** A message for a user's click on an instance whose agent cannot take it now (busy), or undefined when it can. */
  refuseAction(instanceId: string): string | undefined {
    if (this.#agent === undefined) return undefined;
    const sessionId = this.#builderOf(instanceId);
    if (sessionId !== undefined && this.#runs.busyAnywhere(sessionId)) {
      return 'the agent is still working on its last answer; click again once it has answered';
    }
    return undefined;
  }

  /** Stops the session's run (a pending approval is answered no); false when none runs. */
  stop(user: string | null, sessionId: string): boolean {
    if (!this.#access.sees(user, sessionId)) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${sessionId}"`);
    return this.#runs.stop(sessionId);
  }

  /**
   * Answers an approval. The run that asked gets the answer and goes on; an approval
   * left by an earlier server (its run is gone) is answered in the workspace and its
   * session's run resumed, performing the call if it was approved.
   */
  async answerApproval(user: string | null, approvalId: string, body: ApprovalAnswerBody): Promise<ApprovalRecord> {
    const approval = this.#access.approval(user, approvalId);
    // Once closing, a run resumed for the answer would outlive the server (its lease already let go).
    if (this.#closed) throw new GolemError('WORKSPACE_CLOSED', 'golem serve is closing; answer the approval on the next one');
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
    if (this.#agent !== undefined && !this.#runs.busy(root) && this.#ws.manager.workspace().sessions.has(root)) {
      await this.#runs.start(this.#session(root), undefined).catch((error: unknown) => {
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

  async clearanceDiff(user: string | null, itemId: string): Promise<string> {
    return this.#clearance.diff(this.#access.clearanceItem(user, itemId).id);
  }

  async decideClearance(user: string | null, itemId: string, action: 'push' | 'discard' | 'defer'): Promise<{ item: ClearanceView; message: string }> {
    const decided = await this.#clearance[action](this.#access.clearanceItem(user, itemId).id);
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
    if (sessionId === undefined || this.#runs.busyAnywhere(sessionId)) return;
    const text = [
      `[UI action] The user clicked "${event.actionLabel}" (action "${event.actionId}") on the UI "${event.instanceId}" (version ${event.version}).`,
      `The form's values: ${JSON.stringify(event.values)}`,
      ...(event.count === undefined ? [] : [`The count (state.runtime.count): ${event.count}`]),
    ].join('\n');
    // Marked as a click by its block's id, which a message typed in a page cannot carry.
    this.#runs.start(this.#session(sessionId), [{ type: 'text', id: UI_ACTION_BLOCK, text }]).catch((error: unknown) => this.#runs.failed(sessionId, error));
  }

  /**
   * Runs in progress are aborted and waited for (at most a few seconds), except those
   * waiting for an approval: that stays pending in the workspace for the next server.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const off of this.#offs) off();
    await this.#runs.close(this.#adapter.waitingSessions());
  }

  /** Waits for the session's run (and the queued inputs after it) to end. */
  async settled(sessionId: string): Promise<void> {
    await this.#runs.settled(sessionId);
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
      // Answered in this process without this host (ws.tasks.accept of a plan, ws.approvals): the run waiting here takes it.
      if (type === 'approval:answer') this.#answeredElsewhere();
      this.#change(['approvals'], ...ids);
    } else if (domain === 'clearance') this.#change(['clearance', 'sessions'], ...ids);
    // inbox: a message queued, taken back or delivered (its list under the composer).
    else if (domain === 'session' || domain === 'turn' || domain === 'worker' || domain === 'inbox') this.#change(['sessions'], ...ids);
    else if (domain === 'task') this.#change(['sessions'], ...taskSessionIds(this.#ws.manager.workspace(), event.result));
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
    for (const id of sessionIds) this.#changed.sessionIds.add(this.rootOf(id));
  }

  /** The session whose agent last patched an instance (the root of its worker tree), as the instance records it. */
  #builderOf(instanceId: string): string | undefined {
    const view = this.#ws.manager.workspace();
    const builtBy = uiInstance(view, instanceId)?.builtBy ?? this.#builderFromTurns(instanceId);
    if (builtBy === undefined) return undefined;
    const root = this.rootOf(builtBy);
    // The session may be gone since (its turns live on in forks): then nobody is told.
    return view.sessions.has(root) ? root : undefined;
  }

  /** An instance last patched before Golem recorded its builder: the call on record, among the turns in memory. */
  #builderFromTurns(instanceId: string): string | undefined {
    let latest: Turn | undefined;
    for (const turn of this.#ws.manager.workspace().turns.values()) {
      if (latest !== undefined && turn.seq < latest.seq) continue;
      const names = turn.blocks.some(
        (b) => b.type === 'tool_use' && b.name === 'patch_ui_state' && (b.args.instanceId === instanceId || b.args.newInstanceId === instanceId),
      );
      if (names) latest = turn;
    }
    return latest?.sessionId;
  }

  /** The root session of the worker tree a session is in (itself, unless it is a sub-worker's). */
  rootOf(sessionId: string): string {
    return this.#access.rootOf(sessionId);
  }

  /** The user a session belongs to (undefined without users). */
  ownerOf(sessionId: string): string | undefined {
    return this.#access.ownerOf(sessionId);
  }

  #session(sessionId: string): Session {
    const session = this.#ws.sessions.get(sessionId);
    if (session === undefined) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${sessionId}"`);
    return session;
  }
}
