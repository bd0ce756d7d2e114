/**
 * A form field's value as the page shows it: the user's local edit if they typed, else the
 * instance's state (the block's bind), else the field's default. Edits are kept raw (the
 * number input's text, the JSON field's text, the checkbox's boolean, a tag list, an uploaded
 * file's reference) and converted when an action is sent.
 */
import { DISPLAY_TYPES as DISPLAYS, INPUT_TYPES as INPUTS, isVisible, valueProblem } from './ui-rules.js';
import type { FieldConfig, FileRef, Json, UIBlock, UIInstance } from './types.js';

export type RawEdit = Json;
export type InstanceEdits = Record<string, RawEdit>;
/** The state the rules read: the server's, with what the user typed over it. */
export type LiveState = { params: Record<string, Json>; runtime: Record<string, Json> };

export const INPUT_TYPES: ReadonlySet<string> = new Set(INPUTS);
export const DISPLAY_TYPES: ReadonlySet<string> = new Set(DISPLAYS);

/** Whether a field's type takes input: built in, or registered as input (customInputs, from the catalog). */
export type IsInput = (type: string) => boolean;
export const builtInInput: IsInput = (type) => INPUT_TYPES.has(type);

export function boundState(instance: UIInstance, block: UIBlock): Record<string, Json> {
  return (block.bind === 'state.runtime' ? instance.state?.runtime : instance.state?.params) ?? {};
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isStrings = (value: Json | undefined): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');
const isObject = (value: Json | undefined): value is { [key: string]: Json } => value !== null && typeof value === 'object' && !Array.isArray(value);

export function isFileRef(value: Json | undefined): value is FileRef & { [key: string]: Json } {
  return (
    isObject(value) &&
    typeof value.sha256 === 'string' &&
    typeof value.name === 'string' &&
    typeof value.mediaType === 'string' &&
    typeof value.size === 'number'
  );
}

function toNumber(value: Json | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** A JSON field's text read: its value, or undefined (empty or not JSON). */
function parseJson(text: string): Json | undefined {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/** The value the field holds now, as JSON (undefined: none). */
export function fieldValue(instance: UIInstance, block: UIBlock, field: FieldConfig, edits: InstanceEdits | undefined): Json | undefined {
  const edit = edits?.[field.key];
  if (edit !== undefined) {
    switch (field.type) {
      case 'checkbox':
      case 'switch':
        return edit === true;
      case 'number':
      case 'slider':
        return toNumber(edit);
      case 'json':
        return typeof edit === 'string' ? parseJson(edit) : edit;
      case 'multiselect':
      case 'tags':
        return isStrings(edit) ? edit : undefined;
      case 'file':
        return isFileRef(edit) ? edit : undefined;
      case 'text':
      case 'textarea':
      case 'select':
      case 'radio':
      case 'date':
        return typeof edit === 'string' ? edit : String(edit as number | boolean);
      default:
        return edit;
    }
  }
  const state = boundState(instance, block);
  return Object.hasOwn(state, field.key) ? state[field.key] : field.value;
}

/** The text an input shows for a value. */
export function displayText(field: FieldConfig, edits: InstanceEdits | undefined, value: Json | undefined): string {
  const edit = edits?.[field.key];
  if (typeof edit === 'string') return edit;
  if (value === undefined || value === null) return field.type === 'json' && value === null ? 'null' : '';
  if (field.type === 'json') return JSON.stringify(value, null, 2);
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** What the user typed that no value can be read from (a JSON field's text, a number's): the field's error, or undefined. */
export function editProblem(field: FieldConfig, edits: InstanceEdits | undefined): string | undefined {
  const edit = edits?.[field.key];
  if (typeof edit !== 'string' || edit.trim() === '') return undefined;
  if (field.type === 'json') {
    try {
      JSON.parse(edit);
      return undefined;
    } catch (error) {
      return `Not valid JSON: ${(error as Error).message}`;
    }
  }
  if ((field.type === 'number' || field.type === 'slider') && toNumber(edit) === undefined) return 'Not a number.';
  return undefined;
}

/** The state with the user's valid edits over it: what templates and visibility rules read before anything is sent. */
export function liveState(instance: UIInstance, edits: InstanceEdits | undefined): LiveState {
  const state: LiveState = { params: { ...instance.state?.params }, runtime: { ...instance.state?.runtime } };
  if (edits === undefined) return state;
  for (const block of instance.blocks ?? []) {
    const scope = block.bind === 'state.runtime' ? state.runtime : state.params;
    for (const field of block.props?.fields ?? []) {
      if (!Object.hasOwn(edits, field.key)) continue;
      const value = fieldValue(instance, block, field, edits);
      if (value !== undefined) scope[field.key] = value;
    }
  }
  return state;
}

/** The fields a click reads: input fields of visible blocks that are themselves visible. */
export function shownInputs(instance: UIInstance, state: LiveState, isInput: IsInput = builtInInput): { block: UIBlock; field: FieldConfig }[] {
  return (instance.blocks ?? []).flatMap((block) =>
    isVisible(block.props?.visible, state)
      ? (block.props?.fields ?? []).filter((field) => isInput(field.type) && isVisible(field.visible, state)).map((field) => ({ block, field }))
      : [],
  );
}

/** The value a field sends, in its type's shape; undefined: left out. */
function valueToSend(field: FieldConfig, value: Json | undefined): Json | undefined {
  switch (field.type) {
    case 'checkbox':
    case 'switch':
      return value === true;
    case 'number':
      return toNumber(value);
    case 'slider':
      return toNumber(value) ?? toNumber(field.min as Json | undefined);
    case 'select':
    case 'radio':
      return typeof value === 'string' && (field.options ?? []).some((o) => o.value === value) ? value : undefined;
    case 'multiselect':
      return isStrings(value) ? value.filter((v) => (field.options ?? []).some((o) => o.value === v)) : undefined;
    case 'tags':
      return isStrings(value) ? value : undefined;
    case 'date':
      return typeof value === 'string' && DATE.test(value) ? value : undefined;
    case 'file':
      return isFileRef(value) ? { sha256: value.sha256, name: value.name, mediaType: value.mediaType, size: value.size } : undefined;
    case 'json':
      return value;
    case 'text':
    case 'textarea':
      return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value as string | number | boolean);
    default:
      return value;
  }
}

/**
 * Every shown input field's value for UI_ACTION, in its type's shape (numbers as numbers,
 * dates as YYYY-MM-DD, a file as its reference); fields without a valid value are left out,
 * and so are hidden ones and display fields.
 */
export function collectValues(instance: UIInstance, edits: InstanceEdits | undefined, isInput: IsInput = builtInInput): Record<string, Json> {
  const values: Record<string, Json> = {};
  for (const { block, field } of shownInputs(instance, liveState(instance, edits), isInput)) {
    const value = valueToSend(field, fieldValue(instance, block, field, edits));
    if (value !== undefined) values[field.key] = value;
  }
  return values;
}

/** What is wrong with each shown input field before a click is sent, by key (empty: nothing). */
export function fieldProblems(instance: UIInstance, edits: InstanceEdits | undefined, isInput: IsInput = builtInInput): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const { block, field } of shownInputs(instance, liveState(instance, edits), isInput)) {
    const problem = editProblem(field, edits) ?? valueProblem(field, valueToSend(field, fieldValue(instance, block, field, edits)));
    if (problem !== undefined) problems[field.key] = problem;
  }
  return problems;
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
