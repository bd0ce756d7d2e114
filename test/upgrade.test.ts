/**
 * Upgrading in place: a workspace written by an earlier version of Golem opens with this
 * one, reads back what that version read, stays sound, and takes new commands. The
 * fixtures were made once by test/fixtures/make-workspace-fixture.ts and are never
 * refreshed: a version that changes how records are stored adds its migration, and these
 * tests prove it on the files an older version really wrote.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace, doctor, type Workspace } from '../src/index.js';
import { postgresBlobStorage, postgresStore } from '../src/store/postgres/index.js';
import { readFixture } from './fixtures/read-workspace-fixture.js';
import { tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const FIXTURES = join(import.meta.dirname, 'fixtures');

/** Each format version's fixture: what it holds, and the schema name its PostgreSQL dump was made with. */
const VERSIONS = [{ dir: 'workspace-v1', schema: 'golem_fixture' }];

async function expectUpgraded(ws: Workspace, expected: unknown): Promise<void> {
  // The same reads as the version that wrote it; the log and the records agree.
  expect(JSON.parse(JSON.stringify(await readFixture(ws)))).toEqual(expected);
  const report = await doctor(ws.manager);
  expect({ violations: report.violations, orphanBlobs: report.orphanBlobs, indexDrift: report.indexDrift }).toEqual({
    violations: [],
    orphanBlobs: [],
    indexDrift: [],
  });
  expect(report.healthy).toBe(true);
  // It takes new commands, on the old sessions too.
  const session = ws.sessions.get('01900000-0000-7000-8000-000000000001');
  const added = await session?.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'Two, in a fish.' }] });
  expect(added?.parent).toEqual({ id: '01900000-0000-7000-8000-0000000000a3', version: 1 });
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
