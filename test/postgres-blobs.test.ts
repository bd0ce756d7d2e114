/**
 * PostgresBlobStorage beyond the conformance suite: two machines on one schema, racing
 * puts of the same bytes, large objects gone with their rows, big blobs in slices,
 * damaged bytes, bad settings and a server that is not there.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { GolemError, sha256Of } from '../src/index.js';
import { POSTGRES_MIGRATIONS, PostgresBlobStorage, PostgresStore } from '../src/store/postgres/index.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const storages: PostgresBlobStorage[] = [];
const admin = new pg.Pool({ connectionString: PG_URL, max: 2, allowExitOnIdle: true });
admin.on('error', () => undefined);

function storage(schema: string, options: { chunkSize?: number; poolSize?: number } = {}): PostgresBlobStorage {
  const made = new PostgresBlobStorage({ url: PG_URL, schema, ...options });
  storages.push(made);
  return made;
}

async function sql<R extends object>(text: string, params: unknown[] = []): Promise<R[]> {
  return (await admin.query<R>(text, params)).rows;
}

/** Large objects in the whole database holding exactly these bytes (other test files make large objects of their own meanwhile). */
async function largeObjectsHolding(bytes: Uint8Array): Promise<number> {
  const rows = await sql<{ n: string }>("SELECT count(*) AS n FROM pg_largeobject_metadata WHERE sha256(lo_get(oid)) = decode($1, 'hex')", [sha256Of(bytes)]);
  return Number(rows[0]?.n);
}

async function oidOf(schema: string, sha: string): Promise<number> {
  const rows = await sql<{ oid: number }>(`SELECT oid FROM "${schema}".blobs WHERE sha256 = $1`, [sha]);
  if (rows[0] === undefined) throw new Error(`no row for ${sha}`);
  return rows[0].oid;
}

async function largeObjectExists(oid: number): Promise<boolean> {
  return (await sql(`SELECT 1 FROM pg_largeobject_metadata WHERE oid = $1`, [oid])).length > 0;
}

function isStoreError(error: unknown): boolean {
  return GolemError.isInstance(error) && error.code === 'STORE_ERROR';
}

// Registered after pg-helpers' hook, so it runs first (after hooks run last registered first):
// the large objects go before their schemas are dropped, as dropping a table leaves them behind.
afterAll(async () => {
  for (const made of storages) {
    try {
      for (const sha of await made.list()) await made.delete(sha);
    } catch {
      // closed, or never reachable
    }
    await made.close();
  }
  await admin.end();
});

describe('PostgresBlobStorage', () => {
  it("lets two machines on one schema see each other's blobs", async () => {
    const schema = freshSchema();
    const [a, b] = [storage(schema), storage(schema)];
    const bytes = randomBytes(1000);
    const sha = await a.put(bytes);
    expect(await b.has(sha)).toBe(true);
    expect(await b.sizeOf(sha)).toBe(1000);
    expect(await b.get(sha)).toEqual(new Uint8Array(bytes));
    expect(await b.list()).toEqual([sha]);
    expect(await b.put(bytes)).toBe(sha);
    expect(await a.size()).toBe(1000);
    await b.delete(sha);
    expect(await a.get(sha)).toBeNull();
    expect(await a.list()).toEqual([]);
  });

  it('ends 50 racing puts of the same bytes from two machines with one row and one large object', async () => {
    const schema = freshSchema(); // untouched: the two first uses race at the migration too
    const [a, b] = [storage(schema), storage(schema)];
    const bytes = randomBytes(50_000);
    const totalBefore = Number((await sql<{ n: string }>('SELECT count(*) AS n FROM pg_largeobject_metadata'))[0]?.n);
    expect(await largeObjectsHolding(bytes)).toBe(0);
    const shas = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).put(Uint8Array.from(bytes))));
    expect(new Set(shas)).toEqual(new Set([sha256Of(bytes)]));
    expect(await sql(`SELECT sha256 FROM "${schema}".blobs`)).toHaveLength(1);
    // No orphan: exactly one large object holds these bytes, and it is the row's.
    expect(await largeObjectsHolding(bytes)).toBe(1);
    const oid = await oidOf(schema, sha256Of(bytes));
    expect(await largeObjectExists(oid)).toBe(true);
    // The whole database's count grew by at least that one (other files' tests may add and remove their own meanwhile).
    const totalAfter = Number((await sql<{ n: string }>('SELECT count(*) AS n FROM pg_largeobject_metadata'))[0]?.n);
    expect(totalAfter).toBeGreaterThanOrEqual(totalBefore + 1);
    expect(await a.get(sha256Of(bytes))).toEqual(new Uint8Array(bytes));
  });

  it('leaves no orphan large object when every racing put writes its bytes', async () => {
    const schema = freshSchema();
    const [a, b] = [storage(schema), storage(schema)];
    // Past the "already there" check, every put makes a large object and all but one lose the insert.
    for (const s of [a, b]) s.has = async () => false;
    const bytes = randomBytes(20_000);
    const shas = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).put(bytes)));
    expect(new Set(shas).size).toBe(1);
    expect(await sql(`SELECT sha256 FROM "${schema}".blobs`)).toHaveLength(1);
    expect(await largeObjectsHolding(bytes)).toBe(1);
    expect(await largeObjectExists(await oidOf(schema, sha256Of(bytes)))).toBe(true);
  });

  it('removes the large object with the row', async () => {
    const schema = freshSchema();
    const blobs = storage(schema);
    const bytes = randomBytes(3000);
    const sha = await blobs.put(bytes);
    const oid = await oidOf(schema, sha);
    expect(await largeObjectExists(oid)).toBe(true);
    await blobs.delete(sha);
    expect(await largeObjectExists(oid)).toBe(false);
    expect(await largeObjectsHolding(bytes)).toBe(0);
    await blobs.delete(sha); // again: nothing to do
  });

  it('round-trips a 5 MiB blob, whole and in slices', async () => {
    const schema = freshSchema();
    const whole = storage(schema);
    const sliced = storage(schema, { chunkSize: 1024 * 1024 - 1 }); // six slices, the last one short
    const big = randomBytes(5 * 1024 * 1024);
    const sha = await whole.put(big);
    expect(await whole.sizeOf(sha)).toBe(big.byteLength);
    expect(Buffer.from((await whole.get(sha)) ?? []).equals(big)).toBe(true);
    expect(Buffer.from((await sliced.get(sha)) ?? []).equals(big)).toBe(true);
    // Written in slices, read whole.
    const other = randomBytes(5 * 1024 * 1024 + 3);
    const otherSha = await sliced.put(other);
    expect(Buffer.from((await whole.get(otherSha)) ?? []).equals(other)).toBe(true);
    expect(await whole.size()).toBe(big.byteLength + other.byteLength);
  });

  it('refuses bytes changed in the database, with a store error', async () => {
    const schema = freshSchema();
    const blobs = storage(schema);
    const sliced = storage(schema, { chunkSize: 1000 });
    const bytes = randomBytes(4000);
    const sha = await blobs.put(bytes);
    const flipped = Buffer.from([(bytes[100] ?? 0) ^ 0xff]);
    await sql(`SELECT lo_put(oid, 100, $2) FROM "${schema}".blobs WHERE sha256 = $1`, [sha, flipped]);
    await expect(blobs.get(sha)).rejects.toSatisfy(isStoreError);
    await expect(sliced.get(sha)).rejects.toSatisfy(isStoreError);
    // Bytes still whole but the recorded size wrong: refused as well.
    const other = randomBytes(2500);
    const otherSha = await blobs.put(other);
    await sql(`UPDATE "${schema}".blobs SET size = size + 1 WHERE sha256 = $1`, [otherSha]);
    await expect(blobs.get(otherSha)).rejects.toSatisfy(isStoreError);
    await expect(sliced.get(otherSha)).rejects.toSatisfy(isStoreError);
  });

  it('shares a schema with the PostgreSQL store, in tables of its own', async () => {
    const schema = freshSchema();
    const store = new PostgresStore({ url: PG_URL, schema });
    const blobs = storage(schema);
    await Promise.all([store.open(), blobs.put(new TextEncoder().encode('next to the store'))]);
    expect((await store.stats()).schemaVersion).toBe(POSTGRES_MIGRATIONS.at(-1)?.version);
    await store.close();
    const tables = await sql<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [schema]);
    expect(tables.map((t) => t.table_name)).toEqual(['blob_migrations', 'blobs', 'command_log', 'migrations', 'records', 'streams']);
  });

  it('refuses a bad schema name', () => {
    for (const schema of ['Golem', '1golem', 'golem; DROP TABLE x', 'a"b', '', 'x'.repeat(42)]) {
      expect(() => new PostgresBlobStorage({ url: PG_URL, schema })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }) as Error);
    }
  });

  it('fails with a store error, not a hang, when the server is not there', async () => {
    const refused = new PostgresBlobStorage({ url: 'postgres://postgres@127.0.0.1:1/test', connectionTimeoutMillis: 2000 });
    const started = Date.now();
    await expect(refused.has('0'.repeat(64))).rejects.toSatisfy(isStoreError);
    await expect(refused.put(new Uint8Array([1]))).rejects.toSatisfy(isStoreError); // tried again, failed again
    expect(Date.now() - started).toBeLessThan(5000);
    await refused.close();
  });

  it('gives up on a server that accepts and never answers', async () => {
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const blobs = new PostgresBlobStorage({ url: `postgres://postgres@127.0.0.1:${port}/test`, connectionTimeoutMillis: 300 });
    try {
      const started = Date.now();
      await expect(blobs.list()).rejects.toSatisfy(isStoreError);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      await blobs.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('connects once under concurrent first calls, and refuses calls after close', async () => {
    const schema = freshSchema();
    const name = `golem_test_${schema}`;
    const blobs = new PostgresBlobStorage({ url: `${PG_URL}?application_name=${name}`, schema, poolSize: 2 });
    storages.push(blobs);
    const bytes = Array.from({ length: 10 }, (_, i) => new TextEncoder().encode(`blob ${i}`));
    await Promise.all(bytes.map((b) => blobs.put(b)));
    expect((await blobs.list()).sort()).toEqual(bytes.map((b) => sha256Of(b)).sort());
    // One pool of two: a pool made per first call would have left up to twenty connections open.
    const connections = await sql<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1', [name]);
    expect(Number(connections[0]?.n)).toBeGreaterThan(0);
    expect(Number(connections[0]?.n)).toBeLessThanOrEqual(2);
    for (const sha of await blobs.list()) await blobs.delete(sha);
    await blobs.close();
    await expect(blobs.list()).rejects.toSatisfy(isStoreError);
  });
});
