/** The small helpers the index keeps its tables with. */
import type { z } from 'zod';
import { GolemError } from './errors.js';
import type { StoredRecord, Write } from './store.js';
import type { Turn } from './records.js';

/**
 * Stored records as puts, each validated against its collection's schema (CORRUPT_RECORD
 * at the first that fails); a record of a collection without a schema goes as it is. Turns,
 * most of what a session's load reads, are not parsed again: the index validated each when
 * it was written, and their schema changes nothing it accepts (no defaults, no transforms:
 * test/record-trust.test.ts holds it to that). A cheap check of what the index relies on
 * stands in (`turnShapeProblem`); `doctor` validates them whole.
 */
export function validatedPuts(records: readonly StoredRecord[], schemaOf: (collection: string) => z.ZodType | undefined): Write[] {
  const writes: Write[] = [];
  for (const record of records) {
    if (record.collection === 'turn') {
      const problem = turnShapeProblem(record.key, record.value);
      if (problem !== undefined) throw corrupt(record, [{ message: problem }]);
      writes.push({ op: 'put', collection: record.collection, key: record.key, value: record.value });
      continue;
    }
    const schema = schemaOf(record.collection);
    const parsed = schema === undefined ? { success: true as const, data: record.value } : schema.safeParse(record.value);
    if (!parsed.success) throw corrupt(record, parsed.error.issues);
    writes.push({ op: 'put', collection: record.collection, key: record.key, value: parsed.data });
  }
  return writes;
}

function corrupt(record: StoredRecord, issues: readonly unknown[]): GolemError {
  return new GolemError('CORRUPT_RECORD', `the stored ${record.collection} "${record.key}" does not match its schema`, {
    details: { collection: record.collection, key: record.key, issues },
  });
}

/** What is wrong with a stored turn, in the fields the index reads (its identity, place, owner and blocks), or undefined. */
export function turnShapeProblem(key: string, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not an object';
  const t = value as Record<string, unknown>;
  if (typeof t.id !== 'string' || !Number.isInteger(t.version) || key !== `${t.id}@${String(t.version)}`) return `its id and version are not its key ${key}`;
  if (typeof t.sessionId !== 'string' || typeof t.role !== 'string' || !Number.isInteger(t.seq)) return 'its sessionId, role or seq is missing';
  const parent = t.parent as { id?: unknown; version?: unknown } | null | undefined;
  if (parent !== null && (typeof parent !== 'object' || typeof parent.id !== 'string' || !Number.isInteger(parent.version)))
    return 'its parent is not a turn reference';
  if (!Array.isArray(t.blocks) || t.blocks.some((b) => typeof b !== 'object' || b === null || typeof (b as { type?: unknown }).type !== 'string')) {
    return 'its blocks are not a list of blocks';
  }
  if (typeof t.meta !== 'object' || t.meta === null || Array.isArray(t.meta)) return 'its meta is not an object';
  return undefined;
}

/** Freezes a JSON value and everything in it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function seqOf(write: Write): number {
  return write.op === 'put' ? (write.value as Turn).seq : 0;
}

export function setOrDelete<V>(map: Map<string, V>, key: string, value: V | undefined): void {
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}

export function addTo(map: Map<string, Set<string>>, key: string, member: string): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(member);
}

export function removeFrom(map: Map<string, Set<string>>, key: string, member: string): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(member);
  if (set.size === 0) map.delete(key);
}

export function insertByVersion(versions: Turn[], turn: Turn): Turn[] {
  const rest = versions.filter((t) => t.version !== turn.version);
  const at = rest.findIndex((t) => t.version > turn.version);
  if (at === -1) return [...rest, turn];
  return [...rest.slice(0, at), turn, ...rest.slice(at)];
}
