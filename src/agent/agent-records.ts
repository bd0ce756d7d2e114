/**
 * The agent's records (seed 003): the worker tree, trust overrides and grants, pending
 * approvals, clearance items and started calls, each a Zod schema with its inferred type.
 * `agent-plugin.ts` declares them as the agent's collections.
 */
import { z } from 'zod';
import { Id, JsonObject, JsonValue, Timestamp, TurnRef, type CollectionMap, type WorkspaceView } from '../core/index.js';

/** How an action runs: on its own, after the user says yes, or staged for the user to clear. */
export const TrustMode = z.enum(['autonomous', 'supervised', 'manual']);

/** One worker on the path from the root to the worker that asked (an approval's `workerPath`). */
export const WorkerInfoSchema = z.strictObject({ id: Id, depth: z.number().int().nonnegative(), task: z.string() });

/** A sub-worker: a session of its own, linked to the tool call of its parent that started it. */
export const WorkerRecord = z.strictObject({
  /** The worker's session id. */
  id: Id,
  parentSessionId: Id,
  parentCallId: z.string(),
  rootSessionId: Id,
  depth: z.number().int().positive(),
  task: z.string(),
  /** The actions it was given. */
  actions: z.array(z.string()),
  /** The earlier worker this one re-invokes with a clarified task. */
  reinvokes: Id.nullable(),
  status: z.enum(['running', 'done', 'question', 'failed']),
  /** Its result, or its question. */
  result: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WorkerRecord = z.infer<typeof WorkerRecord>;

/** The trust modes set for a scope: the workspace ('workspace') or one session ('session:<id>'). */
export const TrustOverrides = z.strictObject({ key: z.string(), modes: z.record(z.string(), TrustMode) });
export type TrustOverrides = z.infer<typeof TrustOverrides>;

/** A standing yes: calls of `action` with the same grant key run without asking. */
export const Grant = z.strictObject({
  id: Id,
  action: z.string(),
  key: z.string(),
  scope: z.enum(['workspace', 'session']),
  /** The (root) session a 'session' grant holds for. */
  sessionId: Id.nullable(),
  approvalId: Id.nullable(),
  createdAt: Timestamp,
});
export type Grant = z.infer<typeof Grant>;

/** A supervised call waiting for the user's answer, or answered: bound to that one call by its fingerprint. */
export const ApprovalRecord = z.strictObject({
  id: Id,
  /** The session of the worker that asked, and its root's. */
  sessionId: Id,
  rootSessionId: Id,
  /** The answer (assistant turn) that made the call, and the call's id in it. */
  turnId: Id,
  callId: z.string(),
  action: z.string(),
  input: JsonValue,
  /** Binds the answer to this exact call: sha256 of the action's name and canonical input. */
  fingerprint: z.string(),
  /** The action's grant key for this input (what an 'always' or 'session' answer grants). */
  grantKey: z.string(),
  type: z.enum(['tool_call', 'file_write', 'command', 'plan']),
  description: z.string(),
  details: JsonValue,
  risk: z.enum(['low', 'medium', 'high', 'unknown']),
  workerPath: z.array(WorkerInfoSchema),
  status: z.enum(['pending', 'approved', 'denied']),
  answer: z.enum(['yes', 'no', 'always', 'session']).nullable(),
  reason: z.string().nullable(),
  createdAt: Timestamp,
  answeredAt: Timestamp.nullable(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

/** Work of a manual-mode worker waiting for the user's decision: a staged commit, a deferred call, a binary output. */
export const ClearanceRecord = z.strictObject({
  id: Id,
  type: z.enum(['staged_commit', 'pending_export', 'binary_output']),
  description: z.string(),
  status: z.enum(['pending', 'deferred', 'pushed', 'discarded']),
  /** The root session told of the decision, and the worker session that staged it. */
  sessionId: Id,
  workerId: Id,
  /** staged_commit: the git StageRef; pending_export: the call waiting to be run. */
  metadata: JsonObject,
  /** What the decision did (e.g. the files written), once decided. */
  outcome: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type ClearanceRecord = z.infer<typeof ClearanceRecord>;

/**
 * The calls of one answer (a turn version) that a worker started running: a run resumed
 * after a crash finds a call started but never answered here, and does not run it again
 * unless its action is repeatable. Keyed by the answer, so a fork sharing it sees it too.
 */
export const CallStart = z.strictObject({
  turn: TurnRef,
  /** The session whose worker started the first of them. */
  sessionId: Id,
  calls: z.array(z.strictObject({ callId: z.string(), action: z.string(), startedAt: Timestamp })),
});
export type CallStart = z.infer<typeof CallStart>;

/** A lease holder's process, so that a claimant on the same machine can tell it is gone. */
export const LeaseProcess = z.strictObject({
  host: z.string().min(1),
  pid: z.number().int().positive(),
  /** The machine and process namespace the pid means something in (Linux: boot id and pid namespace); without it, never judged gone. */
  machine: z.string().min(1).optional(),
  /** When the process started (Linux: clock ticks since boot), so a pid used again is not taken for it. */
  start: z.string().min(1).optional(),
});
export type LeaseProcess = z.infer<typeof LeaseProcess>;

/**
 * A run's lease on its (root) session: the process running it renews it while it runs;
 * once it lapses (its process died or stalls), another process may claim the run and
 * resume it from the log. Keyed by the session; deleted when the run ends.
 */
export const RunLease = z.strictObject({
  sessionId: Id,
  /** The holding handle's `WorkspaceManager.instanceId`. */
  holder: z.string().min(1),
  /** Who that is, for people (e.g. "golem serve, pid 4711 on build-2"). */
  by: z.string(),
  /** The holder's process, so a claimant on the same machine can tell it is gone before its lease lapses. */
  process: LeaseProcess.optional(),
  /** Whether another process may resume the run as its own (false: a run only its kind of front end resumes, e.g. the terminal's). */
  resumable: z.boolean().optional(),
  runId: z.string().min(1),
  claimedAt: Timestamp,
  expiresAt: Timestamp,
  /** How many times the run was claimed from a holder whose lease had lapsed. */
  takeovers: z.number().int().nonnegative(),
});
export type RunLease = z.infer<typeof RunLease>;

/** The names of the agent's collections. */
export type AgentCollection = 'worker' | 'trust' | 'grant' | 'approval' | 'clearance' | 'call' | 'run' | 'task';

/** Every record of an agent collection, typed by the collection's name. */
export function recordsOf<K extends AgentCollection>(view: WorkspaceView, collection: K): CollectionMap[K][] {
  return [...view.collection(collection).values()];
}

/** The sessions that are chats, not sub-workers' (in the order given). */
export function chatSessions<S extends { id: string }>(view: WorkspaceView, sessions: readonly S[]): S[] {
  const workers = view.collection('worker');
  return sessions.filter((s) => !workers.has(s.id));
}
