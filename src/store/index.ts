/**
 * The embedded stores: SQLite (better-sqlite3, WAL) for records and files for blobs, under
 * a workspace's folder. The `Store` and `BlobStorage` boundaries and the in-memory
 * implementations are the core's; PostgreSQL is `golem/postgres`.
 */
export { SqliteStore, type Durability, type SqliteStoreOptions } from './sqlite-store.js';
export { FsBlobStorage } from './fs-blob-storage.js';
