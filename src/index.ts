/**
 * Golem: a TypeScript runtime for AI workspaces.
 * The public entry point; everything a user imports comes from here.
 */
export { uuidv7 } from './core/ids.js';
export { ERROR_CODES, GolemError, err, fail, ok, toGolemError, unwrap, type ErrorCode, type Result } from './core/errors.js';

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
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
  ToolUseBlock,
  blobRefsOf,
} from './core/blocks.js';

export {
  BlobRecord,
  ContextEntry,
  Preference,
  Role,
  Session as SessionRecord,
  Turn,
  TurnRef,
  TurnRole,
  WorkspaceMeta,
  turnKey,
} from './core/records.js';

export { createWorkspace, type CreateWorkspaceOptions, type TopicUsage, type Workspace, type WorkspaceSummary } from './create-workspace.js';
export { Session, type NewTurn } from './prompt/session.js';
export { SessionManager } from './prompt/session-manager.js';
export { BlobApi, DEFAULT_MAX_BLOB_BYTES } from './core/blob-api.js';
export { ContextApi, PreferenceApi, RoleApi } from './core/resource-api.js';
export {
  WorkspaceManager,
  type CommandMap,
  type CommandType,
  type CommittedEvent,
  type TypedCommand,
  type WorkspaceEvents,
  type WorkspaceManagerOptions,
} from './core/manager.js';
export {
  CommandInput,
  defineCommand,
  type Change,
  type Command,
  type CommandDefinition,
  type Effect,
  type Middleware,
  type MiddlewareContext,
  type ReducerContext,
  type TurnProcessor,
  type WorkspaceExtension,
} from './core/plugin.js';
export { Id, Timestamp, appendTurn, makeTurn, putSession, requireSession, stored, type CollectionMap, type CollectionName, type CollectionSchemas, type CommandMapOf } from './core/index.js';
export { EventBus, type Listener } from './core/event-bus.js';
export { Serializer } from './core/serializer.js';
export type { IndexChange, Indexer, TurnNode, WorkspaceView } from './core/workspace-index.js';
export type { BranchInfo } from './core/turn-tree.js';
export type { TurnDeleteResult } from './core/commands/index.js';
export { checkInvariants, type InvariantViolation } from './core/invariants.js';
export { doctor, type DoctorReport } from './core/doctor.js';

export type { CommandLogEntry, CommandLogInput, Store, StoreChange, StoreStats, StoredRecord, StoredWrite, Write } from './core/store.js';
export { MemoryStore } from './core/memory-store.js';
export { MemoryBlobStorage, sha256Of, type BlobStorage } from './core/blob-storage.js';
export * from './store/index.js';

export type { ModelAdapter, StreamPart, Usage, StopReason, GenerateResult, CallOptions } from './models/model-adapter.js';
export { MODEL_ADAPTER_SPEC, collectStream } from './models/model-adapter.js';
export { withTimeLimits, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, type ModelTimeLimits } from './models/time-limits.js';
export type { Prompt, PromptMessage, PromptPart, PromptTool, PromptMedia, ResponseFormat, ToolResultOutput } from './models/prompt.js';
export { AiSdkAdapter, toProviderPrompt, type AiSdkAdapterOptions } from './models/ai-sdk-adapter.js';
export { resolveModel, MODEL_SPEC_FORMS, type ResolveModelOptions } from './models/resolve-model.js';
export { costOf, DEFAULT_PRICES, type Price } from './models/pricing.js';
export { estimateTokens, countOpenAiTokens } from './models/tokens.js';
export { Bm25Retriever, JaccardRetriever, terms, type ContextRetriever, type Retrievable, type RetrievalQuery } from './prompt/context-retriever.js';
export { PromptBuilder, type BuildOptions, type BuiltPrompt, type PromptStages } from './prompt/prompt-builder.js';
export { IMAGE_TOKENS, DOCUMENT_FILE_TOKENS, countPrompt } from './prompt/prompt-tokens.js';
export { fitTurns } from './prompt/fit-turns.js';
export type { PromptRecord, TurnRange } from './prompt/prompt-record.js';
export type { RelevanceConfig } from './prompt/relevant-context.js';
export { planTokens, type Plan, type PlanInput, type TokenBudget } from './prompt/token-planner.js';
export { orderPreferences, systemInstruction, CONFLICT_RULE, type PreferenceTier } from './prompt/instructions.js';
export { snapshot, groupTurns, supersede, SUPERSEDED_NOTE, type Snapshot } from './prompt/transcript.js';
export { CONTINUED, NO_RESULT, isTextDocument, pairToolCalls, toMessages } from './prompt/messages.js';
export { summarize, summarizeInChunks, SUMMARY_INSTRUCTION } from './prompt/summarizer.js';
export { promptRecordOf, type RespondOptions } from './prompt/respond.js';
export { canonicalJson, defineAction, type Action, type ActionContext, type ApprovalDescription, type InputIssue, type Trust } from './action/action.js';
export {
  agentExtension,
  ApprovalRecord,
  callFingerprint,
  ClearanceRecord,
  Grant,
  TrustOverrides,
  WorkerRecord,
  type AgentCommandMap,
} from './agent/agent-plugin.js';
export { decide, grantFor, trustModeOf, type TrustDecision, type TrustSource } from './agent/trust.js';
export { ApprovalApi, TrustApi, answerOf } from './agent/agent-api.js';
export { ClearanceApi, clearanceItems, stageRefOf, toClearanceItem, type ClearanceOptions } from './agent/clearance.js';
export { defaultStagingDir, GitStaging, type StageRef } from './project/git-staging.js';
export type { FileAccess, FileChange } from './action/files.js';
export { DiskFiles } from './project/project-files.js';
export { projectActions } from './project/project-actions.js';
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
} from './agent/ui-adapter.js';
export { TerminalAdapter, type TerminalAdapterOptions } from './terminal/index.js';
export { extractInstructions, type ActionRequest, type InstructionError } from './agent/text-instructions.js';
export type { ActionResult, EditableFieldDefinition, EditableFieldType, EditableStatus, EditableStatusSchema, EditableStatusUpdateResult, Environment, EnvironmentInfo, FieldValidation } from './environment/environment.js';
export { validateFieldValue } from './environment/environment.js';
export { BaseEnvironment, type FieldSpec } from './environment/base-environment.js';
export { EnvironmentState, environmentExtension, environmentUpdate, environmentValuesAt } from './environment/environment-plugin.js';
export { Worker, type ActionMode, type WorkerOptions, type WorkerOutcome } from './agent/worker/index.js';
export { Envelope, invalidResponseMessage, type EnvelopeOptions, type EnvelopeReading } from './agent/envelope.js';
export { createSchemaManager, PROTOCOL_VERSION, type SchemaManager } from './protocol/schema-manager.js';
export { buildResponseSchema, buildDecisionSchema, buildReasoningSchema, assembleCommandSchemas, commandBranch, providerSchema, RESPONSE_SCHEMA_DIALECT } from './protocol/schema-generator.js';
export { parseResponseText } from './protocol/validator.js';
export { interpolate, redactSecrets, toExecutorCommand, variableReferences, type VariableScope } from './protocol/interpolation.js';
export { DEFAULT_SCHEMES, SNAPSHOT_REF, hostAllowed, selectorProblem, urlProblem } from './protocol/security.js';
export { BROWSER_COMMAND_DESCRIPTIONS, BROWSER_COMMAND_INPUTS, VARIABLE_NAME, VARIABLE_REFERENCE, browserCommandDefinitions } from './protocol/browser-commands.js';
export {
  COMMAND_ACTIONS,
  DECISION_ACTIONS,
  type AIGeneratedCommand,
  type AIResponse,
  type AIResponseReasoning,
  type AISchemaManager,
  type AISchemaManagerConfig,
  type CommandAction,
  type CommandSpec,
  type DecisionAction,
  type ExecutorCommand,
  type ExecutorMethodSchemas,
  type ResponseSchema,
  type ResultValidation,
  type SchemaOptions,
  type SchemaValidationError,
  type SecurityPolicy,
  type ValidationResult,
} from './protocol/types.js';
export * from './browser/index.js';
export { BookshelfEnvironment, splitPages, type Book, type BookshelfOptions } from './environment/bookshelf.js';
export { UIApi, PatchUiStateInput, type UIPatchResponse } from './ui/ui-api.js';
export { uiExtension, uiInstance, uiInstances, UIInstanceRecord, type UIPatchResult } from './ui/ui-plugin.js';
export {
  applyPatchInput,
  parsePath,
  CREATE,
  DELETE,
  PATCH_OPS,
  UI_PATCH_ERROR_CODES,
  type JsonPatchOperation,
  type PatchInput,
  type PatchOp,
  type PatchOperation,
  type PatchOutcome,
  type UIPatchError,
  type UIPatchErrorCode,
} from './ui/patch-engine.js';
export { ActionConfig, Block, FieldConfig, UIInstance, ACTION_STYLES, BLOCK_TYPES, FIELD_TYPES, LAYOUT_TYPES, META_STATUSES } from './ui/schema.js';
