/**
 * `golem/postgres`: the PostgreSQL store and blob storage, for many processes sharing one
 * workspace (or many, a schema each). Needs the `pg` package (an optional peer dependency).
 *
 * @example
 * import { createWorkspace } from 'golem'
 * import { postgresStore, postgresBlobStorage } from 'golem/postgres'
 * const ws = await createWorkspace({ store: postgresStore(url, { schema: 'team_a' }), blobStorage: postgresBlobStorage(url, { schema: 'team_a' }) })
 */
export { PostgresStore, postgresStore, type PostgresStoreOptions } from './postgres-store.js';
export { POSTGRES_MIGRATIONS } from './postgres-migrations.js';
export { PostgresBlobStorage, postgresBlobStorage, type PostgresBlobStorageOptions } from './postgres-blob-storage.js';
