/**
 * The AI schema manager (seed 002): generates the schema a model answers with, validates
 * answers against it, and keeps the commands a response may carry: the browser's five by
 * default, plus whatever a worker registers, so one manager serves every envelope.
 * Generated schemas are cached and frozen; compiled validators are cached per schema.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { schemaCompiler } from '../core/json-schema.js';
import type { JsonObject } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import { browserCommandDefinitions } from './browser-commands.js';
import { buildResponseSchema, commandBranch } from './schema-generator.js';
import type {
  AISchemaManager,
  AISchemaManagerConfig,
  CommandSpec,
  ExecutorMethodSchemas,
  ResponseSchema,
  SchemaOptions,
  SecurityPolicy,
  ValidationResult,
} from './types.js';
import { validateResponse } from './validator.js';

/** The protocol version schemas are made for by default. */
export const PROTOCOL_VERSION = '1.0.0';
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z.-]+)?$/;
const COMMAND_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** Compiled response validators kept in the process, by schema text (compiling one takes tens of ms). */
const COMPILED_CACHE_SIZE = 32;
let ajv: Ajv2020 | undefined;
const validators = new Map<string, { schema: JsonObject; check: ValidateFunction }>();

function sharedCompiler(): Ajv2020 {
  return (ajv ??= schemaCompiler({ discriminator: true, code: { optimize: false } }));
}

/** The validator for a schema's text, compiled on first use; the least recently used goes when the cache is full. */
function compiled(text: string): ValidateFunction {
  const hit = validators.get(text);
  if (hit !== undefined) {
    validators.delete(text);
    validators.set(text, hit);
    return hit.check;
  }
  const compiler = sharedCompiler();
  const schema = JSON.parse(text) as JsonObject;
  const check = compiler.compile(schema);
  validators.set(text, { schema, check });
  if (validators.size > COMPILED_CACHE_SIZE) {
    const [oldest, entry] = validators.entries().next().value as [string, { schema: JsonObject }];
    validators.delete(oldest);
    compiler.removeSchema(entry.schema); // ajv keeps every compiled schema otherwise
  }
  return check;
}

/** A schema manager that also says which security policy it checks against. */
export interface SchemaManager extends AISchemaManager {
  readonly security: SecurityPolicy;
}

/**
 * Creates the seed's `AISchemaManager`.
 *
 * @example
 * const schemas = createSchemaManager({ security: { allowedDomains: ['shop.example'] } })
 * const schema = schemas.generateResponseSchema()
 * const result = schemas.validateAIResponse(modelText, schema)   // { valid, errors, warnings, executorCompatible }
 */
export function createSchemaManager(config: AISchemaManagerConfig = {}): SchemaManager {
  return new DefaultSchemaManager(config);
}

class DefaultSchemaManager implements SchemaManager {
  readonly security: SecurityPolicy;
  #version: string;
  readonly #defaults: Required<SchemaOptions>;
  readonly #cacheEnabled: boolean;
  readonly #commands = new Map<string, CommandSpec>();
  readonly #schemas = new Map<string, ResponseSchema>();
  readonly #compiled = new WeakMap<object, ValidateFunction>();
  readonly #ajv: Ajv2020;

  constructor(config: AISchemaManagerConfig) {
    const schema = config.schema ?? {};
    this.#version = checkVersion(schema.version ?? PROTOCOL_VERSION);
    this.#defaults = {
      includeOptionalFields: schema.defaultOptions?.includeOptionalFields ?? true,
      requireReasoning: schema.defaultOptions?.requireReasoning ?? schema.reasoningRequired ?? true,
      validationMode: schema.defaultOptions?.validationMode ?? schema.validationMode ?? 'strict',
    };
    this.#cacheEnabled = schema.cacheEnabled ?? true;
    this.security = Object.freeze({ ...config.security });
    this.#ajv = sharedCompiler();
    this.registerCommands(config.commands ?? browserCommandDefinitions());
  }

  get version(): string {
    return this.#version;
  }

  commands(): CommandSpec[] {
    return [...this.#commands.values()].map((c) => structuredClone(c));
  }

  registerCommands(commands: readonly CommandSpec[]): void {
    const added: CommandSpec[] = [];
    for (const command of commands) {
      if (!COMMAND_NAME.test(command.name))
        throw new GolemError('INVALID_ARGUMENT', `a command name must be 1 to 64 letters, digits, _ or -: "${command.name}"`);
      if (command.parameters.type !== 'object')
        throw new GolemError('INVALID_ARGUMENT', `the parameters of command "${command.name}" must be an object schema`);
      const existing = this.#commands.get(command.name) ?? added.find((c) => c.name === command.name);
      if (existing !== undefined) {
        if (JSON.stringify(existing.parameters) === JSON.stringify(command.parameters)) continue;
        throw new GolemError('INVALID_ARGUMENT', `a command named "${command.name}" is already registered with other parameters`);
      }
      // Checked against the JSON Schema meta-schema here (cheap); compiled once, with the whole response schema.
      if (!this.#ajv.validateSchema(command.parameters)) {
        throw new GolemError(
          'INVALID_ARGUMENT',
          `the parameters schema of command "${command.name}" is not a valid JSON Schema: ${this.#ajv.errorsText(this.#ajv.errors)}`,
        );
      }
      added.push(deepFreeze(structuredClone({ name: command.name, description: command.description, parameters: command.parameters })));
    }
    for (const command of added) this.#commands.set(command.name, command);
    if (added.length > 0) this.#schemas.clear();
  }

  generateResponseSchema(options: SchemaOptions = {}): ResponseSchema {
    const resolved: Required<SchemaOptions> = {
      includeOptionalFields: options.includeOptionalFields ?? this.#defaults.includeOptionalFields,
      requireReasoning: options.requireReasoning ?? this.#defaults.requireReasoning,
      validationMode: options.validationMode ?? this.#defaults.validationMode,
    };
    if (resolved.validationMode !== 'strict' && resolved.validationMode !== 'lenient') {
      throw new GolemError('INVALID_ARGUMENT', `validationMode must be 'strict' or 'lenient', not ${JSON.stringify(resolved.validationMode)}`);
    }
    const key = `${resolved.includeOptionalFields}|${resolved.requireReasoning}|${resolved.validationMode}`;
    const cached = this.#cacheEnabled ? this.#schemas.get(key) : undefined;
    if (cached !== undefined) return cached;
    const schema = deepFreeze(buildResponseSchema([...this.#commands.values()], resolved, this.#version));
    if (this.#cacheEnabled) this.#schemas.set(key, schema);
    return schema;
  }

  validateAIResponse(response: unknown, schema: ResponseSchema): ValidationResult {
    return validateResponse(response, schema, {
      compile: (s) => this.#compile(s),
      commands: this.#commands,
      security: this.security,
      version: this.#version,
    });
  }

  getExecutorMethodSchemas(): ExecutorMethodSchemas {
    const out: ExecutorMethodSchemas = {};
    for (const command of this.#commands.values()) out[command.name] = structuredClone(commandBranch(command, { includeOptionalFields: true }));
    return out;
  }

  updateSchemaVersion(version: string): void {
    this.#version = checkVersion(version);
    this.#schemas.clear();
  }

  #compile(schema: ResponseSchema): ValidateFunction {
    if (typeof schema !== 'object' || schema === null) throw new Error('the schema is not an object');
    const own = this.#compiled.get(schema);
    if (own !== undefined) return own;
    // Compiled once per content in the process: every manager (a worker's envelope each) with the same commands shares it.
    const { $id: _id, ...content } = schema;
    const check = compiled(JSON.stringify(content));
    if (Object.isFrozen(schema)) this.#compiled.set(schema, check);
    return check;
  }
}

function checkVersion(version: string): string {
  if (typeof version !== 'string' || !SEMVER.test(version))
    throw new GolemError('INVALID_ARGUMENT', `a schema version is a semantic version such as 1.2.0, not ${JSON.stringify(version)}`);
  return version;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
