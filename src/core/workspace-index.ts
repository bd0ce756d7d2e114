/**
 * The index (seed 001 section 4.2): the in-memory read model of a workspace.
 * It is only ever changed by applying the writes a reducer produced (after the store
 * committed them), or rebuilt from the store's records; both go through `apply`, so
 * an incrementally kept index and a rebuilt one cannot disagree.
 */
import type { z } from 'zod';
import { GolemError } from './errors.js';
import type { StoredRecord, Write } from './store.js';
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
}

/**
 * A custom read projection (seed 001 section 9.4). It sees every committed change,
 * and on rebuild a `reset` followed by one change per stored record.
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

/** The read-only face of the index: what reducers, middleware and callers may see. */
export interface WorkspaceView {
  readonly meta: WorkspaceMeta | undefined;
  readonly sessions: ReadonlyMap<string, Session>;
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
  headsAt(ref: TurnRef): ReadonlySet<string>;
  forksAt(ref: TurnRef): ReadonlySet<string>;
  sessionsWithRole(role: string): ReadonlySet<string>;
  records(): Generator<StoredRecord>;
}

/** The key under which root turns (parent null) are listed as children. */
const ROOT = '';

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

  /** turn key (or ROOT) -> ids of the child nodes under that version. */
  readonly #children = new Map<string, Set<string>>();
  /** session id -> keys of the turn versions created in it. */
  readonly #createdIn = new Map<string, Set<string>>();
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

  /** Applies committed writes, in order. */
  apply(writes: readonly Write[]): void {
    for (const write of writes) {
      const previous = this.#get(write.collection, write.key);
      // Records are shared with callers (reducer results, reads): frozen, nobody can change them behind the store's back.
      const value = write.op === 'put' ? deepFreeze(write.value) : undefined;
      this.#change(write.collection, write.key, value, previous);
      for (const indexer of this.#indexers) {
        try {
          indexer.apply({ collection: write.collection, key: write.key, value, previous }, this);
        } catch (error) {
          this.onIndexerError(indexer.name, error);
        }
      }
    }
  }

  /** Discards everything and rebuilds from stored records, validating each against its collection's schema. */
  rebuild(records: readonly StoredRecord[], lastSeq: number): void {
    // Validate everything before touching anything: a corrupt record leaves the index as it was.
    const writes: Write[] = [];
    for (const record of records) {
      const schema = this.#schemas.get(record.collection);
      if (schema === undefined) {
        // A collection of an extension that is not loaded now: keep it, unvalidated, so nothing is lost.
        if (!this.collections.has(record.collection)) this.collections.set(record.collection, new Map());
        writes.push({ op: 'put', collection: record.collection, key: record.key, value: record.value });
        continue;
      }
      const parsed = schema.safeParse(record.value);
      if (!parsed.success) {
        throw new GolemError('CORRUPT_RECORD', `the stored ${record.collection} "${record.key}" does not match its schema`, {
          details: { collection: record.collection, key: record.key, issues: parsed.error.issues },
        });
      }
      writes.push({ op: 'put', collection: record.collection, key: record.key, value: parsed.data });
    }
    this.#clear();
    // Turns go last, in creation order, so every parent is known before its children.
    const turns = writes.filter((w) => w.collection === 'turn').sort((a, b) => seqOf(a) - seqOf(b));
    for (const indexer of this.#indexers) {
      try {
        indexer.reset();
      } catch (error) {
        this.onIndexerError(indexer.name, error);
      }
    }
    this.apply(writes.filter((w) => w.collection !== 'turn'));
    this.apply(turns);
    this.lastSeq = lastSeq;
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
    return this.#children.get(ref === null ? ROOT : turnKey(ref)) ?? EMPTY;
  }

  /** Keys of the turn versions created in a session. */
  createdIn(sessionId: string): ReadonlySet<string> {
    return this.#createdIn.get(sessionId) ?? EMPTY;
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
      if (node !== undefined) {
        node.versions = node.versions.filter((t) => t.version !== previous.version);
        if (node.versions.length === 0) {
          this.nodes.delete(previous.id);
          removeFrom(this.#children, previous.parent === null ? ROOT : turnKey(previous.parent), previous.id);
        }
      }
      removeFrom(this.#createdIn, previous.sessionId, key);
    }
    if (value === undefined) return;
    this.turns.set(key, value);
    let node = this.nodes.get(value.id);
    if (node === undefined) {
      node = { id: value.id, parent: value.parent, versions: [] };
      this.nodes.set(value.id, node);
      addTo(this.#children, value.parent === null ? ROOT : turnKey(value.parent), value.id);
    }
    node.versions = insertByVersion(node.versions, value);
    addTo(this.#createdIn, value.sessionId, key);
  }

  #clear(): void {
    this.meta = undefined;
    for (const map of [this.sessions, this.turns, this.nodes, this.roles, this.preferences, this.context, this.blobs]) map.clear();
    for (const map of [this.#children, this.#createdIn, this.#headsAt, this.#forksAt, this.#roleUsers]) map.clear();
    for (const entries of this.collections.values()) entries.clear();
    this.lastSeq = 0;
  }
}

const EMPTY: ReadonlySet<string> = new Set();
const NO_RECORDS: ReadonlyMap<string, never> = new Map<string, never>();

/** Freezes a JSON value and everything in it. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

function seqOf(write: Write): number {
  return write.op === 'put' ? (write.value as Turn).seq : 0;
}

function setOrDelete<V>(map: Map<string, V>, key: string, value: V | undefined): void {
  if (value === undefined) map.delete(key);
  else map.set(key, value);
}

function addTo(map: Map<string, Set<string>>, key: string, member: string): void {
  let set = map.get(key);
  if (set === undefined) map.set(key, (set = new Set()));
  set.add(member);
}

function removeFrom(map: Map<string, Set<string>>, key: string, member: string): void {
  const set = map.get(key);
  if (set === undefined) return;
  set.delete(member);
  if (set.size === 0) map.delete(key);
}

function insertByVersion(versions: Turn[], turn: Turn): Turn[] {
  const rest = versions.filter((t) => t.version !== turn.version);
  const at = rest.findIndex((t) => t.version > turn.version);
  if (at === -1) return [...rest, turn];
  return [...rest.slice(0, at), turn, ...rest.slice(at)];
}
