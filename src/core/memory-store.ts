import { GolemError } from './errors.js';
import { duplicateCommand, ownerConflict, seqMismatch } from './store-errors.js';
import { stampWrites, streamConflict } from './streams.js';
import {
  WORKSPACE_STREAM,
  type CommandLogEntry,
  type CommandLogInput,
  type Store,
  type StoreStats,
  type StoredRecord,
  type StoredWrite,
  type StreamCheck,
  type Appended,
} from './store.js';

/**
 * A store that keeps everything in memory, for tests and throwaway workspaces.
 * Values are kept as JSON text, so what comes back is what a durable store would return.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory';
  /** Each record's JSON text and owner (null: workspace-wide), by collection then key. */
  #collections = new Map<string, Map<string, { json: string; owner: string | null }>>();
  /** The log, each entry's payload kept as its JSON text (parsed when read). */
  #log: (Omit<CommandLogEntry, 'payload'> & { payload: string })[] = [];
  #ids = new Set<string>();
  /** Stream -> the seq of the last command that wrote it (see `append`). */
  #streams = new Map<string, number>();
  #open = false;

  async open(): Promise<void> {
    this.#open = true;
  }

  async commit(entry: CommandLogInput, writes: readonly StoredWrite[]): Promise<void> {
    this.#assertOpen();
    if (entry.seq !== this.#log.length + 1) throw seqMismatch(entry.seq, this.#log.length);
    // A command committed without naming its streams may have written any: it counts as a write to the workspace stream, which every append reads.
    this.#commit(entry, writes, [WORKSPACE_STREAM]);
  }

  async append(entry: CommandLogInput, writes: readonly StoredWrite[], check: StreamCheck): Promise<Appended> {
    this.#assertOpen();
    const last = this.#log.length;
    const conflict = streamConflict(check, last, (stream) => this.#streams.get(stream) ?? 0);
    if (conflict !== undefined) throw conflict;
    const seq = last + 1;
    this.#commit({ ...entry, seq }, seq === entry.seq ? writes : stampWrites(writes, seq), check.write);
    // The log keeps no writes: what came between is read again by the caller (a rebuild), unless nothing did.
    return last === check.since ? { seq, before: [] } : { seq };
  }

  #commit(entry: CommandLogInput, writes: readonly StoredWrite[], streams: readonly string[]): void {
    if (this.#ids.has(entry.id)) throw duplicateCommand(entry.id);
    // Check everything first: a write that cannot be stored fails the whole commit.
    for (const w of writes) assertStorable(w);
    // A record never changes owner: a put that would give it to another session is refused before anything is written.
    const owners = new Map<string, string | null | undefined>();
    for (const w of writes) {
      const id = `${w.collection}\u0000${w.key}`;
      const before = owners.has(id) ? owners.get(id) : this.#collections.get(w.collection)?.get(w.key)?.owner;
      if (w.op === 'put' && before !== undefined && before !== (w.owner ?? null)) throw ownerConflict(w.collection, w.key);
      owners.set(id, w.op === 'put' ? (w.owner ?? null) : undefined);
    }
    const logged = { ...entry, payload: encode(entry.payload) };
    for (const w of writes) {
      let collection = this.#collections.get(w.collection);
      if (collection === undefined) this.#collections.set(w.collection, (collection = new Map<string, { json: string; owner: string | null }>()));
      if (w.op === 'put') collection.set(w.key, { json: w.json, owner: w.owner ?? null });
      else collection.delete(w.key);
    }
    this.#log.push(logged);
    this.#ids.add(entry.id);
    for (const stream of streams) this.#streams.set(stream, entry.seq);
  }

  async lastSeq(): Promise<number> {
    this.#assertOpen();
    return this.#log.length;
  }

  async load(): Promise<StoredRecord[]> {
    this.#assertOpen();
    const records: StoredRecord[] = [];
    for (const [collection, entries] of this.#collections) {
      for (const [key, { json }] of entries) records.push({ collection, key, value: JSON.parse(json) });
    }
    return records;
  }

  async loadRecords(query: { owners: readonly string[]; shared?: boolean }): Promise<{ records: StoredRecord[]; lastSeq: number }> {
    this.#assertOpen();
    const owners = new Set(query.owners);
    const records: StoredRecord[] = [];
    for (const [collection, entries] of this.#collections) {
      for (const [key, { json, owner }] of entries) {
        if (owner === null ? query.shared === true : owners.has(owner)) records.push(sizedRecord(collection, key, json));
      }
    }
    return { records, lastSeq: this.#log.length };
  }

  async get(collection: string, key: string): Promise<unknown> {
    this.#assertOpen();
    const record = this.#collections.get(collection)?.get(key);
    return record === undefined ? undefined : JSON.parse(record.json);
  }

  async commandLog(options: { after?: number; limit?: number } = {}): Promise<CommandLogEntry[]> {
    this.#assertOpen();
    const after = options.after ?? 0;
    return this.#log
      .slice(after, options.limit === undefined ? undefined : after + options.limit)
      .map((e) => ({ ...e, payload: JSON.parse(e.payload) as unknown }));
  }

  async stats(): Promise<StoreStats> {
    const records: Record<string, number> = {};
    for (const [name, entries] of this.#collections) if (entries.size > 0) records[name] = entries.size;
    return { kind: this.kind, bytes: 0, commands: this.#log.length, records, schemaVersion: 1 };
  }

  async close(): Promise<void> {
    this.#open = false;
  }

  #assertOpen(): void {
    if (!this.#open) throw new GolemError('STORE_ERROR', 'the memory store is not open');
  }
}

/** Refuses a write no store could keep (the manager never makes one; a broken caller could). */
export function assertStorable(w: StoredWrite): void {
  const fine =
    typeof w.collection === 'string' &&
    w.collection !== '' &&
    typeof w.key === 'string' &&
    (w.op === 'delete' || (w.op === 'put' && typeof w.json === 'string'));
  if (!fine) throw new GolemError('STORE_ERROR', `cannot store this write: ${JSON.stringify(w)}`);
}

/** A record read back from its JSON text, with the text's length (what a session's cache counts). */
export function sizedRecord(collection: string, key: string, json: string): StoredRecord {
  return { collection, key, value: JSON.parse(json) as unknown, size: json.length };
}

/** JSON text of a value, refusing what JSON cannot carry faithfully. */
export function encode(value: unknown): string {
  return encodeRecord(value).json;
}

/**
 * JSON text of a value, refusing what JSON cannot carry faithfully (a bigint, a function, a
 * symbol, a number that is not finite), and whether reading the text back gives the value
 * itself (`plain`): plain objects and arrays of strings, finite numbers, booleans and null,
 * with no undefined member, hole, -0 or `__proto__` key. A plain value need not be parsed
 * again to be what a store returns. One walk checks it, then the native `JSON.stringify`
 * (a replacer would take it off its fast path, about twice as slow); a value with a
 * `toJSON` is encoded the careful way.
 */
export function encodeRecord(value: unknown): { json: string; plain: boolean } {
  const walked = walk(value, 0);
  if (walked === 'careful') return { json: encodeCarefully(value), plain: false };
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (cause) {
    throw new GolemError('STORE_ERROR', `cannot store this value: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  if (json === undefined) throw new GolemError('STORE_ERROR', 'cannot store an undefined value');
  return { json, plain: walked === 'plain' };
}

/** How deep the walk goes before it leaves the rest to the careful encoder (a cycle ends there too). */
const WALK_DEPTH = 64;

/** 'plain', 'lossy' (JSON drops or changes something, harmlessly), or 'careful' (encode with the checking replacer). */
function walk(v: unknown, depth: number): 'plain' | 'lossy' | 'careful' {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return 'plain';
    case 'number':
      if (!Number.isFinite(v)) throw new GolemError('STORE_ERROR', `cannot store the number ${v}`);
      return Object.is(v, -0) ? 'lossy' : 'plain';
    case 'undefined':
      return 'lossy';
    case 'object': {
      if (v === null) return 'plain';
      if (depth > WALK_DEPTH || typeof (v as { toJSON?: unknown }).toJSON === 'function') return 'careful';
      let result: 'plain' | 'lossy' = 'plain';
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) result = 'lossy';
          const r = walk(v[i], depth + 1);
          if (r === 'careful') return r;
          if (r === 'lossy') result = r;
        }
        return result;
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) result = 'lossy';
      for (const key of Object.keys(v)) {
        if (key === '__proto__') result = 'lossy';
        const r = walk((v as Record<string, unknown>)[key], depth + 1);
        if (r === 'careful') return r;
        if (r === 'lossy') result = r;
      }
      return result;
    }
    default:
      throw new GolemError('STORE_ERROR', `cannot store a ${typeof v} value`);
  }
}

function encodeCarefully(value: unknown): string {
  const json = JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') {
      throw new GolemError('STORE_ERROR', `cannot store a ${typeof v} value`);
    }
    if (typeof v === 'number' && !Number.isFinite(v)) throw new GolemError('STORE_ERROR', `cannot store the number ${v}`);
    return v;
  });
  if (json === undefined) throw new GolemError('STORE_ERROR', 'cannot store an undefined value');
  return json;
}
