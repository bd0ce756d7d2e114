/**
 * PostgreSQL for the tests: the server the project's machines run on 127.0.0.1:5432
 * (`.ci/run` starts it), a schema of its own for each store, dropped after the run.
 */
import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { PostgresStore } from '../src/store/postgres/index.js';

export const PG_URL = process.env.GOLEM_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const schemas = new Set<string>();
afterAll(async () => {
  if (schemas.size === 0) return;
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
  schemas.clear();
});

/** A schema name no other test uses (dropped after the file's tests). */
export function freshSchema(prefix = 't'): string {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  schemas.add(schema);
  return schema;
}

/** A store on a fresh schema, not yet open. */
export function pgStore(schema = freshSchema()): PostgresStore {
  return new PostgresStore({ url: PG_URL, schema });
}
