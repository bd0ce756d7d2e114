/**
 * Crashes lose nothing (issue 9): the crash harness (reliability/crash.ts) kills a child
 * dispatching commands with SIGKILL, GOLEM_CRASH_KILLS times per store (20 by default;
 * `npm run reliability` runs 200), and checks the workspace after each kill. And the
 * harness's checks themselves: each kind of damage they look for, made by hand, is found.
 */
import { unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createWorkspace, sha256Of, type Workspace } from '../src/index.js';
import { crashRow, crashRun, type CrashReport } from '../reliability/crash.js';
import { CrashChecker, blocksDigest, type Ack } from '../reliability/crash-checks.js';
import { tempDir } from './helpers.js';
import { PG_URL } from './pg-helpers.js';

const KILLS = Number(process.env.GOLEM_CRASH_KILLS ?? 20);

function expectNothingLost(report: CrashReport): void {
  expect(report.failures).toEqual([]);
  expect(report.failureCount).toBe(0);
  expect(report.kills).toBe(KILLS);
  expect(report.checked).toBeGreaterThan(0);
  // Every command a child committed was either acknowledged (and checked) or in flight when it was killed.
  expect(report.committed).toBe(report.checked + report.inFlight);
  // Kills landed mid-stream: children had acknowledged commands, and some had a command committed but not yet acknowledged.
  expect(report.killsAfterAcks).toBeGreaterThan(0);
  expect(report.killsWithInFlight).toBeGreaterThan(0);
  const [row] = [crashRow(report)];
  expect(row).toMatchObject({ area: 'crash', runs: KILLS, checked: report.checked, failures: 0 });
}

describe('SIGKILL during dispatch', () => {
  it('loses nothing on SQLite', { timeout: 300_000 }, async () => {
    const report = await crashRun({ store: 'sqlite', kills: KILLS });
    expectNothingLost(report);
    expect(crashRow(report).check).toBe('SIGKILL during dispatch (SQLite)');
  });

  it('loses nothing on PostgreSQL', { timeout: 300_000 }, async () => {
    const report = await crashRun({ store: 'postgres', kills: KILLS, pgUrl: PG_URL });
    expectNothingLost(report);
    expect(crashRow(report).check).toBe('SIGKILL during dispatch (PostgreSQL)');
  });
});

describe("the crash harness's checks", () => {
  /** A workspace with a session, a turn with a blob, an environment value, a UI instance and an answered approval; and the acks for it. */
  async function workspaceWithAcks(
    dir: string,
  ): Promise<{ ws: Workspace; acks: Ack[]; turn: { id: string; version: number }; session: string; sha256: string }> {
    const ws = await createWorkspace({ dir, actor: 'crash-child' });
    const id = (n: number) => `cmd-${n}`;
    const s = await ws.manager.dispatch({ id: id(1), type: 'session:create', payload: { id: 'chat' } });
    if (!s.ok) throw s.error;
    const blob = await ws.blobs.register(new TextEncoder().encode('a picture'), { mediaType: 'image/png' });
    const blocks = [
      { type: 'text' as const, text: 'see' },
      { type: 'image' as const, blob: { sha256: blob.sha256 }, mediaType: 'image/png' },
    ];
    const t = await ws.manager.dispatch({ id: id(2), type: 'turn:add', payload: { sessionId: 'chat', turn: { id: 'turn-1', role: 'user', blocks } } });
    if (!t.ok) throw t.error;
    await ws.manager.dispatch({ id: id(3), type: 'environment:update', payload: { environmentId: 'env', values: { count: '1' } } });
    await ws.ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: 'ui',
      patches: [
        { op: 'set', path: 'meta', value: { pageKey: 'ui', step: { current: 1, total: 1 }, status: 'idle' } },
        { op: 'set', path: 'state', value: { params: {}, runtime: {} } },
        { op: 'set', path: 'blocks', value: [] },
        { op: 'set', path: 'actions', value: [] },
      ],
    });
    const turn = { id: t.value.id, version: t.value.version };
    const acks: Ack[] = [
      { kind: 'ack', op: 'session', ids: [id(1)], session: 'chat' },
      { kind: 'ack', op: 'turn', ids: [id(2)], session: 'chat', turn, digest: blocksDigest(t.value.blocks) },
      { kind: 'ack', op: 'env', ids: [id(3)], env: 'env' },
    ];
    return { ws, acks, turn, session: 'chat', sha256: blob.sha256 };
  }

  it('find a sound workspace sound, and collect an orphan blob file without calling it a failure', async () => {
    const dir = tempDir();
    const { ws, acks } = await workspaceWithAcks(dir);
    await ws.close();
    // Bytes stored but never recorded: what a kill between the blob write and the commit leaves.
    const orphan = new TextEncoder().encode('left by a kill');
    writeFileSync(join(dir, 'blobs', sha256Of(orphan)), orphan);

    const checker = new CrashChecker('crash-child');
    const again = await createWorkspace({ dir });
    const check = await checker.afterKill(again, acks, 'kill 1');
    expect(check.failures).toEqual([]);
    expect(check).toMatchObject({ checked: 3, orphansCollected: 1 });
    // Of the five commands committed in the child's name (its workspace's creation aside), the blob's register and
    // the UI instance's were never acknowledged: as if in flight at the kill.
    expect(check.committed).toBe(5);
    expect(check.inFlight).toBe(2);
    expect(await again.manager.blobStorage.has(sha256Of(orphan))).toBe(false);
    expect(await checker.finalCheck(again)).toEqual([]);
    await again.close();
  });

  it('find a lost command, a half-applied one, a counted blob without its file or with other bytes, and values that differ from the log', async () => {
    const dir = tempDir();
    const { ws, acks, turn, sha256 } = await workspaceWithAcks(dir);
    const held = await ws.blobs.register(new TextEncoder().encode('kept bytes'), { mediaType: 'text/plain', hold: true });
    await ws.close();
    const checker = new CrashChecker('crash-child');

    // Damage of every kind the checks look for, made behind the workspace's back.
    const db = new Database(join(dir, 'workspace.db'));
    db.prepare("DELETE FROM records WHERE collection = 'turn'").run(); // the turn:add is in the log, its turn is not
    db.prepare("UPDATE records SET value = json_set(value, '$.values.count', '2') WHERE collection = 'environment'").run();
    db.prepare("UPDATE records SET value = json_set(value, '$.version', 5) WHERE collection = 'ui_instance'").run();
    db.close();
    unlinkSync(join(dir, 'blobs', sha256));
    writeFileSync(join(dir, 'blobs', held.sha256), 'other bytes');
    const lost: Ack = { kind: 'ack', op: 'fork', ids: ['cmd-never-committed'], session: 'fork-never-made' };

    const again = await createWorkspace({ dir });
    const { failures } = await checker.afterKill(again, [...acks, lost], 'kill 1');
    await again.close();
    const text = failures.join('\n');
    expect(text).toContain('ACK_LOST: fork command cmd-never-committed was acknowledged but is not in the log');
    expect(text).toContain('ACK_LOST: acknowledged session fork-never-made is missing');
    expect(text).toContain(`ACK_LOST: acknowledged turn ${turn.id}@${turn.version} is missing while its session lives`);
    expect(text).toContain(`HALF_APPLIED: turn:add at seq`);
    expect(text).toContain('[HEAD_MISSING]');
    expect(text).toContain(`[BLOB_FILE_MISSING] blob ${sha256}`);
    expect(text).toContain(`BLOB_DAMAGED ${held.sha256}: 11 bytes that hash to ${sha256Of(new TextEncoder().encode('other bytes'))}`);
    expect(text).toContain('HALF_APPLIED: environment env holds {"count":"2"}');
    expect(text).toContain('HALF_APPLIED: UI instance ui is at version 5, replaying the log gives version 1');
    // The turn gone, its blob's count no longer equals its references: found (and repaired, which a crash must never need).
    expect(text).toContain(`BLOB_COUNT before repair: blob ${sha256}`);
    expect(failures.every((f) => f.startsWith('kill 1: '))).toBe(true);
  });
});
