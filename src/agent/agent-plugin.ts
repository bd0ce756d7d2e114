/**
 * The agent domain of seed 003, added to every workspace through the extension
 * mechanism: the worker tree (`worker:*`), trust overrides (`trust:*`), grants
 * (`grant:*`), pending approvals (`approval:*`), started calls (`call:*`), clearance
 * items (`clearance:*`), run leases, run records and their kept events (`run:*`) and
 * the messages sent to a session while it runs (`inbox:*`), and tasks and plans (`task:*`). All of it is workspace state: it
 * persists, replays and survives a restart. This file assembles the extension and declares its collections and commands;
 * each concept lives in its own file, and every name is re-exported here.
 */
import type { CommandMapOf, WorkspaceExtension } from '../core/index.js';
import { ApprovalRecord, CallStart, ClearanceRecord, Grant, RunLease, TrustOverrides, WorkerRecord } from './agent-records.js';
import { approvalAnswer, approvalRequest } from './approval-commands.js';
import { callStart } from './call-commands.js';
import { runClaim, runLeaseGuard, runRelease, runRenew } from './run-commands.js';
import { RunRecord, runCancel } from './run-records.js';
import { RunEventChunk, runEvents } from './run-event-store.js';
import { InboxMessage, inboxAdd, inboxDeliver, inboxRemove } from './inbox.js';
import { clearanceDecide, clearanceStage } from './clearance-commands.js';
import { grantAdd, grantRevoke, trustSet } from './trust-commands.js';
import { workerFinish, workerSpawn } from './worker-commands.js';
import { TaskRecord } from './task-records.js';
import { taskAccept, taskClose, taskPropose, taskUpdate } from './task-commands.js';

export {
  ApprovalRecord,
  CallStart,
  ClearanceRecord,
  Grant,
  LeaseProcess,
  RunLease,
  TrustMode,
  TrustOverrides,
  WorkerInfoSchema,
  WorkerRecord,
  chatSessions,
  recordsOf,
  type AgentCollection,
} from './agent-records.js';
export { approvalAnswer, approvalRequest, callFingerprint, findApproval } from './approval-commands.js';
export { callStart, startedCall } from './call-commands.js';
export { leaseOf, live, runClaim, runLeaseGuard, runRelease, runRenew } from './run-commands.js';
export { DEFAULT_INBOX_LIMIT, InboxMessage, inboxAdd, inboxDeliver, inboxOf, inboxRemove, RUN_POLICIES, type RunPolicy } from './inbox.js';
export { RunEventChunk, runEvents } from './run-event-store.js';
export { isEnded, NO_USAGE, RUN_STATUSES, RunEnd, RunRecord, RunUsage, runCancel, type RunStatus } from './run-records.js';
export { clearanceDecide, clearanceStage } from './clearance-commands.js';
export { grantAdd, grantRevoke, trustSet } from './trust-commands.js';
export { workerFinish, workerSpawn } from './worker-commands.js';
export { isClosed, TASK_STATUSES, TaskRecord, TaskStep, taskOfCall, type TaskStatus } from './task-records.js';
export { requireTask, StepInput, TaskChanges, taskAccept, taskClose, taskPropose, taskUpdate } from './task-commands.js';

/** Every command of the agent domain. */
export const AGENT_COMMANDS = [
  workerSpawn,
  workerFinish,
  trustSet,
  grantAdd,
  grantRevoke,
  approvalRequest,
  approvalAnswer,
  callStart,
  clearanceStage,
  clearanceDecide,
  runClaim,
  runRenew,
  runRelease,
  runCancel,
  runEvents,
  inboxAdd,
  inboxRemove,
  inboxDeliver,
  taskPropose,
  taskAccept,
  taskUpdate,
  taskClose,
] as const;

/** The agent domain as a workspace extension (`createWorkspace` registers it). */
export const agentExtension: WorkspaceExtension = {
  name: 'agent',
  collections: {
    worker: WorkerRecord,
    trust: TrustOverrides,
    grant: Grant,
    approval: ApprovalRecord,
    call: CallStart,
    clearance: ClearanceRecord,
    run: RunLease,
    run_record: RunRecord,
    run_event: RunEventChunk,
    inbox: InboxMessage,
    task: TaskRecord,
  },
  commands: AGENT_COMMANDS,
  guards: [runLeaseGuard],
};

/** Each agent command's payload and result. */
export type AgentCommandMap = CommandMapOf<(typeof AGENT_COMMANDS)[number]>;

declare module '../core/manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends AgentCommandMap {}
}

declare module '../core/workspace-index.js' {
  interface CollectionMap {
    worker: WorkerRecord;
    trust: TrustOverrides;
    grant: Grant;
    approval: ApprovalRecord;
    call: CallStart;
    clearance: ClearanceRecord;
    run: RunLease;
    run_record: RunRecord;
    run_event: RunEventChunk;
    inbox: InboxMessage;
    task: TaskRecord;
  }
}
