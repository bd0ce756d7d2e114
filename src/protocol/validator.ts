/**
 * Response validation (seed 002 "Response Validation"): the model's answer is read as
 * JSON, checked against the response schema (ajv), then against what the executor
 * allows. Every problem comes back with its field, path, value and what was expected, in
 * words a model can act on; nothing here throws.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { JsonObject, JsonValue } from '../core/blocks.js';
import { selectorProblem, urlProblem } from './security.js';
import {
  COMMAND_ACTIONS,
  type AIResponse,
  type CommandSpec,
  type ResponseSchema,
  type SchemaValidationError,
  type SecurityPolicy,
  type ValidationResult,
} from './types.js';

export interface ValidatorContext {
  /** The compiled schema (throws when it cannot be compiled). */
  compile(schema: ResponseSchema): ValidateFunction;
  /** The manager's commands: executor compatibility is judged against these, never against the schema given. */
  commands: ReadonlyMap<string, CommandSpec>;
  security: SecurityPolicy;
  version: string;
}

/** Reads the model's text as one JSON value: bare, in a code fence, or the outermost {...} in prose. */
export function parseResponseText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  const attempts: string[] = [text.trim()];
  const fence = /```(?:json)?\s*\n?([\s\S]*?)```/i.exec(text);
  if (fence?.[1] !== undefined) attempts.push(fence[1].trim());
  const first = text.indexOf('{');
  const last = text.lastIndexOf('}');
  if (first !== -1 && last > first) attempts.push(text.slice(first, last + 1));
  let message = 'the answer is empty';
  // The first reading that is an object wins: a fence inside one of the answer's strings
  // (```true```) must not stand for the answer; otherwise the first that parses.
  let fallback: { ok: true; value: unknown } | undefined;
  for (const attempt of attempts) {
    if (attempt === '') continue;
    try {
      const value = JSON.parse(attempt) as unknown;
      if (isObject(value)) return { ok: true, value };
      fallback ??= { ok: true, value };
    } catch (error) {
      message = (error as Error).message;
    }
  }
  return fallback ?? { ok: false, message };
}

export function validateResponse(response: unknown, schema: ResponseSchema, ctx: ValidatorContext): ValidationResult {
  const invalid = (error: SchemaValidationError): ValidationResult => ({ valid: false, errors: [error], warnings: [], executorCompatible: false });
  let data: unknown;
  if (typeof response === 'string') {
    const parsed = parseResponseText(response);
    if (!parsed.ok)
      return invalid({
        field: '',
        path: [],
        value: clip(response),
        expectedType: 'object',
        message: `the answer is not a JSON object (${parsed.message}); answer with exactly one JSON object`,
      });
    data = parsed.value;
  } else {
    // The protocol is JSON: validate the JSON form (cycles, BigInts and throwing getters end here, as errors).
    try {
      const text = JSON.stringify(response);
      data = text === undefined ? undefined : (JSON.parse(text) as unknown);
    } catch (error) {
      return invalid({ field: '', path: [], value: undefined, expectedType: 'object', message: `the response is not JSON data: ${(error as Error).message}` });
    }
  }

  // Read only from an object: a missing schema is reported, not thrown on.
  const version = isObject(schema) ? schema['x-golem-version'] : undefined;
  if (typeof version !== 'string' || major(version) !== major(ctx.version)) {
    return invalid({
      field: '$schema',
      path: ['$schema'],
      value: typeof version === 'string' ? version : null,
      expectedType: `a schema of version ${major(ctx.version)}.x`,
      message: `the schema was made for protocol version ${String(version)}, which is not compatible with ${ctx.version}; generate a new schema`,
    });
  }
  let check: ValidateFunction;
  try {
    check = ctx.compile(schema);
  } catch (error) {
    return invalid({
      field: '$schema',
      path: ['$schema'],
      value: null,
      expectedType: 'a valid JSON Schema',
      message: `the schema cannot be compiled: ${(error as Error).message}`,
    });
  }

  const errors: SchemaValidationError[] = [];
  if (!check(data)) errors.push(...mapErrors(check.errors ?? [], data, schema as unknown as JsonObject));
  const warnings = schema.additionalProperties ? unknownFields(data, schema as unknown as JsonObject) : [];

  // What the executor allows, whatever the schema given says.
  let executorCompatible = true;
  const command = isObject(data) ? data.command : undefined;
  if (command !== undefined) {
    const name = isObject(command) ? command.action : undefined;
    const known = typeof name === 'string' && ctx.commands.has(name);
    if (!known || errors.some((e) => e.path[0] === 'command')) executorCompatible = false;
    const parameters = isObject(command) && isObject(command.parameters) ? command.parameters : {};
    // The browser's policy is for the browser's commands: another command's `url` is its own business.
    const browser = typeof name === 'string' && (COMMAND_ACTIONS as readonly string[]).includes(name);
    for (const problem of browser ? securityProblems(parameters, ctx.security) : []) {
      errors.push(problem);
      executorCompatible = false;
    }
  }
  if (errors.length > 0) return { valid: false, errors, warnings, executorCompatible };
  return { valid: true, errors, warnings, executorCompatible, response: data as AIResponse };
}

/** URL and selector checks on a command's parameters (values with ${variables} are checked once filled in, by the executor). */
function securityProblems(parameters: Record<string, unknown>, policy: SecurityPolicy): SchemaValidationError[] {
  const out: SchemaValidationError[] = [];
  const { url, selector } = parameters;
  if (typeof url === 'string' && !url.includes('${')) {
    const problem = urlProblem(url, policy);
    if (problem !== undefined)
      out.push({ field: 'command.parameters.url', path: ['command', 'parameters', 'url'], value: url, expectedType: 'an allowed URL', message: problem });
  }
  if (typeof selector === 'string') {
    const problem = selectorProblem(selector, policy);
    if (problem !== undefined)
      out.push({
        field: 'command.parameters.selector',
        path: ['command', 'parameters', 'selector'],
        value: clip(selector),
        expectedType: 'an allowed selector',
        message: problem,
      });
  }
  return out;
}

/** ajv's errors as the seed's, one per problem, with the noise of the decision rules and branch selection left out. */
function mapErrors(raw: readonly ErrorObject[], data: unknown, schema: JsonObject): SchemaValidationError[] {
  const out: SchemaValidationError[] = [];
  const seen = new Set<string>();
  const enumAt = new Set(raw.filter((e) => e.keyword === 'enum').map((e) => e.instancePath));
  for (const e of raw) {
    if (e.keyword === 'if') continue; // its `then` error says what is wrong
    if (e.keyword === 'discriminator' && enumAt.has(`${e.instancePath}/action`)) continue; // the enum error names the commands
    const path = pointerToPath(e.instancePath);
    const mapped = describe(e, path, valueAt(data, path), parentSchema(schema, e.schemaPath));
    const key = `${mapped.field}\0${mapped.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(mapped);
  }
  return out;
}

/** The value at a path of the data (what ajv's `verbose` would give, without its cost at compile time). */
function valueAt(data: unknown, path: readonly string[]): unknown {
  let value = data;
  for (const segment of path) {
    if (Array.isArray(value)) value = value[Number(segment)] as unknown;
    else if (isObject(value) && Object.hasOwn(value, segment)) value = value[segment];
    else return undefined;
  }
  return value;
}

/** The schema object holding the failed keyword (its `#/a/b/keyword` path without the keyword). */
function parentSchema(schema: JsonObject, schemaPath: string): JsonObject | undefined {
  let node: unknown = schema;
  for (const segment of pointerToPath(schemaPath.replace(/^#/, '')).slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(segment)] as unknown;
    else if (isObject(node) && Object.hasOwn(node, segment)) node = node[segment];
    else return undefined;
  }
  return isObject(node) ? (node as JsonObject) : undefined;
}

function describe(e: ErrorObject, path: string[], data: unknown, parent: JsonObject | undefined): SchemaValidationError {
  const params = e.params as Record<string, unknown>;
  const at = (segments: string[], value: unknown, expectedType: string, message: string): SchemaValidationError => ({
    field: segments.join('.'),
    path: segments,
    value: toJsonValue(value),
    expectedType,
    message: `${segments.length === 0 ? 'the response' : segments.join('.')} ${message}`,
  });
  switch (e.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      const segments = [...path, missing];
      if (missing === 'command' && path.length === 0)
        return at(segments, undefined, 'a command', 'is required: RETRY asks for a corrective command (or decide PROCEED or ABORT)');
      const property = isObject(parent?.properties) ? (parent.properties[missing] as JsonObject | undefined) : undefined;
      return at(segments, undefined, typeName(property), 'is required');
    }
    case 'not':
      if (path.length === 0)
        return at(['command'], isObject(data) ? data.command : undefined, 'no command', 'must be left out: ABORT stops the task, so it carries no command');
      return at(path, data, 'something else', 'is not allowed here');
    case 'additionalProperties': {
      const extra = String(params.additionalProperty);
      return at(
        [...path, extra],
        isObject(data) ? data[extra] : undefined,
        'no such property',
        `is not a known property${path.length === 0 ? '' : ` of ${path.join('.')}`}; leave it out`,
      );
    }
    case 'type':
      return at(path, data, String(params.type), `must be ${article(String(params.type))}`);
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String);
      return at(path, data, `one of ${allowed.join(', ')}`, `must be one of ${allowed.join(', ')}`);
    }
    case 'const':
      return at(path, data, JSON.stringify(params.allowedValue), `must be ${JSON.stringify(params.allowedValue)}`);
    case 'discriminator':
      return at(
        [...path, 'action'],
        isObject(data) ? data.action : undefined,
        'a command name',
        params.error === 'tag' ? 'must be a string naming the command' : 'is not a known command',
      );
    case 'minLength':
      return at(
        path,
        data,
        `string of at least ${String(params.limit)} characters`,
        Number(params.limit) === 1 ? 'must not be empty' : `must have at least ${String(params.limit)} characters`,
      );
    case 'pattern':
      return at(path, data, `string matching ${String(params.pattern)}`, `must match ${String(params.pattern)}`);
    case 'format':
      return at(path, data, String(params.format), `must be a valid ${String(params.format)}`);
    case 'anyOf':
    case 'oneOf':
      return at(
        path,
        data,
        'a value of an allowed form',
        e.keyword === 'oneOf' ? 'does not match any allowed form' : 'does not match any allowed form (see the errors beside this one)',
      );
    default:
      return at(path, data, e.keyword, e.message ?? `fails ${e.keyword}`);
  }
}

/** In lenient mode: the fields the schema does not know, as warnings. */
function unknownFields(data: unknown, schema: JsonObject, prefix = ''): string[] {
  if (!isObject(data) || !isObject(schema.properties)) return [];
  const out: string[] = [];
  for (const key of Object.keys(data)) {
    const name = prefix === '' ? key : `${prefix}.${key}`;
    const child = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (child === undefined) out.push(`unknown field "${name}" was ignored`);
    else if (isObject(child) && child.additionalProperties === true) out.push(...unknownFields(data[key], child, name));
  }
  return out;
}

function pointerToPath(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function typeName(schema: JsonObject | undefined): string {
  if (schema === undefined) return 'a value';
  if (typeof schema.type === 'string') return schema.type;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return `one of ${schema.enum.map(String).join(', ')}`;
  return 'a value';
}

function article(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function major(version: string): string {
  return version.split('.')[0] ?? version;
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}

/** A value for an error report: JSON data, long strings and large values cut short. */
function toJsonValue(value: unknown): JsonValue | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return clip(value);
  try {
    const text = JSON.stringify(value);
    return text.length > 500 ? clip(text) : (JSON.parse(text) as JsonValue);
  } catch {
    return typeof value === 'bigint' || typeof value === 'symbol' || typeof value === 'function' ? String(value) : '(a value that is not JSON)';
  }
}
