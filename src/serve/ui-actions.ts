/**
 * A user's click on an action of a model-built UI (seed 004's flow: input, optimistic
 * update, action click, then the tool path, then the push). The form's values are checked
 * against the instance's fields (and a count input's count written to `state.runtime.count`)
 * and applied as one `patch_ui_state` call (the one write path); the click then goes to
 * whoever listens (the agent).
 */
import type { JsonValue } from '../core/blocks.js';
import type { UIApi } from '../ui/ui-api.js';
import type { PatchOperation } from '../ui/patch-engine.js';
import type { FieldConfig } from '../ui/schema.js';
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
}

export type UIActionResult = { ok: true; event: UIActionEvent } | { ok: false; code: string; message: string };

export async function applyUiAction(ui: UIApi, message: Partial<UIActionMessage>): Promise<UIActionResult> {
  const fail = (code: string, text: string): UIActionResult => ({ ok: false, code, message: text });
  if (typeof message.instanceId !== 'string' || typeof message.actionId !== 'string') return fail('INVALID_MESSAGE', 'UI_ACTION needs instanceId and actionId');
  const record = ui.get(message.instanceId);
  if (record === undefined) return fail('INVALID_INSTANCE', `there is no instance "${message.instanceId}"`);
  const action = record.instance.actions.find((a) => a.id === message.actionId);
  if (action === undefined) return fail('PATH_NOT_FOUND', `the instance "${message.instanceId}" has no action "${message.actionId}"`);
  const values = message.values ?? {};
  if (values === null || typeof values !== 'object' || Array.isArray(values)) return fail('INVALID_MESSAGE', 'values is an object of field keys');
  // Each value goes to the field of that key, in the state its block binds.
  const fields = new Map<string, { bind: string; field: FieldConfig }>();
  for (const block of record.instance.blocks) for (const field of block.props?.fields ?? []) fields.set(field.key, { bind: block.bind, field });
  const patches: PatchOperation[] = [];
  for (const [key, value] of Object.entries(values)) {
    const target = fields.get(key);
    if (target === undefined) return fail('PATH_NOT_FOUND', `no field has the key "${key}"`);
    const problem = valueProblem(target.field, value);
    if (problem !== undefined) return fail('INVALID_STRUCTURE', `${key}: ${problem}`);
    patches.push({ op: 'set', path: `${target.bind}.${key}`, value });
  }
  // The count input is no field: its value has its own member, and one fixed key (the engine checks its shape).
  const count = message.count;
  if (count !== undefined) {
    if (!record.instance.blocks.some((block) => block.props?.showCountInput === true))
      return fail('PATH_NOT_FOUND', `the instance "${message.instanceId}" shows no count input`);
    if (typeof count !== 'number') return fail('INVALID_STRUCTURE', 'count: a whole number, 0 or more');
    patches.push({ op: 'set', path: `state.runtime.${BLOCK_DATA_KEYS.showCountInput}`, value: count });
  }
  let version = record.version;
  if (patches.length > 0) {
    const applied = await ui.patch({ instanceId: message.instanceId, patches });
    if (!applied.success) return fail(applied.errors[0]?.code ?? 'INVALID_STRUCTURE', applied.errors[0]?.message ?? 'the values were refused');
    version = applied.version;
  }
  return {
    ok: true,
    event: { instanceId: message.instanceId, actionId: action.id, actionLabel: action.label, values, ...(count !== undefined && { count }), version },
  };
}

function valueProblem(field: FieldConfig, value: JsonValue): string | undefined {
  switch (field.type) {
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'a number field takes a number';
    case 'checkbox':
      return typeof value === 'boolean' ? undefined : 'a checkbox takes true or false';
    case 'select':
    case 'radio':
      return typeof value === 'string' && (field.options ?? []).some((o) => o.value === value)
        ? undefined
        : `one of ${(field.options ?? []).map((o) => JSON.stringify(o.value)).join(', ')}`;
    default:
      return typeof value === 'string' && value.length <= 100_000 ? undefined : 'a text field takes a string';
  }
}
