/** The structured response protocol (seed 002): the response schema, its validation, variable interpolation and the security policy. */
export { createSchemaManager, PROTOCOL_VERSION, type SchemaManager } from './schema-manager.js';
export {
  buildResponseSchema,
  buildDecisionSchema,
  buildReasoningSchema,
  assembleCommandSchemas,
  commandBranch,
  providerSchema,
  RESPONSE_SCHEMA_DIALECT,
} from './schema-generator.js';
export { parseResponseText } from './validator.js';
export { interpolate, redactSecrets, toExecutorCommand, variableReferences, type VariableScope } from './interpolation.js';
export { DEFAULT_SCHEMES, SNAPSHOT_REF, hostAllowed, selectorProblem, urlProblem } from './security.js';
export { BROWSER_COMMAND_DESCRIPTIONS, BROWSER_COMMAND_INPUTS, VARIABLE_NAME, VARIABLE_REFERENCE, browserCommandDefinitions } from './browser-commands.js';
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
} from './types.js';
