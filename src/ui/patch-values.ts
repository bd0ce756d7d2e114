/**
 * The values a `patch_ui_state` patch carries, checked (patch-engine.ts): blocks and actions
 * parsed with the catalog, ids and input keys kept unique, values as JSON; and the refusal
 * each check throws, with the seed's code, which the engine turns into the call's answer.
 */
import type { z } from 'zod';
import type { JsonValue } from '../core/blocks.js';
import type { UICatalog } from './catalog.js';
import { copyJson, isPlainJson } from './json-copy.js';
import { ActionConfig, Block } from './schema.js';

/** Seed 004's error codes. */
export const UI_PATCH_ERROR_CODES = [
  'INVALID_INSTANCE',
  'INVALID_OP',
  'INVALID_PATH',
  'PATH_NOT_FOUND',
  'SCHEMA_MUTATION',
  'MISSING_VALUE',
  'DUPLICATE_ID',
  'INSTANCE_EXISTS',
  'INVALID_STRUCTURE',
] as const;
export type UIPatchErrorCode = (typeof UI_PATCH_ERROR_CODES)[number];

/** Why a patch is refused: thrown by a check, caught by the engine for the patch it was applying. */
export class Refusal extends Error {
  constructor(
    readonly code: UIPatchErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export const refuse = (code: UIPatchErrorCode, message: string): never => {
  throw new Refusal(code, message);
};

export function parseItems(list: 'blocks' | 'actions', value: JsonValue, path: string, catalog: UICatalog): { id: string }[] {
  if (!Array.isArray(value)) return refuse('INVALID_STRUCTURE', `${path} takes a list of ${list}`);
  if (list === 'actions') return value.map((item, i) => parse(ActionConfig, item, `${path}[${i}]`));
  return value.map((item, i) => {
    const block = parse(Block, item, `${path}[${i}]`);
    // Each field is one of the catalog's components, with that component's props.
    const fields = block.props?.fields ?? [];
    for (const [f, field] of fields.entries()) parse(catalog.field(), field, `${path}[${i}].props.fields[${f}]`);
    sharedInputKey(fields, catalog, `${path}[${i}].props.fields`);
    return block;
  });
}

/**
 * Display fields of one block may read the same key (a table and a chart of the same rows);
 * the key of an input field is its alone in the block: a click sends one value for it.
 */
function sharedInputKey(fields: readonly { key: string; type: string }[], catalog: UICatalog, where: string): void {
  for (const [f, field] of fields.entries()) {
    if (catalog.get(field.type)?.kind !== 'input') continue;
    const other = fields.findIndex((o, i) => i !== f && o.key === field.key);
    if (other !== -1)
      refuse(
        'INVALID_STRUCTURE',
        `${where}[${Math.max(f, other)}].key: the ${field.type} field "${field.key}" takes input, so no other field of the block can have its key (display fields may share one)`,
      );
  }
}

export function uniqueIds(list: 'blocks' | 'actions', items: readonly { id: string }[]): void {
  const seen = new Set<string>();
  for (const item of items) {
    if (seen.has(item.id)) refuse('DUPLICATE_ID', `two ${list} would have the id "${item.id}"; ids are unique (replace one with ${list}["${item.id}"])`);
    seen.add(item.id);
  }
}

export function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) refuse('INVALID_STRUCTURE', `${where}: ${issues(result.error)}`);
  return (result as { data: z.output<S> }).data;
}

export function issues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`)
    .join('; ');
}

/** A value as JSON (what a patch can carry): undefined inside, functions and the like are refused. */
export function toJson(value: unknown): JsonValue {
  if (isPlainJson(value)) return copyJson(value);
  try {
    const text = JSON.stringify(value, (_key, inner: unknown) => {
      if (typeof inner === 'number' && !Number.isFinite(inner)) refuse('INVALID_STRUCTURE', `${String(inner)} is not a JSON number`);
      return inner;
    });
    if (text === undefined) return refuse('INVALID_STRUCTURE', 'the value is not JSON');
    // An own "__proto__" key is dropped, as the schema's records drop it: the JSON Patch carries what the instance keeps.
    const json = JSON.parse(text, (key, inner: unknown) => (key === '__proto__' ? undefined : inner)) as JsonValue;
    // What is not plain JSON now nests too deep (the schema refuses past 256 levels).
    if (!isPlainJson(json)) refuse('INVALID_STRUCTURE', 'the value nests deeper than 256 levels');
    return json;
  } catch (error) {
    if (error instanceof Refusal) throw error;
    return refuse('INVALID_STRUCTURE', `the value is not JSON: ${(error as Error).message}`);
  }
}

/** Any value, for a message: JSON.stringify throws on a BigInt. */
export function show(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return typeof value;
  }
}
