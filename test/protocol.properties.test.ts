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

// Well-formed responses.
/** Some text, now and then with a code fence or braces in it (as models write in messages). */
const text = fc.oneof(
  { weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.constantFrom('Type ```true``` into the box', 'Run ```json\n{"a": 1}\n``` first', 'a } b { c', '```', '{}') },
);
const anyText = fc.string({ maxLength: 40, unit: 'binary' });
const selector = fc.oneof(
  fc.tuple(fc.constantFrom('', '#', '.', 'div ', 'form > ', 'button.'), fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/)).map(([a, b]) => a + b),
  fc.tuple(fc.nat({ max: 99 }), fc.option(fc.nat({ max: 9 }), { nil: undefined }), fc.nat({ max: 999 })).map(([s, f, e]) => `ref=s${s}/${f === undefined ? '' : `f${f}`}e${e}`),
  fc.stringMatching(/^[a-z]{1,10}$/).map((t) => `text=${t}`),
  fc.constantFrom("input[name='username']", "role=button[name='Log in']", 'xpath=//a[1]', 'data-testid=submit'),
);
const variableName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,20}$/);
const url = fc.oneof(fc.webUrl({ withQueryParameters: true, withFragments: true }), variableName.map((v) => `https://\${${v}}/path`), variableName.map((v) => `\${${v}}`));
const withReason = (parameters: fc.Arbitrary<Json>, action: string, optional: boolean) =>
  fc.record({ action: fc.constant(action), parameters, ...(optional && { reasoning: anyText }) }, { requiredKeys: ['action', 'parameters'] });
const command = (optional: boolean): fc.Arbitrary<Json> =>
  fc.oneof(
    withReason(fc.record({ url }), 'OPEN_PAGE', optional),
    withReason(fc.record({ selector }), 'CLICK_ELEMENT', optional),
    withReason(fc.record({ selector, text: fc.string({ maxLength: 60, unit: 'binary' }) }), 'INPUT_TEXT', optional),
    withReason(fc.record({ selector, variableName }), 'SAVE_VARIABLE', optional),
    withReason(fc.constant({}), 'GET_DOM', optional),
  );

/** A response that follows the schema `name` (the full one's optional fields only where it has them). */
function wellFormed(name: SchemaName): fc.Arbitrary<Json> {
  const optional = name !== 'minimal';
  const resultValidation = fc.record(
    { success: fc.boolean(), expectedElements: fc.array(anyText, { maxLength: 4 }), actualState: anyText, issues: fc.array(anyText, { maxLength: 3 }) },
    { requiredKeys: ['success', 'expectedElements', 'actualState'] },
  );
  return fc
    .record({
      action: fc.constantFrom('PROCEED', 'RETRY', 'ABORT'),
      message: text,
      resultValidation: fc.option(resultValidation, { nil: undefined }),
      reasoning: fc.record({ analysis: text, rationale: text, expectedOutcome: text, alternatives: fc.option(anyText, { nil: undefined }) }),
      withReasoning: fc.boolean(),
      command: command(optional),
      withCommand: fc.boolean(),
      context: fc.option(fc.record({ progress: anyText, notes: anyText }, { requiredKeys: [] }), { nil: undefined }),
    })
    .map((r) => {
      const { alternatives, ...required } = r.reasoning;
      const hasCommand = r.action === 'RETRY' || (r.action === 'PROCEED' && r.withCommand);
      return {
        decision: { action: r.action, message: r.message, ...(optional && r.resultValidation !== undefined && { resultValidation: r.resultValidation }) },
        ...((optional || r.withReasoning) && { reasoning: { ...required, ...(optional && alternatives !== undefined && { alternatives }) } }),
        ...(hasCommand && { command: r.command }),
        ...(optional && r.context !== undefined && { context: r.context }),
      };
    });
}

/** The ways a model writes its answer: the object itself, or text around it. */
const rendering = fc.constantFrom('object', 'json', 'pretty', 'fence', 'prose');
function render(response: Json, how: string): unknown {
  const json = JSON.stringify(response);
  switch (how) {
    case 'json':
      return json;
    case 'pretty':
      return `\n${JSON.stringify(response, null, 2)}\n`;
    case 'fence':
      return `\`\`\`json\n${json}\n\`\`\``;
    case 'prose':
      return `Here is my answer:\n${json}\nLet me know.`;
    default:
      return response;
  }
}

// Mutations.
type Path = (string | number)[];
/** The mutations reach this deep (a nested value is changed as a whole below it). */
const REACH = 8;
/** Every path to a value inside `value` (the root excluded). */
function paths(value: unknown, at: Path = []): Path[] {
  if (at.length >= REACH) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => [[...at, i], ...paths(v, [...at, i])]);
  if (isObject(value)) return Object.entries(value).flatMap(([k, v]) => [[...at, k], ...paths(v, [...at, k])]);
  return [];
}
/** Every path to an object inside `value` (the root included). */
function containers(value: unknown, at: Path = []): Path[] {
  if (at.length >= REACH) return [];
  if (Array.isArray(value)) return value.flatMap((v, i) => containers(v, [...at, i]));
  if (isObject(value)) return [at, ...Object.entries(value).flatMap(([k, v]) => containers(v, [...at, k]))];
  return [];
}
function get(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], root);
}
/** Sets an own, enumerable property (so "__proto__" is data, as JSON.parse makes it). */
function put(target: unknown, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type Mutation =
  | { k: 'drop'; pick: number }
  | { k: 'retype'; pick: number; value: unknown }
  | { k: 'hostile'; pick: number; key: string; value: unknown }
  | { k: 'huge'; pick: number; size: number }
  | { k: 'decide'; action: string; command: Json | null };

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ k: fc.constant('drop' as const), pick: fc.nat() }),
  fc.record({ k: fc.constant('retype' as const), pick: fc.nat(), value: fc.oneof(jsonValue, fc.constantFrom(null, 0, -1, '', [], {}, true, 'PROCEED', 'OPEN_PAGE')) }),
  fc.record({
    k: fc.constant('hostile' as const),
    pick: fc.nat(),
    key: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'a.b', 'a/b', '~0', '', 'command'),
    value: fc.oneof(fc.constant({ polluted: true }), fc.constant({ prototype: { polluted: true } }), jsonValue),
  }),
  fc.record({ k: fc.constant('huge' as const), pick: fc.nat(), size: fc.integer({ min: 1_000, max: 100_000 }) }),
  fc.record({ k: fc.constant('decide' as const), action: fc.constantFrom('PROCEED', 'RETRY', 'ABORT', 'proceed', 'STOP', ''), command: fc.option(command(true), { nil: null }) }),
);

interface Nesting {
  pick: number;
  depth: number;
  array: boolean;
}
const nesting: fc.Arbitrary<Nesting> = fc.record({ pick: fc.nat(), depth: fc.integer({ min: 50, max: 2000 }), array: fc.boolean() });

/** The value at one of the response's paths wrapped `depth` times (in place: too deep to copy). */
function nest(response: Json, n: Nesting): Json {
  const all = paths(response);
  const path = all.length === 0 ? undefined : all[n.pick % all.length];
  if (path === undefined) return response;
  let value = get(response, path);
  for (let i = 0; i < n.depth; i++) value = n.array ? [value] : { v: value };
  put(get(response, path.slice(0, -1)), path.at(-1) as string | number, value);
  return response;
}

/** The response with the mutation applied (to a copy). */
function mutate(original: Json, m: Mutation): Json {
  const response = structuredClone(original);
  const all = paths(response);
  const at = <T>(list: T[], pick: number): T | undefined => (list.length === 0 ? undefined : list[pick % list.length]);
  const replace = (path: Path, value: unknown) => {
    const parent = get(response, path.slice(0, -1));
    put(parent, path.at(-1) as string | number, value);
  };
  switch (m.k) {
    case 'drop': {
      const path = at(all, m.pick);
      if (path !== undefined) {
        const parent = get(response, path.slice(0, -1));
        if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
        else delete (parent as Json)[path.at(-1) as string];
      }
      return response;
    }
    case 'retype': {
      const path = at(all, m.pick);
      if (path !== undefined) replace(path, m.value);
      return response;
    }
    case 'hostile': {
      const path = at(containers(response), m.pick) ?? [];
      put(get(response, path), m.key, m.value);
      return response;
    }
    case 'huge': {
      const strings = all.filter((p) => typeof get(response, p) === 'string');
      const path = at(strings, m.pick);
      if (path !== undefined) replace(path, `${get(response, path) as string}${'x'.repeat(m.size)}`);
      return response;
    }
    case 'decide': {
      // On what an earlier mutation left of the decision (it may be gone or no object any more).
      if (isObject(response.decision)) put(response.decision, 'action', m.action);
      else response.decision = { action: m.action, message: 'decided' };
      if (m.command === null) delete response.command;
      else response.command = m.command;
      return response;
    }
  }
}

describe('validateAIResponse, properties', () => {
  it('(d) well-formed responses are always valid and executor compatible, as objects or as the model\'s text', () => {
    fc.assert(
      fc.property(schemaName.chain((name) => fc.tuple(fc.constant(name), wellFormed(name), rendering)), ([name, response, how]) => {
        const result = check(render(response, how), name);
        expect(result.errors).toEqual([]);
        expect(result).toMatchObject({ valid: true, executorCompatible: true, warnings: [] });
        expect(result.response).toEqual(response);
      }),
      runs(400),
    );
  });

  it('(a–c) arbitrary JSON values and arbitrary values never throw, and every error is at a dotted path', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.anything({ withBigInt: true, withMap: true, withSet: true, withDate: true, withTypedArray: true, withSparseArray: true, withNullPrototype: true, withObjectString: true })), schemaName, (value, name) => {
        const result = check(value, name);
        if (!isObject(dataOf(value))) expect(result.valid).toBe(false);
      }),
      runs(400),
    );
  });

  it('(a–c) arbitrary text never throws: what does not parse is one error at the response itself', () => {
    const texts = fc.oneof(
      fc.string({ maxLength: 200, unit: 'binary' }),
      fc.json().map((j) => `prose { ${j} } more prose`),
      fc.jsonValue().map((v) => `\`\`\`json\n${JSON.stringify(v)}\n\`\`\``),
      fc.array(fc.constantFrom('{', '}', '[', ']', '"', '```', 'json', '\n', ':', ',', 'decision', 'PROCEED', '\\'), { maxLength: 40 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(texts, schemaName, (input, name) => {
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
          fc.tuple(fc.constant(name), wellFormed(name), fc.array(mutation, { minLength: 1, maxLength: 3 }), fc.option(nesting, { nil: undefined, freq: 4 }), fc.constantFrom('object', 'json', 'prose')),
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
      fc.property(schemaName.chain((name) => fc.tuple(fc.constant(name), wellFormed(name), command(name !== 'minimal'))), ([name, response, cmd]) => {
        const { command: _dropped, ...without } = response;
        const retry = check({ ...without, decision: { ...(response.decision as Json), action: 'RETRY' } }, name);
        expect(retry.valid).toBe(false);
        expect(retry.errors).toContainEqual(expect.objectContaining({ field: 'command', path: ['command'], expectedType: 'a command' }));
        const abort = check({ ...without, decision: { ...(response.decision as Json), action: 'ABORT' }, command: cmd }, name);
        expect(abort.valid).toBe(false);
        expect(abort.errors).toContainEqual(expect.objectContaining({ field: 'command', path: ['command'], expectedType: 'no command', value: cmd }));
        expect(abort.executorCompatible).toBe(false);
      }),
      runs(300),
    );
  });
});
