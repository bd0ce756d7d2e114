/**
 * Plain JSON data, checked and copied by a walk rather than a JSON text round trip with a
 * replacer and a reviver (ten times slower on a dashboard's 200-row table, sent many times a
 * second): the UI's calls are JSON already, and anything else takes the slow path as before.
 */
import type { JsonObject, JsonValue } from '../core/blocks.js';

/** As deep as the core's JSON values may nest. */
const MAX_DEPTH = 256;

/** Whether `value` is JSON as it is: plain objects and arrays, strings, finite numbers, booleans, null; not too deep. (An own "__proto__" key, which JSON.parse makes, is plain: `copyJson` drops it.) */
export function isPlainJson(value: unknown, depth = 0): value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!(i in value) || !isPlainJson(value[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.keys(value)) if (!isPlainJson((value as Record<string, unknown>)[key], depth + 1)) return false;
  return Object.getOwnPropertySymbols(value).length === 0;
}

/** A copy of plain JSON (`isPlainJson`), unfrozen, as a JSON text round trip would give it: an own "__proto__" key dropped (as a schema's records drop it), -0 made 0. */
export function copyJson<T extends JsonValue>(value: T): T {
  // -0 is 0, as JSON text has it (the log and every client read the call as JSON).
  if (typeof value === 'number') return (value === 0 ? 0 : value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => copyJson(item)) as T;
  const out: JsonObject = {};
  for (const key of Object.keys(value)) if (key !== '__proto__') out[key] = copyJson((value as JsonObject)[key] as JsonValue);
  return out as T;
}
