/**
 * A user's click on an action of a model-built UI (seed 004's flow: input, optimistic
 * update, action click, then the tool path, then the push). The form's values are checked
 * against the instance's fields (and a count input's count written to `state.runtime.count`),
 * the action's handlers added, and all applied as one `patch_ui_state` call (the one write
 * path); a click without a handler then goes to whoever listens (the agent).
 */
import type { JsonValue } from '../core/blocks.js';
import type { UIApi } from '../ui/ui-api.js';
import type { PatchOperation } from '../ui/patch-engine.js';
import type { ActionConfig, Block, FieldConfig, UIInstance } from '../ui/schema.js';
import { handlerPatches, INPUT_TYPES, isVisible, VALUE_LIMITS, valueProblem, type Handler, type Json, type RuleField, type RuleState } from '../ui/rules.js';
import { BLOCK_DATA_KEYS } from '../ui/block-data-keys.js';

/** What the page sends when the user clicks an action. */
export interface UIActionMessage {
  type: 'UI_ACTION';
  instanceId: string;
  actionId: string;
  /** The form's values, by field key. */
  values?: Record<string, JsonValue>;
  /** The count input's value (a block with `showCountInput`): written to `state.runtime.count`. */
  count?: number;
}

/** A click the agent receives, after the values were applied. */
export interface UIActionEvent {
  instanceId: string;
  actionId: string;
  actionLabel: string;
  values: Record<string, JsonValue>;
  /** The count the user sent (`state.runtime.count`), when the instance shows a count input. */
  count?: number;
  /** The instance's version after the values were applied. */
  version: number;
  /** The action's handler applied it: no agent is told. */
  handled?: true;
}

export type UIActionResult = { ok: true; event: UIActionEvent } | { ok: false; code: string; message: string };

/** Whether the action clicked acts on the state itself (a handler): then it goes to no agent, and may be clicked while the agent works. */
export function handledAction(ui: UIApi, message: Partial<UIActionMessage>): boolean {
  if (typeof message.instanceId !== 'string' || typeof message.actionId !== 'string') return false;
  const instance = ui.get(message.instanceId)?.instance;
  return instance !== undefined && findAction(instance, message.actionId)?.handler !== undefined;
}

function findAction(instance: UIInstance, actionId: string): ActionConfig | undefined {
  return instance.actions.find((a) => a.id === actionId) ?? instance.blocks.flatMap((b) => b.props?.actions ?? []).find((a) => a.id === actionId);
}

/** The block whose own actions hold this one (undefined: an action of the instance). */
function blockOf(instance: UIInstance, action: ActionConfig): Block | undefined {
  return instance.blocks.find((b) => b.props?.actions?.includes(action) === true);
}

/** The clicks on each instance being applied, in the order they came (per UIApi: a workspace's). */
const inFlight = new WeakMap<UIApi, Map<string, Promise<unknown>>>();

/**
 * Applies a click: the values typed, checked against the fields (their type, and unless the
 * action says `validate: false` their rules: required, min/max, pattern), then the action's
 * handlers, as one `patch_ui_state` call. Hidden fields and blocks (their `visible` rule) are
 * neither checked nor written.
 */
export function applyUiAction(ui: UIApi, message: Partial<UIActionMessage>): Promise<UIActionResult> {
  // One click at a time on an instance: each is checked, and its handlers computed, on the state the one before left
  // (two quick increments count two). In this process: the handlers are computed here, not in the command's reducer.
  const queue = inFlight.get(ui) ?? new Map<string, Promise<unknown>>();
  inFlight.set(ui, queue);
  const key = typeof message.instanceId === 'string' ? message.instanceId : '';
  const applied = (queue.get(key) ?? Promise.resolve()).then(() => applyNow(ui, message));
  const settled = applied.catch(() => undefined);
  queue.set(key, settled);
  void settled.then(() => queue.get(key) === settled && queue.delete(key));
  return applied;
}

async function applyNow(ui: UIApi, message: Partial<UIActionMessage>): Promise<UIActionResult> {
  const fail = (code: string, text: string): UIActionResult => ({ ok: false, code, message: text });
  if (typeof message.instanceId !== 'string' || typeof message.actionId !== 'string') return fail('INVALID_MESSAGE', 'UI_ACTION needs instanceId and actionId');
  const record = ui.get(message.instanceId);
  if (record === undefined) return fail('INVALID_INSTANCE', `there is no instance "${message.instanceId}"`);
  const instance = record.instance;
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
    const kind = ui.catalog.get(target.field.type)?.kind;
    if (kind !== 'input') return fail('PATH_NOT_FOUND', `"${key}" is a ${target.field.type} field: it shows a value, the user sends none`);
    const problem = shapeProblem(ui, target.field, value);
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
      if (ui.catalog.get(target.field.type)?.kind !== 'input' || !shown(target)) continue;
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
  let version = record.version;
  if (patches.length > 0) {
    const applied = await ui.patch({ instanceId: message.instanceId, patches });
    if (!applied.success) return fail(applied.errors[0]?.code ?? 'INVALID_STRUCTURE', applied.errors[0]?.message ?? 'the values were refused');
    version = applied.version;
  }
  return {
    ok: true,
    event: {
      instanceId: message.instanceId,
      actionId: action.id,
      actionLabel: action.label,
      values,
      ...(count !== undefined && { count }),
      version,
      ...(action.handler !== undefined && { handled: true }),
    },
  };
}

/** What is wrong with the shape of a value for a field: the built-in checks, or a registered component's value schema. */
function shapeProblem(ui: UIApi, field: FieldConfig, value: JsonValue): string | undefined {
  if ((INPUT_TYPES as readonly string[]).includes(field.type)) {
    if (field.type === 'text' || field.type === 'textarea')
      return typeof value === 'string' && value.length <= VALUE_LIMITS.text ? undefined : 'a text field takes a string';
    // The type's shape, without its rules (a required field left empty is for the action's check).
    const problem = valueProblem({ key: field.key, type: field.type, ...(field.options !== undefined && { options: field.options }) }, value);
    return problem === undefined ? undefined : `a ${field.type} field takes ${problem}`;
  }
  const problem = ui.catalog.valueProblem(field.type, value);
  return problem === undefined ? undefined : `${[...problem.path, ''].join('.')}${problem.message}`;
}
