/**
 * How a process follows what the others commit to a workspace it shares with them: it hears
 * of their commits (the store's `subscribe`), catches up from the log (`changes`), applies
 * their writes to what it holds, and rebuilds from the store where that is not enough. It
 * works on the index, inside the manager's serializer.
 */
import type { Serializer } from './serializer.js';
import type { SessionCache } from './session-cache.js';
import type { Store, StoreChange, StoredWrite, Write } from './store.js';
import type { WorkspaceIndex } from './workspace-index.js';

/** How long a busy process's catch-up waits after hearing of another process's commit, for a command of its own to bring it first. */
const CATCH_UP_DELAY_MS = 2;

/** What a follower tells the workspace: the index changed under its readers (in `collections`, or anywhere), or a catch-up failed. */
export interface FollowerReports {
  rebuilt(event: { lastSeq: number; collections?: string[] }): void;
  failed(error: unknown): void;
}

export class Follower {
  readonly #index: WorkspaceIndex;
  readonly #store: Store;
  readonly #cache: SessionCache;
  readonly #report: FollowerReports;
  readonly #serializer: Serializer;
  /** Whether the workspace is closing or closed: nothing is read then. */
  readonly #closed: () => boolean;
  /** The highest seq another process was heard to commit (NaN: some may have been missed), and whether a catch-up for it is due. */
  #heard = 0;
  #due = false;

  constructor(parts: { index: WorkspaceIndex; store: Store; cache: SessionCache; report: FollowerReports; serializer: Serializer; closed: () => boolean }) {
    this.#index = parts.index;
    this.#store = parts.store;
    this.#cache = parts.cache;
    this.#report = parts.report;
    this.#serializer = parts.serializer;
    this.#closed = parts.closed;
  }

  /**
   * Another process committed `seq` (NaN: some commits may have been missed, so look). An idle process catches up at
   * once; a busy one shortly, unless a command of its own brings the index up to date first (an append hands back what
   * came before it), so a process that commits all the time reads no more than it writes.
   */
  hear(seq: number): void {
    if (this.#closed() || seq <= this.#index.lastSeq) return;
    this.#heard = Number.isNaN(seq) || Number.isNaN(this.#heard) ? Number.NaN : Math.max(this.#heard, seq);
    if (this.#due) return;
    this.#due = true;
    const look = () => {
      this.#serializer
        .run(async () => {
          this.#due = false;
          const behind = Number.isNaN(this.#heard) || this.#heard > this.#index.lastSeq;
          this.#heard = 0;
          return behind && !this.#closed() ? this.catchUp() : false;
        })
        .catch((error: unknown) => this.#report.failed(error));
    };
    if (this.#serializer.busy) setTimeout(look, CATCH_UP_DELAY_MS).unref();
    else look();
  }

  /**
   * Applies what other processes committed since the index's last seq: their writes, one command at a time,
   * where the store keeps them; else a rebuild. Resolves with whether anything was new.
   */
  async catchUp(): Promise<boolean> {
    if (this.#store.changes === undefined) {
      if ((await this.#store.lastSeq()) === this.#index.lastSeq) return false;
      await this.rebuild();
      return true;
    }
    const changes = await this.#store.changes(this.#index.lastSeq);
    if (changes.length === 0) return false;
    await this.apply(changes);
    return true;
  }

  /**
   * Applies other processes' commits that follow the index's last seq, one at a time, to what this process holds.
   * Where one does not follow on, or does not apply here, the index is rebuilt from the store instead (resolves true:
   * the index is then up to date with the store, whatever came after these).
   */
  async apply(changes: readonly StoreChange[]): Promise<boolean> {
    const index = this.#index;
    const collections = new Set(changes.flatMap((c) => c.writes.map((w) => w.collection)));
    for (const change of changes) {
      if (change.seq <= index.lastSeq) continue; // applied already
      if (change.seq !== index.lastSeq + 1) return (await this.rebuild(), true);
      // A write to a collection this process does not know (another process has an extension this one lacks), or one
      // that does not apply: a rebuild keeps such collections as they are, and is the truth either way.
      if (change.writes.some((w) => !index.hasCollection(w.collection))) return (await this.rebuild(), true);
      try {
        // A session not loaded here is left to the store: its records are read when it is next used.
        const held = change.writes.filter((w) => w.op === 'delete' || w.owner == null || index.isLoaded(w.owner));
        index.apply(held.map((w) => (w.op === 'put' ? { op: 'put', collection: w.collection, key: w.key, value: JSON.parse(w.json) as unknown } : w)));
        for (const w of held) if (w.op === 'put' && w.owner != null) index.grow(w.owner, w.json.length);
      } catch {
        return (await this.rebuild(), true);
      }
      index.lastSeq = change.seq;
    }
    this.#report.rebuilt({ lastSeq: index.lastSeq, collections: [...collections] });
    return false;
  }

  /**
   * Brings the index up to a command this process committed at `seq` (`stored`, parsed as
   * `applied`): what other processes committed before it (on other streams) first, handed
   * back by the store or else read now, this command's own included; then its own writes.
   */
  async committed(seq: number, stored: readonly StoredWrite[], applied: readonly Write[], before: readonly StoreChange[] | undefined): Promise<void> {
    const index = this.#index;
    const upToDate = before === undefined ? (await this.catchUp(), true) : before.length > 0 && (await this.apply(before));
    if (upToDate || index.lastSeq >= seq) return;
    index.apply(applied);
    index.lastSeq = seq;
    for (const w of stored) if (w.op === 'put' && w.owner != null) index.grow(w.owner, w.json.length);
  }

  /** Rebuilds the index from the store: the workspace-wide records and the loaded sessions'. */
  async rebuild(): Promise<void> {
    await this.#cache.reread();
    this.#report.rebuilt({ lastSeq: this.#index.lastSeq });
  }
}
