/**
 * The structured response protocol (seed 002): one JSON object per step with the
 * model's decision, its reasoning and at most one command. The shapes here are the
 * seed's, under its names.
 */
import type { JsonObject, JsonValue } from '../core/blocks.js';

/** What the model decides after looking at the last result (seed 002 "Decision Action Types"). */
export const DECISION_ACTIONS = ['PROCEED', 'RETRY', 'ABORT'] as const;
export type DecisionAction = (typeof DECISION_ACTIONS)[number];

/** The browser executor's commands (seed 002 `CommandActionSchema`). */
export const COMMAND_ACTIONS = ['OPEN_PAGE', 'CLICK_ELEMENT', 'INPUT_TEXT', 'SAVE_VARIABLE', 'GET_DOM'] as const;
export type CommandAction = (typeof COMMAND_ACTIONS)[number];

/** The model's check of the previous execution. */
export interface ResultValidation {
  success: boolean;
  expectedElements: string[];
  actualState: string;
  issues?: string[];
}

export interface AIResponseReasoning {
  analysis: string;
  rationale: string;
  expectedOutcome: string;
  /** How sure the model is of its decision, from 0 to 1 (seed 002's examples carry it). */
  confidence?: number;
  alternatives?: string;
}

/** A command as the model writes it: no session id (that is injected outside the model). */
export interface AIGeneratedCommand {
  action: string;
  parameters: JsonObject;
  reasoning?: string;
}

/** One answer of the model in the protocol. */
export interface AIResponse {
  decision: { action: DecisionAction; resultValidation?: ResultValidation; message: string };
  reasoning: AIResponseReasoning;
  command?: AIGeneratedCommand;
  context?: JsonObject;
}

/** A command ready for the executor: variables filled in and the session id injected. */
export interface ExecutorCommand {
  sessionId: string;
  action: string;
  parameters: JsonObject;
}

export interface SchemaOptions {
  /** Include the optional fields (resultValidation, confidence, alternatives, context, a command's reasoning). Default true. */
  includeOptionalFields?: boolean;
  /** The reasoning object is required. Default: the manager's `reasoningRequired` (true). */
  requireReasoning?: boolean;
  /**
   * 'strict': unknown fields are errors. 'lenient': unknown fields in the envelope are
   * allowed and reported as warnings (a command's parameters stay strict: the executor
   * takes nothing else). Default: the manager's `validationMode` ('strict').
   */
  validationMode?: 'strict' | 'lenient';
}

/** The JSON Schema of a response (JSON Schema 2020-12), as generated. */
export interface ResponseSchema {
  $schema: string;
  $id: string;
  type: 'object';
  properties: {
    decision: JsonObject;
    reasoning: JsonObject;
    command?: JsonObject;
    context?: JsonObject;
  };
  required: string[];
  additionalProperties: boolean;
  /** The decision rules: RETRY needs a command, ABORT forbids one. */
  allOf: JsonObject[];
  /** The protocol version the schema was made for (semver). */
  'x-golem-version': string;
  /** The options it was made with. */
  'x-golem-options': Required<SchemaOptions>;
}

/** A command the model may put in a response: the browser's five and any action a worker registers. */
export interface CommandSpec {
  name: string;
  description: string;
  /** The JSON Schema of its parameters (an object schema). */
  parameters: JsonObject;
}

/** Each command's schema as one `command` value (seed 002 `AutomationCommandSchemas`). */
export type ExecutorMethodSchemas = Record<string, JsonObject>;

/** One problem with a response (seed 002 `SchemaValidationError`). */
export interface SchemaValidationError {
  /** The dotted field name ('' for the response itself), e.g. 'command.parameters.url'. */
  field: string;
  message: string;
  /** The value found there (undefined when missing). */
  value: JsonValue | undefined;
  /** What the schema expects there, e.g. 'string', 'object', 'one of PROCEED, RETRY, ABORT'. */
  expectedType: string;
  /** The path as segments, e.g. ['command', 'parameters', 'url']. */
  path: string[];
}

export interface ValidationResult {
  valid: boolean;
  errors: SchemaValidationError[];
  warnings: string[];
  /** The command (if any) names a command the executor runs, with parameters it accepts and a URL and selector it allows. */
  executorCompatible: boolean;
  /** The response, parsed, when valid. */
  response?: AIResponse;
}

/** The seed's module interface. */
export interface AISchemaManager {
  /** The current protocol version (semver). */
  readonly version: string;
  generateResponseSchema(options?: SchemaOptions): ResponseSchema;
  /** Validates a response: an object, or the model's raw text (JSON, optionally in a code fence). Never throws. */
  validateAIResponse(response: unknown, schema: ResponseSchema): ValidationResult;
  getExecutorMethodSchemas(): ExecutorMethodSchemas;
  /** Sets the protocol version; schemas of another major version are refused by `validateAIResponse`. */
  updateSchemaVersion(version: string): void;
  /** Adds commands (a worker's actions) the responses may carry; cached schemas are rebuilt. */
  registerCommands(commands: readonly CommandSpec[]): void;
  /** The commands responses may carry. */
  commands(): CommandSpec[];
}

/** What the executor allows (seed 002 "Security Considerations"). */
export interface SecurityPolicy {
  /** URL schemes OPEN_PAGE may open (default http and https: never javascript:, file: or data: unless listed). */
  allowedSchemes?: readonly string[];
  /** Hosts OPEN_PAGE (and any navigation) may reach: exact names, or '*.example.com' for subdomains. Default: any host. */
  allowedDomains?: readonly string[];
  /** The longest selector accepted (default 1,000 characters). */
  maxSelectorLength?: number;
}

/** The manager's configuration (seed 002 `AISchemaManagerConfig`, the schema part). */
export interface AISchemaManagerConfig {
  schema?: {
    version?: string;
    defaultOptions?: SchemaOptions;
    cacheEnabled?: boolean;
    validationMode?: 'strict' | 'lenient';
    reasoningRequired?: boolean;
  };
  /** The commands responses may carry (default: the browser executor's five). */
  commands?: readonly CommandSpec[];
  security?: SecurityPolicy;
}
