/**
 * A JSON value cut down to a size a model can read: long texts, long lists, objects of many
 * keys and deep nesting are shortened, more at each level, until the value's JSON is at most
 * `maxChars` characters, and every cut is named by its path. Pure: the value given is not changed.
 */
import type { JsonValue } from '../core/blocks.js';
import { headOf } from '../core/text.js';

/** One cut: where (a dot path, list items by index: `state.runtime.rows`, `blocks.0.props.fields`), and what was left out. */
export interface JsonCut {
  path: string;
  what: string;
}

/** The value as it fits (`cuts` empty when nothing was cut), or how large it is when even the tightest level does not fit. */
export type Fitted = { fits: true; value: JsonValue; cuts: JsonCut[] } | { fits: false; chars: number };

interface Level {
  /** Characters of a text kept. */
  text: number;
  /** Items of a list kept. */
  items: number;
  /** Keys of an object kept. */
  keys: number;
  /** Lists and objects nested deeper than this are left out. */
  depth: number;
}

/** From light to tight: the first level whose result fits is the one used. */
const LEVELS: readonly Level[] = [
  { text: 4_000, items: 200, keys: 200, depth: 16 },
  { text: 1_000, items: 50, keys: 50, depth: 10 },
  { text: 200, items: 10, keys: 20, depth: 8 },
  { text: 60, items: 3, keys: 8, depth: 6 },
];

/** `value` whole when its JSON is at most `maxChars` characters; otherwise cut, level by level, until it is. */
export function fitJson(value: JsonValue, maxChars: number): Fitted {
  const chars = JSON.stringify(value).length;
  if (chars <= maxChars) return { fits: true, value, cuts: [] };
  for (const level of LEVELS) {
    const cuts: JsonCut[] = [];
    const shortened = shrink(value, level, '', 0, cuts);
    if (JSON.stringify(shortened).length <= maxChars) return { fits: true, value: shortened, cuts };
  }
  return { fits: false, chars };
}

function shrink(value: JsonValue, level: Level, path: string, depth: number, cuts: JsonCut[]): JsonValue {
  if (typeof value === 'string') {
    if (value.length <= level.text) return value;
    cuts.push({ path, what: `a text of ${count(value.length)} characters, its first ${count(level.text)} shown (ending in "…")` });
    return `${headOf(value, level.text)}…`;
  }
  if (value === null || typeof value !== 'object') return value;
  const entries = Array.isArray(value) ? null : Object.entries(value);
  const size = entries === null ? (value as JsonValue[]).length : entries.length;
  const kind = entries === null ? `a list of ${count(size)} items` : `an object of ${count(size)} keys`;
  if (size > 0 && depth >= level.depth) {
    cuts.push({ path, what: `${kind}, left out (nested too deep): shown as "…"` });
    return '…';
  }
  if (entries === null) {
    const items = value as JsonValue[];
    if (items.length > level.items) cuts.push({ path, what: `${kind}, its first ${count(level.items)} shown` });
    return items.slice(0, level.items).map((item, i) => shrink(item, level, join(path, String(i)), depth + 1, cuts));
  }
  if (entries.length > level.keys) cuts.push({ path, what: `${kind}, its first ${count(level.keys)} shown` });
  // fromEntries defines own properties: a "__proto__" key stays a key.
  return Object.fromEntries(entries.slice(0, level.keys).map(([key, inner]) => [key, shrink(inner, level, join(path, key), depth + 1, cuts)]));
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
