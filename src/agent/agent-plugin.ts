/**
 * The agent domain of seed 003, added to every workspace through the extension
 * mechanism: the worker tree (`worker:*`), trust overrides (`trust:*`), grants
 * (`grant:*`), pending approvals (`approval:*`) and clearance items (`clearance:*`).
 * All of it is workspace state: it persists, replays and survives a restart.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { JsonObject, JsonValue } from '../core/blocks.js';
import { fail } from '../core/errors.js';
import type { Write } from '../core/store.js';
import { appendTurn } from '../core/commands/turn.js';
import { makeTurn, putSession, requireSession } from '../core/commands/kit.js';
import { defineCommand, type CommandDefinition, type ReducerContext, type WorkspaceExtension } from '../core/plugin.js';
import { Id, Timestamp, TurnRef, turnKey, type Session } from '../core/records.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { canonicalJson } from '../action/action.js';

export const TrustMode = z.enum(['autonomous', 'supervised', 'manual']);

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
  type: z.enum(['tool_call', 'file_write', 'command']),
  description: z.string(),
  details: JsonValue,
  risk: z.enum(['low', 'medium', 'high']),
  workerPath: z.array(WorkerInfoSchema),
  status: z.enum(['pending', 'approved', 'denied']),
  answer: z.enum(['yes', 'no', 'always', 'session']).nullable(),
  reason: z.string().nullable(),
  createdAt: Timestamp,
  answeredAt: Timestamp.nullable(),
});
export type ApprovalRecord = z.infer<typeof ApprovalRecord>;

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

/** The fingerprint an approval is bound to. */
export function callFingerprint(action: string, input: unknown): string {
  return createHash('sha256').update(action).update('\0').update(canonicalJson(input)).digest('hex');
}

const get = <T>(view: WorkspaceView, collection: string, key: string) => view.collections.get(collection)?.get(key) as T | undefined;

/** Every record of an agent collection. */
export function recordsOf<T>(view: WorkspaceView, collection: 'worker' | 'trust' | 'grant' | 'approval' | 'clearance' | 'call'): T[] {
  return [...(view.collections.get(collection)?.values() ?? [])] as T[];
}

/** The sessions that are chats, not sub-workers' (in the order given). */
export function chatSessions<S extends { id: string }>(view: WorkspaceView, sessions: readonly S[]): S[] {
  const workers = view.collections.get('worker');
  return sessions.filter((s) => workers?.has(s.id) !== true);
}

// --- the worker tree ---

export const workerSpawn = defineCommand({
  type: 'worker:spawn',
  description: "Starts a sub-worker: creates its session and links it to the parent's tool call.",
  payload: z.strictObject({
    id: Id.optional(),
    parentSessionId: Id,
    parentCallId: z.string(),
    task: z.string().min(1),
    actions: z.array(z.string()),
    reinvokes: Id.nullable().optional(),
    /** The depth limit of the tree (the worker's depth must not pass it). */
    maxDepth: z.number().int().positive(),
  }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.parentSessionId);
    const parent = get<WorkerRecord>(ctx.index, 'worker', payload.parentSessionId);
    const depth = (parent?.depth ?? 0) + 1;
    if (depth > payload.maxDepth) {
      throw fail('WORKER_DEPTH_EXCEEDED', `a sub-worker at depth ${depth} would pass the depth limit of ${payload.maxDepth}; do this task yourself or split it differently`, {
        depth,
        maxDepth: payload.maxDepth,
      });
    }
    if (payload.reinvokes != null && get<WorkerRecord>(ctx.index, 'worker', payload.reinvokes) === undefined) {
      throw fail('WORKER_NOT_FOUND', `no worker "${payload.reinvokes}" to re-invoke`, { workerId: payload.reinvokes });
    }
    const id = payload.id ?? ctx.newId();
    if (ctx.index.sessions.has(id)) throw fail('DUPLICATE_ID', `a session with id "${id}" already exists`, { sessionId: id });
    const session: Session = {
      id,
      label: `worker: ${payload.task.slice(0, 60)}`,
      topics: [],
      role: null,
      preferences: [],
      head: null,
      forkedFrom: null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    const worker: WorkerRecord = {
      id,
      parentSessionId: payload.parentSessionId,
      parentCallId: payload.parentCallId,
      rootSessionId: parent?.rootSessionId ?? payload.parentSessionId,
      depth,
      task: payload.task,
      actions: payload.actions,
      reinvokes: payload.reinvokes ?? null,
      status: 'running',
      result: null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    return { writes: [putSession(session), { op: 'put', collection: 'worker', key: id, value: worker }], result: worker };
  },
});

export const workerFinish = defineCommand({
  type: 'worker:finish',
  description: 'Records how a sub-worker ended: its result, or the question it could not answer.',
  payload: z.strictObject({ id: Id, status: z.enum(['done', 'question', 'failed']), result: z.string() }),
  reduce(payload, ctx) {
    const worker = get<WorkerRecord>(ctx.index, 'worker', payload.id);
    if (worker === undefined) throw fail('WORKER_NOT_FOUND', `no worker "${payload.id}"`, { workerId: payload.id });
    const next: WorkerRecord = { ...worker, status: payload.status, result: payload.result, updatedAt: ctx.now };
    return { writes: [{ op: 'put', collection: 'worker', key: worker.id, value: next }], result: next };
  },
});

// --- trust overrides and grants ---

export const trustSet = defineCommand({
  type: 'trust:set',
  description: "Sets (or with null, clears) an action's trust mode for the workspace or for one session.",
  payload: z.strictObject({ sessionId: Id.nullable().optional(), action: z.string().min(1), mode: TrustMode.nullable() }),
  reduce(payload, ctx) {
    if (payload.sessionId != null) requireSession(ctx.index, payload.sessionId);
    const key = payload.sessionId == null ? 'workspace' : `session:${payload.sessionId}`;
    const previous = get<TrustOverrides>(ctx.index, 'trust', key);
    const modes = { ...previous?.modes };
    if (payload.mode === null) delete modes[payload.action];
    else modes[payload.action] = payload.mode;
    const next: TrustOverrides = { key, modes };
    const write: Write = Object.keys(modes).length === 0 ? { op: 'delete', collection: 'trust', key } : { op: 'put', collection: 'trust', key, value: next };
    return { writes: [write], result: next };
  },
});

function grantWrite(ctx: ReducerContext, fields: Omit<Grant, 'id' | 'createdAt'>): { grant: Grant; write: Write } {
  const grant: Grant = { id: ctx.newId(), ...fields, createdAt: ctx.now };
  return { grant, write: { op: 'put', collection: 'grant', key: grant.id, value: grant } };
}

export const grantAdd = defineCommand({
  type: 'grant:add',
  description: 'Stores a standing yes for calls of an action with one grant key, in the workspace or one session.',
  payload: z.strictObject({ action: z.string().min(1), key: z.string(), scope: z.enum(['workspace', 'session']), sessionId: Id.nullable().optional() }),
  reduce(payload, ctx) {
    if (payload.scope === 'session' && payload.sessionId == null) throw fail('INVALID_ARGUMENT', 'a session grant needs a sessionId');
    if (payload.sessionId != null) requireSession(ctx.index, payload.sessionId);
    const { grant, write } = grantWrite(ctx, {
      action: payload.action,
      key: payload.key,
      scope: payload.scope,
      sessionId: payload.scope === 'session' ? (payload.sessionId ?? null) : null,
      approvalId: null,
    });
    return { writes: [write], result: grant };
  },
});

export const grantRevoke = defineCommand({
  type: 'grant:revoke',
  description: 'Removes a grant: the calls it covered ask again.',
  payload: z.strictObject({ id: Id }),
  reduce(payload, ctx) {
    const grant = get<Grant>(ctx.index, 'grant', payload.id);
    if (grant === undefined) throw fail('GRANT_NOT_FOUND', `no grant "${payload.id}"`, { grantId: payload.id });
    return { writes: [{ op: 'delete', collection: 'grant', key: grant.id }], result: grant };
  },
});

// --- approvals ---

export const approvalRequest = defineCommand({
  type: 'approval:request',
  description: 'Records a supervised call waiting for the user (one per call: asking again returns the same approval).',
  payload: z.strictObject({
    sessionId: Id,
    turnId: Id,
    callId: z.string(),
    action: z.string().min(1),
    input: JsonValue,
    grantKey: z.string(),
    type: z.enum(['tool_call', 'file_write', 'command']),
    description: z.string(),
    details: JsonValue,
    risk: z.enum(['low', 'medium', 'high']),
    workerPath: z.array(WorkerInfoSchema).min(1),
  }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const fingerprint = callFingerprint(payload.action, payload.input);
    const existing = findApproval(ctx.index, payload.sessionId, payload.turnId, payload.callId);
    if (existing !== undefined) {
      if (existing.fingerprint !== fingerprint) {
        throw fail('APPROVAL_MISMATCH', `call "${payload.callId}" already waits for approval of a different action or input`, { approvalId: existing.id });
      }
      return { writes: [], result: existing };
    }
    const worker = get<WorkerRecord>(ctx.index, 'worker', payload.sessionId);
    const approval: ApprovalRecord = {
      id: ctx.newId(),
      sessionId: payload.sessionId,
      rootSessionId: worker?.rootSessionId ?? payload.sessionId,
      turnId: payload.turnId,
      callId: payload.callId,
      action: payload.action,
      input: payload.input,
      fingerprint,
      grantKey: payload.grantKey,
      type: payload.type,
      description: payload.description,
      details: payload.details,
      risk: payload.risk,
      workerPath: payload.workerPath,
      status: 'pending',
      answer: null,
      reason: null,
      createdAt: ctx.now,
      answeredAt: null,
    };
    return { writes: [{ op: 'put', collection: 'approval', key: approval.id, value: approval }], result: approval };
  },
});

/** The approval asked for a call (of the answer `turnId` in the session), if any. */
export function findApproval(view: WorkspaceView, sessionId: string, turnId: string, callId: string): ApprovalRecord | undefined {
  return recordsOf<ApprovalRecord>(view, 'approval').find((a) => a.sessionId === sessionId && a.turnId === turnId && a.callId === callId);
}

export const approvalAnswer = defineCommand({
  type: 'approval:answer',
  description: "Answers a pending approval; 'always' and 'session' also store a grant. Bound to the call: a fingerprint that differs is refused.",
  payload: z.strictObject({
    id: Id,
    answer: z.enum(['yes', 'no', 'always', 'session']),
    reason: z.string().optional(),
    /** The fingerprint of the call the user saw; refused when it is not the pending call's. */
    fingerprint: z.string().optional(),
  }),
  reduce(payload, ctx) {
    const approval = get<ApprovalRecord>(ctx.index, 'approval', payload.id);
    if (approval === undefined) throw fail('APPROVAL_NOT_FOUND', `no approval "${payload.id}"`, { approvalId: payload.id });
    if (approval.status !== 'pending') {
      throw fail('APPROVAL_ANSWERED', `approval "${approval.id}" was already answered (${approval.answer})`, { approvalId: approval.id, answer: approval.answer });
    }
    if (payload.fingerprint !== undefined && payload.fingerprint !== approval.fingerprint) {
      throw fail('APPROVAL_MISMATCH', `the answer was given for a different call than ${approval.action} waiting in approval "${approval.id}"`, { approvalId: approval.id });
    }
    const answered: ApprovalRecord = {
      ...approval,
      status: payload.answer === 'no' ? 'denied' : 'approved',
      answer: payload.answer,
      reason: payload.answer === 'no' ? (payload.reason ?? null) : null,
      answeredAt: ctx.now,
    };
    const writes: Write[] = [{ op: 'put', collection: 'approval', key: approval.id, value: answered }];
    if (payload.answer === 'always' || payload.answer === 'session') {
      const scope = payload.answer === 'always' ? 'workspace' : 'session';
      writes.push(
        grantWrite(ctx, {
          action: approval.action,
          key: approval.grantKey,
          scope,
          sessionId: scope === 'session' ? approval.rootSessionId : null,
          approvalId: approval.id,
        }).write,
      );
    }
    return { writes, result: answered };
  },
});

// --- calls ---

export const callStart = defineCommand({
  type: 'call:start',
  description: 'Records that a worker starts running a call of an answer: a resumed run does not run it again.',
  payload: z.strictObject({ sessionId: Id, turn: TurnRef, callId: z.string().min(1), action: z.string().min(1) }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const key = turnKey(payload.turn);
    const earlier = get<CallStart>(ctx.index, 'call', key);
    const started: CallStart = {
      turn: payload.turn,
      sessionId: earlier?.sessionId ?? payload.sessionId,
      calls: [...(earlier?.calls.filter((c) => c.callId !== payload.callId) ?? []), { callId: payload.callId, action: payload.action, startedAt: ctx.now }],
    };
    return { writes: [{ op: 'put', collection: 'call', key, value: started }], result: started };
  },
});

/** The start of this call of the answer `turn`, if a worker recorded one. */
export function startedCall(view: WorkspaceView, turn: { id: string; version: number }, callId: string): CallStart['calls'][number] | undefined {
  return get<CallStart>(view, 'call', turnKey(turn))?.calls.find((c) => c.callId === callId);
}

// --- clearance ---

export const clearanceStage = defineCommand({
  type: 'clearance:stage',
  description: 'Creates a clearance item, or records a new staged state of one still open.',
  payload: z.strictObject({
    id: Id.optional(),
    type: z.enum(['staged_commit', 'pending_export', 'binary_output']),
    description: z.string().min(1),
    sessionId: Id,
    workerId: Id,
    metadata: JsonObject,
  }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const previous = payload.id === undefined ? undefined : get<ClearanceRecord>(ctx.index, 'clearance', payload.id);
    if (previous !== undefined && (previous.status === 'pushed' || previous.status === 'discarded')) {
      throw fail('CLEARANCE_DECIDED', `clearance item "${previous.id}" was already ${previous.status}`, { clearanceId: previous.id, status: previous.status });
    }
    const item: ClearanceRecord = {
      id: previous?.id ?? payload.id ?? ctx.newId(),
      type: payload.type,
      description: payload.description,
      status: previous?.status ?? 'pending',
      sessionId: payload.sessionId,
      workerId: payload.workerId,
      metadata: payload.metadata,
      outcome: null,
      createdAt: previous?.createdAt ?? ctx.now,
      updatedAt: ctx.now,
    };
    return { writes: [{ op: 'put', collection: 'clearance', key: item.id, value: item }], result: item };
  },
});

export const clearanceDecide = defineCommand({
  type: 'clearance:decide',
  description: "Records the user's decision on a clearance item and tells the root session as a system message.",
  payload: z.strictObject({
    id: Id,
    decision: z.enum(['push', 'discard', 'defer']),
    /** What the decision did, as the root worker is told (e.g. 'wrote src/a.ts'). */
    outcome: z.string().optional(),
  }),
  reduce(payload, ctx) {
    const item = get<ClearanceRecord>(ctx.index, 'clearance', payload.id);
    if (item === undefined) throw fail('CLEARANCE_NOT_FOUND', `no clearance item "${payload.id}"`, { clearanceId: payload.id });
    if (item.status === 'pushed' || item.status === 'discarded') {
      throw fail('CLEARANCE_DECIDED', `clearance item "${item.id}" was already ${item.status}`, { clearanceId: item.id, status: item.status });
    }
    const status = payload.decision === 'push' ? 'pushed' : payload.decision === 'discard' ? 'discarded' : 'deferred';
    const next: ClearanceRecord = { ...item, status, outcome: payload.outcome ?? null, updatedAt: ctx.now };
    const writes: Write[] = [{ op: 'put', collection: 'clearance', key: item.id, value: next }];
    const session = ctx.index.sessions.get(item.sessionId);
    if (session !== undefined) {
      const verb = status === 'pushed' ? 'pushed' : status === 'discarded' ? 'discarded' : 'deferred (it stays staged)';
      const text = `[System: the user ${verb} clearance item ${item.id}: ${item.description}${payload.outcome === undefined ? '' : `. ${payload.outcome}`}]`;
      const turn = makeTurn(ctx, {
        id: ctx.newId(),
        version: 0,
        parent: session.head,
        sessionId: session.id,
        role: 'system',
        blocks: [{ type: 'text', text }],
        meta: { clearance: { id: item.id, decision: payload.decision } },
      });
      writes.push(...appendTurn(ctx, session, turn).writes);
    }
    return { writes, result: next };
  },
});

export const AGENT_COMMANDS = [workerSpawn, workerFinish, trustSet, grantAdd, grantRevoke, approvalRequest, approvalAnswer, callStart, clearanceStage, clearanceDecide] as const;

export const agentExtension: WorkspaceExtension = {
  name: 'agent',
  collections: { worker: WorkerRecord, trust: TrustOverrides, grant: Grant, approval: ApprovalRecord, call: CallStart, clearance: ClearanceRecord },
  commands: AGENT_COMMANDS as unknown as readonly CommandDefinition<unknown, unknown, unknown>[],
};

type Definition = (typeof AGENT_COMMANDS)[number];
type ResultOf<D> = D extends { reduce(...args: never[]): infer C } ? (Awaited<C> extends { result: infer R } ? R : never) : never;
type PayloadOf<D> = D extends { payload: { _zod: { input: infer I } } } ? I : never;

declare module '../core/manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends AgentCommandMap {}
}

/** Each agent command's payload and result. */
export type AgentCommandMap = { [D in Definition as D['type']]: { payload: PayloadOf<D>; result: ResultOf<D> } };
