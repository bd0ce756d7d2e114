import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from '../src/store/sqlite-migrations.js';
import { afterAll, describe, expect, it } from 'vitest';
import { FsBlobStorage, GolemError, MemoryBlobStorage, MemoryStore, SqliteStore, type Store } from '../src/index.js';
import { PostgresBlobStorage, PostgresStore } from '../src/store/postgres/index.js';
import { describeBlobStorageConformance } from '../src/test/blob-storage-conformance.js';
import { describeStoreConformance } from '../src/test/store-conformance.js';
import { tempDir } from './helpers.js';
import { freshSchema, PG_URL, pgStore } from './pg-helpers.js';

describeStoreConformance('memory', { create: async () => new MemoryStore() });
describeStoreConformance('sqlite', {
  create: async () => new SqliteStore({ path: join(tempDir(), 'workspace.db') }),
  reopen: async (store: Store) => new SqliteStore({ path: (store as SqliteStore).path }),
  noStreams: true,
});
describeStoreConformance('postgres', {
  create: async () => pgStore(),
  reopen: async (store: Store) => new PostgresStore({ url: PG_URL, schema: (store as PostgresStore).schema }),
});
describeBlobStorageConformance('memory', async () => new MemoryBlobStorage());
describeBlobStorageConformance('fs', async () => new FsBlobStorage(join(tempDir(), 'blobs')));
const pgBlobStorages: PostgresBlobStorage[] = [];
describeBlobStorageConformance('postgres', async () => {
  const storage = new PostgresBlobStorage({ url: PG_URL, schema: freshSchema() });
  pgBlobStorages.push(storage);
  return storage;
});
// Before pg-helpers drops the schemas (after hooks run last registered first): dropping a table leaves its large objects behind.
afterAll(async () => {
  for (const storage of pgBlobStorages) {
    for (const sha of await storage.list()) await storage.delete(sha);
    await storage.close();
  }
});

describe('SqliteStore', () => {
  it('runs in WAL mode with its schema version recorded', async () => {
    const path = join(tempDir(), 'w.db');
    const store = new SqliteStore({ path });
    await store.open();
    expect((await store.stats()).schemaVersion).toBe(SQLITE_MIGRATIONS.at(-1)?.version);
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.at(-1)?.version);
    db.close();
  });

  it('refuses a database written by a newer Golem, without touching it', async () => {
    const path = join(tempDir(), 'w.db');
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    const store = new SqliteStore({ path });
    await expect(store.open()).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e) && e.code === 'STORE_VERSION_TOO_NEW');
    const after = new Database(path, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(99);
    expect(after.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()).toEqual({ n: 0 });
    after.close();
  });

  it('reports a file that is not a database as a store error', async () => {
    const path = join(tempDir(), 'not.db');
    writeFileSync(path, 'this is not a database, just text that is long enough to be read as a header...');
    await expect(new SqliteStore({ path }).open()).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e) && e.code === 'STORE_ERROR');
  });

  it('reports its size on disk', async () => {
    const store = new SqliteStore({ path: join(tempDir(), 'w.db') });
    await store.open();
    await store.commit({ seq: 1, id: 'c1', type: 't', payload: {}, timestamp: 'now', actor: null }, [
      { op: 'put', collection: 'c', key: 'k', json: JSON.stringify('x'.repeat(10_000)) },
    ]);
    expect((await store.stats()).bytes).toBeGreaterThan(10_000);
    await store.close();
  });
});

describe('FsBlobStorage', () => {
  it('leaves no temporary files behind', async () => {
    const dir = join(tempDir(), 'blobs');
    const storage = new FsBlobStorage(dir);
    await Promise.all(Array.from({ length: 20 }, (_, i) => storage.put(new TextEncoder().encode(`blob ${i % 5}`))));
    const { readdirSync } = await import('node:fs');
    expect(readdirSync(dir).sort()).toEqual((await storage.list()).sort());
    expect(readdirSync(dir)).toHaveLength(5);
  });
});
