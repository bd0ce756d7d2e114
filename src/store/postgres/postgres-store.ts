/**
 * The PostgreSQL store (node-postgres, loaded when a store opens): the same records and
 * command log as SQLite, in one schema of a database, for several Golem processes on one
 * workspace. A commit is one statement (the schema's `golem_append`): it takes the seq after
 * the log's last and refuses a command only if another process wrote a stream it read (its
 * sessions, or the workspace-wide records), so commands on different sessions commit side
 * by side; it hands back what other processes committed in between, and notifies them
 * (LISTEN/NOTIFY). Each command's log entry carries its writes, so a process that fell
 * behind catches up from the last seq it applied. An advisory lock per workspace
 * (`exclusive`) is kept for the commands that need the workspace to themselves. Each record
 * keeps its owner (the session it belongs to), so a session's records load with one
 * indexed query (`loadRecords`).
 */
import type { Pool, PoolClient } from 'pg';
import { GolemError } from '../../core/errors.js';
import { checkout, checkSchemaName, migrate, openPool, transaction, unavailable } from './postgres-common.js';
import { POSTGRES_MIGRATIONS } from './postgres-migrations.js';
import { planCompaction } from '../../core/retention/log-compaction.js';
import { encode, sizedRecord } from '../../core/memory-store.js';
import { duplicateCommand, lockAwaited, ownerConflict, seqMismatch, streamMoved } from '../../core/store-errors.js';
import {
  WORKSPACE_STREAM,
  type CommandLogEntry,
  type CommandLogInput,
  type Store,
  type StoreChange,
  type StoreStats,
  type StoredRecord,
  type StoredWrite,
  type StreamCheck,
  type Appended,
} from '../../core/store.js';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** The PostgreSQL schema holding this workspace's tables (default 'golem'); tests and tenants can share a database this way. */
  schema?: string;
  /** Connections at most (default 10). */
  poolSize?: number;
}

/** `createWorkspace({ store: postgresStore(url, { schema }) })`. */
export function postgresStore(url: string, options: Omit<PostgresStoreOptions, 'url'> = {}): PostgresStore {
  return new PostgresStore({ url, ...options });
}

export class PostgresStore implements Store {
  readonly kind = 'postgres';
  readonly schema: string;
  readonly #url: string;
  readonly #poolSize: number;
  /** `"schema"`, quoted for SQL. */
  readonly #s: string;
  /**
   * The advisory locks of this workspace, one pair per schema: `exclusive` holds the
   * first across a whole command (on its own connection); a commit takes the second for
   * its transaction (on the commit's connection; the same key would wait on itself).
   */
  readonly #lockKey: string;
  readonly #commitLockKey: string;
  /** The first key of every stream's lock (two-key advisory locks: see `exclusive`). */
  readonly #streamLockSpace: string;
  readonly #channel: string;
  #pool: Pool | undefined;
  #listener: PoolClient | undefined;
  /** The listening connection being made, for `close` to wait for. */
  #listening: Promise<void> | undefined;
  readonly #subscribers = new Set<(seq: number) => void>();

  constructor(options: PostgresStoreOptions) {
    const schema = checkSchemaName(options.schema ?? 'golem');
    this.schema = schema;
    this.#url = options.url;
    this.#poolSize = options.poolSize ?? 10;
    // One connection listens, one holds the workspace lock, one commits.
    if (!Number.isInteger(this.#poolSize) || this.#poolSize < 3)
      throw new GolemError('INVALID_ARGUMENT', `poolSize is at least 3 (one listens, one holds the workspace lock, one commits), not ${this.#poolSize}`);
    this.#s = `"${schema}"`;
    this.#lockKey = `golem:${schema}`;
    this.#commitLockKey = `golem:${schema}:commit`;
    this.#streamLockSpace = `golem:${schema}:streams`;
    this.#channel = `golem_${schema}`;
  }

  async open(): Promise<void> {
    if (this.#pool !== undefined) return;
    const pool = await openPool('store', { url: this.#url, max: this.#poolSize, connectionTimeoutMillis: 5_000 }, (p) =>
      migrate(p, {
        schema: this.schema,
        lockKey: `${this.#lockKey}:migrate`,
        table: 'migrations',
        migrations: POSTGRES_MIGRATIONS,
        what: 'the workspace tables',
      }),
    );
    this.#pool = pool;
  }

  /** A commit at exactly `entry.seq`; it counts as writing the workspace-wide stream, which every append reads (it names no streams). */
  async commit(entry: CommandLogInput, writes: readonly StoredWrite[]): Promise<void> {
    await this.append(entry, writes, { since: entry.seq - 1, read: [], write: [WORKSPACE_STREAM], whole: true });
  }

  async append(entry: CommandLogInput, writes: readonly StoredWrite[], check: StreamCheck): Promise<Appended> {
    const payload = encode(entry.payload);
    try {
      return await this.#append(entry, payload, writes, check);
    } catch (error) {
      // The connection failed around COMMIT: the command may have landed all the same. Ask, on another connection.
      if (!(GolemError.isInstance(error) && error.code === 'STORE_ERROR')) throw error;
      let landed: string | undefined;
      try {
        landed = (await this.#query<{ seq: string }>(`SELECT seq FROM ${this.#s}.command_log WHERE id = $1`, [entry.id]))[0]?.seq;
      } catch {
        throw new GolemError('STORE_ERROR', `${error.message}; whether command ${entry.id} was committed is unknown until the database is back`, {
          cause: error,
          details: { outcome: 'unknown', id: entry.id, seq: entry.seq },
        });
      }
      if (landed === undefined) throw error;
      return { seq: Number(landed) };
    }
  }

  /**
   * The commit in one statement (golem_append, migration 4), in autocommit: one round trip,
   * one implicit transaction, all or nothing. Its refusals come back as SQLSTATEs, made
   * into the errors every store gives.
   */
  async #append(entry: CommandLogInput, payload: string, writes: readonly StoredWrite[], check: StreamCheck): Promise<Appended> {
    const pool = this.#requirePool();
    let rows: { seq: string; writes: string | null }[];
    try {
      rows = (
        await pool.query<{ seq: string; writes: string | null }>({
          // Named: each connection parses and plans it once.
          name: `golem_append:${this.schema}`,
          text: `SELECT seq, writes FROM ${this.#s}.golem_append($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
          values: [
            entry.seq,
            entry.id,
            entry.type,
            payload,
            entry.actor,
            entry.timestamp,
            JSON.stringify(writes),
            check.since,
            check.read,
            check.write,
            check.whole === true,
            check.yields !== undefined ? this.#lockKey : null,
            check.yields === 'streams' ? check.read : [],
            this.#streamLockSpace,
            this.#commitLockKey,
            this.#channel,
          ],
        })
      ).rows;
    } catch (error) {
      const refused = commitRefusal(entry, check, error);
      if (refused !== undefined) throw refused;
      throw unavailable(`the commit of ${entry.type}`, error);
    }
    const [own, ...between] = rows;
    const seq = Number(own?.seq);
    const before = between.map((row) => ({ seq: Number(row.seq), writes: JSON.parse(row.writes ?? '[]') as StoredWrite[] }));
    return before.length === seq - check.since - 1 ? { seq, before } : { seq };
  }

  async lastSeq(): Promise<number> {
    const rows = await this.#query<{ seq: string | null }>(`SELECT max(seq) AS seq FROM ${this.#s}.command_log`);
    return Number(rows[0]?.seq ?? 0);
  }

  async load(): Promise<StoredRecord[]> {
    const rows = await this.#query<{ collection: string; key: string; value: string }>(`SELECT collection, key, value FROM ${this.#s}.records ORDER BY id`);
    return rows.map((row) => ({ collection: row.collection, key: row.key, value: JSON.parse(row.value) as unknown }));
  }

  async get(collection: string, key: string): Promise<unknown> {
    const rows = await this.#query<{ value: string }>(`SELECT value FROM ${this.#s}.records WHERE collection = $1 AND key = $2`, [collection, key]);
    return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as unknown);
  }

  async commandLog(options: { after?: number; limit?: number } = {}): Promise<CommandLogEntry[]> {
    const rows = await this.#query<{ seq: string; id: string; type: string; payload: string; actor: string | null; timestamp: string }>(
      `SELECT seq, id, type, payload, actor, timestamp FROM ${this.#s}.command_log WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [options.after ?? 0, options.limit === undefined || options.limit < 0 ? null : options.limit],
    );
    return rows.map((row) => ({
      seq: Number(row.seq),
      id: row.id,
      type: row.type,
      payload: JSON.parse(row.payload) as unknown,
      actor: row.actor,
      timestamp: row.timestamp,
    }));
  }

  /** Every record and the last seq in one snapshot (REPEATABLE READ): what an index is built from while others commit. */
  async snapshot(): Promise<{ records: StoredRecord[]; lastSeq: number }> {
    return this.#readRecords('reading the workspace', 'true', []);
  }

  /**
   * The records of `owners` (and with `shared` every record no session owns), in
   * first-written order, with the last seq, in one snapshot (REPEATABLE READ). One query
   * either way: the owners' records through the index records_owner, the shared ones
   * through records_shared.
   */
  async loadRecords(query: { owners: readonly string[]; shared?: boolean }): Promise<{ records: StoredRecord[]; lastSeq: number }> {
    const owners = [...query.owners];
    const [where, params] =
      query.shared !== true ? ['owner = ANY($1)', [owners]] : owners.length === 0 ? ['owner IS NULL', []] : ['owner = ANY($1) OR owner IS NULL', [owners]];
    return this.#readRecords('reading records', where, params);
  }

  /** The records matching `where`, in first-written order, with the last seq, in one snapshot. */
  async #readRecords(what: string, where: string, params: unknown[]): Promise<{ records: StoredRecord[]; lastSeq: number }> {
    return transaction(
      this.#requirePool(),
      what,
      async (client) => {
        const seq = (await client.query<{ seq: string | null }>(`SELECT max(seq) AS seq FROM ${this.#s}.command_log`)).rows[0]?.seq ?? 0;
        const rows = (
          await client.query<{ collection: string; key: string; value: string }>(
            `SELECT collection, key, value FROM ${this.#s}.records WHERE ${where} ORDER BY id`,
            params,
          )
        ).rows;
        return { records: rows.map((row) => sizedRecord(row.collection, row.key, row.value)), lastSeq: Number(seq) };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
  }

  /** The writes of each command after `after`, oldest first: how another process's commits are applied. */
  async changes(after: number): Promise<StoreChange[]> {
    const rows = await this.#query<{ seq: string; writes: string }>(`SELECT seq, writes FROM ${this.#s}.command_log WHERE seq > $1 ORDER BY seq`, [after]);
    return rows.map((row) => ({ seq: Number(row.seq), writes: JSON.parse(row.writes) as StoredWrite[] }));
  }

  /**
   * Runs `work` holding this workspace's advisory lock (with `streams`, those streams'
   * locks instead, taken in order): no other process's `exclusive` work on it runs
   * meanwhile, so reading the latest state and committing on it is one step. Appends that
   * take no lock yield to it (golem_append).
   */
  async exclusive<T>(work: () => Promise<T>, streams?: readonly string[]): Promise<T> {
    // A stream's lock is a two-key advisory lock (this workspace's stream space, the stream): a key space of its own, so
    // no session id can hash to the workspace's or the commit's lock; taken in the order of its hash, so that two
    // streams whose hashes meet are still taken in one order by every process.
    const [lock, unlock, params] =
      streams === undefined
        ? ['SELECT pg_advisory_lock(hashtext($1))', 'SELECT pg_advisory_unlock(hashtext($1))', [this.#lockKey]]
        : [
            'SELECT pg_advisory_lock(hashtext($1), hashtext(s.k)) FROM (SELECT k FROM unnest($2::text[]) AS k ORDER BY hashtext(k), k) AS s',
            'SELECT pg_advisory_unlock(hashtext($1), hashtext(k)) FROM unnest($2::text[]) AS k',
            [this.#streamLockSpace, [...new Set(streams)]],
          ];
    const what = streams === undefined ? 'the workspace lock' : `the lock of ${streams.length === 1 ? 'a session' : 'sessions'}`;
    const pool = this.#requirePool();
    let client: PoolClient;
    try {
      client = await checkout(pool);
    } catch (cause) {
      throw unavailable(`taking ${what}`, cause);
    }
    let broken = false;
    try {
      await client.query(lock, params);
    } catch (cause) {
      client.release(true); // the locks taken go with the connection
      throw unavailable(`taking ${what}`, cause);
    }
    try {
      return await work();
    } finally {
      try {
        await client.query(unlock, params);
      } catch {
        broken = true; // the connection is gone, and the locks with it
      }
      client.release(broken);
    }
  }

  /**
   * Calls `listener` with the seq of every command committed from now on, by any process
   * (this one too). The listening connection reconnects by itself if it drops.
   */
  subscribe(listener: (seq: number) => void): () => void {
    this.#subscribers.add(listener);
    if (this.#listener === undefined && this.#listening === undefined) this.#startListening();
    return () => this.#subscribers.delete(listener);
  }

  async stats(): Promise<StoreStats> {
    const [counts, log, bytes] = await Promise.all([
      this.#query<{ collection: string; n: string }>(`SELECT collection, count(*) AS n FROM ${this.#s}.records GROUP BY collection`),
      this.#query<{ n: string }>(`SELECT count(*) AS n FROM ${this.#s}.command_log`),
      this.#query<{ bytes: string }>(`SELECT pg_total_relation_size('${this.schema}.records') + pg_total_relation_size('${this.schema}.command_log') AS bytes`),
    ]);
    const records: Record<string, number> = {};
    for (const row of counts) records[row.collection] = Number(row.n);
    const version = await this.#query<{ version: number }>(`SELECT max(version) AS version FROM ${this.#s}.migrations`);
    return { kind: this.kind, bytes: Number(bytes[0]?.bytes ?? 0), commands: Number(log[0]?.n ?? 0), records, schemaVersion: version[0]?.version ?? 0 };
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = undefined;
    this.#subscribers.clear();
    await this.#listening;
    const listener = this.#listener;
    this.#listener = undefined;
    listener?.release(true);
    await pool?.end();
  }

  #startListening(): void {
    this.#listening = this.#listen().finally(() => (this.#listening = undefined));
  }

  async #listen(): Promise<void> {
    const pool = this.#pool;
    if (pool === undefined || this.#subscribers.size === 0) return;
    let client: PoolClient | undefined;
    try {
      client = await checkout(pool);
      await client.query(`LISTEN "${this.#channel}"`);
    } catch {
      client?.release(true);
      // The server is away: try again shortly (commits catch up by themselves meanwhile).
      if (this.#pool === pool) setTimeout(() => this.#pool === pool && this.#startListening(), 500).unref();
      return;
    }
    if (this.#pool !== pool) return void client.release(true); // closed meanwhile
    this.#listener = client;
    // Commits made before this connection listened (at first, or while it was away) were not heard: look now.
    for (const subscriber of this.#subscribers) subscriber(Number.NaN);
    client.on('notification', (message) => {
      if (message.channel !== this.#channel) return;
      const seq = Number(message.payload);
      for (const subscriber of this.#subscribers) subscriber(seq);
    });
    const lost = () => {
      if (this.#listener !== client) return;
      this.#listener = undefined;
      client.release(true);
      // Commits made while it was away were not notified: the subscribers catch up on the next one, or now.
      for (const subscriber of this.#subscribers) subscriber(Number.NaN);
      setTimeout(() => this.#pool === pool && this.#startListening(), 500).unref();
    };
    // The connection dropped (the server went away or restarted): listen again once it is back.
    client.on('error', lost);
    client.on('end', lost);
  }

  async #query<R extends object>(sql: string, params: unknown[] = []): Promise<R[]> {
    const pool = this.#requirePool();
    try {
      return (await pool.query<R>(sql, params)).rows;
    } catch (cause) {
      throw unavailable('a read', cause);
    }
  }

  #requirePool(): Pool {
    if (this.#pool === undefined) throw new GolemError('STORE_ERROR', 'the PostgreSQL store is not open');
    return this.#pool;
  }

  /**
   * Retention: replaces the oldest log entries before `before` by a checkpoint, in one
   * transaction under a lock of its own (see `Store.compactLog`). The checkpoint keeps the
   * writes of the entry it replaces, so a process one command behind still catches up.
   */
  async compactLog(options: { before: string; limit: number; dryRun?: boolean }): Promise<{ removed: number; bytes: number }> {
    return transaction(this.#requirePool(), 'the log compaction', async (client) => {
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`${this.#lockKey}:compact`]);
      const { rows } = await client.query<{ seq: string; type: string; payload: string; timestamp: string; bytes: string }>(
        `SELECT seq, type, payload, timestamp,
                octet_length(payload) + octet_length(writes) + octet_length(id) + octet_length(type) + octet_length(timestamp) + coalesce(octet_length(actor), 0) AS bytes
           FROM ${this.#s}.command_log WHERE seq < (SELECT max(seq) FROM ${this.#s}.command_log) ORDER BY seq LIMIT $1`,
        [options.limit + 1],
      );
      const plan = planCompaction(
        rows.map((r) => ({ ...r, seq: Number(r.seq), bytes: Number(r.bytes) })),
        options.before,
        options.limit,
      );
      if (plan === undefined) return { removed: 0, bytes: 0 };
      if (options.dryRun !== true) {
        await client.query(`DELETE FROM ${this.#s}.command_log WHERE seq = ANY($1::bigint[])`, [plan.deleted]);
        await client.query(`UPDATE ${this.#s}.command_log SET id = $1, type = $2, payload = $3, actor = NULL WHERE seq = $4`, [
          plan.id,
          plan.type,
          plan.payload,
          plan.to,
        ]);
      }
      return { removed: plan.removed, bytes: plan.bytes };
    });
  }
}

/** The SQLSTATEs golem_append raises (class GL, Golem's own). */
const SEQ_MISMATCH = 'GL001';
const OWNER_TAKEN = 'GL002';
const STREAM_MOVED = 'GL003';
const LOCK_AWAITED = 'GL004';

/** The store's error for a commit golem_append refused, or undefined for any other failure (the server, the connection, a bad write). */
function commitRefusal(entry: CommandLogInput, check: StreamCheck, error: unknown): GolemError | undefined {
  const { code, detail, constraint } = (error ?? {}) as { code?: unknown; detail?: unknown; constraint?: unknown };
  if (code === SEQ_MISMATCH) return seqMismatch(check.since + 1, Number(detail));
  if (code === LOCK_AWAITED) return lockAwaited(detail === 'workspace' ? 'workspace' : 'streams');
  if (code === STREAM_MOVED) {
    const { stream, version, seen } = JSON.parse(String(detail)) as { stream: string; version: number; seen: number };
    return streamMoved(stream, version, seen);
  }
  if (code === OWNER_TAKEN) {
    const { collection, key } = JSON.parse(String(detail)) as { collection: string; key: string };
    return ownerConflict(collection, key);
  }
  // 23505 on the id's unique key: the seq was checked under the commit lock, so only the id can be taken.
  if (code === '23505' && constraint === 'command_log_id_key') return duplicateCommand(entry.id);
  return undefined;
}
