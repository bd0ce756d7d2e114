/**
 * Which sessions' records are in memory: the manager loads a session's records when a
 * command or a reader first needs them (with the fork ancestry it sees), and evicts the
 * least recently used past the budget. It works on the index, inside the manager's
 * serializer; the index itself knows which sessions it holds.
 */
import { GolemError } from './errors.js';
import { ALL_SESSIONS, type Command, type CommandDefinition } from './plugin.js';
import { turnKey, type Turn, type TurnRef } from './records.js';
import { historyStarts, walkAncestors } from './turn-tree.js';
import type { Store, StoredRecord } from './store.js';
import type { Scope } from './streams.js';
import { ownerOf, type WorkspaceIndex, type WorkspaceView } from './workspace-index.js';

/**
 * The memory budget of a workspace whose store loads per session (SQLite, PostgreSQL):
 * past either bound, the least recently used sessions leave memory (the store keeps them;
 * they load again when next used). A session a command is working on, or that a loaded
 * fork inherits history from, stays.
 */
export interface CacheOptions {
  /** Sessions in memory at most (default 2,000). */
  maxSessions?: number;
  /** Bytes of their records (as JSON text) at most (default 256 MiB). */
  maxBytes?: number;
}

const DEFAULT_CACHE = { maxSessions: 2_000, maxBytes: 256 * 1024 * 1024 };

/** Every record and the last seq, in one snapshot where the store has them (read apart, they could miss a commit made in between). */
async function wholeSnapshot(store: Store): Promise<{ records: StoredRecord[]; lastSeq: number }> {
  return store.snapshot !== undefined ? store.snapshot() : { records: await store.load(), lastSeq: await store.lastSeq() };
}

/** The size of a record as the cache counts it: its JSON text. */
export function recordSize(record: StoredRecord): number {
  return record.size ?? JSON.stringify(record.value).length;
}

/** What a command works on, loaded and pinned until `release`: its scope (the sessions it names, or every one). */
export interface Acquired {
  release(): void;
  scope: Scope;
}

export class SessionCache {
  readonly #index: WorkspaceIndex;
  readonly #store: Store;
  readonly #budget: Required<CacheOptions>;
  /** Brings the index up to date with the store (what other processes committed). */
  readonly #catchUp: () => Promise<unknown>;
  /** Sessions commands are working on now (session id -> how many): never evicted. */
  readonly #pinned = new Map<string, number>();
  /** Sessions read since the last turn of the event loop: a reader's synchronous reads follow its load, so these stay too. */
  readonly #recent = new Set<string>();
  /** Loaded session -> the loaded sessions whose turns its fork ancestry holds (kept while it is loaded). */
  readonly #ancestors = new Map<string, Set<string>>();
  /** Loaded sessions whose ancestry is noted. */
  readonly #noted = new Set<string>();
  /** For a fork point turn: every session holding a turn of it and its ancestry (itself included). */
  readonly #ownersAbove = new WeakMap<Turn, ReadonlySet<string>>();

  constructor(index: WorkspaceIndex, store: Store, budget: CacheOptions, catchUp: () => Promise<unknown>) {
    this.#index = index;
    this.#store = store;
    this.#catchUp = catchUp;
    this.#budget = { ...DEFAULT_CACHE, ...budget };
    for (const [name, value] of Object.entries(this.#budget)) {
      if (!Number.isInteger(value) || value < 0)
        throw new GolemError('INVALID_ARGUMENT', `cache.${name} is a whole number of at least 0, not ${String(value)}`);
    }
  }

  /** The sessions in memory and their records' size, against the budget. */
  stats(): { sessions: number; bytes: number; maxSessions: number; maxBytes: number } {
    return { sessions: this.#index.loaded.size, bytes: this.#index.loadedBytes, ...this.#budget };
  }

  /** Keeps the sessions in memory until the returned function is called (a command working on them). */
  pin(sessionIds: readonly string[]): () => void {
    for (const id of sessionIds) this.#pinned.set(id, (this.#pinned.get(id) ?? 0) + 1);
    return () => {
      for (const id of sessionIds) {
        const n = (this.#pinned.get(id) ?? 1) - 1;
        if (n === 0) this.#pinned.delete(id);
        else this.#pinned.set(id, n);
      }
    };
  }

  /**
   * Loads and pins what a command works on: the payload's session first (with its fork
   * ancestry), then those its definition names on seeing it. `release` unpins them and
   * settles the cache once the command is done.
   */
  async acquire(command: Command, definition: CommandDefinition<unknown, unknown, unknown> | undefined): Promise<Acquired> {
    const sessions = payloadSession(command);
    const unpins = [this.pin(sessions)];
    const release = () => {
      for (const unpin of unpins) unpin();
      this.settle(sessions);
    };
    try {
      await this.load(sessions.filter((id) => !this.#index.isLoaded(id)));
      const named = namedSessions(command, definition, this.#index);
      sessions.push(...named);
      unpins.push(this.pin(named));
      await this.load(named.filter((id) => !this.#index.isLoaded(id)));
    } catch (error) {
      release();
      throw error;
    }
    return {
      release,
      scope: sessions.includes(ALL_SESSIONS)
        ? { sessions: [], whole: true }
        : { sessions: [...new Set(sessions)], whole: definition?.readsEverySession === true },
    };
  }

  /**
   * After a command on these sessions: notes a fork it created (its record is written
   * now), marks them used (the caller reads them next, synchronously) and trims the cache.
   */
  settle(sessionIds: readonly string[]): void {
    this.note(sessionIds);
    this.use(sessionIds);
    this.trim();
  }

  /** Marks sessions as used now. */
  use(sessionIds: readonly string[]): void {
    for (const id of sessionIds) this.#useOne(id);
  }

  /**
   * Reads sessions' records from the store into the index (inside the serializer), with
   * the fork ancestry they see: a fork's history before its fork point belongs to the
   * session it was forked from (or that one's own ancestry), whose records load too, once,
   * shared by every fork of it.
   */
  async load(sessionIds: readonly string[]): Promise<void> {
    const loadRecords = this.#store.loadRecords?.bind(this.#store);
    if (loadRecords === undefined || sessionIds.length === 0) return;
    if (sessionIds.includes(ALL_SESSIONS)) return this.#loadAll();
    // Every session loaded here has its own fork ancestry walked: one loaded as the history of another is whole too,
    // so that a later command on it (a deletion walking up through its history) finds no gap.
    const walkers = new Set(sessionIds);
    let want = [...walkers].filter((id) => !this.#index.isLoaded(id));
    while (want.length > 0) {
      const { records, lastSeq } = await loadRecords({ owners: want });
      this.#index.addOwned(want, records, recordSize);
      for (const id of want) walkers.add(id);
      // Another process committed since this index was brought up to date: its writes to these sessions apply again
      // on top of what was just read, which changes nothing, and the rest of the index comes up to date.
      if (lastSeq > this.#index.lastSeq) await this.#catchUp();
      // Walked again every round: a history may pass through a deleted session, which has no record to walk from, so
      // the walk goes on from where the last round's load let it reach.
      const next = new Set<string>();
      for (const id of walkers) {
        const { missing } = this.#ancestry(id);
        if (missing === undefined) continue;
        const turn = (await this.#store.get('turn', turnKey(missing))) as Turn | undefined;
        if (turn !== undefined && !this.#index.isLoaded(turn.sessionId)) next.add(turn.sessionId);
      }
      want = [...next];
    }
    this.note([...walkers]);
  }

  /** Loads every session (a command that reads the whole history, such as blob:recount). */
  async #loadAll(): Promise<void> {
    const records = await this.#store.load();
    const owners = new Set<string>();
    for (const record of records) {
      const owner = ownerOf(record.collection, record.value);
      if (owner !== null && !this.#index.isLoaded(owner)) owners.add(owner);
    }
    const mine = records.filter((r) => owners.has(ownerOf(r.collection, r.value) ?? ''));
    this.#index.addOwned([...owners], mine, recordSize);
    await this.#catchUp();
    this.note([...owners]);
    this.use([...owners]);
  }

  /**
   * Walks a session's fork ancestry and the history its merges brought in (both parents of
   * every merge turn on the way) in the index: the first turn it lacks (undefined when it
   * holds all of it), and the other sessions whose turns it passes.
   */
  #ancestry(sessionId: string): { missing: TurnRef | undefined; owners: Set<string> } {
    const owners = new Set<string>();
    const session = this.#index.sessions.get(sessionId);
    if (session === undefined) return { missing: undefined, owners };
    for (const from of historyStarts(this.#index, session)) {
      const start = this.#index.turn(from);
      if (start === undefined) return { missing: from, owners };
      const known = this.#ownersAbove.get(start);
      // Known, and every session holding that ancestry still in memory (so none of it is missing).
      if (known !== undefined && [...known].every((id) => this.#index.isLoaded(id))) {
        for (const id of known) owners.add(id);
        continue;
      }
      // Turns never change: the sessions holding a fork point's (or merged turn's) ancestry are worked out once per
      // start, and a walk stops at a start already known (forks of one history fork again).
      const all = new Set<string>();
      const missing = walkAncestors(this.#index, [from], (turn) => {
        const above = turn === start ? undefined : this.#ownersAbove.get(turn);
        if (above !== undefined && [...above].every((id) => this.#index.isLoaded(id))) {
          for (const id of above) all.add(id);
          return false;
        }
        all.add(turn.sessionId);
        return true;
      });
      for (const id of all) owners.add(id);
      if (missing !== undefined) return { missing, owners: without(owners, sessionId) };
      this.#ownersAbove.set(start, all);
    }
    return { missing: undefined, owners: without(owners, sessionId) };
  }

  /**
   * Notes which loaded sessions hold the fork ancestry of these loaded sessions: those stay
   * in memory while they do. Once per session, when its record exists (a fork is loaded by
   * the command that creates it, before its record is written).
   */
  note(sessionIds: readonly string[]): void {
    for (const id of sessionIds) {
      if (this.#noted.has(id) || !this.#index.isLoaded(id) || !this.#index.sessions.has(id)) continue;
      const { owners } = this.#ancestry(id);
      if (owners.size > 0) this.#ancestors.set(id, owners);
      this.#noted.add(id);
    }
  }

  /** Marks a session as used now: the last the cache evicts, and kept until the event loop turns. */
  #useOne(sessionId: string): void {
    this.#index.touch(sessionId);
    if (this.#recent.size === 0) setImmediate(() => this.#recent.clear());
    this.#recent.add(sessionId);
  }

  /** Evicts the least recently used sessions until the cache is within its budget (never one in use or inherited from). */
  trim(): void {
    const { maxSessions, maxBytes } = this.#budget;
    const loaded = this.#index.loaded;
    if (loaded.size <= maxSessions && this.#index.loadedBytes <= maxBytes) return;
    const inherited = new Set<string>();
    for (const [id, owners] of this.#ancestors) if (loaded.has(id)) for (const owner of owners) inherited.add(owner);
    for (const id of [...loaded.keys()]) {
      if (loaded.size <= maxSessions && this.#index.loadedBytes <= maxBytes) return;
      if (this.#pinned.has(id) || this.#recent.has(id) || inherited.has(id)) continue;
      this.#index.evict(id);
      this.#ancestors.delete(id);
      this.#noted.delete(id);
    }
  }

  /**
   * Rebuilds the index from the store: the workspace-wide records and those of the
   * sessions loaded now, in one snapshot where the store has them (records and last seq
   * read apart could miss a commit made in between).
   */
  async reread(): Promise<void> {
    const loaded = this.#index.loaded;
    const store = this.#store;
    const { records, lastSeq } =
      store.loadRecords !== undefined ? await store.loadRecords({ owners: [...loaded.keys()], shared: true }) : await wholeSnapshot(store);
    const sizes = new Map([...loaded.keys()].map((id) => [id, 0]));
    for (const record of records) {
      const owner = ownerOf(record.collection, record.value);
      if (owner !== null && sizes.has(owner)) sizes.set(owner, (sizes.get(owner) as number) + recordSize(record));
    }
    this.#index.rebuild(records, lastSeq, sizes);
  }

  /** Every record of the workspace read into a read model of its own (for checks; not kept). */
  async readWhole(): Promise<WorkspaceIndex> {
    const index = this.#index.blank();
    const store = this.#store;
    const { records, lastSeq } = await wholeSnapshot(store);
    index.rebuild(records, lastSeq);
    return index;
  }
}

/** The session a command's payload names (`sessionId`), loaded before anything else. */
function payloadSession(command: Command): string[] {
  const payload = command.payload as { sessionId?: unknown } | null;
  return typeof payload === 'object' && payload !== null && typeof payload.sessionId === 'string' ? [payload.sessionId] : [];
}

/** The other sessions a command's definition names (read once the payload's session is loaded). */
function namedSessions(command: Command, definition: CommandDefinition<unknown, unknown, unknown> | undefined, view: WorkspaceView): string[] {
  try {
    return (definition?.sessions?.(command.payload, view) ?? []).filter((id) => typeof id === 'string');
  } catch {
    return []; // a payload the definition cannot read: its reducer refuses it
  }
}

/** `set` without `id`, as a new set. */
function without(set: ReadonlySet<string>, id: string): Set<string> {
  const out = new Set(set);
  out.delete(id);
  return out;
}
