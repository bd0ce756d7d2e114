/**
 * A form field's value as the page shows it: the user's local edit if they typed, else the
 * instance's state (the block's bind), else the field's default. Edits are kept raw (the
 * number input's text, the JSON field's text, the checkbox's boolean, a tag list, an uploaded
 * file's reference) and converted when an action is sent.
 */
import * as rules from './ui-rules.js';
import { DISPLAY_TYPES as DISPLAYS, INPUT_TYPES as INPUTS } from './ui-rules.js';
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
        // null: the user removed the file (sent as null, which clears it).
        return isFileRef(edit) ? edit : edit === null ? null : undefined;
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
      return isFileRef(value) ? { sha256: value.sha256, name: value.name, mediaType: value.mediaType, size: value.size } : value === null ? null : undefined;
    case 'json':
      return value;
    case 'text':
    case 'textarea':
      return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value as string | number | boolean);
    default:
      return value;
  }
}

/** What a click would send and the state the rules read, agreeing with the server's judgement of it (src/ui/ui-click.ts). */
export interface ClickView {
  /** The server's state with the values sent over it (rules.liveState): what templates and visibility read. */
  state: LiveState;
  /** The input fields shown on that state, in the blocks' order. */
  shown: { block: UIBlock; field: FieldConfig }[];
  /** Exactly the shown input fields' values, in their types' shapes (a field without a valid value left out). */
  values: Record<string, Json>;
}

/**
 * A click as the server will judge it: every input field's value as it would be sent (the
 * user's edit converted, else the state's, else the default; an edit that reads as no value
 * left out), applied over the state for the fields shown, where what is shown is read from that
 * same state (rules.liveState); then only the shown fields' values, and the state the server
 * builds from exactly those (a choice undone hides what it showed, and what that showed).
 */
export function clickView(instance: UIInstance, edits: InstanceEdits | undefined, isInput: IsInput = builtInInput): ClickView {
  const blocks = instance.blocks ?? [];
  const base: LiveState = { params: { ...instance.state?.params }, runtime: { ...instance.state?.runtime } };
  const all: Record<string, Json> = {};
  for (const block of blocks)
    for (const field of block.props?.fields ?? []) {
      if (!isInput(field.type) || editProblem(field, edits) !== undefined) continue;
      const value = valueToSend(field, fieldValue(instance, block, field, edits));
      if (value !== undefined) all[field.key] = value;
    }
  let values = all;
  let state = rules.liveState(blocks, base, values);
  // The server sees only what is sent: the state it builds from that must show every field sent, and no other with a value.
  for (let round = 0; round <= blocks.length + 1; round++) {
    const shownKeys = new Set(shownInputs(instance, state, isInput).map(({ field }) => field.key));
    const sent = Object.fromEntries(Object.entries(all).filter(([key]) => shownKeys.has(key)));
    if (sameKeys(sent, values)) break;
    values = sent;
    state = rules.liveState(blocks, base, values);
  }
  const shown = shownInputs(instance, state, isInput);
  const shownKeys = new Set(shown.map(({ field }) => field.key));
  return { state, shown, values: Object.fromEntries(Object.entries(values).filter(([key]) => shownKeys.has(key))) };
}

const sameKeys = (a: Record<string, Json>, b: Record<string, Json>) =>
  Object.keys(a).length === Object.keys(b).length && Object.keys(a).every((key) => Object.hasOwn(b, key));

/** The state templates and visibility rules read before anything is sent: the server's, with the values a click would send over it. */
export function liveState(instance: UIInstance, edits: InstanceEdits | undefined, isInput: IsInput = builtInInput): LiveState {
  return clickView(instance, edits, isInput).state;
}

/** The fields a click reads: input fields shown on `state` (their block's rule and their own). */
export function shownInputs(instance: UIInstance, state: LiveState, isInput: IsInput = builtInInput): { block: UIBlock; field: FieldConfig }[] {
  return (instance.blocks ?? []).flatMap((block) =>
    (block.props?.fields ?? []).filter((field) => isInput(field.type) && rules.fieldShown(block, field, state)).map((field) => ({ block, field })),
  );
}

/**
 * Every shown input field's value for UI_ACTION, in its type's shape (numbers as numbers,
 * dates as YYYY-MM-DD, a file as its reference, a file removed as null); fields without a
 * valid value are left out, and so are hidden ones and display fields.
 */
export function collectValues(instance: UIInstance, edits: InstanceEdits | undefined, isInput: IsInput = builtInInput): Record<string, Json> {
  return clickView(instance, edits, isInput).values;
}

/**
 * What is wrong with each shown input field before a click is sent, by key (empty: nothing),
 * as the server judges it: a value sent by its field's rules; a field left out only by
 * `required`, on what the state holds (or on what the user emptied). An edit that reads as no
 * value is its own error ("Not a number", "Not valid JSON"). An action with `validate: false`
 * checks only a file's own limits, as the server does.
 */
export function fieldProblems(
  instance: UIInstance,
  edits: InstanceEdits | undefined,
  isInput: IsInput = builtInInput,
  validate = true,
): Record<string, string> {
  const { state, shown, values } = clickView(instance, edits, isInput);
  const problems: Record<string, string> = {};
  for (const { block, field } of shown) {
    const sent = Object.hasOwn(values, field.key) ? values[field.key] : undefined;
    let problem: string | undefined;
    if (!validate) problem = field.type === 'file' && sent !== undefined ? rules.valueProblem(fileLimits(field), sent) : undefined;
    else if (editProblem(field, edits) !== undefined) problem = editProblem(field, edits);
    else if (sent !== undefined) problem = rules.valueProblem(field, sent);
    else if (field.required === true) {
      const held = (block.bind === 'state.runtime' ? state.runtime : state.params)[field.key];
      // The user emptied it (a number cleared): the state's old value is not what they see.
      const emptied = typeof edits?.[field.key] === 'string' && (edits[field.key] as string).trim() === '';
      problem = emptied ? 'required' : rules.valueProblem({ key: field.key, type: 'required', required: true }, held);
    }
    if (problem !== undefined) problems[field.key] = problem;
  }
  return problems;
}

/** A file field's own limits (its types and size), which hold even when an action skips the rules. */
function fileLimits(field: FieldConfig): rules.RuleField {
  return {
    key: field.key,
    type: 'file',
    ...(Array.isArray(field.accept) && { accept: field.accept.filter((a): a is string => typeof a === 'string') }),
    ...(typeof field.maxBytes === 'number' && { maxBytes: field.maxBytes }),
  };
}

/**
 * The field a refusal names, and what is wrong with it: the server's "Label (key): problem"
 * (INVALID_VALUE) or "key: problem" (INVALID_STRUCTURE).
 */
export function namedField(instance: UIInstance, code: string | undefined, message: string): { key: string; problem: string } | undefined {
  for (const block of instance.blocks ?? [])
    for (const field of block.props?.fields ?? []) {
      const prefix = code === 'INVALID_VALUE' ? `${field.label} (${field.key}): ` : code === 'INVALID_STRUCTURE' ? `${field.key}: ` : undefined;
      if (prefix !== undefined && message.startsWith(prefix) && message.length > prefix.length)
        return { key: field.key, problem: message.slice(prefix.length) };
    }
  return undefined;
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
