/**
 * What sessions share: a fork sees the history it was forked from and its own turns,
 * nothing else, and keeps that history whatever happens to the session it came from.
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, createWorkspace, type Session, type Turn } from '../src/index.js';
import { expectIndexMatchesStore, text } from './helpers.js';

const path = async (s: Session) => (await s.transcript()).map((t: Turn) => `${t.id}@${t.version}`).join(' > ');

async function abc() {
  const ws = await createWorkspace();
  const S = await ws.sessions.create({ label: 'S' });
  for (const id of ['a', 'b', 'c']) await S.addTurn({ id, role: 'user', blocks: [text(id)] });
  return { ws, S };
}

describe('a fork and the history it stands on', () => {
  it('keeps its inherited timeline when the source session is deleted and it edits and switches back', async () => {
    const { ws, S } = await abc();
    const F = await ws.sessions.fork(S.id, 'c');
    await ws.sessions.delete(S.id);
    await F.editTurn('b', [text('b2')]);
    expect(await path(F)).toBe('a@0 > b@1');
    await F.switchVersionLeft('b');
    expect(await path(F)).toBe('a@0 > b@0 > c@0');
    expect(await checkInvariants(await ws.manager.wholeWorkspace())).toEqual([]);
    await expectIndexMatchesStore(ws);
  });

  it('can go back to its inherited continuation while the source lives', async () => {
    const { ws, S } = await abc();
    const F = await ws.sessions.fork(S.id, 'c');
    await F.editTurn('b', [text('b2')]);
    await F.switchVersionLeft('b');
    expect(await path(F)).toBe('a@0 > b@0 > c@0');
    await F.update({ label: 'moved' });
    const r = await ws.manager.dispatch({ type: 'session:update', payload: { sessionId: F.id, updates: { head: { id: 'c', version: 0 } } } });
    expect(r.ok).toBe(true);
    const again = await ws.sessions.fork(F.id, 'c');
    expect(again.head()).toEqual({ id: 'c', version: 0 });
  });

  it("does not see the source's later versions and turns, nor the source the fork's", async () => {
    const { ws, S } = await abc();
    const F = await ws.sessions.fork(S.id, 'b');
    await F.editTurn('a', [text('F private edit')]);
    expect(await S.branchInfo('a')).toEqual({ versions: [0], currentIndex: 0, total: 1, hasPrev: false, hasNext: false });
    await expect(S.switchVersionRight('a')).rejects.toMatchObject({ code: 'NO_NEXT_VERSION' });
    expect(await path(S)).toBe('a@0 > b@0 > c@0');

    await S.editTurn('b', [text('S edit')]);
    expect(await F.branchInfo('b')).toMatchObject({ versions: [0] });
    // F can still edit and fork at b: b@0 is the version it sees.
    const fEdit = await F.editTurn('b', [text('F edit')]);
    expect(fEdit.version).toBe(2);
    expect((await F.branchInfo('b')).versions).toEqual([0, 2]);
    const fork = await ws.sessions.fork(F.id, 'b', { version: 0 });
    expect(fork.head()).toEqual({ id: 'b', version: 0 });
    expect(await checkInvariants(await ws.manager.wholeWorkspace())).toEqual([]);
  });

  it('refuses to delete the turn a session was forked at, even in that session', async () => {
    const { ws, S } = await abc();
    const F = await ws.sessions.fork(S.id, 'b');
    await ws.sessions.delete(S.id);
    await expect(F.deleteTurn('b', 0)).rejects.toMatchObject({ code: 'TURN_SHARED' });
    await F.addTurn({ id: 'd', role: 'user', blocks: [text('d')] });
    await F.deleteTurn('d');
    expect(await path(F)).toBe('a@0 > b@0');
    // c was S's own continuation past the fork point: gone with S.
    expect(ws.manager.workspace().node('c')).toBeUndefined();
  });

  it('frees the inherited history when the last session standing on it goes', async () => {
    const { ws, S } = await abc();
    const F = await ws.sessions.fork(S.id, 'b');
    const G = await ws.sessions.fork(F.id, 'a');
    await ws.sessions.delete(S.id);
    expect([...ws.manager.workspace().turns.keys()].sort()).toEqual(['a@0', 'b@0']);
    await ws.sessions.delete(F.id);
    expect([...ws.manager.workspace().turns.keys()]).toEqual(['a@0']);
    await ws.sessions.delete(G.id);
    expect(ws.manager.workspace().turns.size).toBe(0);
    await expectIndexMatchesStore(ws);
  });
});

describe('session ids', () => {
  it('of a deleted session whose history is still kept cannot be taken again', async () => {
    const ws = await createWorkspace();
    const alice = await ws.sessions.create({ id: 'alice' });
    const t = await alice.addTurn({ role: 'user', blocks: [text('private question')] });
    const f = await ws.sessions.fork('alice', t.id);
    await ws.sessions.delete('alice');
    await expect(ws.sessions.create({ id: 'alice' })).rejects.toMatchObject({ code: 'DUPLICATE_ID' });
    await expect(ws.sessions.fork(f.id, undefined, { id: 'alice' })).rejects.toMatchObject({ code: 'DUPLICATE_ID' });
    await ws.sessions.delete(f.id);
    // Once nothing of it is kept, the id is free.
    expect((await ws.sessions.create({ id: 'alice' })).head()).toBeNull();
  });
});

describe('Session.turn', () => {
  it('only returns versions the session sees', async () => {
    const { ws, S } = await abc();
    const F = await ws.sessions.fork(S.id, 'b');
    await S.editTurn('a', [text('S private')]);
    expect(F.turn('a')?.version).toBe(0);
    expect(F.turn('a', 1)).toBeUndefined();
    expect(S.turn('a')?.version).toBe(1);
    expect(F.turn('c')).toBeUndefined();
  });
});

describe('version switching is a command', () => {
  it('runs in order with a concurrent edit', async () => {
    const ws = await createWorkspace();
    const S = await ws.sessions.create();
    await S.addTurn({ id: 'a', role: 'user', blocks: [text('a')] });
    await S.editTurn('a', [text('a1')]);
    const [, head] = await Promise.all([S.editTurn('a', [text('a2')]), S.switchVersionLeft('a')]);
    expect(head).toEqual({ id: 'a', version: 1 }); // left of a@2, which the edit made first
  });

  it('runs in order with a concurrent delete', async () => {
    const ws = await createWorkspace();
    const S = await ws.sessions.create();
    await S.addTurn({ id: 'a', role: 'user', blocks: [text('a')] });
    await S.editTurn('a', [text('a1')]);
    await S.switchVersionLeft('a');
    const [, right] = await Promise.allSettled([S.deleteTurn('a', 1), S.switchVersionRight('a')]);
    expect(right).toMatchObject({ status: 'rejected', reason: { code: 'NO_NEXT_VERSION' } });
    expect(S.head()).toEqual({ id: 'a', version: 0 });
  });
});
