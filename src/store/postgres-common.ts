/**
 * What the PostgreSQL store and blob storage share: the schema name rule, the pool (pg
 * loaded only when one is made), connections that cannot take the process down, and
 * errors that say what failed.
 */
import type pgModule from 'pg';
import type { Pool, PoolClient } from 'pg';
import { GolemError } from '../errors.js';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,40}$/;

/** The schema name, checked: it is put into SQL quoted, so only a safe shape is taken. */
export function checkSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) throw new GolemError('INVALID_ARGUMENT', `a schema name is 1 to 41 lowercase letters, digits or _, not starting with a digit: "${schema}"`);
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
  let pg: typeof pgModule;
  try {
    pg = (await import('pg')).default;
  } catch (cause) {
    throw new GolemError('STORE_ERROR', `the PostgreSQL ${what} needs the pg package (npm install pg)`, { cause });
  }
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

/** STORE_ERROR for a failure of the server or the connection, naming what was being done. */
export function unavailable(what: string, cause: unknown): GolemError {
  return new GolemError('STORE_ERROR', `PostgreSQL: ${what} failed: ${message(cause)}`, { cause });
}

export function message(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
