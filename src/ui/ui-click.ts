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
import { handlerPatches, INPUT_TYPES, isVisible, VALUE_LIMITS, valueProblem, type Handler, type Json, type RuleField, type RuleState } from './rules.js';
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

/** A click as patches on `instance` (as the log has it), or why it is refused; nothing is applied here. */
export function clickPatches(instance: UIInstance | undefined, message: Partial<UIClick>, catalog: UICatalog): ClickPlan {
  const fail = (code: string, text: string): ClickPlan => ({ ok: false, code, message: text });
  if (typeof message.instanceId !== 'string' || typeof message.actionId !== 'string') return fail('INVALID_MESSAGE', 'UI_ACTION needs instanceId and actionId');
  if (instance === undefined) return fail('INVALID_INSTANCE', `there is no instance "${message.instanceId}"`);
  const action = findAction(instance, message.actionId);
  if (action === undefined) return fail('PATH_NOT_FOUND', `the instance "${message.instanceId}" has no action "${message.actionId}"`);
  const state = instance.state as RuleState;
  if (!isVisible(action.visible, state) || !isVisible(blockOf(instance, action)?.props?.visible, state))
    return fail('PATH_NOT_FOUND', `the action "${action.id}" is not shown`);
  const values = message.values ?? {};
  if (values === null || typeof values !== 'object' || Array.isArray(values)) return fail('INVALID_MESSAGE', 'values is an object of field keys');
  // Each value goes to the field of that key, in the state its block binds.
  const fields = new Map<string, { bind: string; field: FieldConfig; block: Block }>();
  for (const block of instance.blocks) for (const field of block.props?.fields ?? []) fields.set(field.key, { bind: block.bind, field, block });
  const patches: PatchOperation[] = [];
  const typed: RuleState = { params: { ...state.params }, runtime: { ...state.runtime } };
  for (const [key, value] of Object.entries(values)) {
    const target = fields.get(key);
    if (target === undefined) return fail('PATH_NOT_FOUND', `no field has the key "${key}"`);
    const kind = catalog.get(target.field.type)?.kind;
    if (kind !== 'input') return fail('PATH_NOT_FOUND', `"${key}" is a ${target.field.type} field: it shows a value, the user sends none`);
    const problem = shapeProblem(catalog, target.field, value);
    if (problem !== undefined) return fail('INVALID_STRUCTURE', `${key}: ${problem}`);
    patches.push({ op: 'set', path: `${target.bind}.${key}`, value });
    typed[target.bind === 'state.runtime' ? 'runtime' : 'params'][key] = value as Json;
  }
  // What is shown is what the user saw: the state with their values (a switch they turned on shows the field it governs).
  const shown = (target: { field: FieldConfig; block: Block }) => isVisible(target.block.props?.visible, typed) && isVisible(target.field.visible, typed);
  for (const key of Object.keys(values))
    if (!shown(fields.get(key) as { field: FieldConfig; block: Block })) return fail('PATH_NOT_FOUND', `the field "${key}" is not shown`);
  if (action.validate !== false) {
    for (const [key, target] of fields) {
      if (catalog.get(target.field.type)?.kind !== 'input' || !shown(target)) continue;
      const problem = valueProblem(target.field as RuleField, typed[target.bind === 'state.runtime' ? 'runtime' : 'params'][key]);
      if (problem !== undefined) return fail('INVALID_VALUE', `${target.field.label} (${key}): ${problem}`);
    }
  }
  // The count input is no field: its value has its own member, and one fixed key (the engine checks its shape).
  const count = message.count;
  if (count !== undefined) {
    if (!instance.blocks.some((block) => block.props?.showCountInput === true))
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
