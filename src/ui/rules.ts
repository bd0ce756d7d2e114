/**
 * What a model-built UI does without a model round trip (docs/ui-catalog.md): `${state...}`
 * templates, visibility rules, the built-in fields' value checks (their shape, `required`,
 * `min`/`max`, `pattern`) and action handlers compiled to `patch_ui_state` patches. Pure, and
 * importing only re2js (the patterns' engine): the page (web/src) runs the same code before a
 * click is sent, and the server again when it arrives, so the two cannot disagree.
 */
import { RE2JS } from 're2js';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** An instance's state (seed 004). */
export interface RuleState {
  params: Record<string, Json>;
  runtime: Record<string, Json>;
}

/** `state.params.x` or `state.runtime.x`, and deeper (`state.runtime.job.done`). */
export const STATE_PATH = /^state\.(params|runtime)\.([A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*)$/;
/** A path a handler writes: one key of `state.params` or `state.runtime`. */
export const HANDLER_PATH = /^state\.(params|runtime)\.([A-Za-z0-9_$-]+)$/;

/** Keys no state value can have: they would reach an object's prototype. */
export const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** The longest pattern a field takes. */
export const PATTERN_MAX = 500;
/** What a model is told of a field pattern's syntax. */
export const PATTERN_SYNTAX = 'RE2 syntax, like ripgrep and Go (no lookahead, lookbehind or backreferences; \\d \\w \\b are ASCII, \\p{L} any letter)';

/** Patterns compiled lately (the page and the server judge the same few fields again and again). */
const compiled = new Map<string, RE2JS>();

/**
 * A field's pattern compiled with RE2 (re2js), which matches in time linear in the text
 * whatever the pattern (no backtracking, so `(a+){30}` cannot freeze the page or the server);
 * the reason when RE2 refuses it (lookaround and backreferences are not RE2 syntax).
 */
export function compilePattern(pattern: string): { ok: true; regex: RE2JS } | { ok: false; reason: string } {
  const known = compiled.get(pattern);
  if (known !== undefined) return { ok: true, regex: known };
  try {
    const regex = RE2JS.compile(pattern);
    if (compiled.size >= 100) compiled.delete(compiled.keys().next().value as string);
    compiled.set(pattern, regex);
    return { ok: true, regex };
  } catch (error) {
    return { ok: false, reason: (error as Error).message.replace(/^error parsing regexp: /, '') };
  }
}

/** The value at a state path (undefined: none, or not a state path). */
export function readPath(state: RuleState | undefined, path: string): Json | undefined {
  const m = STATE_PATH.exec(path);
  if (m === null || state === undefined) return undefined;
  let at: Json | undefined = state[m[1] as 'params' | 'runtime'] as Json;
  for (const key of (m[2] as string).split('.')) {
    if (FORBIDDEN.has(key) || at === null || typeof at !== 'object' || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

const TEMPLATE = /\$\{\s*(state\.[^}\s]+)\s*\}/g;

/** `text` with each `${state.params.x}` replaced by its value: a string as is, another value as JSON, none as nothing. */
export function fillTemplate(text: string, state: RuleState | undefined): string {
  if (!text.includes('${')) return text;
  return text.replace(TEMPLATE, (_whole, path: string) => {
    const value = readPath(state, path);
    return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  });
}

/** The state paths a text's templates read (for the engine to check them). */
export function templatePaths(text: string): string[] {
  return [...text.matchAll(TEMPLATE)].map((m) => m[1] as string);
}

/** When a field, block or action is shown: a state value compared (no comparator: it is truthy). */
export interface VisibilityRule {
  path: string;
  equals?: Json | undefined;
  notEquals?: Json | undefined;
  in?: Json[] | undefined;
  truthy?: boolean | undefined;
}

/** Whether a rule (or every rule of a list) holds; no rule: shown. */
export function isVisible(rule: VisibilityRule | readonly VisibilityRule[] | undefined, state: RuleState | undefined): boolean {
  if (rule === undefined) return true;
  if (Array.isArray(rule)) return rule.every((r: VisibilityRule) => isVisible(r, state));
  const one = rule as VisibilityRule;
  const value = readPath(state, one.path);
  if (one.equals !== undefined) return same(value, one.equals);
  if (one.notEquals !== undefined) return !same(value, one.notEquals);
  if (one.in !== undefined) return one.in.some((v) => same(value, v));
  const truthy = value !== undefined && value !== null && value !== false && value !== 0 && value !== '' && !(Array.isArray(value) && value.length === 0);
  return truthy === (one.truthy ?? true);
}

/** Blocks as far as visibility goes: their bind, rule and fields (keys and rules). */
export interface RuleBlock {
  bind?: string;
  props?:
    | {
        visible?: VisibilityRule | readonly VisibilityRule[] | undefined;
        fields?: readonly { key: string; type?: string; visible?: VisibilityRule | readonly VisibilityRule[] | undefined }[] | undefined;
      }
    | undefined;
}

/**
 * The state a user sees: `state` with the values they typed (by field key) of the fields that
 * are shown, where what is shown is read from that same state (a switch turned on shows the
 * field it governs; a choice undone hides what it showed, and what that showed): applied until
 * nothing changes. The page and the server both judge a click on it.
 */
export function liveState(blocks: readonly RuleBlock[], state: RuleState, values: Readonly<Record<string, Json>>): RuleState {
  let live: RuleState = state;
  // Each round applies the values of the fields shown on the last; the same fields twice is the fixpoint.
  let applied = '';
  for (let round = 0; round <= blocks.length + 1; round++) {
    const next: RuleState = { params: { ...state.params }, runtime: { ...state.runtime } };
    const keys: string[] = [];
    for (const block of blocks) {
      if (!isVisible(block.props?.visible, live)) continue;
      const name = block.bind === 'state.runtime' ? 'runtime' : 'params';
      for (const field of block.props?.fields ?? [])
        if (Object.hasOwn(values, field.key) && !FORBIDDEN.has(field.key) && isVisible(field.visible, live)) {
          next[name][field.key] = values[field.key] as Json;
          keys.push(`${name}.${field.key}`);
        }
    }
    const now = keys.sort().join('\n');
    if (round > 0 && now === applied) return next;
    applied = now;
    live = next;
  }
  return live;
}

/** Whether a field of a block is shown on `state` (its block's rule and its own). */
export function fieldShown(block: RuleBlock, field: { visible?: VisibilityRule | readonly VisibilityRule[] | undefined }, state: RuleState): boolean {
  return isVisible(block.props?.visible, state) && isVisible(field.visible, state);
}

function same(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A field as far as its value's checks go (the catalog's schemas hold the rest of its shape). */
export interface RuleField {
  key: string;
  type: string;
  required?: boolean;
  min?: number | string;
  max?: number | string;
  step?: number;
  pattern?: string;
  options?: readonly { value: string }[];
  accept?: readonly string[];
  maxBytes?: number;
}

/** The built-in input types (docs/ui-catalog.md), and the display types, whose value the user never sends. */
export const INPUT_TYPES = [
  'text',
  'number',
  'textarea',
  'select',
  'checkbox',
  'radio',
  'multiselect',
  'date',
  'slider',
  'switch',
  'tags',
  'file',
  'json',
] as const;
export const DISPLAY_TYPES = ['markdown', 'table', 'progress', 'badge', 'metric', 'image', 'chart', 'code'] as const;

/** Longest text a text field sends, and most items a list field sends. */
export const VALUE_LIMITS = { text: 100_000, items: 500, tag: 200, fileBytes: 5 * 1024 * 1024, fileName: 255 } as const;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SHA256 = /^[0-9a-f]{64}$/;

/**
 * What is wrong with a value a user sends for a built-in input field: its shape for the type,
 * then `required`, `min`/`max` and `pattern`. Undefined: nothing (or a type this does not know:
 * the catalog checks those). An absent value (undefined, null, '' or an empty list) breaks only `required`.
 */
export function valueProblem(field: RuleField, value: Json | undefined): string | undefined {
  const empty = value === undefined || value === null || value === '' || (Array.isArray(value) && value.length === 0);
  if (empty) return field.required === true ? 'required' : undefined;
  // A required checkbox or switch is one the user must turn on ("I accept the terms").
  if ((field.type === 'checkbox' || field.type === 'switch') && field.required === true && value !== true)
    return typeof value === 'boolean' ? 'required' : 'true or false';
  const options = (field.options ?? []).map((o) => o.value);
  const count = (n: number, what: string) =>
    typeof field.min === 'number' && n < field.min
      ? `at least ${field.min} ${what}`
      : typeof field.max === 'number' && n > field.max
        ? `at most ${field.max} ${what}`
        : undefined;
  const pattern = (text: string, what: string) => {
    if (field.pattern === undefined) return undefined;
    const compiledPattern = compilePattern(field.pattern);
    if (!compiledPattern.ok) return undefined; // the engine refuses a pattern that does not compile
    return compiledPattern.regex.testExact(text) ? undefined : `${what} does not match the pattern ${field.pattern}`;
  };
  switch (field.type) {
    case 'text':
    case 'textarea':
      if (typeof value !== 'string' || value.length > VALUE_LIMITS.text) return `text of at most ${VALUE_LIMITS.text.toLocaleString('en')} characters`;
      return count(value.length, 'characters') ?? pattern(value, 'the text');
    case 'number':
    case 'slider': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'a number';
      if (typeof field.min === 'number' && value < field.min) return `at least ${field.min}`;
      if (typeof field.max === 'number' && value > field.max) return `at most ${field.max}`;
      const step = field.step;
      if (step !== undefined && step > 0) {
        const steps = (value - (typeof field.min === 'number' ? field.min : 0)) / step;
        if (Math.abs(steps - Math.round(steps)) > 1e-9) return `a multiple of ${step}${typeof field.min === 'number' ? ` from ${field.min}` : ''}`;
      }
      return undefined;
    }
    case 'checkbox':
    case 'switch':
      return typeof value === 'boolean' ? undefined : 'true or false';
    case 'select':
    case 'radio':
      return typeof value === 'string' && options.includes(value) ? undefined : `one of ${options.map((o) => JSON.stringify(o)).join(', ')}`;
    case 'multiselect':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string' && options.includes(v)))
        return `a list of ${options.map((o) => JSON.stringify(o)).join(', ')}`;
      if (new Set(value).size !== value.length) return 'each option once';
      return count(value.length, 'choices');
    case 'tags': {
      if (!Array.isArray(value) || value.length > VALUE_LIMITS.items || !value.every((v) => typeof v === 'string' && v !== '' && v.length <= VALUE_LIMITS.tag))
        return `a list of up to ${VALUE_LIMITS.items} tags of 1 to ${VALUE_LIMITS.tag} characters`;
      if (new Set(value).size !== value.length) return 'each tag once';
      return count(value.length, 'tags') ?? value.map((tag) => pattern(tag as string, `the tag "${tag as string}"`)).find((p) => p !== undefined);
    }
    case 'date': {
      if (
        typeof value !== 'string' ||
        !DATE.test(value) ||
        Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ||
        new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value
      )
        return 'a date, YYYY-MM-DD';
      if (typeof field.min === 'string' && value < field.min) return `on or after ${field.min}`;
      if (typeof field.max === 'string' && value > field.max) return `on or before ${field.max}`;
      return undefined;
    }
    case 'file': {
      const file = value as Record<string, Json>;
      if (
        typeof value !== 'object' ||
        Array.isArray(value) ||
        typeof file.sha256 !== 'string' ||
        !SHA256.test(file.sha256) ||
        typeof file.name !== 'string' ||
        file.name.length > VALUE_LIMITS.fileName ||
        typeof file.mediaType !== 'string' ||
        typeof file.size !== 'number' ||
        !Number.isInteger(file.size) ||
        file.size < 0 ||
        Object.keys(file).some((k) => !['sha256', 'name', 'mediaType', 'size'].includes(k))
      )
        return 'an uploaded file: { sha256, name, mediaType, size }';
      if (file.size > (field.maxBytes ?? VALUE_LIMITS.fileBytes)) return `a file of at most ${field.maxBytes ?? VALUE_LIMITS.fileBytes} bytes`;
      if (!accepts(field.accept, file.mediaType)) return `a file of type ${(field.accept ?? []).join(', ')}`;
      return undefined;
    }
    case 'json':
      return undefined;
    default:
      return undefined;
  }
}

/** Whether a media type is one `accept` lets through (`image/png`, `image/*`; none: any). */
export function accepts(accept: readonly string[] | undefined, mediaType: string): boolean {
  if (accept === undefined || accept.length === 0) return true;
  const type = mediaType.toLowerCase().split(';')[0]?.trim() ?? '';
  return accept.some((a) => {
    const want = a.toLowerCase();
    return want.endsWith('/*') ? type.startsWith(want.slice(0, -1)) : type === want;
  });
}

/** What an action does on the page's state without the agent (docs/ui-catalog.md). */
export type Handler =
  | { type: 'set'; path: string; value: Json }
  | { type: 'increment' | 'decrement'; path: string; by?: number }
  | { type: 'toggle'; path: string }
  | { type: 'template'; path: string; template: string };

export const HANDLER_TYPES = ['set', 'increment', 'decrement', 'toggle', 'template'] as const;

/** A handler's write, as a patch of `patch_ui_state`. */
export interface HandlerPatch {
  op: 'set';
  path: string;
  value: Json;
}

/**
 * An action's handlers as `patch_ui_state` patches on `state`, each seeing the ones before it
 * (a template after a set reads the new value). A counter that holds no number, or a switch
 * that holds no boolean, is refused rather than guessed at.
 */
export function handlerPatches(
  handlers: Handler | readonly Handler[],
  state: RuleState,
): { ok: true; patches: HandlerPatch[]; state: RuleState } | { ok: false; message: string } {
  const list: readonly Handler[] = Array.isArray(handlers) ? handlers : [handlers as Handler];
  let current: RuleState = { params: { ...state.params }, runtime: { ...state.runtime } };
  const patches: HandlerPatch[] = [];
  for (const handler of list) {
    const m = HANDLER_PATH.exec(handler.path);
    if (m === null || FORBIDDEN.has(m[2] as string))
      return { ok: false, message: `${handler.path}: a handler writes state.params.<key> or state.runtime.<key>` };
    const before = readPath(current, handler.path);
    let value: Json;
    switch (handler.type) {
      case 'set':
        value = handler.value;
        break;
      case 'increment':
      case 'decrement': {
        if (before !== undefined && before !== null && (typeof before !== 'number' || !Number.isFinite(before)))
          return { ok: false, message: `${handler.path} holds ${JSON.stringify(before)}, not a number to ${handler.type}` };
        const by = handler.by ?? 1;
        value = ((before as number | null | undefined) ?? 0) + (handler.type === 'increment' ? by : -by);
        break;
      }
      case 'toggle':
        if (before !== undefined && before !== null && typeof before !== 'boolean')
          return { ok: false, message: `${handler.path} holds ${JSON.stringify(before)}, not true or false to toggle` };
        value = before !== true;
        break;
      case 'template':
        value = fillTemplate(handler.template, current);
        break;
      default:
        return { ok: false, message: `${(handler as { type: unknown }).type as string} is not a handler type` };
    }
    patches.push({ op: 'set', path: handler.path, value });
    const area = m[1] as 'params' | 'runtime';
    current = { ...current, [area]: { ...current[area], [m[2] as string]: value } };
  }
  return { ok: true, patches, state: current };
}
