/**
 * The fast-check arbitraries the property tests and `npm run fuzz` share: hostile values
 * (wrong types, huge strings, deep nesting, unicode, prototype keys, NaN and Infinity),
 * mutations of well-formed JSON, content blocks, model responses of the structured
 * response protocol (seed 002) and `patch_ui_state` calls (seed 004).
 */
import fc from 'fast-check';
import { ACTION_STYLES, type JsonValue } from '../src/index.js';

/** Seed 004's six field types (the catalog's others have props of their own: test/ui-catalog.properties.test.ts draws them). */
const SEED_FIELD_TYPES = ['text', 'number', 'textarea', 'select', 'checkbox', 'radio'] as const;

type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

// ---------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------

/** Keys that break code reading objects carelessly: prototype names, path syntax, the empty key. */
export const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
  'valueOf',
  'a.b',
  'a/b',
  '~0',
  '',
  ' ',
  '\u0000',
  'type',
  'id',
] as const;

/** Strings: any code point (lone surrogates too), tricky constants, and now and then a huge one. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20, unit: 'grapheme' }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      '\uD800',
      '\uDFFF',
      'a\uD800b',
      '\u202E',
      '\uFEFF',
      '\u2028',
      'ｆｕｌｌ',
      '👩‍👩‍👧‍👦',
      'null',
      'NaN',
      '__proto__',
      '${x}',
      '{}',
      '[]',
      '"',
      '\\',
      '</script>',
      '\r\n',
    ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1_000, max: 200_000 }), fc.constantFrom('x', 'é', '😀', '\u0000')).map(([n, c]) => c.repeat(n)) },
);

/** Numbers JSON has no text for, and numbers at the edges. */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0, Number.MAX_SAFE_INTEGER + 2, Number.MIN_VALUE, 1e308, -1, 0.5),
  fc.double(),
  fc.integer(),
);

/** Anything at all JavaScript has: boxed values, dates, maps, sets, typed and sparse arrays, null-prototype objects. */
export const anything: fc.Arbitrary<unknown> = fc.anything({
  maxDepth: 3,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

/** Values JSON.stringify throws on or has no text for. */
export const oddity: fc.Arbitrary<unknown> = fc.oneof(
  fc.bigInt(),
  fc.bigInt().map((n) => Object(n) as unknown),
  fc.constant(Symbol('op')),
  fc.constant(() => 'set'),
  fc.constant(undefined),
);

/** Sets an own, enumerable property (so "__proto__" is data, as JSON.parse makes it). */
export function put(target: unknown, key: string | number, value: unknown): void {
  try {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } catch {
    // A value that takes no such property (a boxed string's index, a frozen object): left as it is.
  }
}

/** An object whose own keys are prototype names and other hostile keys. */
export const protoKeyed: fc.Arbitrary<Json> = fc.oneof(
  fc
    .array(fc.tuple(fc.constantFrom(...HOSTILE_KEYS), fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant({ polluted: true }))), { minLength: 1, maxLength: 4 })
    .map((entries) => {
      const o: Json = {};
      for (const [k, v] of entries) put(o, k, v);
      return o;
    }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}') as Json),
);

/** `inner` wrapped `depth` times in arrays or objects (built without recursion: it may be thousands deep). */
export function deepNest(inner: unknown, depth: number, array: boolean): unknown {
  let value = inner;
  for (let i = 0; i < depth; i++) value = array ? [value] : { v: value };
  return value;
}

/** Values nested from a little to far deeper than any recursive reader can follow. */
export const deepValue: fc.Arbitrary<unknown> = fc
  .record({
    depth: fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 1, max: 300 }) },
      { weight: 3, arbitrary: fc.integer({ min: 300, max: 3_000 }) },
      { weight: 1, arbitrary: fc.integer({ min: 3_000, max: 30_000 }) },
    ),
    array: fc.boolean(),
    inner: fc.constantFrom(1, 'x', null),
  })
  .map(({ depth, array, inner }) => deepNest(inner, depth, array));

/** Any hostile value: anything, oddities, hostile strings and numbers, prototype keys, deep nesting, plain JSON. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anything },
  { weight: 1, arbitrary: oddity },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: hostileNumber },
  { weight: 1, arbitrary: protoKeyed },
  { weight: 1, arbitrary: deepValue },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

/** Hostile values JSON can carry (what arrives over a wire): hostile strings, prototype keys, deep nesting, any JSON. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.constantFrom(0, -1, 1e308, -0, 2 ** 53 + 2, true, false, null, [], {}) },
  { weight: 1, arbitrary: protoKeyed },
  { weight: 1, arbitrary: deepValue },
);

// ---------------------------------------------------------------------------------------
// Mutations of well-formed JSON
// ---------------------------------------------------------------------------------------

type Path = (string | number)[];
/** The mutations reach this deep (a nested value is changed as a whole below it). */
const REACH = 8;
/** Every path to a value inside `value` (the root excluded). */
export function paths(value: unknown, at: Path = []): Path[] {
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
export function get(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((v, k) => (v as Record<string | number, unknown>)[k], root);
}

export type Mutation =
  | { k: 'drop'; pick: number }
  | { k: 'retype'; pick: number; value: unknown }
  | { k: 'hostile'; pick: number; key: string; value: unknown }
  | { k: 'huge'; pick: number; size: number }
  | { k: 'decide'; action: string; command: Json | null };

const jsonValue = fc.jsonValue({ maxDepth: 3 });
/** Generic mutations: a field dropped, retyped or huge, a hostile key added. */
const jsonMutations = [
  fc.record({ k: fc.constant('drop' as const), pick: fc.nat() }),
  fc.record({
    k: fc.constant('retype' as const),
    pick: fc.nat(),
    value: fc.oneof(jsonValue, fc.constantFrom(null, 0, -1, '', [], {}, true, 'PROCEED', 'OPEN_PAGE')),
  }),
  fc.record({
    k: fc.constant('hostile' as const),
    pick: fc.nat(),
    key: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__', 'a.b', 'a/b', '~0', '', 'command'),
    value: fc.oneof(fc.constant({ polluted: true }), fc.constant({ prototype: { polluted: true } }), jsonValue),
  }),
  fc.record({ k: fc.constant('huge' as const), pick: fc.nat(), size: fc.integer({ min: 1_000, max: 100_000 }) }),
] as const;

/** Mutations of any JSON document that keep it JSON data. */
export const jsonMutation: fc.Arbitrary<Mutation> = fc.oneof(...jsonMutations);

/** Mutations that may also put in values JSON has no text for (NaN, undefined, BigInt, functions, Maps...). */
export const hostileMutation: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 4, arbitrary: jsonMutation },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('retype' as const), pick: fc.nat(), value: hostileValue }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('hostile' as const), pick: fc.nat(), key: fc.constantFrom(...HOSTILE_KEYS), value: hostileValue }) },
);

/** The document with the mutation applied, in place (its values may not be cloneable any more). */
export function mutateInPlace(response: Json, m: Mutation): Json {
  const all = paths(response);
  // A value goes in as a copy: fast-check hands out a constant's value again, and a later mutation changes what it finds in place.
  const fresh = (value: unknown): unknown => {
    try {
      return structuredClone(value);
    } catch {
      return value;
    }
  };
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
        try {
          if (Array.isArray(parent)) parent.splice(path.at(-1) as number, 1);
          else delete (parent as Json)[path.at(-1) as string];
        } catch {
          // A value that keeps its properties (a typed array's index, a frozen object): left as it is.
        }
      }
      return response;
    }
    case 'retype': {
      const path = at(all, m.pick);
      if (path !== undefined) replace(path, fresh(m.value));
      return response;
    }
    case 'hostile': {
      const path = at(containers(response), m.pick) ?? [];
      put(get(response, path), m.key, fresh(m.value));
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
      else response.command = fresh(m.command);
      return response;
    }
  }
}

/** The document with the mutation applied (to a copy). */
export function mutate(original: Json, m: Mutation): Json {
  return mutateInPlace(structuredClone(original), m);
}

export interface Nesting {
  pick: number;
  depth: number;
  array: boolean;
}
export const nesting: fc.Arbitrary<Nesting> = fc.record({ pick: fc.nat(), depth: fc.integer({ min: 50, max: 2000 }), array: fc.boolean() });

/** The value at one of the document's paths wrapped `depth` times (in place: too deep to copy). */
export function nest(response: Json, n: Nesting): Json {
  const all = paths(response);
  const path = all.length === 0 ? undefined : all[n.pick % all.length];
  if (path === undefined) return response;
  const value = deepNest(get(response, path), n.depth, n.array);
  put(get(response, path.slice(0, -1)), path.at(-1) as string | number, value);
  return response;
}

// ---------------------------------------------------------------------------------------
// Content blocks (seed 001 section 7)
// ---------------------------------------------------------------------------------------

export const sha256Arb: fc.Arbitrary<string> = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => Buffer.from(bytes).toString('hex'));
const mediaTypeArb = fc.constantFrom('image/png', 'image/jpeg', 'application/pdf', 'text/plain', 'text/x.golem+json');
const blockId = fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined });
const optionalText = fc.option(fc.string({ maxLength: 20, unit: 'binary' }), { nil: undefined });
const jsonObject = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>, { maxKeys: 4 });
/** Drops the keys whose value is undefined (the schemas are strict: an absent optional field is no key). */
const defined = (o: Json): Json => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));

const textBlock = fc.record({ type: fc.constant('text'), id: blockId, text: fc.string({ maxLength: 60, unit: 'binary' }) }).map(defined);
const mediaBlock = (type: 'image' | 'document') =>
  fc
    .record({
      type: fc.constant(type),
      id: blockId,
      blob: sha256Arb.map((sha256) => ({ sha256 })),
      mediaType: mediaTypeArb,
      filename: optionalText,
      [type === 'image' ? 'alt' : 'title']: optionalText,
    })
    .map(defined);
/** A valid content block of every type there is. */
export const contentBlockArb: fc.Arbitrary<Json> = fc.oneof(
  textBlock,
  fc.record({ type: fc.constant('thinking'), id: blockId, thinking: fc.string({ maxLength: 40 }), signature: optionalText }).map(defined),
  mediaBlock('image'),
  mediaBlock('document'),
  fc
    .record({
      type: fc.constant('tool_use'),
      id: blockId,
      callId: fc.string({ minLength: 1, maxLength: 12 }),
      name: fc.string({ minLength: 1, maxLength: 12 }),
      args: jsonObject,
    })
    .map(defined),
  fc
    .record({
      type: fc.constant('tool_result'),
      id: blockId,
      callId: fc.string({ minLength: 1, maxLength: 12 }),
      content: fc.array(fc.oneof(textBlock, mediaBlock('image'), mediaBlock('document')), { maxLength: 3 }),
      isError: fc.option(fc.boolean(), { nil: undefined }),
    })
    .map(defined),
  fc
    .record({
      type: fc.constant('summary'),
      id: blockId,
      text: fc.string({ maxLength: 40 }),
      summarizes: fc.array(fc.record({ id: fc.string({ minLength: 1, maxLength: 8 }), version: fc.nat({ max: 9 }) }), { maxLength: 3 }),
    })
    .map(defined),
  fc
    .record({
      type: fc.constant('role:transition'),
      id: blockId,
      from: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
      to: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
    })
    .map(defined),
);

// ---------------------------------------------------------------------------------------
// Model responses of the structured response protocol (seed 002)
// ---------------------------------------------------------------------------------------

/** Some text, now and then with a code fence or braces in it (as models write in messages). */
const text = fc.oneof(
  { weight: 5, arbitrary: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.constantFrom('Type ```true``` into the box', 'Run ```json\n{"a": 1}\n``` first', 'a } b { c', '```', '{}') },
);
const anyText = fc.string({ maxLength: 40, unit: 'binary' });
const selector = fc.oneof(
  fc.tuple(fc.constantFrom('', '#', '.', 'div ', 'form > ', 'button.'), fc.stringMatching(/^[a-z][a-z0-9-]{0,15}$/)).map(([a, b]) => a + b),
  fc
    .tuple(fc.nat({ max: 99 }), fc.option(fc.nat({ max: 9 }), { nil: undefined }), fc.nat({ max: 999 }))
    .map(([s, f, e]) => `ref=s${s}/${f === undefined ? '' : `f${f}`}e${e}`),
  fc.stringMatching(/^[a-z]{1,10}$/).map((t) => `text=${t}`),
  fc.constantFrom("input[name='username']", "role=button[name='Log in']", 'xpath=//a[1]', 'data-testid=submit'),
);
const variableName = fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,20}$/);
const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  variableName.map((v) => `https://\${${v}}/path`),
  variableName.map((v) => `\${${v}}`),
);
const withReason = (parameters: fc.Arbitrary<Json>, action: string, optional: boolean) =>
  fc.record({ action: fc.constant(action), parameters, ...(optional && { reasoning: anyText }) }, { requiredKeys: ['action', 'parameters'] });

/** A browser command of the protocol (with its optional reasoning when `optional`). */
export const responseCommand = (optional: boolean): fc.Arbitrary<Json> =>
  fc.oneof(
    withReason(fc.record({ url }), 'OPEN_PAGE', optional),
    withReason(fc.record({ selector }), 'CLICK_ELEMENT', optional),
    withReason(fc.record({ selector, text: fc.string({ maxLength: 60, unit: 'binary' }) }), 'INPUT_TEXT', optional),
    withReason(fc.record({ selector, variableName }), 'SAVE_VARIABLE', optional),
    withReason(fc.constant({}), 'GET_DOM', optional),
  );

/** A response that follows the schema (the full one's optional fields only when `optional`). */
export function wellFormedResponse(optional: boolean): fc.Arbitrary<Json> {
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
      command: responseCommand(optional),
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
export const rendering = fc.constantFrom('object', 'json', 'pretty', 'fence', 'prose');
export function render(response: Json, how: string): unknown {
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

/** Mutations of a response: the generic ones, and a decision changed (with or without a command). */
export const responseMutation: fc.Arbitrary<Mutation> = fc.oneof(
  ...jsonMutations,
  fc.record({
    k: fc.constant('decide' as const),
    action: fc.constantFrom('PROCEED', 'RETRY', 'ABORT', 'proceed', 'STOP', ''),
    command: fc.option(responseCommand(true), { nil: null }),
  }),
);

/** A model's text: arbitrary, JSON in prose or a fence, or protocol-looking debris. */
export const responseText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 200, unit: 'binary' }),
  fc.json().map((j) => `prose { ${j} } more prose`),
  fc.jsonValue().map((v) => `\`\`\`json\n${JSON.stringify(v)}\n\`\`\``),
  fc
    .array(fc.constantFrom('{', '}', '[', ']', '"', '```', 'json', '\n', ':', ',', 'decision', 'PROCEED', '\\'), { maxLength: 40 })
    .map((parts) => parts.join('')),
);

// ---------------------------------------------------------------------------------------
// patch_ui_state (seed 004)
// ---------------------------------------------------------------------------------------

/** JSON values, now and then one carrying an own "__proto__" key (JSON.parse makes those). */
export const uiJsonArb: fc.Arbitrary<JsonValue> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>, weight: 9 },
  { arbitrary: fc.constant(JSON.parse('{"__proto__":{"polluted":true},"kept":1}') as JsonValue), weight: 1 },
);
/** State keys a path cannot name. */
export const FORBIDDEN_STATE_KEYS = ['__proto__', 'constructor', 'prototype'];
/** A state key usable in a path (no line terminator: `.` in the path pattern does not match one). */
export const usableStateKey = (key: string) => !FORBIDDEN_STATE_KEYS.includes(key) && !/[\n\r\u2028\u2029]/.test(key);
export const uiKeyArb = fc
  .oneof(fc.constantFrom('count', 'name', 'status', 'a.b', 'x/y', 'm~n', '~1', 'with space', '0', '-', 'é'), fc.string({ minLength: 1, maxLength: 6 }))
  .filter(usableStateKey);

/** Text a field shows: never a `${...}` template (one of no state value is refused, rightly: it is not a valid block). */
const uiShownText = (constraints: { minLength?: number; maxLength: number }) => fc.string(constraints).filter((text) => !text.includes('${'));

const uiFieldArb = fc
  .record({
    label: uiShownText({ minLength: 1, maxLength: 8 }),
    key: fc.string({ minLength: 1, maxLength: 6 }),
    type: fc.constantFrom(...SEED_FIELD_TYPES),
    options: fc.uniqueArray(fc.record({ label: uiShownText({ maxLength: 4 }), value: fc.string({ maxLength: 4 }) }), {
      selector: (o) => o.value,
      minLength: 1,
      maxLength: 3,
    }),
    withOptions: fc.boolean(),
    extra: fc.record({ value: uiJsonArb, description: uiShownText({ maxLength: 8 }) }, { requiredKeys: [] }),
  })
  .map(({ label, key, type, options, withOptions, extra }) => ({
    label,
    key,
    type,
    ...extra,
    ...(type === 'select' || type === 'radio' || withOptions ? { options } : {}),
  }));

/** A valid form block, without its id. */
export const uiBlockBodyArb: fc.Arbitrary<Json> = fc
  .record({
    bind: fc.constantFrom('state.params', 'state.runtime'),
    fields: fc.uniqueArray(uiFieldArb, { selector: (f) => f.key, maxLength: 3 }),
    flags: fc.record(
      {
        showProgress: fc.boolean(),
        showStatus: fc.boolean(),
        showImages: fc.boolean(),
        showTable: fc.boolean(),
        showCountInput: fc.boolean(),
        showTaskId: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  })
  .map(({ bind, fields, flags }) => ({ type: 'form', bind, props: { fields, ...flags } }));
/** A valid action, without its id. */
export const uiActionBodyArb: fc.Arbitrary<Json> = fc.record({ label: uiShownText({ minLength: 1, maxLength: 8 }), style: fc.constantFrom(...ACTION_STYLES) });

const UI_PATHS = [
  'state.params.count',
  'state.params.new',
  'state.runtime.busy',
  'state.params',
  'state.runtime',
  'state',
  'meta',
  'meta.status',
  'meta.step',
  'meta.pageKey',
  'meta.x',
  'layout',
  'blocks',
  'blocks+',
  'blocks-0',
  'blocks-1',
  'blocks-2',
  'blocks["a"]',
  'blocks[b]',
  'blocks["z"]',
  'blocks-"a"',
  'blocks-b',
  'actions',
  'actions+',
  'actions-0',
  'actions["s"]',
  'actions-"s"',
  'actions-s',
  'state.params.__proto__',
  '',
];
const nearValue = fc.oneof(
  anything,
  oddity,
  fc.jsonValue({ maxDepth: 3 }),
  uiBlockBodyArb.map((b) => ({ id: 'n', ...b })),
  uiActionBodyArb.map((a) => ({ id: 'n', ...a })),
  fc.constant({ pageKey: 'p', step: { current: 1, total: 1 }, status: 'idle' }),
);
const nearPatch = fc.oneof(
  { arbitrary: anything, weight: 1 },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        op: fc.oneof(fc.constantFrom('set', 'add', 'remove', 'clear', 'delete', 'create', 'replace'), anything, oddity),
        path: fc.oneof(fc.constantFrom(...UI_PATHS), fc.string(), anything, oddity),
        value: nearValue,
        items: fc.oneof(fc.array(nearValue, { maxLength: 3 }), anything, oddity),
        condition: fc.oneof(fc.string(), anything, oddity),
      },
      { requiredKeys: ['op', 'path'] },
    ),
  },
);

/**
 * A `patch_ui_state` call that is nearly right, with anything in its parts: mostly on the
 * instance "p" (blocks a and b, action s), else on others, on creation or deletion.
 */
export const nearUiCall: fc.Arbitrary<Json> = fc.record(
  {
    instanceId: fc.oneof(
      { arbitrary: fc.constant('p'), weight: 4 },
      { arbitrary: fc.constantFrom('q', '__CREATE__', '__DELETE__', ''), weight: 2 },
      anything,
      oddity,
    ),
    newInstanceId: fc.oneof(fc.constantFrom('p', 'q', 'bad id'), anything),
    targetInstanceId: fc.oneof(fc.constantFrom('p', 'q'), anything),
    patches: fc.oneof({ arbitrary: fc.array(nearPatch, { maxLength: 5 }), weight: 5 }, { arbitrary: anything, weight: 1 }),
  },
  { requiredKeys: ['instanceId', 'patches'] },
);
