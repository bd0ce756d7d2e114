/**
 * The patch engine of `patch_ui_state` (seed 004): one call's patches applied in order to
 * a copy of the instance, all or none, with the seed's error codes; and each accepted
 * patch compiled to RFC 6902 JSON Patch for clients, an id-addressed one guarded by a
 * `test` so a client that is behind fails loudly instead of changing the wrong block.
 * Pure: the `ui:patch` command runs it, and so can anyone checking a call first.
 */
import type { JsonValue } from '../core/blocks.js';
import { blockDataProblem } from './block-data.js';
import { builtinCatalog, type UICatalog } from './catalog.js';
import { boundValueProblem, duplicateActionId } from './instance-checks.js';
import { issues, parse, parseItems, refuse, Refusal, show, toJson, uniqueIds, type UIPatchErrorCode } from './patch-values.js';
import { Layout, MetaStep, SCOPED_UI_ID, UI_ID, UIInstance, UIMeta, UIState, META_STATUSES } from './schema.js';

export const CREATE_INSTANCE = '__CREATE__';
export const DELETE_INSTANCE = '__DELETE__';
/**
 * The ops a patch takes. Seed 004's `create` and `delete` are its instance operations, made
 * with `instanceId: "__CREATE__"` and `"__DELETE__"` (a patch with them is INVALID_OP, saying so);
 * its `condition` has no grammar in the seed, so a patch with one is refused, never taken as met.
 */
export const PATCH_OPS = ['set', 'add', 'remove', 'clear', 'replace'] as const;
export type PatchOp = (typeof PATCH_OPS)[number];

export interface PatchOperation {
  op: PatchOp;
  path: string;
  value?: unknown;
  items?: unknown[];
}

/** One `patch_ui_state` call (seed 004 `PatchInput`). */
export interface PatchInput {
  instanceId: string;
  newInstanceId?: string;
  targetInstanceId?: string;
  /** With `"__CREATE__"` only: the version of the caller's schema, kept with the instance, never changed after. */
  schemaVersion?: string;
  patches: PatchOperation[];
}

export { UI_PATCH_ERROR_CODES, type UIPatchErrorCode } from './patch-values.js';

/** Why a call was refused: the patch (its index; -1 for the call itself), its path, and what to do. */
export interface UIPatchError {
  code: UIPatchErrorCode;
  patchIndex: number;
  path: string;
  message: string;
}

/** An RFC 6902 operation, on the instance document. */
export type JsonPatchOperation = { op: 'add' | 'replace' | 'test'; path: string; value: JsonValue } | { op: 'remove'; path: string };

export type PatchOutcome =
  | { ok: true; kind: 'create' | 'update'; instanceId: string; instance: UIInstance; jsonPatch: JsonPatchOperation[] }
  | { ok: true; kind: 'delete'; instanceId: string; instance: undefined; jsonPatch: [] }
  | { ok: false; errors: UIPatchError[] };

/** A path, parsed. */
type Target =
  | { kind: 'whole'; part: 'meta' | 'state' | 'layout' }
  | { kind: 'meta'; field: 'status' | 'step' | 'pageKey' | 'other'; name: string }
  | { kind: 'state'; area: 'params' | 'runtime' }
  | { kind: 'stateKey'; area: 'params' | 'runtime'; key: string }
  | { kind: 'list'; list: 'blocks' | 'actions' }
  | { kind: 'append'; list: 'blocks' | 'actions' }
  | { kind: 'index'; list: 'blocks' | 'actions'; index: number }
  | { kind: 'byId'; list: 'blocks' | 'actions'; id: string }
  | { kind: 'deleteId'; list: 'blocks' | 'actions'; id: string };

const PATCH_KEYS = new Set(['op', 'path', 'value', 'items', 'condition']);
const VERSION_KEYS = new Set(['version', 'baseVersion', 'schemaVersion']);
const MAX_PATCHES = 200;

/** Parses a seed 004 path. INVALID_PATH with the patterns when it is none of them. */
export function parsePath(path: string): Target {
  if (path === 'meta' || path === 'state' || path === 'layout') return { kind: 'whole', part: path };
  if (path === 'blocks' || path === 'actions') return { kind: 'list', list: path };
  let m = /^(blocks|actions)\+$/.exec(path);
  if (m !== null) return { kind: 'append', list: m[1] as 'blocks' | 'actions' };
  m = /^(blocks|actions)-(\d+)$/.exec(path);
  if (m !== null) return { kind: 'index', list: m[1] as 'blocks' | 'actions', index: Number(m[2]) };
  m = /^(blocks|actions)\[(?:"([^"]+)"|([^\]"]+))\]$/.exec(path);
  if (m !== null) return { kind: 'byId', list: m[1] as 'blocks' | 'actions', id: (m[2] ?? m[3]) as string };
  m = /^(blocks|actions)-(?:"([^"]+)"|([A-Za-z_][^"\s]*))$/.exec(path);
  if (m !== null) return { kind: 'deleteId', list: m[1] as 'blocks' | 'actions', id: (m[2] ?? m[3]) as string };
  m = /^meta\.([A-Za-z]+)$/.exec(path);
  if (m !== null) {
    const name = m[1] as string;
    return { kind: 'meta', field: name === 'status' || name === 'step' || name === 'pageKey' ? name : 'other', name };
  }
  m = /^state\.(params|runtime)$/.exec(path);
  if (m !== null) return { kind: 'state', area: m[1] as 'params' | 'runtime' };
  m = /^state\.(params|runtime)\.(.+)$/.exec(path);
  if (m !== null) return { kind: 'stateKey', area: m[1] as 'params' | 'runtime', key: m[2] as string };
  if (path === 'schemaVersion')
    return refuse(
      'INVALID_PATH',
      'schemaVersion is not a path: give it on the creating call itself, { instanceId: "__CREATE__", newInstanceId, schemaVersion, patches }',
    );
  return refuse(
    'INVALID_PATH',
    `"${path}" is not a path of patch_ui_state; use state.params.{key}, state.runtime.{key}, blocks, blocks+, blocks-{index}, blocks["id"], blocks-"id" (the same for actions), layout, meta.status or meta.step`,
  );
}

/**
 * Applies one call to the instances there are (`existing(id)` reads one). Returns the new
 * instance and its JSON Patch, or every reason it was refused (the first failing patch
 * stops the call: nothing of it is applied).
 */
export function applyPatchInput(input: unknown, existing: (id: string) => UIInstance | undefined, catalog: UICatalog = builtinCatalog()): PatchOutcome {
  const call = (code: UIPatchErrorCode, message: string): PatchOutcome => ({ ok: false, errors: [{ code, patchIndex: -1, path: '', message }] });
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return call('INVALID_STRUCTURE', 'the input is an object: { instanceId, patches, newInstanceId?, targetInstanceId?, schemaVersion? }');
  const { instanceId, newInstanceId, targetInstanceId, schemaVersion, patches, ...rest } = input as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    return call(
      extra.some((k) => VERSION_KEYS.has(k)) ? 'SCHEMA_MUTATION' : 'INVALID_STRUCTURE',
      `unknown field(s) ${extra.map((k) => `"${k}"`).join(', ')}: patches carry no version and nothing else`,
    );
  if (typeof instanceId !== 'string' || instanceId === '')
    return call('MISSING_VALUE', 'instanceId is required: an instance\'s id, "__CREATE__" or "__DELETE__"');
  if (!Array.isArray(patches)) return call('MISSING_VALUE', 'patches is required: a list of { op, path, value }');
  if (patches.length > MAX_PATCHES) return call('INVALID_STRUCTURE', `at most ${MAX_PATCHES} patches a call`);
  // Seed 004: schemaVersion is given in the initial schema creation only.
  if (schemaVersion !== undefined && instanceId !== CREATE_INSTANCE)
    return call('SCHEMA_MUTATION', 'schemaVersion is given once, when the instance is created (with "__CREATE__"); it cannot change after');
  if (schemaVersion !== undefined && (typeof schemaVersion !== 'string' || !SCHEMA_VERSION.test(schemaVersion)))
    return call('INVALID_STRUCTURE', `schemaVersion is 1 to 50 letters, digits, . _ + or -, such as "1.0", not ${show(schemaVersion)}`);

  if (instanceId === DELETE_INSTANCE) {
    if (typeof targetInstanceId !== 'string' || targetInstanceId === '') return call('MISSING_VALUE', 'targetInstanceId is required with "__DELETE__"');
    if (existing(targetInstanceId) === undefined) return call('INVALID_INSTANCE', `there is no instance "${targetInstanceId}" to delete`);
    if (patches.length > 0) return call('INVALID_STRUCTURE', 'deleting an instance takes no patches');
    return { ok: true, kind: 'delete', instanceId: targetInstanceId, instance: undefined, jsonPatch: [] };
  }

  let draft: Draft;
  let id: string;
  const creating = instanceId === CREATE_INSTANCE;
  if (creating) {
    if (typeof newInstanceId !== 'string' || newInstanceId === '') return call('MISSING_VALUE', 'newInstanceId is required with "__CREATE__"');
    if (!UI_ID.test(newInstanceId) && !SCOPED_UI_ID.test(newInstanceId))
      return call('INVALID_STRUCTURE', `"${newInstanceId}" is not an instance id: 1 to 100 letters, digits, _ . : or -`);
    if (existing(newInstanceId) !== undefined) return call('INSTANCE_EXISTS', `an instance "${newInstanceId}" exists already; patch it, or create another id`);
    id = newInstanceId;
    draft = schemaVersion === undefined ? {} : { schemaVersion: schemaVersion as string };
  } else {
    const current = existing(instanceId);
    if (current === undefined)
      return call('INVALID_INSTANCE', `there is no instance "${instanceId}"; create it with instanceId "__CREATE__" and newInstanceId "${instanceId}"`);
    id = instanceId;
    // Copied two levels deep: patches replace what lies deeper (a state value, a block, the step), never change it in place.
    draft = {
      ...current,
      meta: { ...current.meta },
      state: { params: { ...current.state.params }, runtime: { ...current.state.runtime } },
      blocks: [...current.blocks],
      actions: [...current.actions],
    } as Draft;
  }

  const jsonPatch: JsonPatchOperation[] = [];
  /** The last patch that wrote each state key ("runtime.count", "params.name"; ALL: any of them, or the blocks), and the last that wrote blocks or actions. */
  const wrote = new Map<string | typeof ALL | typeof IDS, number>();
  for (const [index, raw] of patches.entries()) {
    const at = (code: UIPatchErrorCode, message: string): PatchOutcome => ({
      ok: false,
      errors: [{ code, patchIndex: index, path: typeof (raw as { path?: unknown })?.path === 'string' ? (raw as { path: string }).path : '', message }],
    });
    try {
      const patch = checkPatch(raw);
      // Copied as emitted: the values are the draft's own objects, which later patches of the call change.
      jsonPatch.push(...(JSON.parse(JSON.stringify(applyOne(draft, patch, creating, catalog, id))) as JsonPatchOperation[]));
      noteWrite(wrote, parsePath(patch.path), index);
    } catch (error) {
      if (error instanceof Refusal) return at(error.code, error.message);
      throw error;
    }
  }

  if (creating) {
    draft.meta ??= defaultMeta(id);
    draft.state ??= { params: {}, runtime: {} };
    draft.blocks ??= [];
    draft.actions ??= [];
  }
  // A new instance is checked whole; a valid one stays valid, each patch having checked the part it wrote
  // (a whole parse of a 200-row table costs more than the rest of the call).
  let instance: UIInstance;
  if (creating) {
    const checked = UIInstance.safeParse(draft);
    if (!checked.success) return call('INVALID_STRUCTURE', `the instance would not be valid: ${issues(checked.error)}`);
    instance = checked.data;
  } else instance = draft as UIInstance;
  // The data the blocks show (progress, status, images, table, count, task id), where this call wrote it.
  const last = (key: string) => Math.max(wrote.get(key) ?? -1, wrote.get(ALL) ?? -1);
  const pathOf = (index: number) => (patches[index] as { path: string }).path;
  const problem = blockDataProblem(instance, (key) => last(`runtime.${key}`) >= 0);
  if (problem !== undefined) {
    const index = last(`runtime.${problem.key}`);
    return { ok: false, errors: [{ code: 'INVALID_STRUCTURE', patchIndex: index, path: pathOf(index), message: `${problem.path}: ${problem.message}` }] };
  }
  // Action ids are unique across the instance's actions and its blocks': a click names one.
  const idsAt = wrote.get(IDS);
  if (idsAt !== undefined) {
    const duplicate = duplicateActionId(instance);
    if (duplicate !== undefined)
      return {
        ok: false,
        errors: [
          {
            code: 'DUPLICATE_ID',
            patchIndex: idsAt,
            path: pathOf(idsAt),
            message: `two actions would have the id "${duplicate}" (the instance's and its blocks' actions share ids)`,
          },
        ],
      };
  }
  // The values the fields show or take, where this call wrote them (or the fields).
  const bound = boundValueProblem(instance, catalog, (key) => last(key) >= 0);
  if (bound !== undefined) {
    const index = last(bound.key);
    return { ok: false, errors: [{ code: 'INVALID_STRUCTURE', patchIndex: index, path: pathOf(index), message: `${bound.path}: ${bound.message}` }] };
  }
  return creating
    ? { ok: true, kind: 'create', instanceId: id, instance, jsonPatch: [{ op: 'add', path: '', value: instance as unknown as JsonValue }] }
    : { ok: true, kind: 'update', instanceId: id, instance, jsonPatch };
}

/** The instance while a call is applied: parts may be missing until the call ends (creation). */
interface Draft {
  meta?: { pageKey: string; step: { current: number; total: number }; status: string };
  state?: { params: Record<string, JsonValue>; runtime: Record<string, JsonValue> };
  blocks?: { id: string }[];
  actions?: { id: string }[];
  layout?: unknown;
  schemaVersion?: string;
}

/** The meta of an instance created without one; a user's instance (ui-scope.ts) is keyed by the id its model gave, not by the user's prefix. */
function defaultMeta(id: string): NonNullable<Draft['meta']> {
  return { pageKey: SCOPED_UI_ID.test(id) ? id.slice(id.indexOf(':') + 1) : id, step: { current: 1, total: 1 }, status: 'idle' };
}

/** A schemaVersion as given at creation. */
const SCHEMA_VERSION = /^[A-Za-z0-9._+-]{1,50}$/;

/** Every key at once (a symbol: no state key can be it). */
const ALL: unique symbol = Symbol('every key');
/** The blocks or actions (their ids). */
const IDS: unique symbol = Symbol('ids');

/** Notes what a patch wrote that the end-of-call checks read: a state key, all of them (a whole area, or the blocks: a field may show a key now), the ids. */
function noteWrite(wrote: Map<string | typeof ALL | typeof IDS, number>, target: Target, index: number): void {
  if (target.kind === 'stateKey') wrote.set(`${target.area}.${target.key}`, index);
  else if ((target.kind === 'whole' && target.part === 'state') || target.kind === 'state') wrote.set(ALL, index);
  else if (target.kind === 'list' || target.kind === 'append' || target.kind === 'index' || target.kind === 'byId') {
    wrote.set(IDS, index);
    if (target.list === 'blocks') wrote.set(ALL, index);
  }
}

function checkPatch(raw: unknown): PatchOperation {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) refuse('INVALID_STRUCTURE', 'a patch is an object: { op, path, value? }');
  const patch = raw as Record<string, unknown>;
  for (const key of Object.keys(patch)) {
    if (VERSION_KEYS.has(key)) refuse('SCHEMA_MUTATION', `patches carry no "${key}": there is no version tracking in patch_ui_state`);
    if (!PATCH_KEYS.has(key)) refuse('INVALID_STRUCTURE', `a patch has op, path, value, items and condition, not "${key}"`);
  }
  if (patch.op === 'create' || patch.op === 'delete')
    refuse(
      'INVALID_OP',
      `"${patch.op}" is an instance operation: call with instanceId "${patch.op === 'create' ? CREATE_INSTANCE : DELETE_INSTANCE}" instead of a patch`,
    );
  if (typeof patch.op !== 'string' || !(PATCH_OPS as readonly string[]).includes(patch.op))
    refuse('INVALID_OP', `${show(patch.op)} is not an op; use set, add, remove, clear or replace (create and delete go through instanceId)`);
  if (typeof patch.path !== 'string' || patch.path === '') refuse('INVALID_PATH', 'path is required: a string such as state.params.count');
  if (patch.items !== undefined && !Array.isArray(patch.items)) refuse('INVALID_STRUCTURE', 'items is a list');
  // A condition the engine would not evaluate must not be taken as met.
  if (patch.condition !== undefined)
    refuse('INVALID_STRUCTURE', 'conditions are not supported: leave "condition" out and send the patch only when it should apply');
  if (patch.items !== undefined && patch.op !== 'add') refuse('INVALID_STRUCTURE', `items go with op "add" only; "${String(patch.op)}" takes a value`);
  if (patch.items !== undefined && patch.value !== undefined) refuse('INVALID_STRUCTURE', 'give value or items, not both');
  return patch as unknown as PatchOperation;
}

/**
 * Applies one patch to the draft; returns its JSON Patch. A part a `set` (or an `add` to a
 * list) needs that the instance does not have yet (while it is created: its meta, state or a
 * list) is made first, empty (the meta as creation gives it), as seed 004's "create if missing" says.
 */
function applyOne(draft: Draft, patch: PatchOperation, creating: boolean, catalog: UICatalog, id: string): JsonPatchOperation[] {
  const target = parsePath(patch.path);
  const value = (): JsonValue => {
    if (!('value' in patch) || patch.value === undefined) refuse('MISSING_VALUE', `"${patch.op}" on ${patch.path} needs a value`);
    return toJson(patch.value);
  };
  const only = (ops: readonly PatchOp[], hint: string) => {
    if (!ops.includes(patch.op)) refuse('INVALID_OP', `"${patch.op}" does not apply to ${patch.path}; ${hint}`);
  };

  switch (target.kind) {
    case 'whole': {
      only(['set', 'replace'], `set ${target.part} as a whole`);
      if (target.part === 'meta') {
        const meta = parse(UIMeta, value(), 'meta');
        if (!creating && draft.meta !== undefined && meta.pageKey !== draft.meta.pageKey)
          refuse('SCHEMA_MUTATION', `meta.pageKey is "${draft.meta.pageKey}" for good: it cannot change after creation`);
        draft.meta = meta;
        return [{ op: 'add', path: '/meta', value: meta as unknown as JsonValue }];
      }
      if (target.part === 'state') {
        const state = parse(UIState, value(), 'state');
        draft.state = state;
        return [{ op: 'add', path: '/state', value: state as unknown as JsonValue }];
      }
      const layout = parse(Layout, value(), 'layout');
      draft.layout = layout;
      return [{ op: 'add', path: '/layout', value: layout as unknown as JsonValue }];
    }
    case 'meta': {
      only(['set', 'replace'], 'set it');
      const meta = (draft.meta ??= defaultMeta(id));
      if (target.field === 'pageKey') return refuse('SCHEMA_MUTATION', 'meta.pageKey cannot change after creation');
      if (target.field === 'other') return refuse('INVALID_PATH', `meta.${target.name} is not a path; meta.status and meta.step are`);
      if (target.field === 'status') {
        const status = value();
        if (typeof status !== 'string' || !(META_STATUSES as readonly string[]).includes(status))
          refuse('INVALID_STRUCTURE', `meta.status is one of ${META_STATUSES.join(', ')}, not ${JSON.stringify(status)}`);
        meta.status = status as string;
        return [{ op: 'replace', path: '/meta/status', value: status }];
      }
      const step = parse(MetaStep, value(), 'meta.step');
      meta.step = step;
      return [{ op: 'replace', path: '/meta/step', value: step }];
    }
    case 'state': {
      only(['clear', 'set', 'replace'], 'clear it, or set one key with state.' + target.area + '.{key}');
      const state = (draft.state ??= { params: {}, runtime: {} });
      const next = patch.op === 'clear' ? {} : parse(UIState.shape.params, value(), patch.path);
      state[target.area] = next;
      return [{ op: 'replace', path: `/state/${target.area}`, value: next }];
    }
    case 'stateKey': {
      only(['set', 'remove'], 'set it (or remove it)');
      if (['__proto__', 'constructor', 'prototype'].includes(target.key)) refuse('INVALID_PATH', `"${target.key}" cannot be a key`);
      const state = (draft.state ??= { params: {}, runtime: {} });
      const area = state[target.area];
      const pointer = `/state/${target.area}/${escapePointer(target.key)}`;
      if (patch.op === 'remove') {
        if (!Object.hasOwn(area, target.key)) refuse('PATH_NOT_FOUND', `state.${target.area} has no key "${target.key}"`);
        delete area[target.key];
        return [{ op: 'remove', path: pointer }];
      }
      const v = value();
      area[target.key] = v;
      return [{ op: 'add', path: pointer, value: v }];
    }
    case 'list': {
      only(['set', 'replace'], `set or replace the whole list, add with ${target.list}+, remove with ${target.list}-"id"`);
      const items = parseItems(target.list, value(), patch.path, catalog);
      if (!Array.isArray(items)) refuse('INVALID_STRUCTURE', `${patch.path} is a list`);
      uniqueIds(target.list, items);
      draft[target.list] = items;
      return [{ op: 'add', path: `/${target.list}`, value: items as unknown as JsonValue }];
    }
    case 'append': {
      only(['add'], `${patch.path} adds to the end: use op "add"`);
      const list = (draft[target.list] ??= []);
      const given = patch.items ?? (Array.isArray(patch.value) ? patch.value : patch.value === undefined ? undefined : [patch.value]);
      if (given === undefined || given.length === 0) refuse('MISSING_VALUE', `add on ${patch.path} needs a value (one item) or items (a list)`);
      const items = parseItems(target.list, toJson(given), patch.path, catalog);
      uniqueIds(target.list, [...list, ...items]);
      list.push(...items);
      return items.map((item) => ({ op: 'add' as const, path: `/${target.list}/-`, value: item as unknown as JsonValue }));
    }
    case 'index': {
      only(
        ['set', 'replace'],
        `${patch.path} replaces the item at that index; to delete an item whose id is ${target.index}, quote it: ${target.list}-"${target.index}"`,
      );
      const list = draft[target.list] ?? refuse('PATH_NOT_FOUND', `the instance has no ${target.list}`);
      if (target.index >= list.length) refuse('PATH_NOT_FOUND', `${target.list} has ${list.length} item(s); there is no index ${target.index}`);
      const [item] = parseItems(target.list, [value()], patch.path, catalog);
      const next = list.map((x, i) => (i === target.index ? (item as { id: string }) : x));
      uniqueIds(target.list, next);
      list[target.index] = item as { id: string };
      return [{ op: 'replace', path: `/${target.list}/${target.index}`, value: item as unknown as JsonValue }];
    }
    case 'byId': {
      only(['set', 'replace'], `${patch.path} replaces the item with that id; to delete it, use op "remove" on ${target.list}-"${target.id}"`);
      const list = draft[target.list] ?? refuse('PATH_NOT_FOUND', `the instance has no ${target.list}`);
      const at = list.findIndex((x) => x.id === target.id);
      if (at === -1) refuse('PATH_NOT_FOUND', `${target.list} has no item with the id "${target.id}" (ids: ${list.map((x) => x.id).join(', ') || 'none'})`);
      const [item] = parseItems(target.list, [value()], patch.path, catalog);
      const next = list.map((x, i) => (i === at ? (item as { id: string }) : x));
      uniqueIds(target.list, next);
      list[at] = item as { id: string };
      // Guarded: a client whose item there is another one fails instead of replacing it.
      return [
        { op: 'test', path: `/${target.list}/${at}/id`, value: target.id },
        { op: 'replace', path: `/${target.list}/${at}`, value: item as unknown as JsonValue },
      ];
    }
    case 'deleteId': {
      only(['remove'], `${patch.path} deletes the item: use op "remove"`);
      const list = draft[target.list] ?? refuse('PATH_NOT_FOUND', `the instance has no ${target.list}`);
      const at = list.findIndex((x) => x.id === target.id);
      if (at === -1) refuse('PATH_NOT_FOUND', `${target.list} has no item with the id "${target.id}" (ids: ${list.map((x) => x.id).join(', ') || 'none'})`);
      list.splice(at, 1);
      return [
        { op: 'test', path: `/${target.list}/${at}/id`, value: target.id },
        { op: 'remove', path: `/${target.list}/${at}` },
      ];
    }
  }
}

/** A JSON Pointer segment (RFC 6901): ~ and / escaped. */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
