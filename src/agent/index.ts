/** Workers (seed 003): the run pipeline and its modes, trust, approvals, clearance, the worker tree, and the UI adapter interface a front end implements. */
export {
  agentExtension,
  ApprovalRecord,
  callFingerprint,
  ClearanceRecord,
  Grant,
  LeaseProcess,
  leaseOf,
  RunLease,
  RunRecord,
  RunUsage,
  RUN_STATUSES,
  type RunStatus,
  TrustOverrides,
  WorkerRecord,
  TaskRecord,
  TaskStep,
  TASK_STATUSES,
  type TaskStatus,
  type AgentCommandMap,
} from './agent-plugin.js';
export { TaskApi, type TaskEdits, type TaskListOptions } from './task-api.js';
export type { StepInput, TaskChanges } from './task-commands.js';
export { decideTrust, grantFor, trustModeOf, type TrustDecision, type TrustSource } from './trust.js';
export { ApprovalApi, TrustApi, answerOf } from './agent-api.js';
export { ClearanceApi, clearanceItems, stageRefOf, toClearanceItem, type ClearanceOptions } from './clearance.js';
export { clearanceDiffLayer, type ClearanceDifference } from './clearance-diff.js';
export type {
  ApprovalRequest,
  ApprovalResult,
  ClearanceDecision,
  ClearanceItem,
  ClearanceResult,
  DiffContent,
  Risk,
  StatusUpdate,
  TaskProgress,
  UIAdapter,
  UIMessage,
  WorkerEvent,
  WorkerInfo,
} from './ui-adapter.js';
export { extractInstructions, type ActionRequest, type InstructionError } from './text-instructions.js';
export { RunLeases, DEFAULT_LEASE_TTL_MS, processIdentity, type HeldLease, type RunLeaseOptions } from './run-leases.js';
export { RunService, type RunClaim, type RunClaimOptions, type RunHandle, type RunListOptions, type RunPage, type RunResult } from './run-service.js';
export type { RunCancelOutcome } from './run-records.js';
export { Worker, type ActionMode, type WorkerOptions, type WorkerOutcome } from './worker/index.js';
export { Envelope, invalidResponseMessage, type EnvelopeOptions, type EnvelopeReading } from './envelope.js';
