/**
 * A user's click on an action of a model-built UI, as `patch_ui_state` patches (seed 004's
 * flow: input, action click, then the one write path). The values are checked against the
 * instance's fields (their type; unless the action says `validate: false`, their rules:
 * required, min/max, pattern), visibility read with the values typed; a count input's count
 * goes to `state.runtime.count`; the action's handlers come last, seeing the values. Pure:
 * the `ui:click` command runs it on the instance as the log has it, so two clicks at once,
 * in one process or two, each see the other's.
 */
import type { JsonValue } from '../core/blocks.js';
import { BLOCK_DATA_KEYS } from './block-data-keys.js';
import type { UICatalog } from './catalog.js';
import type { PatchOperation } from './patch-engine.js';
import {
  fieldShown,
  handlerPatches,
  INPUT_TYPES,
  isVisible,
  liveState,
  VALUE_LIMITS,
  valueProblem,
  type Handler,
  type Json,
  type RuleField,
  type RuleState,
} from './rules.js';
import type { ActionConfig, Block, FieldConfig, UIInstance } from './schema.js';

/** A click, as the page sends it (UI_ACTION). */
export interface UIClick {
  instanceId: string;
  actionId: string;
  /** The form's values, by field key. */
  values?: Record<string, JsonValue>;
  /** The count input's value (a block with `showCountInput`): written to `state.runtime.count`. */
  count?: number;
}

/** What a click writes, or why it is refused (a code of the seed's, or INVALID_VALUE / INVALID_MESSAGE). */
export type ClickPlan =
  | { ok: true; patches: PatchOperation[]; action: ActionConfig; values: Record<string, JsonValue>; count?: number }
  | { ok: false; code: string; message: string };

/** The action of this id: the instance's, or one of its blocks'. */
export function findAction(instance: UIInstance, actionId: string): ActionConfig | undefined {
  return instance.actions.find((a) => a.id === actionId) ?? instance.blocks.flatMap((b) => b.props?.actions ?? []).find((a) => a.id === actionId);
}

/** The block whose own actions hold this one (undefined: an action of the instance). */
function blockOf(instance: UIInstance, action: ActionConfig): Block | undefined {
  return instance.blocks.find((b) => b.props?.actions?.includes(action) === true);
}

/** A blob as the click reads it: what the workspace holds for a hash. */
export type BlobLookup = (sha256: string) => { size: number; mediaType: string; filename: string | null } | undefined;

/**
 * A click as patches on `instance` (as the log has it), or why it is refused; nothing is
 * applied here. `blob` reads the workspace's blobs: a file value must name one, and its size,
 * type and name are the blob's, whatever the page said.
 */
export function clickPatches(instance: UIInstance | undefined, message: Partial<UIClick>, catalog: UICatalog, blob: BlobLookup = () => undefined): ClickPlan {
  const fail = (code: string, text: string): ClickPlan => ({ ok: false, code, message: text });
  if (typeof message.instanceId !== 'string' || typeof message.actionId !== 'string') return fail('INVALID_MESSAGE', 'UI_ACTION needs instanceId and actionId');
  if (instance === undefined) return fail('INVALID_INSTANCE', `there is no instance "${message.instanceId}"`);
  const action = findAction(instance, message.actionId);
  if (action === undefined) return fail('PATH_NOT_FOUND', `the instance "${message.instanceId}" has no action "${message.actionId}"`);
  const sent = message.values ?? {};
  if (sent === null || typeof sent !== 'object' || Array.isArray(sent)) return fail('INVALID_MESSAGE', 'values is an object of field keys');
  // A key may name fields of several blocks (one state value, shown twice); a value goes to each input field of its key.
  const inputs = new Map<string, { bind: string; field: FieldConfig; block: Block }[]>();
  const displays = new Set<string>();
  for (const block of instance.blocks)
    for (const field of block.props?.fields ?? []) {
      if (catalog.get(field.type)?.kind !== 'input') displays.add(field.key);
      else inputs.set(field.key, [...(inputs.get(field.key) ?? []), { bind: block.bind, field, block }]);
    }
  const values: Record<string, JsonValue> = {};
  for (const [key, raw] of Object.entries(sent)) {
    const targets = inputs.get(key);
    if (targets === undefined)
      return fail('PATH_NOT_FOUND', displays.has(key) ? `"${key}" is a field that shows a value: the user sends none` : `no field has the key "${key}"`);
    let value = raw;
    for (const { field } of targets) {
      const problem = shapeProblem(catalog, field, value);
      if (problem !== undefined) return fail('INVALID_STRUCTURE', `${key}: ${problem}`);
      // A file is the blob it names: its size, type and name are the workspace's.
      if (field.type === 'file') {
        const file = value as { sha256: string; name: string };
        const held = blob(file.sha256);
        if (held === undefined) return fail('INVALID_VALUE', `${field.label} (${key}): no uploaded file ${file.sha256}; upload it first`);
        value = { sha256: file.sha256, name: held.filename ?? file.name, mediaType: held.mediaType, size: held.size };
      }
    }
    values[key] = value;
  }
  // What is shown is what the user saw: the state with their values (a switch they turned on shows the field it governs).
  const state = instance.state as RuleState;
  const typed = liveState(instance.blocks, state, values as Record<string, Json>);
  const block = blockOf(instance, action);
  if (!isVisible(action.visible, typed) || (block !== undefined && !isVisible(block.props?.visible, typed)))
    return fail('PATH_NOT_FOUND', `the action "${action.id}" is not shown`);
  for (const key of Object.keys(values))
    if (!(inputs.get(key) ?? []).some((t) => fieldShown(t.block, t.field, typed))) return fail('PATH_NOT_FOUND', `the field "${key}" is not shown`);
  // The rules of the fields shown: on the value sent, or (a field the page left out) on what the state holds.
  for (const [key, targets] of inputs)
    for (const target of targets) {
      if (!fieldShown(target.block, target.field, typed)) continue;
      const value = Object.hasOwn(values, key) ? values[key] : undefined;
      const held = typed[target.bind === 'state.runtime' ? 'runtime' : 'params'][key];
      const problem =
        value !== undefined
          ? action.validate === false
            ? fileLimits(target.field, value)
            : valueProblem(target.field as RuleField, value as Json)
          : action.validate !== false && target.field.required === true
            ? valueProblem({ key, type: 'required', required: true }, held)
            : undefined;
      if (problem !== undefined) return fail('INVALID_VALUE', `${target.field.label} (${key}): ${problem}`);
    }
  const patches: PatchOperation[] = [];
  // A secret field's value (what stands for it: the real one never comes here) is written nowhere.
  const written = (t: { field: FieldConfig; block: Block }) => catalog.get(t.field.type)?.secret !== true && fieldShown(t.block, t.field, typed);
  for (const [key, value] of Object.entries(values))
    for (const bind of new Set((inputs.get(key) ?? []).filter(written).map((t) => t.bind))) patches.push({ op: 'set', path: `${bind}.${key}`, value });
  // The count input is no field: its value has its own member, and one fixed key (the engine checks its shape).
  const count = message.count;
  if (count !== undefined) {
    if (!instance.blocks.some((b) => b.props?.showCountInput === true))
      return fail('PATH_NOT_FOUND', `the instance "${message.instanceId}" shows no count input`);
    if (typeof count !== 'number') return fail('INVALID_STRUCTURE', 'count: a whole number, 0 or more');
    patches.push({ op: 'set', path: `state.runtime.${BLOCK_DATA_KEYS.showCountInput}`, value: count });
  }
  // The handlers see the values just typed (a template reads them).
  if (action.handler !== undefined) {
    const handled = handlerPatches(action.handler as Handler | Handler[], typed);
    if (!handled.ok) return fail('INVALID_VALUE', `the action "${action.id}": ${handled.message}`);
    patches.push(...handled.patches);
  }
  return { ok: true, patches, action, values, ...(count !== undefined && { count }) };
}

/** A file's own limits (its type and size), which hold even when an action skips the rules. */
function fileLimits(field: FieldConfig, value: JsonValue): string | undefined {
  if (field.type !== 'file') return undefined;
  return valueProblem(
    {
      key: field.key,
      type: 'file',
      ...(field.accept !== undefined && { accept: field.accept as string[] }),
      ...(typeof field.maxBytes === 'number' && { maxBytes: field.maxBytes }),
    },
    value as Json,
  );
}

/** What is wrong with the shape of a value for a field: the built-in checks, or a registered component's value schema. */
function shapeProblem(catalog: UICatalog, field: FieldConfig, value: JsonValue): string | undefined {
  if ((INPUT_TYPES as readonly string[]).includes(field.type)) {
    if (field.type === 'text' || field.type === 'textarea')
      return typeof value === 'string' && value.length <= VALUE_LIMITS.text ? undefined : 'a text field takes a string';
    // The type's shape, without its rules (a required field left empty is for the action's check).
    const problem = valueProblem({ key: field.key, type: field.type, ...(field.options !== undefined && { options: field.options }) }, value);
    return problem === undefined ? undefined : `a ${field.type} field takes ${problem}`;
  }
  const problem = catalog.valueProblem(field.type, value);
  return problem === undefined ? undefined : `${[...problem.path, ''].join('.')}${problem.message}`;
}
