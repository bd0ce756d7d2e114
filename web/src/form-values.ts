/**
 * A form field's value as the page shows it: the user's local edit if they typed, else the
 * instance's state (the block's bind), else the field's default. Edits are kept raw (the
 * number input's text, the checkbox's boolean) and converted when an action is sent.
 */
import type { FieldConfig, Json, UIBlock, UIInstance } from './types.js';

export type RawEdit = string | boolean;
export type InstanceEdits = Record<string, RawEdit>;

export function boundState(instance: UIInstance, block: UIBlock): Record<string, Json> {
  return (block.bind === 'state.runtime' ? instance.state?.runtime : instance.state?.params) ?? {};
}

/** The value the field holds now, as JSON (undefined: none). */
export function fieldValue(instance: UIInstance, block: UIBlock, field: FieldConfig, edits: InstanceEdits | undefined): Json | undefined {
  const edit = edits?.[field.key];
  if (edit !== undefined) {
    if (field.type === 'checkbox') return edit === true;
    if (field.type === 'number') {
      const text = String(edit).trim();
      const n = Number(text);
      return text === '' || !Number.isFinite(n) ? undefined : n;
    }
    return String(edit);
  }
  const state = boundState(instance, block);
  return Object.hasOwn(state, field.key) ? state[field.key] : field.value;
}

/** The text an input shows for a value. */
export function displayText(field: FieldConfig, edits: InstanceEdits | undefined, value: Json | undefined): string {
  const edit = edits?.[field.key];
  if (typeof edit === 'string') return edit;
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** Every field's value for UI_ACTION: numbers as numbers, checkboxes as booleans; fields without a valid value are left out. */
export function collectValues(instance: UIInstance, edits: InstanceEdits | undefined): Record<string, Json> {
  const values: Record<string, Json> = {};
  for (const block of instance.blocks ?? []) {
    for (const field of block.props?.fields ?? []) {
      const value = fieldValue(instance, block, field, edits);
      switch (field.type) {
        case 'checkbox':
          values[field.key] = value === true;
          break;
        case 'number': {
          const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
          if (Number.isFinite(n)) values[field.key] = n;
          break;
        }
        case 'select':
        case 'radio':
          if (typeof value === 'string' && (field.options ?? []).some((o) => o.value === value)) values[field.key] = value;
          break;
        default:
          values[field.key] = typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value as string | number | boolean);
      }
    }
  }
  return values;
}

/** The local edits the server's state now covers are dropped (after an action was applied). */
export function dropCovered(instance: UIInstance | undefined, edits: InstanceEdits | undefined): InstanceEdits | undefined {
  if (edits === undefined) return undefined;
  if (instance === undefined) return undefined;
  const rest: InstanceEdits = { ...edits };
  for (const block of instance.blocks ?? []) {
    const state = boundState(instance, block);
    for (const field of block.props?.fields ?? []) if (Object.hasOwn(state, field.key)) delete rest[field.key];
  }
  return Object.keys(rest).length === 0 ? undefined : rest;
}
