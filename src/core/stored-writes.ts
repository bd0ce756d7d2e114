/**
 * A command's writes as a store takes them and as the index applies them: each value
 * encoded once to JSON text, which the store keeps; the index applies the same text read
 * back, or the value itself where reading it back would give the value (a plain turn or
 * session record: see `encodeRecord`), so what the index holds is what the store returns.
 */
import { encodeRecord } from './memory-store.js';
import type { Turn } from './records.js';
import type { StoredWrite, Write } from './store.js';
import { ownerOf } from './workspace-index.js';

/** The writes encoded, and the values whose text reads back as themselves (by text). */
export interface EncodedWrites {
  stored: StoredWrite[];
  plain: Map<string, unknown>;
}

/**
 * Encodes `writes` for the store. A turn whose `seq` is the seq it was decided at is marked
 * `stamp`; a deleted turn's owner is its session (`turnOwner`, from the index). Throws where
 * a value is not JSON (STORE_ERROR).
 */
export function encodeWrites(writes: readonly Write[], decided: number, turnOwner: (key: string) => string | null): EncodedWrites {
  const plain = new Map<string, unknown>();
  const stored = writes.map((w): StoredWrite => {
    if (w.op === 'delete') return w.collection === 'turn' ? { ...w, owner: turnOwner(w.key) } : w;
    const stamp = w.collection === 'turn' && (w.value as Turn).seq === decided;
    const encoded = encodeRecord(w.value);
    // Turns and session records only: built from a validated payload and the index's own frozen records, nobody else holds them.
    if (encoded.plain && (w.collection === 'turn' || w.collection === 'session')) plain.set(encoded.json, w.value);
    return { op: 'put', collection: w.collection, key: w.key, json: encoded.json, owner: ownerOf(w.collection, w.value), ...(stamp && { stamp: true }) };
  });
  return { stored, plain };
}

/** The writes as the index applies them: a text stamped with a later seq than decided is not its value's, and is parsed, as any text that is not plain. */
export function appliedWrites(stored: readonly StoredWrite[], plain: ReadonlyMap<string, unknown>): Write[] {
  return stored.map((w) =>
    w.op === 'put' ? { op: 'put', collection: w.collection, key: w.key, value: plain.has(w.json) ? plain.get(w.json) : (JSON.parse(w.json) as unknown) } : w,
  );
}
