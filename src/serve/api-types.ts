/**
 * What `golem serve`'s HTTP API and WebSocket carry, shared by the server and the page
 * (web/). Types only: the page imports this file, so it must import nothing at run time.
 *
 * HTTP: every `/api/*` request carries the token (`Authorization: Bearer <token>`, or
 * `?token=`); bodies are JSON; a refusal is `{ error: { code, message } }` with status
 * 400 (bad input), 401 (token), 404 (`*_NOT_FOUND`), 409 (busy, conflict) or 500.
 *
 * WebSocket (`/ws?token=`): AG-UI events. STATE_SNAPSHOT / STATE_DELTA carry the UI
 * instances (`{ instances: { [id]: UIInstance } }`, `metadata.version` one more per
 * delta); RUN_* / TEXT_MESSAGE_* / TOOL_CALL_* / STEP_* carry runs (message and tool call
 * ids start with their run's id and a colon; a run's RUN_ERROR carries threadId and runId,
 * a refused UI_ACTION's has neither); CUSTOM events carry the rest (`ServeCustomEvent`).
 * The page sends `SNAPSHOT_REQUEST` and `UI_ACTION` (see ui-actions.ts).
 */

import type { ToolChange } from '../action/approval.js';

/** GET /api/state: what every tab shows whatever session it is on. */
export interface ServeState {
  /** Chat sessions (not sub-workers'), most recent first. */
  sessions: SessionSummary[];
  /** Approvals waiting for the user, oldest first. */
  approvals: ApprovalView[];
  /** Clearance items waiting (pending or deferred), oldest first. */
  clearance: ClearanceView[];
  /** The model answering, or null when `golem serve` has none (the page is read-only then). */
  model: { provider: string; modelId: string } | null;
  /** Sessions with a run in progress. */
  running: string[];
  /** Slash commands a message may start with: the MCP servers' prompts (the server sends what one expands to). */
  commands: CommandView[];
}

export interface CommandView {
  /** e.g. /mcp__everything__args-prompt */
  command: string;
  /** Its arguments, e.g. "<city> [state]". */
  usage: string;
  description: string;
}

export interface SessionSummary {
  id: string;
  label: string | null;
  updatedAt: string;
  /** Turns on the session's path. */
  turns: number;
  /** The session this one was forked from (null: it was not forked), which the Compare view offers first. */
  forkedFrom: string | null;
}

/** GET /api/sessions/:id: one session's path, with each turn's versions. */
export interface SessionDetail {
  session: SessionSummary & { head: { id: string; version: number } | null };
  turns: TurnView[];
  /** The session's worker tree (sub-workers at any depth), in creation order. */
  workers: WorkerView[];
  /**
   * The UI instances a page shows with this session: those its conversation built (its root or
   * a sub-worker), and those built outside any conversation. Any other is left out, so a click
   * never goes to a conversation out of view.
   */
  uiInstances: string[];
  running: boolean;
  /** Messages sent while a run held the session, waiting for its next step (steer) or its end (enqueue, interrupt), oldest first. */
  inbox: InboxMessageView[];
  /** The plans of the session and its sub-workers (`ws.tasks`), oldest first: a sub-worker's names its parent's task and step. */
  tasks: TaskView[];
}

/** A task (a plan) as the page shows it; POST /api/tasks/:id accepts (as proposed, or edited) or declines a proposed one. */
export interface TaskView {
  id: string;
  sessionId: string;
  parentTask: { taskId: string; step: number } | null;
  title: string;
  steps: { text: string; status: 'pending' | 'in_progress' | 'done' | 'skipped' }[];
  status: 'proposed' | 'accepted' | 'declined' | 'done' | 'cancelled';
  reason: string | null;
  updatedAt: string;
}

/** POST /api/tasks/:id: accept a proposed plan (with the user's title and steps, if edited) or decline it (with a reason). */
export type TaskDecisionBody = { action: 'accept'; title?: string; steps?: string[] } | { action: 'decline'; reason?: string };

/** A message waiting in a session's inbox (`ws.runs.inbox`); DELETE /api/sessions/:id/inbox/:messageId takes it back. */
export interface InboxMessageView {
  /** The user turn it becomes once delivered. */
  id: string;
  /** Its text blocks, joined. */
  text: string;
  /** enqueue: the next user turn once the run ends; steer: read before the run's next model call; interrupt: the run stops, then it is answered. */
  policy: 'enqueue' | 'steer' | 'interrupt';
  createdAt: string;
}

export interface TurnView {
  id: string;
  version: number;
  role: 'user' | 'assistant' | 'system' | 'tool';
  /** The text blocks, joined. */
  text: string;
  /** Tool calls of an assistant turn, and their results when recorded. */
  toolCalls: { callId: string; name: string; input: unknown }[];
  toolResults: { callId: string; text: string; isError: boolean }[];
  /** The versions of this turn the session can see (`versions[currentIndex]` is this one). */
  branch: { versions: number[]; currentIndex: number; total: number; hasPrev: boolean; hasNext: boolean };
  createdAt: string;
  /**
   * What the turn is, beyond its role: a message someone wrote, a click on a model-built UI
   * (`uiAction`), results the agent recorded for its calls, or a notice of the system (`text`
   * then says it in a few words, without record ids).
   */
  kind: 'message' | 'ui-action' | 'results' | 'notice';
  /** A click on a model-built UI, as the user did it (kind 'ui-action'). */
  uiAction: { label: string; actionId: string; instanceId: string; values: Record<string, unknown> } | null;
  /** An answer's tokens and cost (assistant turns the model's answer recorded; cost null when its price is unknown). */
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number | null; cost: number | null } | null;
  /** How an answer ended when it did not complete: the user stopped it, or it failed (with the reason). */
  ended: { status: 'stopped' } | { status: 'failed'; code: string; message: string } | null;
  /** The plans the turn proposed (its `task:proposal` blocks): the page shows each task as it is now (`SessionDetail.tasks`). */
  plans: { taskId: string; title: string }[];
}

export interface WorkerView {
  id: string;
  parentSessionId: string;
  depth: number;
  task: string;
  status: 'running' | 'done' | 'question' | 'failed';
  result: string | null;
}

/** A sub-worker as the `golem.worker` event shows it. */
export interface WorkerState {
  id: string;
  /** The worker that started it (the root session's id for a worker of depth 1). */
  parentId: string | null;
  depth: number;
  task: string;
  status: 'running' | 'done' | 'question' | 'failed' | 'waiting';
  /** What it does now, in a few words: 'starting', 'writing', 'step 2: 1 action(s)', 'read_file ✓'. */
  activity: string;
  /** Milliseconds since the epoch. */
  startedAt: number;
  endedAt: number | null;
  /** It runs side by side with its siblings: its place among them. */
  batch?: { index: number; size: number };
}

export interface ApprovalView {
  id: string;
  rootSessionId: string;
  action: string;
  type: 'tool_call' | 'file_write' | 'command' | 'plan';
  description: string;
  details: unknown;
  risk: 'low' | 'medium' | 'high' | 'unknown';
  /** Why the action judged the risk so (run_command's `details.riskReason`), when it said. */
  riskReason?: string;
  /** What an MCP server changed in the tool asked about since it was trusted (`details.changed`), when it did. */
  toolChange?: ToolChangeView;
  /** [root, ..., the worker asking]. */
  workerPath: { id: string; depth: number; task: string }[];
  createdAt: string;
}

/** A tool's change as an approval shows it: its description and input schema before, and now. */
export type ToolChangeView = ToolChange;

/**
 * GET /api/sessions/:a/diff/:b: two sessions compared (`ws.sessions.diff`), as the page's
 * Compare view shows them. Turns are read as the chat reads them (`TurnView`, each with its own
 * session's versions), clearance items as the side panel does.
 */
export interface SessionComparison {
  a: string;
  b: string;
  labels: { a: string | null; b: string | null };
  /** The newest turn both heads descend from (null: no shared history), and each side's turns since it, oldest first. */
  turns: { base: { id: string; version: number } | null; a: TurnView[]; b: TurnView[] };
  /** Each editable value that differs, as each side's model last saw it (null: not set). */
  environment: { environment: string; field: string; a: string | null; b: string | null }[];
  /** Each UI instance that differs, as RFC 6902 from a's instance to b's. */
  ui: { instanceId: string; change: 'added' | 'removed' | 'changed'; patch: { op: 'add' | 'remove' | 'replace' | 'test'; path: string; value?: unknown }[] }[];
  /** The clearance items waiting on each side, oldest first. */
  clearance: { a: ClearanceView[]; b: ClearanceView[] };
}

/** POST /api/sessions/:id/merge: brings another branch (a session of the same fork family) into this one. */
export interface MergeBody {
  /** The session whose head is merged. */
  from: string;
  /** `turns` (default): the prompt shows the branch's turns; `summary`: the server's model summarizes them (MODEL_REQUIRED without one). */
  as?: 'turns' | 'summary';
}

/** What a merge added: the merge turn on the session's head. */
export interface MergeResult {
  turn: { id: string; version: number };
  from: string;
  as: 'turns' | 'summary';
}

export interface ClearanceView {
  id: string;
  sessionId: string;
  type: 'staged_commit' | 'pending_export' | 'binary_output';
  description: string;
  status: string;
  createdAt: string;
}

/**
 * GET /api/runs/:id: a run of a session's agent as the store records it (issue 36; the record
 * is `RunRecord`, which the server checks against this).
 */
export interface RunView {
  id: string;
  sessionId: string;
  status: 'queued' | 'running' | 'paused' | 'succeeded' | 'failed' | 'cancelled';
  /** Who runs (or ran) it, for people: "golem serve, pid 4711 on build-2". */
  by: string;
  /** The holding workspace handle's instance id (the last one, once ended). */
  holder: string;
  createdAt: string;
  /** When it (last) started running: its claim, a take-over, a resume. */
  startedAt: string;
  endedAt?: string | undefined;
  /** How the worker's run ended (done, paused, step_limit...), once it did. */
  outcome?: string | undefined;
  /** Why it failed or was cancelled. */
  error?: { code: string; message: string } | undefined;
  /** What its model calls used, summed over its sub-workers; `cost` in US dollars, null where a price is unknown. */
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number; cost: number | null; modelCalls: number };
  /** Asked to stop, when and by whom: its holder stops at its next step boundary. */
  cancel?: { at: string; by: string } | undefined;
  /** How many times another process took it over. */
  takeovers: number;
}

/** GET /api/runs?sessionId=&status=&limit=&cursor=: runs newest first; `cursor` (when there are more) asks for the next page. */
export interface RunPageView {
  runs: RunView[];
  cursor?: string;
}

/**
 * POST /api/runs/:id/cancel: the run as the cancel left it, and what the cancel did:
 * `stopping` (its process was asked to stop, at its next step), `cancelled` (no live process
 * held it: cancelled at once), `ended` (it had ended before; nothing changed).
 */
export interface RunCancelView {
  run: RunView;
  outcome: 'stopping' | 'cancelled' | 'ended';
}

/**
 * GET /api/runs/:id/events: a run's events as server-sent events, each `data` one of these and
 * its `id` `<runId>:<seq>`, from the run's start (or after `?after=<seq>`, or the
 * `Last-Event-ID` a client comes back with), live to the run's end (or its pause). `event` is
 * a worker event (worker-start, text-delta, answer, step with its turn, action, worker-end).
 */
export type RunEventView = { seq: number } & (
  | { type: 'event'; event: Record<string, unknown> & { type: string } }
  | { type: 'approval'; approvalId: string }
  | { type: 'client-call'; call: { callId: string; name: string; input: unknown } }
  /** The end: the worker's outcome (done, question, paused, step_limit, aborted, error, failed), its answer's text, or the error. */
  | { type: 'end'; outcome?: string; text?: string; error?: { code: string; message: string } }
);

/** POST bodies. */
export interface SendMessageBody {
  text: string;
  /**
   * What to do when a run holds the session (here or in another process): `reject` refuses
   * (SESSION_BUSY), `enqueue` (the server's default) keeps it for the run's end, `steer` shows it
   * to the running agent before its next model call, `interrupt` stops the run and answers it.
   * No run holding it: a run starts on it, whatever the policy.
   */
  policy?: 'reject' | 'enqueue' | 'steer' | 'interrupt';
}
/** POST /api/sessions/:id/messages: the run started on the message, or (a run holding the session) the message queued for it. */
export type SendMessageResult = { runId: string; queued?: never } | { runId: string; queued: InboxMessageView };
/** DELETE /api/sessions/:id/inbox/:messageId: the message taken back (MESSAGE_NOT_FOUND when none waits with that id in the session). */
export interface UnsendResult {
  unsent: InboxMessageView;
}
export interface EditTurnBody {
  text: string;
}
export interface SwitchBody {
  direction: 'left' | 'right';
}
export interface ForkBody {
  /** The turn to fork at (default: the head). */
  at?: string;
}
export interface ApprovalAnswerBody {
  answer: 'yes' | 'no' | 'always' | 'session';
  reason?: string;
}
export interface ClearanceDecisionBody {
  action: 'push' | 'discard' | 'defer';
}

/**
 * The CUSTOM events of the socket. `golem.changed` says what to read again (another tab,
 * another process or the agent changed it); the others are the UIAdapter's calls.
 */
export type ServeCustomEvent =
  | { type: 'CUSTOM'; name: 'golem.changed'; value: { topics: ('sessions' | 'approvals' | 'clearance')[]; sessionIds: string[] } }
  | { type: 'CUSTOM'; name: 'golem.status'; value: { text: string; level: 'info' | 'warning' | 'error' } }
  | { type: 'CUSTOM'; name: 'golem.progress'; value: { id: string; description: string; depth: number; status: 'waiting' | 'running' | 'complete' | 'failed' } }
  | { type: 'CUSTOM'; name: 'golem.diff'; value: { title: string; diff: string } }
  | { type: 'CUSTOM'; name: 'golem.worker'; value: WorkerState }
  | { type: 'CUSTOM'; name: 'golem.clearance-result'; value: { itemId: string; action: string; ok: boolean; message: string } };
