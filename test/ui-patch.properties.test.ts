/**
 * Property-based tests of patch_ui_state (seed 004): random sequences of calls, built from
 * every path pattern and op of the seed, valid ones (from the instance's current ids) and
 * invalid ones with the code each must be refused with, applied through `ws.ui.patch` and
 * the pure engine in lockstep. After every call the invariants hold (the instance parses,
 * ids are unique, pageKey never changes, one version per accepted call, a refused call
 * changes nothing); every accepted call's JSON Patch, replayed by an independent RFC 6902
 * implementation (fast-json-patch), and the page's own, on the previous state, give exactly the new instance,
 * and a client that is behind fails loudly on an id-addressed change; the engine never
 * throws, whatever it is given.
 */
import fc from 'fast-check';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { applyPatch as pageApply, PatchError as PagePatchError } from '../web/src/json-patch.js';
import type { PatchOp as PagePatchOp } from '../web/src/types.js';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  applyPatchInput,
  BLOCK_DATA_KEYS,
  createWorkspace,
  META_STATUSES,
  UI_PATCH_ERROR_CODES,
  UIInstance,
  type JsonPatchOperation,
  type JsonValue,
  type PatchInput,
  type PatchOutcome,
  type UIPatchError,
  type UIPatchErrorCode,
  type Workspace,
} from '../src/index.js';
import {
  anything,
  FORBIDDEN_STATE_KEYS as FORBIDDEN_KEYS,
  nearUiCall,
  uiActionBodyArb as actionBodyArb,
  uiBlockBodyArb as blockBodyArb,
  uiJsonArb as jsonArb,
  uiKeyArb as keyArb,
  usableStateKey as usableKey,
} from '../reliability/arbitraries.js';

/** Scale the runs up for a long hunt: GOLEM_PROPERTY_SCALE=20 npm test. */
const SCALE = Number(process.env.GOLEM_PROPERTY_SCALE ?? 1);
const runs = (n: number) => ({ numRuns: Math.max(1, Math.round(n * SCALE)) });

const CREATE = '__CREATE__';
const DELETE = '__DELETE__';
type List = 'blocks' | 'actions';
type Area = 'params' | 'runtime';
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);
const pick = <T>(items: readonly T[], n: number): T => items[n % items.length] as T;
const clone = <T>(value: T): T => structuredClone(value);

// ---------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------

const dictArb = fc.dictionary(keyArb, jsonArb, { maxKeys: 3 });
type Body = Json;
const stepArb = fc.nat({ max: 5 }).chain((total) => fc.record({ current: fc.nat({ max: total + 1 }), total: fc.constant(total + 1) }));

const VALID_KINDS = [
  'paramSet',
  'paramRemove',
  'areaClear',
  'areaSet',
  'stateSet',
  'metaStatus',
  'metaStep',
  'metaWhole',
  'layout',
  'listSet',
  'append',
  'indexSet',
  'byIdSet',
  'byIdRemove',
] as const;
const INVALID_KINDS = [
  'badOp',
  'instanceOp',
  'wrongOp',
  'badPath',
  'forbiddenKey',
  'pageKeyPath',
  'pageKeyWhole',
  'versionField',
  'extraKey',
  'notAnObject',
  'missingValue',
  'duplicateAppend',
  'duplicateList',
  'duplicateIndex',
  'duplicateById',
  'outOfRange',
  'missingId',
  'missingKey',
  'badBlock',
  'badAction',
  'badMeta',
  'badState',
  'badList',
  'badField',
] as const;
type Kind = (typeof VALID_KINDS)[number] | (typeof INVALID_KINDS)[number];

/** One patch to be: a kind, and the randomness it is built with against the instance of the moment. */
interface Seed {
  kind: Kind;
  a: number;
  b: number;
  list: List;
  area: Area;
  key: string;
  json: JsonValue;
  dict: Record<string, JsonValue>;
  block: Body;
  action: Body;
  step: { current: number; total: number };
  status: string;
}
const seedArb = (kind: fc.Arbitrary<Kind>): fc.Arbitrary<Seed> =>
  fc.record({
    kind,
    a: fc.nat({ max: 1000 }),
    b: fc.nat({ max: 1000 }),
    list: fc.constantFrom<List>('blocks', 'actions'),
    area: fc.constantFrom<Area>('params', 'runtime'),
    key: keyArb,
    json: jsonArb,
    dict: dictArb,
    block: blockBodyArb,
    action: actionBodyArb,
    step: stepArb,
    status: fc.constantFrom(...META_STATUSES),
  });
const patchSeedArb = fc.oneof(
  { arbitrary: seedArb(fc.constantFrom(...VALID_KINDS)), weight: 4 },
  { arbitrary: seedArb(fc.constantFrom(...INVALID_KINDS)), weight: 1 },
);

/** What may be wrong with a call as a whole (checked before any patch). */
const WRAPS = ['unknownInstance', 'topVersion', 'topExtra', 'createExisting', 'patchesMissing', 'deleteMissing'] as const;
type Wrap = 'none' | (typeof WRAPS)[number];
const WRAP_CODES: Record<Exclude<Wrap, 'none'>, UIPatchErrorCode> = {
  unknownInstance: 'INVALID_INSTANCE',
  topVersion: 'SCHEMA_MUTATION',
  topExtra: 'INVALID_STRUCTURE',
  createExisting: 'INSTANCE_EXISTS',
  patchesMissing: 'MISSING_VALUE',
  deleteMissing: 'INVALID_INSTANCE',
};
interface CallSeed {
  patches: Seed[];
  wrap: Wrap;
  n: number;
}
const callArb: fc.Arbitrary<CallSeed> = fc.record({
  patches: fc.array(patchSeedArb, { minLength: 1, maxLength: 5 }),
  wrap: fc.oneof({ arbitrary: fc.constant<Wrap>('none'), weight: 14 }, { arbitrary: fc.constantFrom<Wrap>(...WRAPS), weight: 1 }),
  n: fc.nat({ max: 1000 }),
});

interface CreateSeed {
  variant: 'spec' | 'empty' | 'metaOnly' | 'rich';
  customPageKey: boolean;
  blocks: Body[];
  actions: Body[];
  dict: Record<string, JsonValue>;
  step: { current: number; total: number };
  status: string;
}
const createArb: fc.Arbitrary<CreateSeed> = fc.record({
  variant: fc.constantFrom('spec', 'empty', 'metaOnly', 'rich'),
  customPageKey: fc.boolean(),
  blocks: fc.array(blockBodyArb, { maxLength: 2 }),
  actions: fc.array(actionBodyArb, { maxLength: 2 }),
  dict: dictArb,
  step: stepArb,
  status: fc.constantFrom(...META_STATUSES),
});
interface Scenario {
  badCreates: number[];
  create: CreateSeed;
  calls: CallSeed[];
}
const scenarioArb: fc.Arbitrary<Scenario> = fc.record({
  badCreates: fc.array(fc.nat({ max: 100 }), { maxLength: 2 }),
  create: createArb,
  calls: fc.array(callArb, { minLength: 1, maxLength: 30 }),
});

// ---------------------------------------------------------------------------------------
// Building calls: each patch valid or invalid (with the code it must be refused with)
// ---------------------------------------------------------------------------------------

/** What the test knows of the instance: ids in order, state keys, pageKey; and a counter for fresh ids. */
interface Sim {
  blocks: string[];
  actions: string[];
  params: string[];
  runtime: string[];
  pageKey: string;
  counter: { n: number };
}
const simOf = (instance: UIInstance, pageKey: string, counter: { n: number }): Sim => ({
  blocks: instance.blocks.map((b) => b.id),
  actions: instance.actions.map((a) => a.id),
  params: Object.keys(instance.state.params),
  runtime: Object.keys(instance.state.runtime),
  pageKey,
  counter,
});
const ID_PREFIXES = ['b', 'x.', '0', '_', 'A:', 'z-'];
/** An id never used in the run, of varied shapes (some start with a digit). */
const fresh = (sim: Sim): string => {
  const n = sim.counter.n++;
  return `${pick(ID_PREFIXES, n)}${n}`;
};
const itemOf = (seed: Seed, list: List, id: string): Json => ({ id, ...(list === 'blocks' ? seed.block : seed.action) });
const byIdPath = (list: List, id: string, quoted: boolean) => (quoted ? `${list}["${id}"]` : `${list}[${id}]`);
/** blocks-"id", or blocks-id when that cannot be read as an index (the id starts with a letter or _). */
const deletePath = (list: List, id: string, quoted: boolean) => (quoted || !/^[A-Za-z_]/.test(id) ? `${list}-"${id}"` : `${list}-${id}`);
const dictKeys = (dict: Record<string, unknown>) => Object.keys(dict).filter((k) => k !== '__proto__');

interface Planned {
  patch: unknown;
  expect: UIPatchErrorCode | null;
  idAddressed: boolean;
}
const valid = (patch: Json, idAddressed = false): Planned => ({ patch, expect: null, idAddressed });
const invalid = (code: UIPatchErrorCode, patch: unknown): Planned => ({ patch, expect: code, idAddressed: false });

const BROKEN_BLOCKS: ((id: string) => unknown)[] = [
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: [{ label: 'When', key: 'd', type: 'calendar' }] } }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: [{ label: 'Pick', key: 'p', type: 'select' }] } }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: [{ label: 'Pick', key: 'p', type: 'radio', options: [] }] } }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: [{ label: 'Pick', key: 'p', type: 'select', options: [{ label: 'a' }] }] } }),
  (id) => ({ id, type: 'chart', bind: 'state.params', props: { fields: [] } }),
  (id) => ({ id, type: 'form', bind: 'state.other', props: { fields: [] } }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: [] }, color: 'red' }),
  (id) => ({ id, type: 'form', bind: 'state.params' }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: {} }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: [{ label: '', key: 'k', type: 'text' }] } }),
  (id) => ({
    id,
    type: 'form',
    bind: 'state.params',
    props: {
      fields: [
        { label: 'A', key: 'k', type: 'text' },
        { label: 'B', key: 'k', type: 'number' },
      ],
    },
  }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: [{ label: 'A', key: 'k', type: 5 }] } }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: [], showProgress: 'yes' } }),
  (id) => ({ id, type: 'form', bind: 'state.params', props: { fields: 'name' } }),
  () => ({ id: '-x', type: 'form', bind: 'state.params', props: { fields: [] } }),
  () => ({ id: 'has space', type: 'form', bind: 'state.params', props: { fields: [] } }),
  () => ({ id: '', type: 'form', bind: 'state.params', props: { fields: [] } }),
  () => ({ id: 'a'.repeat(101), type: 'form', bind: 'state.params', props: { fields: [] } }),
  () => ({ type: 'form', bind: 'state.params', props: { fields: [] } }),
  () => 42,
  () => null,
];
const BROKEN_ACTIONS: ((id: string) => unknown)[] = [
  (id) => ({ id, label: 'Go', style: 'fancy' }),
  (id) => ({ id, label: '', style: 'primary' }),
  (id) => ({ id, label: 'Go' }),
  (id) => ({ id, label: 'Go', style: 'primary', onClick: 'x' }),
  () => ({ id: '-x', label: 'Go', style: 'primary' }),
  () => ({ id: 7, label: 'Go', style: 'primary' }),
  () => 'submit',
];
const BAD_PATHS = [
  'widgets',
  'blocks.0',
  'blocks[]',
  'blocks[""]',
  'blocks[a"b]',
  'blocks-"a',
  'blocks-',
  'blocks--1',
  'blocks-1.5',
  'actions*',
  'Blocks',
  ' blocks',
  'blocks ',
  'meta.',
  'meta.step.current',
  'state.foo',
  'state.params.',
  'layout.type',
  '/blocks/0',
  'blocks+x',
  'schemaVersion',
  'version',
];
const BAD_OPS: unknown[] = ['merge', 'move', 'copy', 'test', 'SET', 'Set', '', 'upsert', 42, null, true, {}];

/**
 * A runtime key that no block property draws: random JSON under `state.runtime.status` is
 * refused when a block shows the status (test/ui-block-data.test.ts holds those keys to their shapes).
 */
const notBlockData = (key: string) => ((Object.values(BLOCK_DATA_KEYS) as string[]).includes(key) ? `${key}_` : key);

/** Builds one patch against `sim`, updating it with what a valid patch does. */
function plan(seed: Seed, sim: Sim): Planned {
  const { a, b, list: L, area } = seed;
  const ids = sim[L];
  const keyOk = (k: string) => usableKey(k);
  switch (seed.kind) {
    // ----- valid -----
    case 'paramSet': {
      const key = area === 'runtime' ? notBlockData(seed.key) : seed.key;
      if (!sim[area].includes(key)) sim[area].push(key);
      return valid({ op: 'set', path: `state.${area}.${key}`, value: seed.json });
    }
    case 'paramRemove': {
      const keys = sim[area].filter(keyOk);
      if (keys.length === 0) return plan({ ...seed, kind: 'paramSet' }, sim);
      const key = pick(keys, a);
      sim[area] = sim[area].filter((k) => k !== key);
      return valid({ op: 'remove', path: `state.${area}.${key}` });
    }
    case 'areaClear':
      sim[area] = [];
      return valid({ op: 'clear', path: `state.${area}` });
    case 'areaSet': {
      const dict = area === 'runtime' ? Object.fromEntries(Object.entries(seed.dict).map(([k, v]) => [notBlockData(k), v])) : seed.dict;
      sim[area] = dictKeys(dict);
      return valid({ op: b % 2 === 0 ? 'set' : 'replace', path: `state.${area}`, value: dict });
    }
    case 'stateSet':
      sim.params = dictKeys(seed.dict);
      sim.runtime = [];
      return valid({ op: 'set', path: 'state', value: { params: seed.dict, runtime: {} } });
    case 'metaStatus':
      return valid({ op: b % 2 === 0 ? 'set' : 'replace', path: 'meta.status', value: seed.status });
    case 'metaStep':
      return valid({ op: 'set', path: 'meta.step', value: seed.step });
    case 'metaWhole':
      return valid({ op: 'set', path: 'meta', value: { pageKey: sim.pageKey, step: seed.step, status: seed.status } });
    case 'layout':
      return valid({ op: b % 2 === 0 ? 'set' : 'replace', path: 'layout', value: { type: 'single' } });
    case 'listSet': {
      const next: string[] = [];
      for (let i = 0; i < a % 4; i++) {
        const reuse = ids.filter((id) => !next.includes(id));
        next.push((b >> i) % 2 === 1 && reuse.length > 0 ? pick(reuse, a + i) : fresh(sim));
      }
      sim[L] = next;
      return valid({ op: b % 3 === 0 ? 'replace' : 'set', path: L, value: next.map((id) => itemOf(seed, L, id)) });
    }
    case 'append': {
      const added = Array.from({ length: 1 + (a % 3) }, () => fresh(sim));
      sim[L] = [...ids, ...added];
      const items = added.map((id) => itemOf(seed, L, id));
      if (items.length === 1 && b % 3 === 0) return valid({ op: 'add', path: `${L}+`, value: items[0] });
      return valid(b % 3 === 1 ? { op: 'add', path: `${L}+`, items } : { op: 'add', path: `${L}+`, value: items });
    }
    case 'indexSet': {
      if (ids.length === 0) return plan({ ...seed, kind: 'append' }, sim);
      const i = a % ids.length;
      const id = b % 2 === 0 ? (ids[i] as string) : fresh(sim);
      sim[L] = ids.map((x, j) => (j === i ? id : x));
      return valid({ op: (b >> 1) % 2 === 0 ? 'set' : 'replace', path: `${L}-${i}`, value: itemOf(seed, L, id) });
    }
    case 'byIdSet': {
      if (ids.length === 0) return plan({ ...seed, kind: 'append' }, sim);
      const target = pick(ids, a);
      const id = b % 2 === 0 ? target : fresh(sim);
      sim[L] = ids.map((x) => (x === target ? id : x));
      return valid({ op: (b >> 2) % 2 === 0 ? 'set' : 'replace', path: byIdPath(L, target, (b >> 1) % 2 === 0), value: itemOf(seed, L, id) }, true);
    }
    case 'byIdRemove': {
      if (ids.length === 0) return plan({ ...seed, kind: 'append' }, sim);
      const target = pick(ids, a);
      sim[L] = ids.filter((x) => x !== target);
      return valid({ op: 'remove', path: deletePath(L, target, b % 2 === 0) }, true);
    }
    // ----- invalid -----
    case 'badOp': {
      const op = pick(BAD_OPS, a);
      const patch: Json = { path: `state.params.${seed.key}`, value: 1 };
      return invalid('INVALID_OP', b % 7 === 0 ? patch : { op, ...patch });
    }
    case 'instanceOp':
      return invalid('INVALID_OP', { op: b % 2 === 0 ? 'create' : 'delete', path: pick(['blocks', 'meta', 'state.params.x', 'nonsense'], a) });
    case 'wrongOp': {
      const some = ids.length > 0 ? pick(ids, a) : 'anything';
      const cases: [string, string, unknown?][] = [
        ['remove', L],
        ['clear', L],
        ['add', L, []],
        ['set', `${L}+`, itemOf(seed, L, fresh(sim))],
        ['replace', `${L}+`, itemOf(seed, L, fresh(sim))],
        ['remove', `${L}-0`],
        ['clear', `${L}-3`],
        ['add', `state.${area}.${seed.key}`, 1],
        ['clear', `state.${area}.${seed.key}`],
        ['replace', `state.${area}.${seed.key}`, 1],
        ['add', `state.${area}`, {}],
        ['remove', `state.${area}`],
        ['add', 'meta.status', 'idle'],
        ['clear', 'meta.step'],
        ['remove', 'layout'],
        ['clear', 'meta'],
        ['remove', 'state'],
        ['add', byIdPath(L, some, b % 2 === 0), itemOf(seed, L, some)],
        ['remove', byIdPath(L, some, true)],
        ['set', deletePath(L, some, true), itemOf(seed, L, some)],
        ['add', deletePath(L, some, b % 2 === 0)],
      ];
      const [op, path, value] = pick(cases, b);
      return invalid('INVALID_OP', value === undefined ? { op, path } : { op, path, value });
    }
    case 'badPath': {
      if (b % 6 === 0) return invalid('INVALID_PATH', { op: 'set', value: 1 });
      if (b % 6 === 1) return invalid('INVALID_PATH', { op: 'set', path: 42, value: 1 });
      return invalid('INVALID_PATH', { op: 'set', path: pick(BAD_PATHS, a), value: 1 });
    }
    case 'forbiddenKey':
      return invalid(
        'INVALID_PATH',
        b % 2 === 0
          ? { op: 'set', path: `state.${area}.${pick(FORBIDDEN_KEYS, a)}`, value: { polluted: true } }
          : { op: 'remove', path: `state.${area}.${pick(FORBIDDEN_KEYS, a)}` },
      );
    case 'pageKeyPath':
      return invalid('SCHEMA_MUTATION', { op: b % 2 === 0 ? 'set' : 'replace', path: 'meta.pageKey', value: `${sim.pageKey}_2` });
    case 'pageKeyWhole':
      return invalid('SCHEMA_MUTATION', {
        op: 'set',
        path: 'meta',
        value: { pageKey: b % 2 === 0 ? `${sim.pageKey}_2` : 'other', step: seed.step, status: seed.status },
      });
    case 'versionField':
      return invalid('SCHEMA_MUTATION', {
        op: 'set',
        path: `state.params.${seed.key}`,
        value: 1,
        [pick(['version', 'baseVersion', 'schemaVersion'], a)]: b % 2 === 0 ? b : String(b),
      });
    case 'extraKey':
      return invalid('INVALID_STRUCTURE', { op: 'set', path: `state.params.${seed.key}`, value: 1, [pick(['foo', 'id', 'from', 'Value'], a)]: 1 });
    case 'notAnObject':
      return invalid('INVALID_STRUCTURE', pick<unknown>([42, null, 'set', [], true, [{ op: 'set', path: 'layout', value: { type: 'single' } }]], a));
    case 'missingValue': {
      const cases: Json[] = [
        { op: 'set', path: `state.${area}.${seed.key}` },
        { op: 'set', path: 'meta.status' },
        { op: 'replace', path: 'meta.step' },
        { op: 'set', path: 'meta' },
        { op: 'set', path: 'layout' },
        { op: 'set', path: 'state' },
        { op: 'set', path: `state.${area}` },
        { op: 'set', path: L },
        { op: 'replace', path: L },
        { op: 'add', path: `${L}+` },
        { op: 'add', path: `${L}+`, items: [] },
        { op: 'add', path: `${L}+`, value: [] },
      ];
      return invalid('MISSING_VALUE', pick(cases, a));
    }
    case 'duplicateAppend': {
      if (ids.length > 0 && b % 2 === 0)
        return invalid('DUPLICATE_ID', { op: 'add', path: `${L}+`, items: [itemOf(seed, L, fresh(sim)), itemOf(seed, L, pick(ids, a))] });
      const id = fresh(sim);
      return invalid('DUPLICATE_ID', { op: 'add', path: `${L}+`, items: [itemOf(seed, L, id), itemOf(seed, L, id)] });
    }
    case 'duplicateList': {
      const id = ids.length > 0 && b % 2 === 0 ? pick(ids, a) : fresh(sim);
      return invalid('DUPLICATE_ID', {
        op: b % 3 === 0 ? 'replace' : 'set',
        path: L,
        value: [itemOf(seed, L, id), itemOf(seed, L, fresh(sim)), itemOf(seed, L, id)],
      });
    }
    case 'duplicateIndex': {
      if (ids.length < 2) return plan({ ...seed, kind: 'duplicateList' }, sim);
      const i = a % ids.length;
      const j = (i + 1 + (b % (ids.length - 1))) % ids.length;
      return invalid('DUPLICATE_ID', { op: 'set', path: `${L}-${i}`, value: itemOf(seed, L, ids[j] as string) });
    }
    case 'duplicateById': {
      if (ids.length < 2) return plan({ ...seed, kind: 'duplicateAppend' }, sim);
      const i = a % ids.length;
      const j = (i + 1 + (b % (ids.length - 1))) % ids.length;
      return invalid('DUPLICATE_ID', { op: 'replace', path: byIdPath(L, ids[i] as string, b % 2 === 0), value: itemOf(seed, L, ids[j] as string) });
    }
    case 'outOfRange': {
      const index = b % 4 === 0 ? '99999999999999999999' : String(ids.length + (a % 3));
      return invalid('PATH_NOT_FOUND', { op: 'set', path: `${L}-${index}`, value: itemOf(seed, L, fresh(sim)) });
    }
    case 'missingId': {
      const id = fresh(sim);
      return invalid(
        'PATH_NOT_FOUND',
        b % 2 === 0 ? { op: 'set', path: byIdPath(L, id, a % 2 === 0), value: itemOf(seed, L, id) } : { op: 'remove', path: deletePath(L, id, a % 2 === 0) },
      );
    }
    case 'missingKey': {
      let key = seed.key;
      while (sim[area].includes(key)) key += '_';
      return invalid('PATH_NOT_FOUND', { op: 'remove', path: `state.${area}.${key}` });
    }
    case 'badBlock': {
      const broken = pick(BROKEN_BLOCKS, a)(fresh(sim));
      const ways: Json[] = [
        { op: 'add', path: 'blocks+', value: broken },
        { op: 'add', path: 'blocks+', items: [itemOf(seed, 'blocks', fresh(sim)), broken] },
        { op: 'set', path: 'blocks', value: [broken] },
      ];
      if (sim.blocks.length > 0)
        ways.push(
          { op: 'set', path: `blocks-${b % sim.blocks.length}`, value: broken },
          { op: 'set', path: byIdPath('blocks', pick(sim.blocks, b), true), value: broken },
        );
      return invalid('INVALID_STRUCTURE', pick(ways, b));
    }
    case 'badAction': {
      const broken = pick(BROKEN_ACTIONS, a)(fresh(sim));
      const ways: Json[] = [
        { op: 'add', path: 'actions+', value: broken },
        { op: 'replace', path: 'actions', value: [itemOf(seed, 'actions', fresh(sim)), broken] },
      ];
      if (sim.actions.length > 0)
        ways.push(
          { op: 'replace', path: `actions-${b % sim.actions.length}`, value: broken },
          { op: 'set', path: byIdPath('actions', pick(sim.actions, b), false), value: broken },
        );
      return invalid('INVALID_STRUCTURE', pick(ways, b));
    }
    case 'badMeta': {
      const cases: Json[] = [
        { op: 'set', path: 'meta.status', value: pick<unknown>(['done', 'IDLE', 5, null, ''], b) },
        {
          op: 'set',
          path: 'meta.step',
          value: pick<unknown>(
            [
              { current: 3, total: 2 },
              { current: -1, total: 1 },
              { current: 1.5, total: 2 },
              { current: 0, total: 0 },
              { current: 1 },
              'x',
              { current: 1, total: 1, of: 1 },
            ],
            b,
          ),
        },
        { op: 'set', path: 'layout', value: pick<unknown>([{ type: 'masonry' }, {}, 'single', { type: 'single', columns: 2 }, null], b) },
        { op: 'set', path: 'meta', value: { pageKey: sim.pageKey, step: seed.step } },
        { op: 'set', path: 'meta', value: { pageKey: sim.pageKey, step: seed.step, status: seed.status, title: 'x' } },
      ];
      return invalid('INVALID_STRUCTURE', pick(cases, a));
    }
    case 'badState': {
      const cases: Json[] = [
        { op: 'set', path: `state.${area}`, value: pick<unknown>([5, [], 'x', null, [1, 2]], b) },
        { op: 'set', path: 'state', value: { params: {} } },
        { op: 'set', path: 'state', value: { params: {}, runtime: {}, extra: {} } },
        { op: 'set', path: 'state', value: [] },
        { op: 'set', path: 'state', value: { params: [], runtime: {} } },
      ];
      return invalid('INVALID_STRUCTURE', pick(cases, a));
    }
    case 'badList': {
      const cases: Json[] = [
        { op: 'set', path: L, value: itemOf(seed, L, fresh(sim)) },
        { op: 'set', path: L, value: 'x' },
        { op: 'replace', path: L, value: null },
        { op: 'add', path: `${L}+`, value: 5 },
        { op: 'add', path: `${L}+`, items: 'x' },
        { op: 'set', path: `state.params.${seed.key}`, value: 1, condition: 5 },
        // Conditions are refused, not ignored (the engine does not evaluate them).
        { op: 'set', path: `state.params.${seed.key}`, value: 1, condition: 'always' },
        { op: 'set', path: L, value: [], items: [] },
      ];
      return invalid('INVALID_STRUCTURE', pick(cases, a));
    }
    case 'badField': {
      // a block whose fields break the field rules, added to the end
      const fields = pick<unknown[]>(
        [
          [{ label: 'S', key: 's', type: 'select', options: [] }],
          [{ label: 'T', key: 't', type: 'text', options: 'abc' }],
          [{ label: 'T', key: '', type: 'text' }],
          [{ label: 'T', key: 't', type: 'text', extra: true }],
          [{ key: 't', type: 'text' }],
        ],
        a,
      );
      return invalid('INVALID_STRUCTURE', { op: 'add', path: 'blocks+', value: { id: fresh(sim), type: 'form', bind: 'state.params', props: { fields } } });
    }
  }
}

interface PlannedCall {
  input: unknown;
  /** The code and patch index it must be refused with, or null: it must be accepted. */
  expect: { code: UIPatchErrorCode; patchIndex: number } | null;
  planned: Planned[];
  sim: Sim;
}

function planCall(call: CallSeed, id: string, sim: Sim): PlannedCall {
  const scratch: Sim = { ...sim, blocks: [...sim.blocks], actions: [...sim.actions], params: [...sim.params], runtime: [...sim.runtime] };
  const planned = call.patches.map((seed) => plan(seed, scratch));
  const patches = planned.map((p) => p.patch);
  const first = planned.findIndex((p) => p.expect !== null);
  let expected: PlannedCall['expect'] = first === -1 ? null : { code: planned[first]?.expect as UIPatchErrorCode, patchIndex: first };
  let input: unknown = { instanceId: id, patches };
  if (call.wrap !== 'none') {
    expected = { code: WRAP_CODES[call.wrap], patchIndex: -1 };
    const version = pick(['version', 'baseVersion', 'schemaVersion'], call.n);
    input = {
      unknownInstance: { instanceId: `nope_${call.n}`, patches },
      topVersion: { instanceId: id, patches, [version]: call.n },
      topExtra: { instanceId: id, patches, mode: 'merge' },
      createExisting: { instanceId: CREATE, newInstanceId: id, patches },
      patchesMissing: { instanceId: id },
      deleteMissing: { instanceId: DELETE, targetInstanceId: `nope_${call.n}`, patches: [] },
    }[call.wrap];
  }
  return { input, expect: expected, planned, sim: scratch };
}

const specMeta = (pageKey: string, step = { current: 1, total: 1 }, status = 'idle') => ({ op: 'set', path: 'meta', value: { pageKey, step, status } });
const specPatches = (pageKey: string) => [
  specMeta(pageKey),
  { op: 'set', path: 'state', value: { params: {}, runtime: {} } },
  { op: 'set', path: 'blocks', value: [] },
  { op: 'set', path: 'actions', value: [] },
];

/** A valid creation, and the pageKey it gives. */
function createCall(seed: CreateSeed, id: string, counter: { n: number }): { input: PatchInput; pageKey: string } {
  const pageKey = seed.customPageKey && seed.variant !== 'empty' ? `page:${id}` : id;
  const ids = (prefix: string, n: number) => Array.from({ length: n }, () => `${prefix}${counter.n++}`);
  const patches: Json[] = {
    spec: () => specPatches(pageKey),
    empty: () => [],
    metaOnly: () => [specMeta(pageKey, seed.step, seed.status)],
    rich: () => [
      specMeta(pageKey, seed.step, 'idle'),
      { op: 'set', path: 'state', value: { params: seed.dict, runtime: {} } },
      { op: 'set', path: 'blocks', value: ids('b', seed.blocks.length).map((bid, i) => ({ id: bid, ...seed.blocks[i] })) },
      { op: 'replace', path: 'actions', value: ids('a', seed.actions.length).map((aid, i) => ({ id: aid, ...seed.actions[i] })) },
      { op: 'add', path: 'blocks+', value: { id: ids('b', 1)[0], type: 'form', bind: 'state.runtime', props: { fields: [] } } },
      { op: 'set', path: 'layout', value: { type: 'single' } },
      { op: 'set', path: 'meta.status', value: seed.status },
      { op: 'set', path: 'state.runtime.started', value: true },
    ],
  }[seed.variant]();
  return { input: { instanceId: CREATE, newInstanceId: id, patches: patches as unknown as PatchInput['patches'] }, pageKey };
}

const form = (id: string) => ({ id, type: 'form', bind: 'state.params', props: { fields: [] } });
/** Creations that must be refused: [input, code, patchIndex]. */
const BAD_CREATES: ((id: string) => [unknown, UIPatchErrorCode, number])[] = [
  (id) => [{ instanceId: CREATE, newInstanceId: `${id} x`, patches: [] }, 'INVALID_STRUCTURE', -1],
  (id) => [{ instanceId: CREATE, newInstanceId: `-${id}`, patches: [] }, 'INVALID_STRUCTURE', -1],
  () => [{ instanceId: CREATE, patches: [] }, 'MISSING_VALUE', -1],
  (id) => [{ instanceId: CREATE, newInstanceId: id }, 'MISSING_VALUE', -1],
  (id) => [{ instanceId: CREATE, newInstanceId: id, patches: [], version: 1 }, 'SCHEMA_MUTATION', -1],
  (id) => [{ instanceId: CREATE, newInstanceId: id, patches: [specMeta(id), { op: 'set', path: 'meta.pageKey', value: 'other' }] }, 'SCHEMA_MUTATION', 1],
  (id) => [
    { instanceId: CREATE, newInstanceId: id, patches: [...specPatches(id), { op: 'set', path: 'blocks', value: [form('f'), form('f')] }] },
    'DUPLICATE_ID',
    4,
  ],
  (id) => [{ instanceId: CREATE, newInstanceId: id, patches: [specMeta(''), ...specPatches(id)] }, 'INVALID_STRUCTURE', 0],
  (id) => [{ instanceId: CREATE, newInstanceId: id, patches: [{ op: 'set', path: 'schemaVersion', value: '1' }] }, 'INVALID_PATH', 0],
  (id) => [{ instanceId: CREATE, newInstanceId: id, patches: [{ op: 'create', path: 'meta' }] }, 'INVALID_OP', 0],
  (id) => [{ instanceId: CREATE, newInstanceId: id, schemaVersion: 1, patches: [] }, 'INVALID_STRUCTURE', -1],
  (id) => [{ instanceId: CREATE, newInstanceId: id, schemaVersion: 'one two', patches: [] }, 'INVALID_STRUCTURE', -1],
  (id) => [{ instanceId: CREATE, newInstanceId: id, patches: [{ op: 'remove', path: 'state.params.k' }] }, 'PATH_NOT_FOUND', 0],
  (id) => [{ instanceId: CREATE, newInstanceId: id, patches: [...specPatches(id), { op: 'remove', path: 'blocks-"f"' }] }, 'PATH_NOT_FOUND', 4],
];

// ---------------------------------------------------------------------------------------
// Backends: ws.ui.patch and the pure engine on a map, seen the same way
// ---------------------------------------------------------------------------------------

type Outcome =
  | { ok: true; kind: 'create' | 'update' | 'delete'; instance: UIInstance | undefined; jsonPatch: JsonPatchOperation[]; version: number }
  | { ok: false; errors: UIPatchError[] };
interface Stored {
  instance: UIInstance;
  version: number;
  /** The whole record (timestamps too, for the workspace). */
  record: unknown;
}
interface Backend {
  name: string;
  patch(input: unknown): Promise<Outcome>;
  get(id: string): Stored | undefined;
}

function engineBackend(): Backend {
  const map = new Map<string, { instance: UIInstance; version: number }>();
  return {
    name: 'engine',
    async patch(input) {
      const out = applyPatchInput(input, (id) => map.get(id)?.instance);
      if (!out.ok) return { ok: false, errors: out.errors };
      const version = (map.get(out.instanceId)?.version ?? 0) + (out.kind === 'delete' ? 0 : 1);
      if (out.kind === 'delete') map.delete(out.instanceId);
      else map.set(out.instanceId, { instance: out.instance, version });
      return { ok: true, kind: out.kind, instance: out.instance, jsonPatch: out.jsonPatch, version };
    },
    get(id) {
      const stored = map.get(id);
      return stored === undefined ? undefined : clone({ ...stored, record: stored });
    },
  };
}

function workspaceBackend(ws: Workspace): Backend {
  return {
    name: 'ws.ui',
    async patch(input) {
      const response = await ws.ui.patch(input as PatchInput);
      return response.success
        ? { ok: true, kind: response.kind, instance: response.instance, jsonPatch: response.jsonPatch, version: response.version }
        : { ok: false, errors: response.errors };
    },
    get(id) {
      const record = ws.ui.get(id);
      return record === undefined ? undefined : clone({ instance: record.instance, version: record.version, record });
    },
  };
}

// ---------------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------------

/** Every error: a seed code, an integer patch index in [-1, patches.length), the failing patch's path ('' for -1). */
function checkErrors(errors: UIPatchError[], input: unknown): void {
  expect(errors.length).toBeGreaterThan(0);
  const patches = isObject(input) && Array.isArray(input.patches) ? (input.patches as unknown[]) : [];
  for (const error of errors) {
    expect(UI_PATCH_ERROR_CODES).toContain(error.code);
    expect(Number.isInteger(error.patchIndex)).toBe(true);
    expect(error.patchIndex).toBeGreaterThanOrEqual(-1);
    expect(error.patchIndex).toBeLessThan(patches.length);
    const raw: unknown = error.patchIndex === -1 ? undefined : patches[error.patchIndex];
    const path = raw !== null && typeof raw === 'object' && typeof (raw as Json).path === 'string' ? ((raw as Json).path as string) : '';
    expect(error.path).toBe(path);
    expect(typeof error.message).toBe('string');
    expect(error.message.length).toBeGreaterThan(0);
  }
}

/** What holds of any instance the service keeps. */
function checkInstance(instance: unknown, pageKey: string | undefined): void {
  const parsed = UIInstance.safeParse(instance);
  if (!parsed.success) expect.fail(`the instance does not parse: ${JSON.stringify(parsed.error.issues)}`);
  const blockIds = parsed.data.blocks.map((b) => b.id);
  const actionIds = parsed.data.actions.map((a) => a.id);
  expect(new Set(blockIds).size).toBe(blockIds.length);
  expect(new Set(actionIds).size).toBe(actionIds.length);
  if (pageKey !== undefined) expect(parsed.data.meta.pageKey).toBe(pageKey);
}

/** RFC 6902 by fast-json-patch, validating, on a copy: what a client holding `previous` computes. */
function replay(previous: unknown, ops: readonly JsonPatchOperation[]): unknown {
  return jsonpatch.applyPatch(clone(previous), clone(ops) as Operation[], true, true).newDocument;
}

/** The value a JSON Pointer names (undefined if none), read without fast-json-patch. */
function valueAt(doc: unknown, pointer: string): unknown {
  let current = doc;
  for (const raw of pointer.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (isObject(current) && Object.hasOwn(current, segment)) current = current[segment];
    else return undefined;
  }
  return current;
}

/**
 * A client that is behind applies the ops one by one: at every guard whose value it does
 * not hold (another item at that index, or none), fast-json-patch must throw, before any
 * id-addressed change. 'loud' when it did, 'applied' or 'failed' (another op failed) else.
 */
function staleClient(stale: UIInstance, ops: readonly JsonPatchOperation[]): 'loud' | 'applied' | 'failed' {
  let doc: unknown = clone(stale);
  for (const op of clone(ops) as Operation[]) {
    if (op.op === 'test' && JSON.stringify(valueAt(doc, op.path)) !== JSON.stringify(op.value)) {
      let thrown: unknown;
      try {
        jsonpatch.applyOperation(doc, op, true, true);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(jsonpatch.JsonPatchError);
      // A guard on a value the client holds but differs, or on an index it does not have.
      expect(['TEST_OPERATION_FAILED', 'OPERATION_PATH_UNRESOLVABLE']).toContain((thrown as Error).name);
      return 'loud';
    }
    try {
      doc = jsonpatch.applyOperation(doc, op, true, true).newDocument;
    } catch {
      return 'failed';
    }
  }
  return 'applied';
}

/** Each id-addressed patch compiles to a guard on that item's id, right before its change at the same index. */
function checkGuards(ops: readonly JsonPatchOperation[], planned: readonly Planned[]): void {
  const tests = ops.flatMap((op, i) => (op.op === 'test' ? [i] : []));
  expect(tests.length).toBe(planned.filter((p) => p.idAddressed).length);
  for (const i of tests) {
    const test = ops[i] as { op: 'test'; path: string; value: JsonValue };
    const next = ops[i + 1];
    expect(test.path).toMatch(/^\/(blocks|actions)\/\d+\/id$/);
    expect(typeof test.value).toBe('string');
    expect(next?.op === 'replace' || next?.op === 'remove').toBe(true);
    expect(next?.path).toBe(test.path.slice(0, -'/id'.length));
  }
}

interface Stats {
  accepted: number;
  refused: Map<UIPatchErrorCode, number>;
  kindsAccepted: Set<Kind>;
  stale: Record<'loud' | 'applied' | 'failed', number>;
}
const newStats = (): Stats => ({ accepted: 0, refused: new Map(), kindsAccepted: new Set(), stale: { loud: 0, applied: 0, failed: 0 } });

/** One call on every backend: the outcome expected, the invariants, the same outcome everywhere. */
async function step(
  backends: Backend[],
  id: string,
  pageKey: string | undefined,
  input: unknown,
  expected: PlannedCall['expect'],
  stats: Stats,
): Promise<Outcome> {
  // Messages are built only for a failure: the runs make thousands of calls.
  const context = (backend: Backend) => `${backend.name}: call ${JSON.stringify(input)}`;
  let first: Outcome | undefined;
  for (const backend of backends) {
    const before = backend.get(id);
    const out = await backend.patch(input);
    const after = backend.get(id);
    if (expected !== null) {
      if (out.ok) expect.fail(`${context(backend)} should be refused with ${expected.code} at ${expected.patchIndex}, was accepted`);
      if (out.ok) continue;
      checkErrors(out.errors, input);
      const [error] = out.errors;
      if (error?.code !== expected.code || error.patchIndex !== expected.patchIndex) expect(error, context(backend)).toMatchObject(expected);
      // Atomic: nothing of a refused call is applied, nor its version counted.
      same(after, before, () => `${context(backend)} changed the instance`);
    } else {
      if (!out.ok) expect.fail(`${context(backend)} should be accepted, got ${JSON.stringify(out.errors)}`);
      if (!out.ok || after === undefined) {
        expect(after).toBeDefined();
        continue;
      }
      expect(after.version).toBe((before?.version ?? 0) + 1);
      expect(out.version).toBe(after.version);
      expect(out.kind).toBe(before === undefined ? 'create' : 'update');
      same(out.instance, after.instance, () => context(backend));
      checkInstance(after.instance, pageKey);
      // RFC 6902: the previous client state plus the JSON Patch is the new instance.
      if (before === undefined) {
        expect(out.jsonPatch).toHaveLength(1);
        expect(out.jsonPatch[0]).toMatchObject({ op: 'add', path: '' });
        same(replay({}, out.jsonPatch), after.instance, () => context(backend));
        same(replay(undefined, out.jsonPatch), after.instance, () => context(backend));
      } else {
        same(replay(before.instance, out.jsonPatch), after.instance, () => `${context(backend)} jsonPatch ${JSON.stringify(out.jsonPatch)}`);
        // The page's own applier (web/src/json-patch.ts) computes the same.
        same(
          pageApply(before.instance as never, out.jsonPatch as PagePatchOp[]),
          after.instance,
          () => `page applier: ${context(backend)} jsonPatch ${JSON.stringify(out.jsonPatch)}`,
        );
      }
    }
    if (first === undefined) first = out;
    else same(out, first, () => `${backend.name} and ${backends[0]?.name} differ on ${context(backend)}`);
  }
  if (first?.ok === true) stats.accepted++;
  else if (first?.ok === false) {
    const code = first.errors[0]?.code as UIPatchErrorCode;
    stats.refused.set(code, (stats.refused.get(code) ?? 0) + 1);
  }
  return first as Outcome;
}

/** Deep strict equality, fast; vitest's diff when it fails. */
function same(actual: unknown, expected: unknown, message: () => string): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual, message()).toStrictEqual(expected);
}

let instanceCounter = 0;

/** A whole scenario: refused creations, a creation, then the calls, checking after each. */
async function runScenario(backends: Backend[], scenario: Scenario, stats: Stats): Promise<void> {
  const id = `inst_${instanceCounter++}`;
  const counter = { n: 0 };
  for (const n of scenario.badCreates) {
    const [input, code, patchIndex] = pick(BAD_CREATES, n)(id);
    await step(backends, id, undefined, input, { code, patchIndex }, stats);
    for (const backend of backends) expect(backend.get(id)).toBeUndefined();
  }
  const { input, pageKey } = createCall(scenario.create, id, counter);
  const created = await step(backends, id, pageKey, input, null, stats);
  if (!created.ok || created.instance === undefined) return;
  let sim = simOf(created.instance, pageKey, counter);
  /** The instance after each accepted call: a client one call behind holds history.at(-2). */
  const history: UIInstance[] = [created.instance];
  for (const call of scenario.calls) {
    const planned = planCall(call, id, sim);
    // Accepted, the new instance was checked (pageKey included); refused, it is the one before.
    const out = await step(backends, id, pageKey, planned.input, planned.expect, stats);
    if (!out.ok || out.instance === undefined) continue;
    // The ids and keys are the ones the patches were built to leave, in order.
    const now = simOf(out.instance, pageKey, counter);
    same(
      { blocks: now.blocks, actions: now.actions, params: [...now.params].sort(), runtime: [...now.runtime].sort() },
      { blocks: planned.sim.blocks, actions: planned.sim.actions, params: [...planned.sim.params].sort(), runtime: [...planned.sim.runtime].sort() },
      () => `ids after ${JSON.stringify(planned.input)}`,
    );
    for (const seed of call.patches) stats.kindsAccepted.add(seed.kind);
    checkGuards(out.jsonPatch, planned.planned);
    const stale = history.at(-2);
    if (stale !== undefined) stats.stale[staleClient(stale, out.jsonPatch)]++;
    history.push(out.instance);
    sim = now;
  }
}

// ---------------------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------------------

describe('patch_ui_state properties', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await createWorkspace();
  });
  afterAll(async () => {
    await ws.close();
  });

  it('1. random call sequences through ws.ui.patch keep every invariant, and agree with the pure engine', async () => {
    const stats = newStats();
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        await runScenario([workspaceBackend(ws), engineBackend()], scenario, stats);
      }),
      runs(200),
    );
    // The runs reached every code of the seed, and accepted every valid pattern.
    expect([...stats.refused.keys()].sort()).toEqual([...UI_PATCH_ERROR_CODES].sort());
    expect([...stats.kindsAccepted].sort()).toEqual([...VALID_KINDS].sort());
    expect(stats.accepted).toBeGreaterThan(500);
  });

  it('2. RFC 6902: every accepted call replays exactly with fast-json-patch, and a client behind fails loudly', async () => {
    const stats = newStats();
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (scenario) => {
        await runScenario([engineBackend()], scenario, stats);
      }),
      runs(300),
    );
    expect(stats.accepted).toBeGreaterThan(800);
    // Behind by one call, the guard caught an id-addressed change on another item many times.
    expect(stats.stale.loud).toBeGreaterThan(10);
  });

  it('2b. a client behind fails on the guard of blocks["id"] and blocks-"id" instead of changing another block', async () => {
    const id = `stale_${instanceCounter++}`;
    const created = await ws.ui.patch({ instanceId: CREATE, newInstanceId: id, patches: specPatches(id) as PatchInput['patches'] });
    expect(created.success).toBe(true);
    const call1 = await ws.ui.patch({
      instanceId: id,
      patches: [
        { op: 'add', path: 'blocks+', items: [form('a'), form('b'), form('c')] },
        {
          op: 'add',
          path: 'actions+',
          items: [
            { id: 'x', label: 'X', style: 'primary' },
            { id: 'y', label: 'Y', style: 'danger' },
          ],
        },
      ],
    });
    const behind = ws.ui.get(id)?.instance as UIInstance; // blocks a, b, c; actions x, y
    const call2 = await ws.ui.patch({
      instanceId: id,
      patches: [
        { op: 'remove', path: 'blocks-"a"' },
        { op: 'remove', path: 'actions-x' },
      ],
    });
    const current = ws.ui.get(id)?.instance as UIInstance; // blocks b, c; actions y
    expect(call1.success && call2.success).toBe(true);
    const changed = { id: 'c', type: 'form', bind: 'state.runtime', props: { fields: [{ label: 'C', key: 'c', type: 'text' }] } };
    const calls: PatchInput['patches'][] = [
      [{ op: 'set', path: 'blocks["c"]', value: changed }],
      [{ op: 'remove', path: 'blocks-"c"' }],
      [{ op: 'replace', path: 'actions[y]', value: { id: 'y', label: 'Why', style: 'secondary' } }],
      [{ op: 'remove', path: 'actions-y' }],
    ];
    for (const patches of calls) {
      const applied = applyPatchInput({ instanceId: id, patches }, () => current);
      expect(applied.ok).toBe(true);
      if (!applied.ok) continue;
      const guard = applied.jsonPatch[0];
      expect(guard?.op).toBe('test');
      // Index 1 of blocks is c now, b for the client behind; index 0 of actions is y now, x behind.
      expect(() => replay(behind, applied.jsonPatch), JSON.stringify(patches)).toThrow(jsonpatch.JsonPatchError);
      expect(() => replay(behind, applied.jsonPatch)).toThrow(/Test operation failed/);
      expect(() => pageApply(behind as never, applied.jsonPatch as PagePatchOp[])).toThrow(PagePatchError);
      expect(pageApply(current as never, applied.jsonPatch as PagePatchOp[])).toStrictEqual(applied.instance);
      // Without the guard, the client behind would have changed another item.
      const unguarded = replay(behind, applied.jsonPatch.slice(1)) as UIInstance;
      expect(unguarded).not.toEqual(applied.instance);
      // An up-to-date client gets exactly the server's instance.
      expect(replay(current, applied.jsonPatch)).toStrictEqual(applied.instance);
    }
    // Through the service, too.
    const next = await ws.ui.patch({ instanceId: id, patches: [{ op: 'set', path: 'blocks["c"]', value: changed }] });
    expect(next.success).toBe(true);
    if (next.success) {
      expect(() => replay(behind, next.jsonPatch)).toThrow(jsonpatch.JsonPatchError);
      expect(replay(current, next.jsonPatch)).toStrictEqual(ws.ui.get(id)?.instance);
    }
  });

  describe('3. the engine never throws', () => {
    const existing: UIInstance = deepFreeze({
      meta: { pageKey: 'p', step: { current: 1, total: 2 }, status: 'idle' },
      state: { params: { count: 1, 'a/b': 'x' }, runtime: { busy: true } },
      blocks: [
        form('a'),
        {
          id: 'b',
          type: 'form',
          bind: 'state.runtime',
          props: { fields: [{ label: 'Pick', key: 'p', type: 'select', options: [{ label: 'A', value: 'a' }] }] },
        },
      ],
      actions: [{ id: 's', label: 'Save', style: 'primary' }],
      layout: { type: 'single' },
    } as UIInstance);
    const lookup = (id: string) => (id === 'p' ? existing : undefined);

    /** Applies, must not throw (nor touch the frozen instance), and checks the outcome's shape. */
    function survive(input: unknown): void {
      let out: PatchOutcome | undefined;
      expect(() => (out = applyPatchInput(input, lookup))).not.toThrow();
      if (out === undefined) return;
      if (!out.ok) checkErrors(out.errors, input);
      else if (out.kind === 'delete') expect(out.instanceId).toBe('p');
      else {
        checkInstance(out.instance, out.kind === 'update' ? 'p' : undefined);
        if (out.kind === 'update') expect(replay(existing, out.jsonPatch)).toStrictEqual(out.instance);
      }
    }

    it('for any JSON value as the call', () => {
      fc.assert(fc.property(fc.jsonValue(), survive), runs(300));
    });
    it('for anything at all as the call', () => {
      fc.assert(fc.property(anything, survive), runs(300));
    });
    it('for calls that are nearly right, with anything in their parts', () => {
      fc.assert(fc.property(nearUiCall, survive), runs(300));
    });
    it('and ws.ui.patch answers any JSON call without throwing', async () => {
      const id = `any_${instanceCounter++}`;
      await ws.ui.patch({ instanceId: CREATE, newInstanceId: id, patches: [] });
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue(),
            nearUiCall.map((c) => asJson({ ...c, instanceId: c.instanceId === 'p' ? id : c.instanceId })),
          ),
          async (input) => {
            const before = ws.ui.get(id);
            const response = await ws.ui.patch(input as PatchInput);
            if (!response.success) {
              checkErrors(response.errors, input);
              expect(ws.ui.get(id)).toStrictEqual(before);
            } else if (response.instance !== undefined) checkInstance(response.instance, undefined);
          },
        ),
        runs(200),
      );
    });
  });
});

/** A value as JSON data (what a client can send), or null when it has no JSON form. */
function asJson(value: unknown): unknown {
  try {
    return JSON.parse(JSON.stringify(value) ?? 'null') as unknown;
  } catch {
    return null;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
