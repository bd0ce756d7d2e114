/**
 * `golem doctor` on a real workspace: sound after ordinary use; a blob file no record
 * names (a crash between storing bytes and committing the record), a wrong reference
 * count and a record changed behind the index's back are each reported with a code, and
 * `--repair` mends the first two through the write path.
 */
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.js';
import { createWorkspace, doctor, sha256Of } from '../src/index.js';
import { tempDir } from './helpers.js';

async function golem(args: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd }, {});
  return { code, stdout, stderr };
}

describe('golem doctor', () => {
  it('finds a sound workspace sound, then reports and repairs an orphan blob file and a wrong count', async () => {
    const cwd = tempDir();
    const dir = join(cwd, '.golem');
    const ws = await createWorkspace({ dir });
    const s = await ws.sessions.create({ label: 'doc' });
    const blob = await ws.blobs.register(new TextEncoder().encode('a picture'), { mediaType: 'image/png' });
    await s.addTurn({
      role: 'user',
      blocks: [
        { type: 'text', text: 'see' },
        { type: 'image', blob: { sha256: blob.sha256 }, mediaType: 'image/png' },
      ] as never,
    });
    await s.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'seen' }] });
    const report = await doctor(ws.manager);
    expect(report).toMatchObject({ healthy: true, violations: [], orphanBlobs: [], indexDrift: [] });
    await ws.close();
    expect(await golem(['doctor'], cwd)).toMatchObject({ code: 0, stdout: 'The workspace is sound.\n' });

    // Bytes stored but never recorded (the crash between the file and the commit), and a count changed on disk.
    const orphan = new TextEncoder().encode('left by a crash');
    const orphanSha = sha256Of(orphan);
    writeFileSync(join(dir, 'blobs', orphanSha), orphan);
    const db = new Database(join(dir, 'workspace.db'));
    const row = db.prepare("SELECT value FROM records WHERE collection = 'blob' AND key = ?").get(blob.sha256) as { value: string };
    db.prepare("UPDATE records SET value = ? WHERE collection = 'blob' AND key = ?").run(
      JSON.stringify({ ...(JSON.parse(row.value) as object), refCount: 7 }),
      blob.sha256,
    );
    db.close();

    const found = await golem(['doctor', '--json'], cwd);
    expect(found.code).toBe(1);
    const parsed = JSON.parse(found.stdout) as { violations: { code: string }[]; orphanBlobs: string[]; healthy: boolean };
    expect(parsed.violations.map((v) => v.code)).toEqual(['BLOB_COUNT']);
    expect(parsed.orphanBlobs).toEqual([orphanSha]);
    const text = await golem(['doctor'], cwd);
    expect(text.stdout).toContain('[BLOB_COUNT]');
    expect(text.stdout).toContain(`[BLOB_ORPHAN] blob file ${orphanSha}`);
    expect(text.stdout).toContain('golem doctor --repair');

    const repaired = await golem(['doctor', '--repair'], cwd);
    expect(repaired.code).toBe(0);
    expect(repaired.stdout).toContain(`repaired  the reference count of blob ${blob.sha256}`);
    expect(repaired.stdout).toContain(`repaired  deleted orphan blob file ${orphanSha}`);
    expect(await golem(['doctor'], cwd)).toMatchObject({ code: 0, stdout: 'The workspace is sound.\n' });
    // The repair went through the write path, and the picture is still there.
    const after = await createWorkspace({ dir });
    expect((await after.manager.store.commandLog()).at(-1)?.type).toBe('blob:recount');
    expect(after.manager.workspace().blobs.get(blob.sha256)?.refCount).toBe(1);
    expect(new TextDecoder().decode(await after.blobs.read(blob.sha256))).toBe('a picture');
    await after.close();
  });

  it('reports a partial blob write a crash left (a temporary file) once it is stale, and --repair deletes it; a fresh one may be under way', async () => {
    const cwd = tempDir();
    const dir = join(cwd, '.golem');
    const ws = await createWorkspace({ dir });
    await ws.blobs.register(new TextEncoder().encode('whole'), { mediaType: 'text/plain' });
    await ws.close();
    const stale = join(dir, 'blobs', '.tmp-00112233aabbccdd');
    const fresh = join(dir, 'blobs', '.tmp-ffeeddccbbaa9988');
    writeFileSync(stale, 'half a bl');
    writeFileSync(fresh, 'being writ');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(stale, hourAgo, hourAgo);

    const found = await golem(['doctor'], cwd);
    expect(found.code).toBe(1);
    expect(found.stdout).toContain('[BLOB_PARTIAL_WRITE] .tmp-00112233aabbccdd is a blob write a crash cut short');
    expect(found.stdout).not.toContain('.tmp-ffeeddccbbaa9988');
    const repaired = await golem(['doctor', '--repair'], cwd);
    expect(repaired).toMatchObject({ code: 0 });
    expect(repaired.stdout).toContain('repaired  deleted partial blob write .tmp-00112233aabbccdd');
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    // A caller that knows no write is under way (every writer is dead) can say so.
    const after = await createWorkspace({ dir });
    expect((await doctor(after.manager, { repair: true, staleAfterMs: 0 })).repaired.partialWritesDeleted).toEqual(['.tmp-ffeeddccbbaa9988']);
    expect(existsSync(fresh)).toBe(false);
    await expect(after.manager.blobStorage.removePartialWrite?.('../workspace.db')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(existsSync(join(dir, 'workspace.db'))).toBe(true);
    await after.close();
  });

  it('reports a record changed behind the index, and a registered blob whose file is gone, which it cannot repair', async () => {
    const cwd = tempDir();
    const dir = join(cwd, '.golem');
    const ws = await createWorkspace({ dir });
    const s = await ws.sessions.create({ label: 'before' });
    const blob = await ws.blobs.register(new TextEncoder().encode('bytes'), { mediaType: 'text/plain', hold: true });
    // Another writer changes the store under a live index (no command, so no catch-up can see it).
    const db = new Database(join(dir, 'workspace.db'));
    const row = db.prepare("SELECT value FROM records WHERE collection = 'session' AND key = ?").get(s.id) as { value: string };
    db.prepare("UPDATE records SET value = ? WHERE collection = 'session' AND key = ?").run(
      JSON.stringify({ ...(JSON.parse(row.value) as object), label: 'changed' }),
      s.id,
    );
    db.close();
    await ws.manager.blobStorage.delete(blob.sha256);
    const report = await doctor(ws.manager, { repair: true });
    expect(report.healthy).toBe(false);
    expect(report.indexDrift).toEqual([`session/${s.id}`]);
    expect(report.violations.map((v) => v.code)).toEqual(['BLOB_FILE_MISSING']);
    expect(report.repaired).toEqual({ blobCounts: [], orphanBlobsDeleted: [], partialWritesDeleted: [], holdsReleased: [], unusedBlobsCollected: [] });
    await ws.close();
  });
});
