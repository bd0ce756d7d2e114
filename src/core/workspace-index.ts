/**
 * The index (seed 001 section 4.2): the in-memory read model of a workspace.
 * It is only ever changed by applying the writes a reducer produced (after the store
 * committed them), or rebuilt from the store's records; both go through `apply`, so
 * an incrementally kept index and a rebuilt one cannot disagree.
 */
import type { z } from 'zod';
import { GolemError } from './errors.js';
import type { StoredRecord, Write } from './store.js';
import { addTo, deepFreeze, insertByVersion, removeFrom, seqOf, setOrDelete, validatedPuts } from './index-tables.js';
import { TurnLinks } from './turn-links.js';
import {
  CORE_COLLECTIONS,
  turnKey,
  WORKSPACE_KEY,
  type BlobRecord,
  type ContextEntry,
  type Preference,
  type Role,
  type Session,
  type Turn,
  type TurnRef,
  type WorkspaceMeta,
} from './records.js';

/** A stable slot in the conversation graph, holding its immutable versions. */
export interface TurnNode {
  readonly id: string;
  readonly parent: TurnRef | null;
  /** Versions, ascending by version number. */
  readonly versions: readonly Turn[];
}

/** One change as an indexer sees it: the record before and after (undefined = absent). */
export interface IndexChange {
  collection: string;
  key: string;
  value: unknown;
  previous: unknown;
  /**
   * Set when no command changed the record: a session's records came into memory
   * (`'load'`, previous undefined) or left it to keep the cache within its budget
   * (`'evict'`, value undefined). The store holds them either way.
   */
  cache?: 'load' | 'evict';
}

/**
 * A custom read projection (seed 001 section 9.4). It sees every committed change to the
 * records in memory, and on rebuild a `reset` followed by one change per record. On a
 * store that loads per session (SQLite, PostgreSQL) that is the workspace-wide records
 * and the sessions loaded: a session's records arrive when it is first used and may leave
 * again (`change.cache`).
 */
export interface Indexer {
  readonly name: string;
  reset(): void;
  apply(change: IndexChange, index: WorkspaceView): void;
}

/**
 * The record type of each extension collection, by collection name. An extension
 * declares its collections here by declaration merging, as it declares its commands in
 * `CommandMap`; `view.collection(name)` then reads them typed, with no cast, and
 * `WorkspaceExtension.collections` checks that each declared name gets a schema of that type.
 *
 * @example
 * export const Note = z.strictObject({ id: z.string(), text: z.string() });
 * export type Note = z.infer<typeof Note>;
 * declare module 'golem' {
 *   interface CollectionMap { note: Note }
 * }
 * ws.manager.workspace().collection('note').get(id); // Note | undefined
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CollectionMap {}

/** The name of an extension collection declared in `CollectionMap`. */
export type CollectionName = Extract<keyof CollectionMap, string>;

/**
 * The read-only face of the index: what reducers, middleware and callers may see.
 *
 * Every workspace-wide record is here (meta, sessions, roles, preferences, context,
 * blobs, extension collections). A session's own records (its turns) are here once the
 * session is loaded: the manager loads the sessions a command names before its reducer
 * runs, and `manager.load(ids)` loads them for a reader. `turns`, `node`, `childrenOf`
 * and `createdIn` see the loaded sessions and their fork ancestry, not the whole workspace.
 */
export interface WorkspaceView {
  readonly meta: WorkspaceMeta | undefined;
  readonly sessions: ReadonlyMap<string, Session>;
  /** The turn versions of the loaded sessions (and of their fork ancestry), by `id@version`. */
  readonly turns: ReadonlyMap<string, Turn>;
  readonly roles: ReadonlyMap<string, Role>;
  readonly preferences: ReadonlyMap<string, Preference>;
  readonly context: ReadonlyMap<string, ContextEntry>;
  readonly blobs: ReadonlyMap<string, BlobRecord>;
  /** Every extension collection's records, by collection name then key, untyped (see `collection` for a typed read). */
  readonly collections: ReadonlyMap<string, ReadonlyMap<string, unknown>>;
  /**
   * The records of an extension collection declared in `CollectionMap`, by key, typed by
   * the collection's name (empty when the workspace holds none of them).
   */
  collection<K extends CollectionName>(name: K): ReadonlyMap<string, CollectionMap[K]>;
  readonly lastSeq: number;
  turn(ref: TurnRef): Turn | undefined;
  /** The turn's parent turn (undefined for a root): `turn(t.parent)`, without building its key on the prompt's hot path. */
  parentOf(turn: Turn): Turn | undefined;
  node(id: string): TurnNode | undefined;
  childrenOf(ref: TurnRef | null): ReadonlySet<string>;
  createdIn(sessionId: string): ReadonlySet<string>;
  /** Keys of the merge turns whose `merge.from` is `ref` (its second-parent children). */
  mergedInto(ref: TurnRef): ReadonlySet<string>;
  /** Keys of the merge turns created in a session. */
  mergesIn(sessionId: string): ReadonlySet<string>;
  headsAt(ref: TurnRef): ReadonlySet<string>;
  forksAt(ref: TurnRef): ReadonlySet<string>;
  sessionsWithRole(role: string): ReadonlySet<string>;
  /** Whether a session's records are in memory (always true on a store that loads whole). */
  isLoaded(sessionId: string): boolean;
  /** Every record in memory, as the store would list it. */
  records(): Generator<StoredRecord>;
}

/** The session a record belongs to (its `sessionId`: a turn's, a run's kept events'), or null for a workspace-wide record. */
export function ownerOf(collection: string, value: unknown): string | null {
  return collection === 'turn' || collection === 'run_event' ? (value as { sessionId: string }).sessionId : null;
}

export class WorkspaceIndex implements WorkspaceView {
  meta: WorkspaceMeta | undefined;
  /** Parent links already looked up (turns are immutable; cleared when one is removed or replaced). */
  #parents = new WeakMap<Turn, Turn>();
  readonly sessions = new Map<string, Session>();
  /** Every stored turn version, by `id@version`. */
  readonly turns = new Map<string, Turn>();
  readonly nodes = new Map<string, { id: string; parent: TurnRef | null; versions: Turn[] }>();
  readonly roles = new Map<string, Role>();
  readonly preferences = new Map<string, Preference>();
  readonly context = new Map<string, ContextEntry>();
  readonly blobs = new Map<string, BlobRecord>();
  /** Records of extension collections. */
  readonly collections = new Map<string, Map<string, unknown>>();
  /** The seq of the last command-log entry this index reflects. */
  lastSeq = 0;
  /**
   * Whether a session's records are here only once loaded (the store has `loadRecords`).
   * False: every record is here, and every session counts as loaded.
   */
  lazy = false;
  /** The loaded sessions, least recently used first, each with its records' size (bytes of JSON text). */
  readonly #loaded = new Map<string, number>();
  #loadedBytes = 0;

  /** Child nodes, the versions each session created, merges. */
  readonly #links = new TurnLinks();
  /** turn key -> ids of the sessions whose head is there. */
  readonly #headsAt = new Map<string, Set<string>>();
  /** turn key -> ids of the sessions forked there. */
  readonly #forksAt = new Map<string, Set<string>>();
  /** role name -> ids of the sessions using it. */
  readonly #roleUsers = new Map<string, Set<string>>();
  readonly #indexers: Indexer[] = [];
  /** Where a failing custom indexer is reported (it never stops the index). */
  onIndexerError: (indexer: string, error: unknown) => void = () => undefined;
  readonly #schemas = new Map<string, z.ZodType>(Object.entries(CORE_COLLECTIONS));

  /** Registers the schema of an extension collection, validated on rebuild. */
  defineCollection(name: string, schema: z.ZodType): void {
    if (this.#schemas.has(name)) throw new GolemError('EXTENSION_CONFLICT', `the collection "${name}" is already defined`);
    this.#schemas.set(name, schema);
    // Records of this collection may have been loaded before the extension was registered: keep them.
    if (!this.collections.has(name)) this.collections.set(name, new Map());
  }

  /** An empty index that knows the same collections (no indexers): to build a second read model beside this one. */
  blank(): WorkspaceIndex {
    const index = new WorkspaceIndex();
    for (const [name, schema] of this.#schemas) if (!index.hasCollection(name)) index.defineCollection(name, schema);
    return index;
  }

  collection<K extends CollectionName>(name: K): ReadonlyMap<string, CollectionMap[K]> {
    // The one place a collection's records meet their declared type: the extension that declared the name
    // registered its schema, which rebuilds validate against and its reducers write.
    return (this.collections.get(name) ?? NO_RECORDS) as ReadonlyMap<string, CollectionMap[K]>;
  }

  hasCollection(name: string): boolean {
    return this.#schemas.has(name);
  }

  addIndexer(indexer: Indexer): void {
    if (this.#indexers.some((i) => i.name === indexer.name)) {
      throw new GolemError('EXTENSION_CONFLICT', `an indexer named "${indexer.name}" is already registered`);
    }
    indexer.reset();
    for (const record of this.records()) indexer.apply({ ...record, previous: undefined }, this);
    this.#indexers.push(indexer);
  }

  isLoaded(sessionId: string): boolean {
    return !this.lazy || this.#loaded.has(sessionId);
  }

  /** The loaded sessions, least recently used first, with the size of their records (bytes of JSON). */
  get loaded(): ReadonlyMap<string, number> {
    return this.#loaded;
  }

  /** The size of every loaded session's records, in bytes of JSON. */
  get loadedBytes(): number {
    return this.#loadedBytes;
  }

  /** Marks a loaded session as just used (the last the cache evicts). */
  touch(sessionId: string): void {
    const bytes = this.#loaded.get(sessionId);
    if (bytes === undefined) return;
    this.#loaded.delete(sessionId);
    this.#loaded.set(sessionId, bytes);
  }

  /**
   * Adds the records of sessions just read from the store, validated first (a corrupt
   * record adds nothing), and marks the sessions loaded. A record of another owner in
   * `records` is refused: the store returned what was not asked for.
   */
  addOwned(sessionIds: readonly string[], records: readonly StoredRecord[], sizeOf: (record: StoredRecord) => number): void {
    const wanted = new Set(sessionIds.filter((id) => !this.#loaded.has(id)));
    const writes = this.#validated(records);
    const sizes = new Map<string, number>([...wanted].map((id) => [id, 0]));
    for (const [n, write] of writes.entries()) {
      const owner = ownerOf(write.collection, (write as { value: unknown }).value);
      if (owner === null || !sizes.has(owner)) {
        throw new GolemError(
          'STORE_ERROR',
          `the store returned the ${write.collection} "${write.key}" of ${owner ?? 'the workspace'} when asked for sessions' records`,
        );
      }
      sizes.set(owner, (sizes.get(owner) as number) + sizeOf(records[n] as StoredRecord));
    }
    for (const [id, bytes] of sizes) {
      this.#loaded.set(id, bytes);
      this.#loadedBytes += bytes;
    }
    this.#applyAll(writes, 'load');
  }

  /** Counts bytes a command added to a loaded session's records. */
  grow(sessionId: string, bytes: number): void {
    const now = this.#loaded.get(sessionId);
    if (now === undefined) return;
    this.#loaded.set(sessionId, now + bytes);
    this.#loadedBytes += bytes;
  }

  /** Drops a loaded session's records from memory (the store keeps them); it loads again when next used. */
  evict(sessionId: string): void {
    const bytes = this.#loaded.get(sessionId);
    if (bytes === undefined) return;
    const writes: Write[] = [...this.createdIn(sessionId)].map((key) => ({ op: 'delete', collection: 'turn', key }));
    for (const [key, value] of this.collections.get('run_event') ?? [])
      if ((value as { sessionId?: unknown }).sessionId === sessionId) writes.push({ op: 'delete', collection: 'run_event', key });
    this.#apply(writes, 'evict');
    this.#loaded.delete(sessionId);
    this.#loadedBytes -= bytes;
  }

  /** Applies committed writes, in order. A record of a session that is not loaded is left to the store. */
  apply(writes: readonly Write[]): void {
    this.#apply(writes);
  }

  #apply(writes: readonly Write[], cache?: 'load' | 'evict'): void {
    for (const write of writes) {
      if (this.lazy && write.op === 'put' && cache === undefined) {
        const owner = ownerOf(write.collection, write.value);
        if (owner !== null && !this.#loaded.has(owner)) continue;
      }
      const previous = this.#get(write.collection, write.key);
      // Records are shared with callers (reducer results, reads): frozen, nobody can change them behind the store's back.
      const value = write.op === 'put' ? deepFreeze(write.value) : undefined;
      this.#change(write.collection, write.key, value, previous);
      for (const indexer of this.#indexers) {
        try {
          indexer.apply({ collection: write.collection, key: write.key, value, previous, ...(cache !== undefined && { cache }) }, this);
        } catch (error) {
          this.onIndexerError(indexer.name, error);
        }
      }
    }
  }

  /**
   * Discards everything and rebuilds from stored records, validating each against its
   * collection's schema. `loaded`: on a lazy index, the sessions whose records are among
   * them (with their sizes), which stay loaded.
   */
  rebuild(records: readonly StoredRecord[], lastSeq: number, loaded: ReadonlyMap<string, number> = new Map()): void {
    // Validate everything before touching anything: a corrupt record leaves the index as it was.
    const writes = this.#validated(records);
    this.#clear();
    for (const [id, bytes] of loaded) {
      this.#loaded.set(id, bytes);
      this.#loadedBytes += bytes;
    }
    for (const indexer of this.#indexers) {
      try {
        indexer.reset();
      } catch (error) {
        this.onIndexerError(indexer.name, error);
      }
    }
    this.#applyAll(writes);
    this.lastSeq = lastSeq;
  }

  /** Applies puts of stored records, turns last in creation order so every parent is known before its children. */
  #applyAll(writes: readonly Write[], cache?: 'load'): void {
    const turns = writes.filter((w) => w.collection === 'turn').sort((a, b) => seqOf(a) - seqOf(b));
    this.#apply(
      writes.filter((w) => w.collection !== 'turn'),
      cache,
    );
    this.#apply(turns, cache);
  }

  /** Stored records as puts, each validated against its collection's schema (CORRUPT_RECORD at the first that fails). */
  #validated(records: readonly StoredRecord[]): Write[] {
    const writes = validatedPuts(records, (collection) => this.#schemas.get(collection));
    // A collection of an extension that is not registered now: its records are kept, unvalidated, so nothing is lost.
    for (const w of writes) if (!this.#schemas.has(w.collection) && !this.collections.has(w.collection)) this.collections.set(w.collection, new Map());
    return writes;
  }

  /** Every record the index holds, as the store would list it. */
  *records(): Generator<StoredRecord> {
    if (this.meta !== undefined) yield { collection: 'workspace', key: WORKSPACE_KEY, value: this.meta };
    for (const [key, value] of this.sessions) yield { collection: 'session', key, value };
    for (const [key, value] of this.turns) yield { collection: 'turn', key, value };
    for (const [key, value] of this.roles) yield { collection: 'role', key, value };
    for (const [key, value] of this.preferences) yield { collection: 'preference', key, value };
    for (const [key, value] of this.context) yield { collection: 'context', key, value };
    for (const [key, value] of this.blobs) yield { collection: 'blob', key, value };
    for (const [collection, entries] of this.collections) {
      for (const [key, value] of entries) yield { collection, key, value };
    }
  }

  // ---- DAG reads -------------------------------------------------------------

  turn(ref: TurnRef): Turn | undefined {
    return this.turns.get(turnKey(ref));
  }

  parentOf(turn: Turn): Turn | undefined {
    if (turn.parent === null) return undefined;
    let parent = this.#parents.get(turn);
    if (parent === undefined) {
      parent = this.turns.get(turnKey(turn.parent));
      if (parent !== undefined) this.#parents.set(turn, parent);
    }
    return parent;
  }

  node(id: string): TurnNode | undefined {
    return this.nodes.get(id);
  }

  /** Ids of the nodes whose parent is `ref` (null: the root nodes). */
  childrenOf(ref: TurnRef | null): ReadonlySet<string> {
    return this.#links.childrenOf(ref);
  }

  /** Keys of the turn versions created in a session. */
  createdIn(sessionId: string): ReadonlySet<string> {
    return this.#links.createdIn(sessionId);
  }

  mergedInto(ref: TurnRef): ReadonlySet<string> {
    return this.#links.mergedInto(ref);
  }

  mergesIn(sessionId: string): ReadonlySet<string> {
    return this.#links.mergesIn(sessionId);
  }

  /** Ids of the sessions whose head is at `ref`. */
  headsAt(ref: TurnRef): ReadonlySet<string> {
    return this.#headsAt.get(turnKey(ref)) ?? EMPTY;
  }

  /** Ids of the sessions forked at `ref`. */
  forksAt(ref: TurnRef): ReadonlySet<string> {
    return this.#forksAt.get(turnKey(ref)) ?? EMPTY;
  }

  /** Ids of the sessions that use a role. */
  sessionsWithRole(role: string): ReadonlySet<string> {
    return this.#roleUsers.get(role) ?? EMPTY;
  }

  // ---- internals -------------------------------------------------------------

  #get(collection: string, key: string): unknown {
    switch (collection) {
      case 'workspace':
        return this.meta;
      case 'session':
        return this.sessions.get(key);
      case 'turn':
        return this.turns.get(key);
      case 'role':
        return this.roles.get(key);
      case 'preference':
        return this.preferences.get(key);
      case 'context':
        return this.context.get(key);
      case 'blob':
        return this.blobs.get(key);
      default:
        return this.collections.get(collection)?.get(key);
    }
  }

  #change(collection: string, key: string, value: unknown, previous: unknown): void {
    switch (collection) {
      case 'workspace':
        this.meta = value as WorkspaceMeta | undefined;
        return;
      case 'session':
        this.#changeSession(key, value as Session | undefined, previous as Session | undefined);
        return;
      case 'turn':
        this.#changeTurn(key, value as Turn | undefined, previous as Turn | undefined);
        return;
      case 'role':
        return setOrDelete(this.roles, key, value as Role | undefined);
      case 'preference':
        return setOrDelete(this.preferences, key, value as Preference | undefined);
      case 'context':
        return setOrDelete(this.context, key, value as ContextEntry | undefined);
      case 'blob':
        return setOrDelete(this.blobs, key, value as BlobRecord | undefined);
      default: {
        const entries = this.collections.get(collection);
        if (entries === undefined) throw new GolemError('INTERNAL', `write to the unknown collection "${collection}"`);
        setOrDelete(entries, key, value);
      }
    }
  }

  #changeSession(key: string, value: Session | undefined, previous: Session | undefined): void {
    if (previous !== undefined) {
      if (previous.head !== null) removeFrom(this.#headsAt, turnKey(previous.head), key);
      if (previous.forkedFrom !== null) removeFrom(this.#forksAt, turnKey(previous.forkedFrom.turn), key);
      if (previous.role !== null) removeFrom(this.#roleUsers, previous.role, key);
    }
    setOrDelete(this.sessions, key, value);
    if (value !== undefined) {
      if (value.head !== null) addTo(this.#headsAt, turnKey(value.head), key);
      if (value.forkedFrom !== null) addTo(this.#forksAt, turnKey(value.forkedFrom.turn), key);
      if (value.role !== null) addTo(this.#roleUsers, value.role, key);
    }
  }

  #changeTurn(key: string, value: Turn | undefined, previous: Turn | undefined): void {
    if (previous !== undefined) {
      // A turn removed or replaced: links found before may point at it.
      this.#parents = new WeakMap();
      this.turns.delete(key);
      const node = this.nodes.get(previous.id);
      if (node !== undefined) node.versions = node.versions.filter((t) => t.version !== previous.version);
      if (node?.versions.length === 0) this.nodes.delete(previous.id);
      this.#links.remove(key, previous, node?.versions.length === 0);
    }
    if (value === undefined) return;
    this.turns.set(key, value);
    const node = this.nodes.get(value.id) ?? { id: value.id, parent: value.parent, versions: [] };
    this.#links.add(key, value, node.versions.length === 0);
    node.versions = insertByVersion(node.versions, value);
    this.nodes.set(value.id, node);
  }

  #clear(): void {
    this.meta = undefined;
    for (const map of [this.sessions, this.turns, this.nodes, this.roles, this.preferences, this.context, this.blobs]) map.clear();
    for (const map of [this.#headsAt, this.#forksAt, this.#roleUsers, this.#links]) map.clear();
    for (const entries of this.collections.values()) entries.clear();
    this.#loaded.clear();
    this.#loadedBytes = 0;
    this.lastSeq = 0;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
const NO_RECORDS: ReadonlyMap<string, never> = new Map<string, never>();
