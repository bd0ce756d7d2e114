/**
 * What the PostgreSQL store and blob storage share: the schema name rule, the pool (pg
 * loaded only when one is made), connections that cannot take the process down, and
 * errors that say what failed.
 */
import type pgModule from 'pg';
import type { Pool, PoolClient } from 'pg';
import { GolemError } from '../../core/errors.js';
import { importOptional } from '../../core/optional-import.js';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,40}$/;

/** The schema name, checked: it is put into SQL quoted, so only a safe shape is taken. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema))
    throw new GolemError('INVALID_ARGUMENT', `a schema name is 1 to 41 lowercase letters, digits or _, not starting with a digit: "${schema}"`);
  return schema;
}

/**
 * A pool on `url`, with `prepare` run on it first (migrations); the pool is ended if that
 * fails. An idle connection the server drops is reported to the pool's error listener,
 * which is set here: without one it would take the process down.
 */
export async function openPool(
  what: string,
  options: { url: string; max: number; connectionTimeoutMillis: number; allowExitOnIdle?: boolean },
  prepare: (pool: Pool) => Promise<void>,
): Promise<Pool> {
  const pg: typeof pgModule = (await importOptional(() => import('pg'), { packages: ['pg'], purpose: `the PostgreSQL ${what}` })).default;
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMillis,
    allowExitOnIdle: options.allowExitOnIdle ?? false,
    // A connection that died in silence (a cable, a firewall) is noticed, not waited on for ever.
    keepAlive: true,
    // Nothing waits on a lock for ever: a stuck holder makes the waiter fail with a STORE_ERROR instead.
    options: '-c lock_timeout=30000',
  });
  pool.on('error', () => undefined);
  try {
    await prepare(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return pool;
}

/**
 * A connection from the pool that cannot take the process down: a checked-out client
 * whose connection drops emits 'error' (the pool listens only to idle ones); its queries
 * fail, and that is how the caller hears of it.
 */
export async function checkout(pool: Pool): Promise<PoolClient> {
  const client = await pool.connect();
  if (client.listenerCount('error') === 0) client.on('error', () => undefined);
  return client;
}

/** A schema change: `sql` gets the quoted schema name. */
export interface PostgresMigration {
  version: number;
  description: string;
  sql: (schema: string) => string;
}

/**
 * Brings a set of tables in the schema up to the newest migration, recording each in its
 * own `table`, all in one transaction under `lockKey`: two processes opening a new
 * workspace at once do not race at it (one migrates, the other finds it done).
 */
export async function migrate(
  pool: Pool,
  options: { schema: string; lockKey: string; table: string; migrations: readonly PostgresMigration[]; what: string },
): Promise<void> {
  const s = `"${options.schema}"`;
  const log = `${s}.${options.table}`;
  await transaction(pool, `migrating ${options.what}`, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [options.lockKey]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${log} (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const current = (await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${log}`)).rows[0]?.version ?? 0;
    const newest = options.migrations.at(-1)?.version ?? 0;
    if (current > newest) {
      throw new GolemError(
        'STORE_VERSION_TOO_NEW',
        `${options.what} in schema "${options.schema}" are at version ${current}, newer than this Golem knows (${newest}); upgrade Golem`,
        { details: { current, newest } },
      );
    }
    for (const migration of options.migrations) {
      if (migration.version <= current) continue;
      await client.query(migration.sql(s));
      await client.query(`INSERT INTO ${log} (version, description) VALUES ($1, $2)`, [migration.version, migration.description]);
    }
  });
}

/**
 * Runs `work` in a transaction (begun with `begin`) on a connection of its own: committed
 * if it returns, rolled back if it throws. A GolemError from `work` goes through as it is;
 * a failure of the server or connection becomes STORE_ERROR naming `what`.
 */
export async function transaction<T>(pool: Pool, what: string, work: (client: PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  let client: PoolClient;
  try {
    client = await checkout(pool);
  } catch (cause) {
    throw unavailable(what, cause);
  }
  let broken = false;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch {
      broken = true; // the connection is gone: it is not given back to the pool
    }
    if (GolemError.isInstance(error)) throw error;
    throw unavailable(what, error);
  } finally {
    client.release(broken);
  }
}

/** STORE_ERROR for a failure of the server or the connection, naming what was being done. */
export function unavailable(what: string, cause: unknown): GolemError {
  return new GolemError('STORE_ERROR', `PostgreSQL: ${what} failed: ${message(cause)}`, { cause });
}

export function message(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
