/**
 * The PostgreSQL store (node-postgres, loaded when a store opens): the same records and
 * command log as SQLite, in one schema of a database, for several Golem processes on one
 * workspace. Each command's log entry carries its writes, so a process that fell behind
 * catches up from the last seq it applied instead of reloading everything; a commit
 * notifies the others (LISTEN/NOTIFY); an advisory lock per workspace serializes the
 * processes' commands (`exclusive`). Each record keeps its owner (the session it belongs
 * to), so a session's records load with one indexed query (`loadRecords`). A commit is
 * one statement (the schema's `golem_commit` function): one round trip.
 */
import type { Pool, PoolClient } from 'pg';
import { GolemError } from '../../core/errors.js';
import { checkout, checkSchemaName, migrate, openPool, transaction, unavailable, type PostgresMigration } from './postgres-common.js';
import { duplicateCommand, encode, ownerConflict, seqMismatch, sizedRecord } from '../../core/memory-store.js';
import type { CommandLogEntry, CommandLogInput, Store, StoreChange, StoreStats, StoredRecord, StoredWrite } from '../../core/store.js';

export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** The PostgreSQL schema holding this workspace's tables (default 'golem'); tests and tenants can share a database this way. */
  schema?: string;
  /** Connections at most (default 10). */
  poolSize?: number;
}

/** The PostgreSQL schema, as an ordered list of migrations (never edit one that has shipped: add the next). */
export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description: "records and the command log, with each command's writes",
    sql: (s) => `
      CREATE TABLE ${s}.records (
        id         BIGSERIAL PRIMARY KEY,
        collection TEXT NOT NULL,
        key        TEXT NOT NULL,
        value      TEXT NOT NULL,
        UNIQUE (collection, key)
      );
      CREATE TABLE ${s}.command_log (
        seq       BIGINT PRIMARY KEY,
        id        TEXT NOT NULL UNIQUE,
        type      TEXT NOT NULL,
        payload   TEXT NOT NULL,
        actor     TEXT,
        timestamp TEXT NOT NULL,
        writes    TEXT NOT NULL
      );
      CREATE INDEX command_log_type ON ${s}.command_log (type);
    `,
  },
  {
    version: 2,
    description: "each record's owner (the session it belongs to), and the commit as one call (golem_commit)",
    sql: (s) => `
      ALTER TABLE ${s}.records ADD COLUMN owner TEXT;
      -- What earlier versions wrote: a turn belongs to its session, everything else to the workspace.
      UPDATE ${s}.records SET owner = value::jsonb ->> 'sessionId' WHERE collection = 'turn';
      -- A session's records (owner = ANY), and the workspace-wide ones in first-written order (a small index of its own).
      CREATE INDEX records_owner ON ${s}.records (owner) WHERE owner IS NOT NULL;
      CREATE INDEX records_shared ON ${s}.records (id) WHERE owner IS NULL;

      -- A whole commit in one statement, so in one round trip and one implicit transaction: takes the commit lock,
      -- checks the seq (GL001, DETAIL the last seq), appends the log entry (a taken id: 23505 on command_log_id_key),
      -- applies the writes in order, refusing a put that would give a record to another owner (GL002, DETAIL
      -- {collection, key} as JSON), and notifies the channel with the seq (delivered if and only if it commits).
      CREATE FUNCTION ${s}.golem_commit(
        p_seq BIGINT, p_id TEXT, p_type TEXT, p_payload TEXT, p_actor TEXT, p_timestamp TEXT, p_writes TEXT, p_lock TEXT, p_channel TEXT
      ) RETURNS VOID LANGUAGE plpgsql AS $golem_commit$
      DECLARE
        v_last BIGINT;
        v_writes JSONB := p_writes::jsonb;
        v_set_based BOOLEAN;
        v_puts BIGINT;
        v_stored BIGINT;
        v_write RECORD;
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtext(p_lock));
        SELECT coalesce(max(seq), 0) INTO v_last FROM ${s}.command_log;
        IF p_seq <> v_last + 1 THEN
          RAISE EXCEPTION 'the command log is at seq %, so the next command must be %, not %', v_last, v_last + 1, p_seq
            USING ERRCODE = 'GL001', DETAIL = v_last::text;
        END IF;
        INSERT INTO ${s}.command_log (seq, id, type, payload, actor, timestamp, writes)
          VALUES (p_seq, p_id, p_type, p_payload, p_actor, p_timestamp, p_writes);
        IF jsonb_typeof(v_writes) <> 'array' THEN
          RAISE EXCEPTION 'the writes are not a JSON array';
        END IF;

        -- No key written twice and every op known: the puts and the deletes commute, one statement each.
        SELECT count(*) = count(DISTINCT (e.w ->> 'collection', e.w ->> 'key')) AND coalesce(bool_and(e.w ->> 'op' IN ('put', 'delete')), true),
               count(*) FILTER (WHERE e.w ->> 'op' = 'put')
          INTO v_set_based, v_puts
          FROM jsonb_array_elements(v_writes) AS e(w);
        IF v_set_based THEN
          DELETE FROM ${s}.records AS r USING jsonb_array_elements(v_writes) AS e(w)
            WHERE e.w ->> 'op' = 'delete' AND r.collection = e.w ->> 'collection' AND r.key = e.w ->> 'key';
          -- In the order given, so that new records' ids (first-written order) follow it.
          INSERT INTO ${s}.records (collection, key, value, owner)
            SELECT e.w ->> 'collection', e.w ->> 'key', e.w ->> 'json', e.w ->> 'owner'
              FROM jsonb_array_elements(v_writes) WITH ORDINALITY AS e(w, n) WHERE e.w ->> 'op' = 'put' ORDER BY e.n
            ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value WHERE records.owner IS NOT DISTINCT FROM excluded.owner;
          GET DIAGNOSTICS v_stored = ROW_COUNT;
          IF v_stored < v_puts THEN
            -- A put was refused: its record is held by another owner.
            SELECT e.w ->> 'collection' AS collection, e.w ->> 'key' AS key INTO v_write
              FROM jsonb_array_elements(v_writes) WITH ORDINALITY AS e(w, n)
              JOIN ${s}.records AS r ON r.collection = e.w ->> 'collection' AND r.key = e.w ->> 'key'
              WHERE e.w ->> 'op' = 'put' AND r.owner IS DISTINCT FROM e.w ->> 'owner'
              ORDER BY e.n LIMIT 1;
            RAISE EXCEPTION 'the % "%" belongs to another owner', v_write.collection, v_write.key
              USING ERRCODE = 'GL002', DETAIL = json_build_object('collection', v_write.collection, 'key', v_write.key)::text;
          END IF;
        ELSE
          -- A key written more than once: one write at a time, in order.
          FOR v_write IN
            SELECT e.w ->> 'op' AS op, e.w ->> 'collection' AS collection, e.w ->> 'key' AS key, e.w ->> 'json' AS json, e.w ->> 'owner' AS owner
              FROM jsonb_array_elements(v_writes) WITH ORDINALITY AS e(w, n) ORDER BY e.n
          LOOP
            IF v_write.op = 'put' THEN
              INSERT INTO ${s}.records (collection, key, value, owner) VALUES (v_write.collection, v_write.key, v_write.json, v_write.owner)
                ON CONFLICT (collection, key) DO UPDATE SET value = excluded.value WHERE records.owner IS NOT DISTINCT FROM excluded.owner;
              IF NOT FOUND THEN
                RAISE EXCEPTION 'the % "%" belongs to another owner', v_write.collection, v_write.key
                  USING ERRCODE = 'GL002', DETAIL = json_build_object('collection', v_write.collection, 'key', v_write.key)::text;
              END IF;
            ELSIF v_write.op = 'delete' THEN
              DELETE FROM ${s}.records WHERE collection = v_write.collection AND key = v_write.key;
            ELSE
              RAISE EXCEPTION 'unknown write op %', coalesce(v_write.op, 'null');
            END IF;
          END LOOP;
        END IF;
        PERFORM pg_notify(p_channel, p_seq::text);
      END
      $golem_commit$;
    `,
  },
  {
    version: 3,
    // Nothing to change in the tables: the version tells an older Golem, which cannot read such records, to refuse.
    description: 'session records count their turns (length), UI instances name the session that built them (builtBy)',
    sql: () => 'SELECT 1',
  },
];

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

  async commit(entry: CommandLogInput, writes: readonly StoredWrite[]): Promise<void> {
    const payload = encode(entry.payload);
    try {
      await this.#commit(entry, payload, writes);
    } catch (error) {
      // The connection failed around COMMIT: the command may have landed all the same. Ask, on another connection.
      if (!(GolemError.isInstance(error) && error.code === 'STORE_ERROR')) throw error;
      let landed: boolean;
      try {
        landed = (await this.#query<{ seq: string }>(`SELECT seq FROM ${this.#s}.command_log WHERE id = $1`, [entry.id]))[0]?.seq === String(entry.seq);
      } catch {
        throw new GolemError(
          'STORE_ERROR',
          `${error.message}; whether command ${entry.id} (seq ${entry.seq}) was committed is unknown until the database is back`,
          { cause: error, details: { outcome: 'unknown', id: entry.id, seq: entry.seq } },
        );
      }
      if (!landed) throw error;
    }
  }

  /**
   * The commit in one statement (golem_commit, migration 2), in autocommit: one round trip,
   * one implicit transaction, all or nothing. Its refusals come back as SQLSTATEs, made
   * into the errors every store gives.
   */
  async #commit(entry: CommandLogInput, payload: string, writes: readonly StoredWrite[]): Promise<void> {
    const pool = this.#requirePool();
    try {
      await pool.query({
        // Named: each connection parses and plans it once.
        name: `golem_commit:${this.schema}`,
        text: `SELECT ${this.#s}.golem_commit($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        values: [entry.seq, entry.id, entry.type, payload, entry.actor, entry.timestamp, JSON.stringify(writes), this.#commitLockKey, this.#channel],
      });
    } catch (error) {
      const refused = commitRefusal(entry, error);
      if (refused !== undefined) throw refused;
      throw unavailable(`the commit of ${entry.type}`, error);
    }
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
   * Runs `work` holding this workspace's advisory lock: no other process's `exclusive`
   * work runs meanwhile, so reading the latest state and committing on it is one step.
   */
  async exclusive<T>(work: () => Promise<T>): Promise<T> {
    const pool = this.#requirePool();
    let client: PoolClient;
    try {
      client = await checkout(pool);
    } catch (cause) {
      throw unavailable('taking the workspace lock', cause);
    }
    let broken = false;
    try {
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [this.#lockKey]);
    } catch (cause) {
      client.release(true);
      throw unavailable('taking the workspace lock', cause);
    }
    try {
      return await work();
    } finally {
      try {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [this.#lockKey]);
      } catch {
        broken = true; // the connection is gone, and the lock with it
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
}

/** The SQLSTATEs golem_commit raises (class GL, Golem's own). */
const SEQ_MISMATCH = 'GL001';
const OWNER_TAKEN = 'GL002';

/** The store's error for a commit golem_commit refused, or undefined for any other failure (the server, the connection, a bad write). */
function commitRefusal(entry: CommandLogInput, error: unknown): GolemError | undefined {
  const { code, detail, constraint } = (error ?? {}) as { code?: unknown; detail?: unknown; constraint?: unknown };
  if (code === SEQ_MISMATCH) return seqMismatch(entry.seq, Number(detail));
  if (code === OWNER_TAKEN) {
    const { collection, key } = JSON.parse(String(detail)) as { collection: string; key: string };
    return ownerConflict(collection, key);
  }
  // 23505 on the id's unique key: the seq was checked under the commit lock, so only the id can be taken.
  if (code === '23505' && constraint === 'command_log_id_key') return duplicateCommand(entry.id);
  return undefined;
}
