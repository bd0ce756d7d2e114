/**
 * The core's public exports, named one by one: the records, the one write path (the
 * manager and its commands), the read model, the store boundary, and the plugin API every
 * part above the core joins the workspace through, as a user's extension does.
 */

// ---- errors and ids ----------------------------------------------------------
export { ERROR_CODES, GolemError, err, fail, ok, toGolemError, unwrap, type ErrorCode, type Result } from './errors.js';
export { uuidv7 } from './ids.js';

// ---- records and content -----------------------------------------------------
export {
  BlobRef,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  JsonObject,
  JsonValue,
  RoleTransitionBlock,
  Sha256,
  SummaryBlock,
  TaskProposalBlock,
  TaskStepStatus,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  blobRefsOf,
} from './blocks.js';
export {
  BlobRecord,
  ContextEntry,
  Id,
  Preference,
  Role,
  Session as SessionRecord,
  Timestamp,
  Topic,
  Turn,
  TurnRef,
  TurnRole,
  WorkspaceMeta,
  turnKey,
  type MergeMode,
} from './records.js';

// ---- the write path ----------------------------------------------------------
export {
  WorkspaceManager,
  type CacheOptions,
  type CommandMap,
  type CommandType,
  type CommittedEvent,
  type TypedCommand,
  type WorkspaceEvents,
  type WorkspaceManagerOptions,
} from './manager.js';
export { EventBus, type Listener } from './event-bus.js';
export { Serializer } from './serializer.js';
export type { TurnDeleteResult } from './commands/index.js';
export type { SessionCreated } from './commands/session.js';
export { TurnBuilder, type BlobInput, type BuiltTurn } from './turn-builder.js';

// ---- the plugin API: what an extension declares -------------------------------
export {
  ALL_SESSIONS,
  CommandInput,
  defineCommand,
  type Change,
  type CollectionSchemas,
  type Command,
  type CommandDefinition,
  type CommandGuard,
  type CommandMapOf,
  type Effect,
  type GuardContext,
  type Middleware,
  type MiddlewareContext,
  type ReducerContext,
  type TurnProcessor,
  type WorkspaceExtension,
} from './plugin.js';

// ---- the plugin API: helpers for an extension's reducers ----------------------
export { applyBlobDelta, makeTurn, newBlobRecord, putSession, requireLoaded, requireSession, stored, withLength } from './commands/kit.js';
export { appendTurn } from './commands/turn.js';

// ---- the read model ----------------------------------------------------------
export type { CollectionMap, CollectionName, IndexChange, Indexer, TurnNode, WorkspaceView } from './workspace-index.js';
export { ownerOf } from './workspace-index.js';
export { commonAncestor, parentsOf, type BranchInfo } from './turn-tree.js';

// ---- facades, checks and repair -----------------------------------------------
export { BlobApi, DEFAULT_MAX_BLOB_BYTES } from './blob-api.js';
export { ContextApi, PreferenceApi, RoleApi } from './resource-api.js';
export { checkInvariants, type InvariantViolation } from './invariants.js';
export { doctor, type DoctorReport, type LapsedHolds } from './doctor.js';
export {
  PinRecord,
  RetentionApi,
  RetentionPolicy,
  parseRetentionPolicy,
  retentionExtension,
  type RetentionHold,
  type RetentionHolds,
  type RetentionOptions,
  type RetentionPolicyInput,
  type RetentionReport,
} from './retention/index.js';

// ---- the store boundary ------------------------------------------------------
export type { Appended, CommandLogEntry, CommandLogInput, Store, StoreChange, StoreStats, StoredRecord, StoredWrite, StreamCheck, Write } from './store.js';
export { LOG_CHECKPOINT, WORKSPACE_STREAM, type LogCheckpoint } from './store.js';
export { stampSeq, stampWrites, streamConflict } from './streams.js';
export { duplicateCommand, lockAwaited, ownerConflict, seqMismatch, streamMoved } from './store-errors.js';
export { MemoryStore } from './memory-store.js';
export { MemoryBlobStorage, sha256Of, type BlobStorage } from './blob-storage.js';
