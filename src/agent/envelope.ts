/**
 * Envelope mode (ARCHITECTURE.md "The agent loop"): the model answers each step with one
 * JSON object of the structured response protocol (seed 002): a decision, its reasoning
 * and at most one command, the command naming one of the worker's actions. The schema
 * comes from the schema manager; providers that enforce a schema at generation are sent
 * it, and every answer is validated, an invalid one going back to the model with its
 * errors.
 */
import type { JsonObject } from '../core/blocks.js';
import type { ResponseFormat } from '../models/prompt.js';
import { providerSchema } from '../protocol/schema-generator.js';
import { createSchemaManager } from '../protocol/schema-manager.js';
import type {
  AIGeneratedCommand,
  AIResponse,
  AISchemaManager,
  CommandSpec,
  ResponseSchema,
  SchemaOptions,
  SchemaValidationError,
  SecurityPolicy,
} from '../protocol/types.js';
import type { Turn } from '../core/records.js';
import type { Action } from '../action/action.js';

export interface EnvelopeOptions {
  schemaOptions?: SchemaOptions;
  /** URL and selector rules responses are checked against (default: the manager's). */
  security?: SecurityPolicy;
  /** Invalid answers in a row before the run ends with PROTOCOL_INVALID_RESPONSE (default 3). */
  maxInvalidResponses?: number;
  /** Send the schema to providers that enforce one at generation (default true). */
  structuredOutput?: boolean;
}

/** What one answer says. */
export type EnvelopeReading =
  | { kind: 'invalid'; errors: SchemaValidationError[] }
  | { kind: 'command'; response: AIResponse; command: AIGeneratedCommand }
  | { kind: 'final'; response: AIResponse };

export class Envelope {
  readonly manager: AISchemaManager;
  readonly schema: ResponseSchema;
  readonly #options: EnvelopeOptions;
  readonly #commands: CommandSpec[];
  readonly #readings = new WeakMap<Turn, EnvelopeReading>();

  constructor(actions: readonly Action[], options: EnvelopeOptions = {}) {
    this.#options = options;
    this.#commands = actions.map((a) => ({ name: a.name, description: a.description, parameters: a.jsonSchema }));
    // A manager of the worker's own commands: the schema offers exactly the actions the worker runs.
    this.manager = createSchemaManager({ commands: this.#commands, ...(options.security !== undefined && { security: options.security }) });
    this.schema = this.manager.generateResponseSchema(options.schemaOptions);
  }

  get maxInvalidResponses(): number {
    return this.#options.maxInvalidResponses ?? 3;
  }

  /** The schema for the provider, when it is to be sent. */
  responseFormat(): ResponseFormat | undefined {
    if (this.#options.structuredOutput === false) return undefined;
    return { type: 'json', schema: providerSchema(this.schema), name: 'step', description: 'One step: decision, reasoning and at most one command' };
  }

  /**
   * The protocol, as the system prompt tells it. Sent with every step, so every word is paid
   * for each time: the shape on one line, the rules once, a line a command. The optional
   * fields (resultValidation, confidence, alternatives) are accepted whenever the schema has
   * them, and spelled out here only when the caller asked for them (`includeOptionalFields:
   * true`): a model told of them writes them at every step.
   */
  instructions(): string {
    const optional = this.#options.schemaOptions?.includeOptionalFields === true;
    return [
      'Answer each step with one JSON object only:',
      '{"decision":{"action":"PROCEED"|"RETRY"|"ABORT","message":"one sentence"},"reasoning":{"analysis":"...","rationale":"...","expectedOutcome":"..."},"command":{"action":"<command>","parameters":{...}}}',
      ...(optional
        ? [
            'Optional: decision.resultValidation {"success":boolean,"expectedElements":[string],"actualState":string,"issues":[string]}; reasoning.confidence (0 to 1) and reasoning.alternatives (string).',
          ]
        : []),
      'PROCEED: the next command, or no "command" key once the task is done ("message": the answer). RETRY: a corrective command after a failure. ABORT: no "command" key, the task cannot be done ("message": why). One command per answer:',
      ...this.#commands.map((c) => `- ${c.name} ${parametersLine(c.parameters)}: ${c.description}`),
    ].join('\n');
  }

  /** Reads an answer: invalid (with errors for the model), a command to run, or the end of the task. Turns are immutable: each is read once. */
  read(turn: Turn): EnvelopeReading {
    let reading = this.#readings.get(turn);
    if (reading === undefined) {
      const text = turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const result = this.manager.validateAIResponse(text, this.schema);
      const response = result.response;
      reading =
        !result.valid || response === undefined
          ? { kind: 'invalid', errors: result.errors }
          : response.command === undefined
            ? { kind: 'final', response }
            : { kind: 'command', response, command: response.command };
      this.#readings.set(turn, reading);
    }
    return reading;
  }
}

/** Errors as the model reads them, with the way out. */
export function invalidResponseMessage(errors: readonly SchemaValidationError[]): string {
  return [
    'Your last answer does not follow the response schema:',
    ...errors.map((e) => `- ${e.message}`),
    'Answer again with one JSON object that follows it.',
  ].join('\n');
}

/** `{"url": string}` from a parameters schema. */
function parametersLine(schema: JsonObject): string {
  const properties = schema.properties;
  if (properties === null || typeof properties !== 'object' || Array.isArray(properties)) return '{}';
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  const fields = Object.entries(properties).map(([name, s]) => `"${name}"${required.has(name) ? '' : '?'}: ${typeOf(s)}`);
  return `{${fields.join(', ')}}`;
}

function typeOf(schema: unknown): string {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'any';
  const s = schema as JsonObject;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (typeof s.type === 'string') return s.type === 'array' ? `${typeOf(s.items)}[]` : s.type;
  if (Array.isArray(s.anyOf)) return [...new Set(s.anyOf.map(typeOf))].join(' | ');
  return 'any';
}
