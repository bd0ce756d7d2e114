/**
 * Blob storage in PostgreSQL (node-postgres, loaded on first use): the second backend
 * several machines can share when no S3-compatible server is at hand, next to the
 * PostgreSQL store and in the same schema by default (its own tables: `blobs` and
 * `blob_migrations`).
 *
 * Why large objects and not a `bytea` column: a `bytea` value is TOASTed whole into one
 * row, written and read in one message, and capped at 1 GB; a large object is kept in
 * 2 KB pages of `pg_largeobject`, can be up to 4 TB, and is written and read in slices
 * (`lo_put`, `lo_get(oid, offset, length)`). So a put or a get here moves at most
 * `chunkSize` bytes per statement (16 MiB by default): no message near the 1 GB limit,
 * and a blob larger than 1 GB works as far as Node can hold it. Large objects are
 * transactional too (unlike S3), which is what keeps the row and its bytes in step:
 * - put: the large object is made and the row inserted (`ON CONFLICT DO NOTHING`) in one
 *   transaction; if another put of the same bytes won the race the insert does nothing and
 *   the new large object is unlinked before the commit (no orphan);
 * - delete: the row is deleted and its large object unlinked in one statement;
 * - get: the row and its bytes are read in one snapshot (one statement, or a repeatable
 *   read transaction when the blob takes several slices), so a concurrent delete is either
 *   seen whole or not at all; the bytes' SHA-256 is checked against the digest asked for.
 * The price: a large object is not dropped with its table. `DROP SCHEMA ... CASCADE`
 * leaves the blobs' large objects behind (unlink them first, or run `vacuumlo`).
 */
import type { Pool } from 'pg';
import { Sha256 } from '../../core/blocks.js';
import { GolemError } from '../../core/errors.js';
import { sha256Of, type BlobStorage } from '../../core/blob-storage.js';
import { checkSchemaName, migrate, openPool, transaction, unavailable, type PostgresMigration } from './postgres-common.js';

export interface PostgresBlobStorageOptions {
  /** postgres://user:password@host:port/database */
  url: string;
  /** The PostgreSQL schema holding the `blobs` table (default 'golem'; the PostgreSQL store's schema can hold it too). */
  schema?: string;
  /** Connections at most (default 10). */
  poolSize?: number;
  /** How long to wait for a connection before failing with STORE_ERROR (default 10,000 ms). */
  connectionTimeoutMillis?: number;
  /** Bytes written or read per statement (default 16 MiB). */
  chunkSize?: number;
}

/** The blob tables, as an ordered list of migrations (never edit one that has shipped: add the next). */
const BLOB_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    description: 'blobs: one large object per SHA-256',
    sql: (s) => `
      CREATE TABLE ${s}.blobs (
        sha256     TEXT PRIMARY KEY,
        oid        OID NOT NULL,
        size       BIGINT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      );
    `,
  },
];

const DEFAULT_CHUNK = 16 * 1024 * 1024;

/** `createWorkspace({ blobStorage: postgresBlobStorage(url, { schema }) })`. */
export function postgresBlobStorage(url: string, options: Omit<PostgresBlobStorageOptions, 'url'> = {}): PostgresBlobStorage {
  return new PostgresBlobStorage({ url, ...options });
}

/**
 * Blobs as PostgreSQL large objects, one row of `blobs` per SHA-256. It connects on first
 * use (BlobStorage has no `open`); `close` ends the connections.
 */
export class PostgresBlobStorage implements BlobStorage {
  readonly kind = 'postgres';
  readonly schema: string;
  readonly #url: string;
  readonly #poolSize: number;
  readonly #connectionTimeoutMillis: number;
  readonly #chunk: number;
  /** `"schema"`, quoted for SQL. */
  readonly #s: string;
  /** The pool being made or made: one, however many first calls race. */
  #pool: Promise<Pool> | undefined;
  #closed = false;

  constructor(options: PostgresBlobStorageOptions) {
    const schema = checkSchemaName(options.schema ?? 'golem');
    const chunk = options.chunkSize ?? DEFAULT_CHUNK;
    if (!Number.isInteger(chunk) || chunk < 1 || chunk > 256 * 1024 * 1024)
      throw new GolemError('INVALID_ARGUMENT', `chunkSize is a whole number of bytes from 1 to 256 MiB, not ${chunk}`);
    this.schema = schema;
    this.#url = options.url;
    this.#poolSize = options.poolSize ?? 10;
    this.#connectionTimeoutMillis = options.connectionTimeoutMillis ?? 10_000;
    this.#chunk = chunk;
    this.#s = `"${schema}"`;
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha = sha256Of(bytes);
    // Already there (the usual case for a repeated blob): no need to send the bytes.
    if (await this.has(sha)) return sha;
    const what = `writing blob ${sha}`;
    await transaction(await this.#ready(), what, async (client) => {
      const first = slice(bytes, 0, this.#chunk);
      const oid = (await client.query<{ oid: number }>('SELECT lo_from_bytea(0, $1) AS oid', [first])).rows[0]?.oid;
      if (oid === undefined) throw new GolemError('STORE_ERROR', `${what}: lo_from_bytea returned nothing`);
      for (let offset = first.byteLength; offset < bytes.byteLength; offset += this.#chunk) {
        await client.query('SELECT lo_put($1, $2, $3)', [oid, offset, slice(bytes, offset, this.#chunk)]);
      }
      const inserted = await client.query(`INSERT INTO ${this.#s}.blobs (sha256, oid, size) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING`, [
        sha,
        oid,
        bytes.byteLength,
      ]);
      // Another put of the same bytes committed first: its large object is the one; this one goes.
      if (inserted.rowCount !== 1) await client.query('SELECT lo_unlink($1)', [oid]);
    });
    return sha;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!Sha256.safeParse(sha256).success) return null;
    const what = `reading blob ${sha256}`;
    // One statement, one snapshot: the row and, when they fit in one slice, its bytes.
    const rows = await this.#query<{ size: string; bytes: Buffer | null }>(
      what,
      `SELECT size, CASE WHEN size <= $2 THEN lo_get(oid) END AS bytes FROM ${this.#s}.blobs WHERE sha256 = $1`,
      [sha256, this.#chunk],
    );
    const row = rows[0];
    if (row === undefined) return null;
    if (row.bytes !== null) return verified(sha256, Number(row.size), [row.bytes]);
    // Several slices: in one repeatable-read snapshot, so a delete meanwhile cannot cut the blob short.
    const blob = await transaction(
      await this.#ready(),
      what,
      async (client) => {
        const again = (await client.query<{ oid: number; size: string }>(`SELECT oid, size FROM ${this.#s}.blobs WHERE sha256 = $1`, [sha256])).rows[0];
        if (again === undefined) return null; // deleted meanwhile
        const size = Number(again.size);
        const parts: Buffer[] = [];
        for (let offset = 0; offset < size; offset += this.#chunk) {
          const part = (await client.query<{ part: Buffer }>('SELECT lo_get($1, $2, $3) AS part', [again.oid, offset, this.#chunk])).rows[0]?.part;
          if (part === undefined || part.byteLength === 0) break; // shorter than its row says: the check reports it
          parts.push(part);
        }
        return { size, parts };
      },
      'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
    );
    return blob === null ? null : verified(sha256, blob.size, blob.parts);
  }

  async has(sha256: string): Promise<boolean> {
    if (!Sha256.safeParse(sha256).success) return false;
    return (await this.#query('looking up a blob', `SELECT 1 FROM ${this.#s}.blobs WHERE sha256 = $1`, [sha256])).length > 0;
  }

  async sizeOf(sha256: string): Promise<number | null> {
    if (!Sha256.safeParse(sha256).success) return null;
    const rows = await this.#query<{ size: string }>("reading a blob's size", `SELECT size FROM ${this.#s}.blobs WHERE sha256 = $1`, [sha256]);
    return rows[0] === undefined ? null : Number(rows[0].size);
  }

  async delete(sha256: string): Promise<void> {
    if (!Sha256.safeParse(sha256).success) return;
    // One statement is one transaction: the row and its large object go together.
    await this.#query(
      `deleting blob ${sha256}`,
      `WITH gone AS (DELETE FROM ${this.#s}.blobs WHERE sha256 = $1 RETURNING oid) SELECT lo_unlink(oid) FROM gone`,
      [sha256],
    );
  }

  async list(): Promise<string[]> {
    const rows = await this.#query<{ sha256: string }>('listing blobs', `SELECT sha256 FROM ${this.#s}.blobs ORDER BY sha256`);
    return rows.map((row) => row.sha256);
  }

  async size(): Promise<number> {
    const rows = await this.#query<{ bytes: string }>('summing blob sizes', `SELECT coalesce(sum(size), 0) AS bytes FROM ${this.#s}.blobs`);
    return Number(rows[0]?.bytes ?? 0);
  }

  /** Ends the connections; the storage cannot be used afterwards. */
  async close(): Promise<void> {
    this.#closed = true;
    const pending = this.#pool;
    this.#pool = undefined;
    const pool = await pending?.catch(() => undefined);
    await pool?.end();
  }

  #ready(): Promise<Pool> {
    if (this.#closed) return Promise.reject(new GolemError('STORE_ERROR', 'the PostgreSQL blob storage is closed'));
    if (this.#pool === undefined) {
      const opening = this.#open();
      this.#pool = opening;
      // A failed first use (server away) is not remembered: the next call tries again.
      opening.catch(() => {
        if (this.#pool === opening) this.#pool = undefined;
      });
    }
    return this.#pool;
  }

  async #open(): Promise<Pool> {
    // Nothing here listens or holds a lock between calls: idle connections need not keep the process alive.
    const options = { url: this.#url, max: this.#poolSize, connectionTimeoutMillis: this.#connectionTimeoutMillis, allowExitOnIdle: true };
    return openPool('blob storage', options, (pool) =>
      // The store's migration lock for this schema: both may create the schema, and must not race at it.
      migrate(pool, {
        schema: this.schema,
        lockKey: `golem:${this.schema}:migrate`,
        table: 'blob_migrations',
        migrations: BLOB_MIGRATIONS,
        what: 'the blob tables',
      }),
    );
  }

  async #query<R extends object>(what: string, sql: string, params: unknown[] = []): Promise<R[]> {
    const pool = await this.#ready();
    try {
      return (await pool.query<R>(sql, params)).rows;
    } catch (cause) {
      throw unavailable(what, cause);
    }
  }
}

/** Up to `length` bytes from `offset`, as a Buffer over the same memory (node-postgres sends a Buffer as binary). */
function slice(bytes: Uint8Array, offset: number, length: number): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset + offset, Math.min(length, bytes.byteLength - offset));
}

/** The parts joined into a fresh Uint8Array, once their size and SHA-256 are what the row and the digest say. */
function verified(sha256: string, size: number, parts: readonly Buffer[]): Uint8Array {
  const total = parts.reduce((sum, part) => sum + part.byteLength, 0);
  if (total !== size)
    throw new GolemError('STORE_ERROR', `blob ${sha256} is damaged: ${total} bytes stored, ${size} recorded`, { details: { sha256, size, stored: total } });
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  const actual = sha256Of(bytes);
  if (actual !== sha256) throw new GolemError('STORE_ERROR', `blob ${sha256} is damaged: its bytes hash to ${actual}`, { details: { sha256, actual } });
  return bytes;
}
