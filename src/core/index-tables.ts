/** The small helpers the index keeps its tables with. */
import type { z } from 'zod';
import { GolemError } from './errors.js';
import type { StoredRecord, Write } from './store.js';
import type { Turn } from './records.js';

/**
 * Stored records as puts, each validated against its collection's schema (CORRUPT_RECORD
 * at the first that fails); a record of a collection without a schema goes as it is.
 */
export function validatedPuts(records: readonly StoredRecord[], schemaOf: (collection: string) => z.ZodType | undefined): Write[] {
  const writes: Write[] = [];
  for (const record of records) {
    const schema = schemaOf(record.collection);
    const parsed = schema === undefined ? { success: true as const, data: record.value } : schema.safeParse(record.value);
    if (!parsed.success) {
      throw new GolemError('CORRUPT_RECORD', `the stored ${record.collection} "${record.key}" does not match its schema`, {
        details: { collection: record.collection, key: record.key, issues: parsed.error.issues },
      });
    }
    writes.push({ op: 'put', collection: record.collection, key: record.key, value: parsed.data });
  }
  return writes;
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
