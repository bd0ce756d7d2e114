import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import Database from 'better-sqlite3';
import { GolemError } from '../core/errors.js';
import { encode, sizedRecord } from '../core/memory-store.js';
import { duplicateCommand, ownerConflict, seqMismatch } from '../core/store-errors.js';
import { planCompaction } from '../core/retention/log-compaction.js';
import { SQLITE_MIGRATIONS, type Migration } from './sqlite-migrations.js';
import type { CommandLogEntry, CommandLogInput, Store, StoreStats, StoredRecord, StoredWrite } from '../core/store.js';

/** How hard a commit works to survive a crash. */
export type Durability =
  /** fsync on every commit: a committed command survives power loss. The default. */
  | 'full'
  /** fsync at WAL checkpoints: survives a process crash, may lose the last commits on power loss. */
  | 'normal';

export interface SqliteStoreOptions {
  /** The database file; created with its folder if missing. `:memory:` for a private in-memory database. */
  path: string;
  durability?: Durability;
  /** How long a commit waits for another process's write lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

interface LogRow {
  seq: number;
  id: string;
  type: string;
  payload: string;
  actor: string | null;
  timestamp: string;
}

/**
 * The embedded store: one SQLite file in WAL mode (better-sqlite3), one transaction
 * per command, versioned migrations.
 */
export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly path: string;
  readonly #durability: Durability;
  readonly #busyTimeoutMs: number;
  #db: BetterSqlite3.Database | undefined;
  #statements: ReturnType<SqliteStore['prepare']> | undefined;
  #commitTx: ((entry: CommandLogInput, payload: string, writes: readonly StoredWrite[]) => void) | undefined;

  constructor(options: SqliteStoreOptions) {
    this.path = options.path;
    this.#durability = options.durability ?? 'full';
    this.#busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  }

  async open(): Promise<void> {
    if (this.#db !== undefined) return;
    let db: BetterSqlite3.Database;
    try {
      if (this.path !== ':memory:') mkdirSync(dirname(this.path), { recursive: true });
      db = new Database(this.path);
      db.pragma('journal_mode = WAL');
      db.pragma(`synchronous = ${this.#durability === 'full' ? 'FULL' : 'NORMAL'}`);
      db.pragma(`busy_timeout = ${this.#busyTimeoutMs}`);
      db.pragma('foreign_keys = ON');
    } catch (cause) {
      throw new GolemError('STORE_ERROR', `cannot open the SQLite database at ${this.path}: ${message(cause)}`, { cause });
    }
    try {
      migrate(db, SQLITE_MIGRATIONS);
    } catch (error) {
      db.close();
      throw error;
    }
    this.#db = db;
    this.#statements = this.prepare(db);
    const s = this.#statements;
    this.#commitTx = db.transaction((entry: CommandLogInput, payload: string, writes: readonly StoredWrite[]) => {
      const last = s.lastSeq.get()?.seq ?? 0;
      if (entry.seq !== last + 1) throw seqMismatch(entry.seq, last);
      s.appendLog.run(entry.seq, entry.id, entry.type, payload, entry.actor, entry.timestamp);
      for (const w of writes) {
        // A key another owner holds is not taken over: the upsert changes no row, and the commit is refused.
        if (w.op === 'put') {
          if (s.put.run(w.collection, w.key, w.json, w.owner ?? null).changes === 0) throw ownerConflict(w.collection, w.key);
        } else if (w.op === 'delete') s.delete.run(w.collection, w.key);
        else throw new GolemError('STORE_ERROR', `unknown write op ${JSON.stringify(w)}`);
      }
    });
  }

  private prepare(db: BetterSqlite3.Database) {
    return {
      appendLog: db.prepare<[number, string, string, string, string | null, string]>(
        'INSERT INTO command_log (seq, id, type, payload, actor, timestamp) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      lastSeq: db.prepare<[], { seq: number }>('SELECT max(seq) AS seq FROM command_log'),
      put: db.prepare<[string, string, string, string | null]>(
        'INSERT INTO records (collection, key, value, owner) VALUES (?, ?, ?, ?) ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value WHERE records.owner IS excluded.owner',
      ),
      delete: db.prepare<[string, string]>('DELETE FROM records WHERE collection = ? AND key = ?'),
      get: db.prepare<[string, string], { value: string }>('SELECT value FROM records WHERE collection = ? AND key = ?'),
      load: db.prepare<[], { collection: string; key: string; value: string }>('SELECT collection, key, value FROM records ORDER BY rowid'),
      loadShared: db.prepare<[], { collection: string; key: string; value: string }>(
        'SELECT collection, key, value FROM records WHERE owner IS NULL ORDER BY rowid',
      ),
      loadOwned: db.prepare<[string], { collection: string; key: string; value: string }>(
        'SELECT collection, key, value FROM records WHERE owner IN (SELECT value FROM json_each(?)) ORDER BY rowid',
      ),
      log: db.prepare<[number, number], LogRow>('SELECT * FROM command_log WHERE seq > ? ORDER BY seq LIMIT ?'),
      logCount: db.prepare<[], { n: number }>('SELECT count(*) AS n FROM command_log'),
      counts: db.prepare<[], { collection: string; n: number }>('SELECT collection, count(*) AS n FROM records GROUP BY collection'),
    };
  }

  async commit(entry: CommandLogInput, writes: readonly StoredWrite[]): Promise<void> {
    const commitTx = this.#commitTx;
    if (commitTx === undefined) throw closed();
    const payload = encode(entry.payload);
    try {
      commitTx(entry, payload, writes);
    } catch (cause) {
      if (GolemError.isInstance(cause)) throw cause;
      const { code } = cause as { code?: unknown };
      if (code === 'SQLITE_CONSTRAINT_UNIQUE' && message(cause).includes('command_log.id')) throw duplicateCommand(entry.id);
      throw new GolemError('STORE_ERROR', `the commit of ${entry.type} failed: ${message(cause)}`, { cause });
    }
  }

  async load(): Promise<StoredRecord[]> {
    const s = this.#open();
    return s.load.all().map((row) => ({ collection: row.collection, key: row.key, value: JSON.parse(row.value) as unknown }));
  }

  async loadRecords(query: { owners: readonly string[]; shared?: boolean }): Promise<{ records: StoredRecord[]; lastSeq: number }> {
    const s = this.#open();
    const db = this.#db as BetterSqlite3.Database;
    // One read transaction: the records and the last seq come from the same snapshot of the WAL.
    return db.transaction(() => {
      const rows = [...(query.shared === true ? s.loadShared.all() : []), ...(query.owners.length > 0 ? s.loadOwned.all(JSON.stringify(query.owners)) : [])];
      const records = rows.map((row) => sizedRecord(row.collection, row.key, row.value));
      return { records, lastSeq: s.lastSeq.get()?.seq ?? 0 };
    })();
  }

  async lastSeq(): Promise<number> {
    return this.#open().lastSeq.get()?.seq ?? 0;
  }

  async get(collection: string, key: string): Promise<unknown> {
    const row = this.#open().get.get(collection, key);
    return row === undefined ? undefined : (JSON.parse(row.value) as unknown);
  }

  async commandLog(options: { after?: number; limit?: number } = {}): Promise<CommandLogEntry[]> {
    const rows = this.#open().log.all(options.after ?? 0, options.limit ?? -1);
    return rows.map((row) => ({ ...row, payload: JSON.parse(row.payload) as unknown }));
  }

  async stats(): Promise<StoreStats> {
    const s = this.#open();
    const records: Record<string, number> = {};
    for (const row of s.counts.all()) records[row.collection] = row.n;
    let bytes = 0;
    if (this.path !== ':memory:') {
      for (const suffix of ['', '-wal', '-shm']) {
        try {
          bytes += statSync(this.path + suffix).size;
        } catch {
          // the WAL and shared-memory files come and go with checkpoints
        }
      }
    }
    return {
      kind: this.kind,
      bytes,
      commands: s.logCount.get()?.n ?? 0,
      records,
      schemaVersion: this.#db?.pragma('user_version', { simple: true }) as number,
    };
  }

  async close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
    this.#statements = undefined;
    this.#commitTx = undefined;
  }

  #open(): ReturnType<SqliteStore['prepare']> {
    if (this.#statements === undefined) throw closed();
    return this.#statements;
  }

  /** Retention: replaces the oldest log entries before `before` by a checkpoint, in one transaction (see `Store.compactLog`). */
  async compactLog(options: { before: string; limit: number; dryRun?: boolean }): Promise<{ removed: number; bytes: number }> {
    this.#open();
    const db = this.#db as BetterSqlite3.Database;
    return db.transaction(() => {
      const rows = db
        .prepare<[number], { seq: number; type: string; payload: string; timestamp: string; bytes: number }>(
          `SELECT seq, type, payload, timestamp, length(payload) + length(id) + length(type) + length(timestamp) + coalesce(length(actor), 0) AS bytes
             FROM command_log WHERE seq < (SELECT max(seq) FROM command_log) ORDER BY seq LIMIT ?`,
        )
        .all(options.limit + 1);
      const plan = planCompaction(rows, options.before, options.limit);
      if (plan === undefined) return { removed: 0, bytes: 0 };
      if (options.dryRun !== true) {
        db.prepare<[string]>('DELETE FROM command_log WHERE seq IN (SELECT value FROM json_each(?))').run(JSON.stringify(plan.deleted));
        db.prepare<[string, string, string, number]>('UPDATE command_log SET id = ?, type = ?, payload = ?, actor = NULL WHERE seq = ?').run(
          plan.id,
          plan.type,
          plan.payload,
          plan.to,
        );
      }
      return { removed: plan.removed, bytes: plan.bytes };
    })();
  }
}

/** Brings `db` up to the newest migration, each in its own transaction. */
export function migrate(db: BetterSqlite3.Database, migrations: readonly Migration[]): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  const newest = migrations.at(-1)?.version ?? 0;
  if (current > newest) {
    throw new GolemError('STORE_VERSION_TOO_NEW', `the database is at schema version ${current}, newer than this Golem knows (${newest}); upgrade Golem`, {
      details: { current, newest },
    });
  }
  for (const migration of migrations) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    })();
  }
}

function closed(): GolemError {
  return new GolemError('STORE_ERROR', 'the SQLite store is not open');
}

function message(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
