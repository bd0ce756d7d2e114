/**
 * Property-based tests of `validateAIResponse` (seed 002) with malformed and hostile
 * input: arbitrary values and text, and mutations of well-formed responses. Whatever
 * comes in, it never throws; what it accepts an independent Ajv accepts too and keeps the
 * decision rules; what it refuses comes with errors whose field is their path, dotted.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSchemaManager, parseResponseText, type ResponseSchema, type SchemaValidationError, type ValidationResult } from '../src/index.js';
import { mutate, nest, nesting, render, rendering, responseCommand, responseMutation, responseText, wellFormedResponse } from '../reliability/arbitraries.js';

type Json = Record<string, unknown>;

/** Scale the runs up for a long hunt: GOLEM_PROPERTY_SCALE=20 npm test. */
const SCALE = Number(process.env.GOLEM_PROPERTY_SCALE ?? 1);
const runs = (n: number) => ({ numRuns: Math.round(n * SCALE) });

const manager = createSchemaManager();
const SCHEMAS = {
  strict: manager.generateResponseSchema(),
  lenient: manager.generateResponseSchema({ validationMode: 'lenient' }),
  minimal: manager.generateResponseSchema({ includeOptionalFields: false, requireReasoning: false }),
} as const;
type SchemaName = keyof typeof SCHEMAS;
const schemaName = fc.constantFrom<SchemaName>('strict', 'lenient', 'minimal');

/** An Ajv of its own per schema, formats taken leniently: it must accept whatever the manager accepts. */
const independent = new Map<ResponseSchema, ValidateFunction>();
function independentCheck(schema: ResponseSchema): ValidateFunction {
  let check = independent.get(schema);
  if (check === undefined) {
    const ajv = new Ajv2020({ strict: false, discriminator: true, allErrors: true });
    ajv.addFormat('uri', true);
    check = ajv.compile(structuredClone(schema) as object);
    independent.set(schema, check);
  }
  return check;
}

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

/** What the manager reads from the input: the model's text parsed, or the value's JSON form (undefined when it has none). */
function dataOf(input: unknown): unknown {
  if (typeof input === 'string') {
    const parsed = parseResponseText(input);
    return parsed.ok ? parsed.value : undefined;
  }
  try {
    const text = JSON.stringify(input);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** Validates, and checks every property that holds for any input. */
function check(input: unknown, name: SchemaName): ValidationResult {
  const schema = SCHEMAS[name];
  let result: ValidationResult | undefined;
  expect(() => (result = manager.validateAIResponse(input, schema))).not.toThrow();
  const r = result as ValidationResult;
  expect(typeof r.valid).toBe('boolean');
  expect(typeof r.executorCompatible).toBe('boolean');
  expect(Array.isArray(r.warnings) && r.warnings.every((w) => typeof w === 'string')).toBe(true);
  expect(({} as Json).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');

  const data = dataOf(input);
  if (r.valid) {
    expect(r.errors).toEqual([]);
    expect(isObject(r.response)).toBe(true);
    expect(Object.getPrototypeOf(r.response)).toBe(Object.prototype);
    expect(jsonEqual(r.response, data), 'the response is the data read').toBe(true);
    // (b) an independent compile of the same schema accepts it too ...
    const again = independentCheck(schema);
    expect(again(r.response), JSON.stringify(again.errors)).toBe(true);
    // ... and the decision rules hold.
    const response = r.response as unknown as Json;
    const decision = response.decision as Json;
    if (decision.action === 'RETRY') expect(response.command).toBeDefined();
    if (decision.action === 'ABORT') expect(response).not.toHaveProperty('command');
    if (name !== 'minimal') expect(response.reasoning).toBeDefined();
    // A valid command is one the executor runs.
    if (response.command !== undefined) expect(r.executorCompatible).toBe(true);
    if (name === 'strict') expect(r.warnings).toEqual([]);
  } else {
    // (c) errors, each at a path of strings whose dotted form is its field.
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.response).toBeUndefined();
    for (const error of r.errors) checkError(error);
    if (isObject(data) && data.command !== undefined && r.errors.some((e) => e.path[0] === 'command')) {
      expect(r.executorCompatible).toBe(false);
    }
    // The decision rules are reported only for the decision they are about.
    const action = isObject(data) && isObject(data.decision) ? data.decision.action : undefined;
    if (r.errors.some((e) => e.expectedType === 'no command')) expect(action).toBe('ABORT');
    if (r.errors.some((e) => e.expectedType === 'a command')) expect(action).toBe('RETRY');
  }
  return r;
}

/** Deep equality of JSON data, without recursion (the data may be nested thousands deep). */
function jsonEqual(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (x === y) continue;
    if (x === null || y === null || typeof x !== 'object' || typeof y !== 'object' || Array.isArray(x) !== Array.isArray(y)) return false;
    const kx = Object.keys(x);
    const ky = Object.keys(y);
    if (kx.length !== ky.length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(y, k)) return false;
      stack.push([(x as Json)[k], (y as Json)[k]]);
    }
  }
  return true;
}

function checkError(error: SchemaValidationError): void {
  expect(Array.isArray(error.path)).toBe(true);
  for (const segment of error.path) expect(typeof segment).toBe('string');
  expect(error.field).toBe(error.path.join('.'));
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(typeof error.expectedType).toBe('string');
  expect(error.expectedType.length).toBeGreaterThan(0);
  // The value found is JSON data, cut short when long.
  if (error.value !== undefined) expect(() => JSON.stringify(error.value)).not.toThrow();
  if (typeof error.value === 'string') expect(error.value.length).toBeLessThanOrEqual(200);
}

describe('validateAIResponse, properties', () => {
  it("(d) well-formed responses are always valid and executor compatible, as objects or as the model's text", () => {
    fc.assert(
      fc.property(
        schemaName.chain((name) => fc.tuple(fc.constant(name), wellFormedResponse(name !== 'minimal'), rendering)),
        ([name, response, how]) => {
          const result = check(render(response, how), name);
          expect(result.errors).toEqual([]);
          expect(result).toMatchObject({ valid: true, executorCompatible: true, warnings: [] });
          expect(result.response).toEqual(response);
        },
      ),
      runs(400),
    );
  });

  it('(a–c) arbitrary JSON values and arbitrary values never throw, and every error is at a dotted path', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.anything({
            withBigInt: true,
            withMap: true,
            withSet: true,
            withDate: true,
            withTypedArray: true,
            withSparseArray: true,
            withNullPrototype: true,
            withObjectString: true,
          }),
        ),
        schemaName,
        (value, name) => {
          const result = check(value, name);
          if (!isObject(dataOf(value))) expect(result.valid).toBe(false);
        },
      ),
      runs(400),
    );
  });

  it('(a–c) arbitrary text never throws: what does not parse is one error at the response itself', () => {
    fc.assert(
      fc.property(responseText, schemaName, (input, name) => {
        const result = check(input, name);
        if (!parseResponseText(input).ok) {
          expect(result.errors).toHaveLength(1);
          expect(result.errors[0]).toMatchObject({ field: '', path: [], expectedType: 'object' });
          expect(result.executorCompatible).toBe(false);
        }
      }),
      runs(400),
    );
  });

  it('(a–c) mutated responses: dropped fields, other types, hostile keys, deep nesting, huge strings, wrong decisions', () => {
    fc.assert(
      fc.property(
        schemaName.chain((name) =>
          fc.tuple(
            fc.constant(name),
            wellFormedResponse(name !== 'minimal'),
            fc.array(responseMutation, { minLength: 1, maxLength: 3 }),
            fc.option(nesting, { nil: undefined, freq: 4 }),
            fc.constantFrom('object', 'json', 'prose'),
          ),
        ),
        ([name, response, mutations, deep, how]) => {
          const changed = mutations.reduce(mutate, response);
          // A copy first: the values the mutations put in are the arbitraries' own.
          const mutated = deep === undefined ? changed : nest(structuredClone(changed), deep);
          const input = how === 'object' ? mutated : how === 'json' ? JSON.stringify(mutated) : `Answer: ${JSON.stringify(mutated)} -- end`;
          check(input, name);
        },
      ),
      runs(400),
    );
  });

  it('(a) text nested far deeper than a value can be is an error, or valid where lenient mode ignores it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 5_000, max: 100_000 }), fc.constantFrom('reasoning', 'context', 'extra', 'command'), schemaName, (depth, key, name) => {
        const deep = `${'['.repeat(depth)}1${']'.repeat(depth)}`;
        const input = `{"decision":{"action":"PROCEED","message":"m"},"reasoning":{"analysis":"a","rationale":"r","expectedOutcome":"e"},"${key}":${deep}}`;
        let result: ValidationResult | undefined;
        expect(() => (result = manager.validateAIResponse(input, SCHEMAS[name]))).not.toThrow();
        const r = result as ValidationResult;
        expect(r.valid).toBe(name === 'lenient' && key === 'extra');
        if (r.valid) expect(r.warnings).toEqual(['unknown field "extra" was ignored']);
        else {
          expect(r.errors.length).toBeGreaterThan(0);
          r.errors.forEach(checkError);
        }
      }),
      runs(30),
    );
  });

  it('(b) the decision rules: RETRY without a command and ABORT with one are never valid', () => {
    fc.assert(
      fc.property(
        schemaName.chain((name) => fc.tuple(fc.constant(name), wellFormedResponse(name !== 'minimal'), responseCommand(name !== 'minimal'))),
        ([name, response, cmd]) => {
          const { command: _dropped, ...without } = response;
          const retry = check({ ...without, decision: { ...(response.decision as Json), action: 'RETRY' } }, name);
          expect(retry.valid).toBe(false);
          expect(retry.errors).toContainEqual(expect.objectContaining({ field: 'command', path: ['command'], expectedType: 'a command' }));
          const abort = check({ ...without, decision: { ...(response.decision as Json), action: 'ABORT' }, command: cmd }, name);
          expect(abort.valid).toBe(false);
          expect(abort.errors).toContainEqual(expect.objectContaining({ field: 'command', path: ['command'], expectedType: 'no command', value: cmd }));
          expect(abort.executorCompatible).toBe(false);
        },
      ),
      runs(300),
    );
  });
});
