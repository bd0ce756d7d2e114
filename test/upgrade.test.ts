/**
 * Upgrading in place: a workspace written by an earlier version of Golem opens with this
 * one, reads back what that version read, stays sound, and takes new commands. The
 * fixtures were made once by test/fixtures/make-workspace-fixture.ts and are never
 * refreshed: a version that changes how records are stored adds its migration, and these
 * tests prove it on the files an older version really wrote.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { SQLITE_MIGRATIONS } from '../src/store/sqlite-migrations.js';
import pg from 'pg';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace, doctor, type Workspace } from '../src/index.js';
import { POSTGRES_MIGRATIONS, postgresBlobStorage, postgresStore } from '../src/store/postgres/index.js';
import { readFixture } from './fixtures/read-workspace-fixture.js';
import { tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');

/** Each format version's fixture: what it holds, and the schema name its PostgreSQL dump was made with. */
const VERSIONS = [{ dir: 'workspace-v1', schema: 'golem_fixture' }];

async function expectUpgraded(ws: Workspace, expected: unknown, options: { doctor: boolean } = { doctor: true }): Promise<void> {
  // The same reads as the version that wrote it; the log and the records agree.
  expect(JSON.parse(JSON.stringify(await readFixture(ws)))).toEqual(expected);
  if (options.doctor) await expectHealthy(ws);
  // It takes new commands, on the old sessions too.
  const session = ws.sessions.get('01900000-0000-7000-8000-000000000001');
  const added = await session?.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'Two, in a fish.' }] });
  expect(added?.parent).toEqual({ id: '01900000-0000-7000-8000-0000000000a3', version: 1 });
}

async function expectHealthy(ws: Workspace): Promise<void> {
  const report = await doctor(ws.manager);
  expect({ violations: report.violations, orphanBlobs: report.orphanBlobs, indexDrift: report.indexDrift }).toEqual({
    violations: [],
    orphanBlobs: [],
    indexDrift: [],
  });
  expect(report.healthy).toBe(true);
}

describe.each(VERSIONS)('a workspace written by $dir', ({ dir, schema }) => {
  const expected: unknown = JSON.parse(readFileSync(join(FIXTURES, dir, 'expected.json'), 'utf8'));

  it('opens on SQLite, reads back the same and stays sound', async () => {
    // A copy: opening may migrate the files in place, and the fixture must stay as that version left it.
    const copy = tempDir();
    cpSync(join(FIXTURES, dir, 'sqlite'), copy, { recursive: true });
    const ws = await createWorkspace({ dir: copy });
    await expectUpgraded(ws, expected);
    await ws.close();
    // And again after the upgrade, with the new turn.
    const again = await createWorkspace({ dir: copy });
    expect((await again.sessions.get('01900000-0000-7000-8000-000000000001')?.transcript())?.at(-1)?.blocks).toEqual([
      { type: 'text', text: 'Two, in a fish.' },
    ]);
    await again.close();
  });

  it('opens on PostgreSQL, reads back the same and stays sound', async () => {
    const target = freshSchema('upgrade');
    const sql = join(tempDir(), 'dump.sql');
    writeFileSync(sql, readFileSync(join(FIXTURES, dir, 'postgres.sql'), 'utf8').replaceAll(schema, target));
    execFileSync('psql', [PG_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-f', sql], { stdio: ['ignore', 'ignore', 'pipe'] });
    // A schema's dump leaves out large objects (they belong to the database): each blob's bytes, which expected.json
    // holds, go back into a large object of its own, and its row points at it.
    for (const blob of (expected as { blobs: { sha256: string; bytes: string }[] }).blobs) {
      const update = `UPDATE "${target}".blobs SET oid = lo_from_bytea(0, decode('${blob.bytes}', 'hex')) WHERE sha256 = '${blob.sha256}'`;
      execFileSync('psql', [PG_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-c', update], { stdio: ['ignore', 'ignore', 'pipe'] });
    }
    const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema: target }), blobStorage: postgresBlobStorage(PG_URL, { schema: target }) });
    await expectUpgraded(ws, expected);
    await ws.close();
  });
});

/**
 * Turns of a session long gone, enough that migration 2 (each turn's owner) takes a while: a kill lands inside it.
 * (Unreachable from any session, so doctor would report them: these tests check the rest.)
 */
const FILLER = 200_000;
const FILLER_SESSION = '01900000-0000-7000-8000-0000000000ff';
const fillerTurn = (n: string) =>
  `'{"id":"filler-' || ${n} || '","version":0,"parent":null,"sessionId":"${FILLER_SESSION}","role":"user","blocks":[{"type":"text","text":"filler ' || ${n} || '"}],"meta":{},"seq":1,"createdAt":"2024-06-01T00:00:00.000Z"}'`;

/** The migration child: opens the workspace, printing "opening" first; `kill` is called once it has said so, and says when to kill it. */
async function killedWhileMigrating(args: string[], killWhen: () => Promise<boolean>): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(FIXTURES, 'migrate-child.ts'), ...args], { cwd: join(import.meta.dirname, '..') });
  let out = '';
  child.stdout.on('data', (data: Buffer) => (out += data.toString()));
  child.stderr.on('data', (data: Buffer) => (out += data.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  for (let i = 0; !out.includes('opening'); i++) {
    if (i > 600 || child.exitCode !== null) throw new Error(`the child did not start: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  for (let i = 0; !(await killWhen()); i++) {
    if (i > 2000 || out.includes('opened')) throw new Error(`the migration ended before the kill: ${out}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  child.kill('SIGKILL');
  await exited;
  expect(out).not.toContain('opened');
}

describe('a migration interrupted by a kill', () => {
  const expected: unknown = JSON.parse(readFileSync(join(FIXTURES, 'workspace-v1', 'expected.json'), 'utf8'));

  it('on SQLite: is rolled back whole, and done again whole on the next open', async () => {
    const copy = tempDir();
    cpSync(join(FIXTURES, 'workspace-v1', 'sqlite'), copy, { recursive: true });
    const file = join(copy, 'workspace.db');
    const db = new Database(file);
    db.exec(`WITH RECURSIVE g(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM g WHERE n < ${FILLER})
      INSERT INTO records (collection, key, value) SELECT 'turn', 'filler-' || n || '@0', ${fillerTurn('n')} FROM g`);
    const before = db.prepare('SELECT count(*) AS n FROM records').get() as { n: number };
    db.close();
    // Killed once the migration's transaction has written (uncommitted) pages to the log: inside it, not before or after.
    await killedWhileMigrating(['sqlite', copy], async () => existsSync(`${file}-wal`) && statSync(`${file}-wal`).size > 4_000_000);
    const after = new Database(file, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(1);
    expect((after.prepare('SELECT count(*) AS n FROM records').get() as { n: number }).n).toBe(before.n);
    after.close();

    const ws = await createWorkspace({ dir: copy });
    await expectUpgraded(ws, expected, { doctor: false });
    await ws.close();
    const migrated = new Database(file, { readonly: true });
    expect(migrated.pragma('user_version', { simple: true })).toBe(SQLITE_MIGRATIONS.at(-1)?.version);
    const owners = migrated.prepare(`SELECT count(*) AS n FROM records WHERE collection = 'turn' AND owner = json_extract(value, '$.sessionId')`).get() as {
      n: number;
    };
    const turns = migrated.prepare(`SELECT count(*) AS n FROM records WHERE collection = 'turn'`).get() as { n: number };
    expect(owners.n).toBe(turns.n);
    expect(turns.n).toBeGreaterThan(FILLER);
    migrated.close();
  });

  it('on PostgreSQL: is rolled back whole, and done again whole on the next open', async () => {
    const target = freshSchema('upgrade');
    const sql = join(tempDir(), 'dump.sql');
    writeFileSync(sql, readFileSync(join(FIXTURES, 'workspace-v1', 'postgres.sql'), 'utf8').replaceAll('golem_fixture', target));
    execFileSync('psql', [PG_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-f', sql], { stdio: ['ignore', 'ignore', 'pipe'] });
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      await client.query(`INSERT INTO "${target}".records (collection, key, value)
        SELECT 'turn', 'filler-' || n || '@0', ${fillerTurn('n')} FROM generate_series(1, ${FILLER}) AS n`);
      const count = async () => Number((await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${target}".records`)).rows[0]?.n);
      const before = await count();
      // Killed while the server runs the migration's UPDATE for it.
      const migrating = async () =>
        ((await client.query(`SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%SET owner%' AND query LIKE $1`, [`%${target}%`]))
          .rowCount ?? 0) > 0;
      await killedWhileMigrating(['postgres', PG_URL, target], migrating);
      // The server ends the dead client's transaction (when it next writes to it): rolled back, not committed.
      for (let i = 0; i < 400 && (await migrating()); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      const versions = await client.query<{ version: number }>(`SELECT version FROM "${target}".migrations ORDER BY version`);
      expect(versions.rows.map((r) => r.version)).toEqual([1]);
      const columns = await client.query(
        `SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'records' AND column_name = 'owner'`,
        [target],
      );
      expect(columns.rowCount).toBe(0);
      expect(await count()).toBe(before);
      // Blobs' bytes, as in the upgrade above.
      for (const blob of (expected as { blobs: { sha256: string; bytes: string }[] }).blobs) {
        await client.query(`UPDATE "${target}".blobs SET oid = lo_from_bytea(0, decode($1, 'hex')) WHERE sha256 = $2`, [blob.bytes, blob.sha256]);
      }

      const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema: target }), blobStorage: postgresBlobStorage(PG_URL, { schema: target }) });
      await expectUpgraded(ws, expected, { doctor: false });
      await ws.close();
      const unowned = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${target}".records WHERE collection = 'turn' AND owner IS DISTINCT FROM value::jsonb ->> 'sessionId'`,
      );
      expect(Number(unowned.rows[0]?.n)).toBe(0);
      expect((await client.query<{ version: number }>(`SELECT version FROM "${target}".migrations ORDER BY version`)).rows.map((r) => r.version)).toEqual(
        POSTGRES_MIGRATIONS.map((m) => m.version),
      );
    } finally {
      await client.end();
    }
  });
});
