import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineCommand, err, fail, GolemError, type CommittedEvent, type Indexer } from '../src/index.js';
import { countingIds, expectIndexMatchesStore, indexSnapshot, loadOwnersOf, openWorkspace, STORE_KINDS, steppingClock, tempDir, text } from './helpers.js';

const textOf = (turns: { blocks: unknown[] }[]) => turns.map((t) => (t.blocks[0] as { text?: string }).text);

describe.each(STORE_KINDS)('the public API on the %s store', (kind) => {
  it('appends turns in a chain and walks the transcript root to head', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create({ label: 'demo', topics: ['health', 'health'] });
    expect(s.head()).toBeNull();
    expect(s.topics).toEqual(['health']);
    const t1 = await s.addTurn({ role: 'user', blocks: [text('hi')] });
    const t2 = await s.addTurn({ role: 'assistant', blocks: [text('hello')] });
    expect(t1).toMatchObject({ version: 0, parent: null, role: 'user', sessionId: s.id });
    expect(t2.parent).toEqual({ id: t1.id, version: 0 });
    expect(s.head()).toEqual({ id: t2.id, version: 0 });
    expect(textOf(await s.transcript())).toEqual(['hi', 'hello']);
    await ws.close();
  });

  it('edits a turn into a new version, moves the head, and switches versions left and right', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create();
    const q = await s.addTurn({ role: 'user', blocks: [text('question')] });
    await s.addTurn({ role: 'assistant', blocks: [text('answer')] });
    await s.addTurn({ role: 'user', blocks: [text('follow-up')] });

    const edited = await s.editTurn(q.id, [text('better question')]);
    expect(edited).toMatchObject({ id: q.id, version: 1, parent: null });
    expect(s.head()).toEqual({ id: q.id, version: 1 });
    expect(await s.branchInfo(q.id)).toEqual({ versions: [0, 1], currentIndex: 1, total: 2, hasPrev: true, hasNext: false });
    const a2 = await s.addTurn({ role: 'assistant', blocks: [text('better answer')] });

    // Going back to version 0 continues to the newest leaf below it, not to the bare version.
    const left = await s.switchVersionLeft(q.id);
    expect(textOf(await s.transcript())).toEqual(['question', 'answer', 'follow-up']);
    expect(left).toEqual(s.head());
    expect(await s.branchInfo(q.id)).toMatchObject({ currentIndex: 0, hasPrev: false, hasNext: true });

    await s.switchVersionRight(q.id);
    expect(s.head()).toEqual({ id: a2.id, version: 0 });
    expect(textOf(await s.transcript())).toEqual(['better question', 'better answer']);

    await expect(s.switchVersionRight(q.id)).rejects.toMatchObject({ code: 'NO_NEXT_VERSION' });
    await s.switchVersionLeft(q.id);
    await expect(s.switchVersionLeft(q.id)).rejects.toMatchObject({ code: 'NO_PREVIOUS_VERSION' });
    await ws.close();
  });

  it('branches from a turn that is not the head', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create();
    const t1 = await s.addTurn({ role: 'user', blocks: [text('1')] });
    await s.addTurn({ role: 'assistant', blocks: [text('2')] });
    const b = await s.branch({ parent: { id: t1.id, version: 0 }, role: 'assistant', blocks: [text('2b')] });
    expect(b.parent).toEqual({ id: t1.id, version: 0 });
    expect(textOf(await s.transcript())).toEqual(['1', '2b']);
    const root = await s.branch({ parent: null, role: 'user', blocks: [text('fresh start')] });
    expect(root.parent).toBeNull();
    expect(textOf(await s.transcript())).toEqual(['fresh start']);
    await ws.close();
  });

  it('forks in O(1): no turn is copied, the histories are shared and then diverge', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create({ label: 'main' });
    const t1 = await s.addTurn({ role: 'user', blocks: [text('a')] });
    await s.addTurn({ role: 'assistant', blocks: [text('b')] });
    const events: CommittedEvent[] = [];
    ws.events.on('session:fork', (e) => events.push(e));

    const f = await ws.sessions.fork(s.id, t1.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.writes.map((w) => w.collection)).toEqual(['session']);
    expect(ws.manager.workspace().turns.size).toBe(2);
    expect(f.record()).toMatchObject({ label: 'main (fork)', head: { id: t1.id, version: 0 }, forkedFrom: { sessionId: s.id } });

    await f.addTurn({ role: 'assistant', blocks: [text('b in the fork')] });
    expect(textOf(await f.transcript())).toEqual(['a', 'b in the fork']);
    expect(textOf(await s.transcript())).toEqual(['a', 'b']);

    // The original cannot delete history the fork stands on.
    await expect(s.deleteTurn(t1.id)).rejects.toMatchObject({ code: 'TURN_SHARED' });
    expect(
      ws.sessions
        .list()
        .map((x) => x.id)
        .sort(),
    ).toEqual([s.id, f.id].sort());
    expect(ws.sessions.get(f.id)?.id).toBe(f.id);
    expect(ws.sessions.get('missing')).toBeUndefined();
    await ws.close();
  });

  it('deleting a session keeps the turns a fork still needs and collects the rest', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create();
    const t1 = await s.addTurn({ role: 'user', blocks: [text('shared')] });
    await s.addTurn({ role: 'assistant', blocks: [text('only in s')] });
    const f = await ws.sessions.fork(s.id, t1.id);
    await f.addTurn({ role: 'assistant', blocks: [text('only in f')] });

    const removed = await ws.sessions.delete(s.id);
    expect(removed.deleted).toHaveLength(1);
    expect(textOf(await f.transcript())).toEqual(['shared', 'only in f']);
    expect(ws.manager.workspace().turns.size).toBe(2);

    await ws.sessions.delete(f.id);
    expect(ws.manager.workspace().turns.size).toBe(0);
    expect(ws.sessions.list()).toEqual([]);
    await expectIndexMatchesStore(ws);
    await ws.close();
  });

  it('deletes a turn with everything below it and moves the head back', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create();
    const t1 = await s.addTurn({ role: 'user', blocks: [text('1')] });
    const t2 = await s.addTurn({ role: 'assistant', blocks: [text('2')] });
    await s.addTurn({ role: 'user', blocks: [text('3')] });
    const result = await s.deleteTurn(t2.id);
    expect(result.deleted).toHaveLength(2);
    expect(result.head).toEqual({ id: t1.id, version: 0 });
    expect(s.head()).toEqual({ id: t1.id, version: 0 });

    // Deleting the current version of an edited turn falls back to the previous version.
    await s.editTurn(t1.id, [text('1 edited')]);
    await s.deleteTurn(t1.id, 1);
    expect(s.head()).toEqual({ id: t1.id, version: 0 });
    await expect(s.editTurn(t2.id, [text('gone')])).rejects.toMatchObject({ code: 'TURN_NOT_FOUND' });
    await ws.close();
  });

  it('deduplicates blobs, counts every reference and deletes the bytes at zero', async () => {
    const dir = tempDir();
    const ws = await openWorkspace(kind, kind === 'sqlite' ? { dir } : {});
    const bytes = new TextEncoder().encode('%PDF-1.7 pretend');
    const b = await ws.blobs.register(bytes, { mediaType: 'application/pdf', filename: 'a.pdf' });
    const again = await ws.blobs.register(Uint8Array.from(bytes), { mediaType: 'application/pdf' });
    expect(again).toEqual(b);
    expect(b).toMatchObject({ size: bytes.byteLength, mediaType: 'application/pdf', refCount: 0 });
    expect(await ws.manager.blobStorage.list()).toEqual([b.sha256]);

    const s = await ws.sessions.create();
    const doc = { type: 'document' as const, blob: { sha256: b.sha256 }, mediaType: 'application/pdf' };
    const t1 = await s.addTurn({ role: 'user', blocks: [doc, doc] });
    await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: 'c1', content: [doc] }] });
    expect(ws.blobs.get(b.sha256)?.refCount).toBe(3);
    expect(await ws.blobs.read(b.sha256)).toEqual(bytes);
    await ws.blobs.recordRemoteId(b.sha256, 'openai', 'file-123');
    expect(ws.blobs.get(b.sha256)?.remoteIds).toEqual({ openai: 'file-123' });

    await s.deleteTurn(t1.id);
    expect(ws.blobs.get(b.sha256)).toBeUndefined();
    expect(await ws.manager.blobStorage.has(b.sha256)).toBe(false);
    if (kind === 'sqlite') expect(existsSync(join(dir, 'blobs', b.sha256))).toBe(false);
    await ws.close();
  });

  it('keeps explicitly held blobs until released', async () => {
    const ws = await openWorkspace(kind);
    const b = await ws.blobs.register(new Uint8Array([1, 2, 3]), { mediaType: 'application/octet-stream' });
    await ws.blobs.retain(b.sha256);
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [{ type: 'image', blob: { sha256: b.sha256 }, mediaType: 'image/png' }] });
    expect(ws.blobs.get(b.sha256)).toMatchObject({ refCount: 2, holds: 1 });
    await ws.sessions.delete(s.id);
    expect(ws.blobs.get(b.sha256)).toMatchObject({ refCount: 1, holds: 1 });
    await ws.blobs.release(b.sha256);
    expect(ws.blobs.get(b.sha256)).toBeUndefined();
    expect(await ws.manager.blobStorage.has(b.sha256)).toBe(false);
    await ws.close();
  });

  it('manages roles, switches them with a role:transition turn, and refuses to delete one in use', async () => {
    const ws = await openWorkspace(kind);
    const pref = await ws.preferences.add({ content: 'Use metric units.', topics: ['science'] });
    await ws.roles.add({ name: 'scientist', persona: 'You are a science expert.', constraints: { temperature: 0.2 }, preferences: [pref.id] });
    await ws.roles.add({ name: 'poet', persona: 'You write verse.' });
    const s = await ws.sessions.create({ role: 'scientist' });
    await s.addTurn({ role: 'user', blocks: [text('hi')] });

    const transition = await s.switchRole('poet');
    expect(transition?.blocks).toEqual([{ type: 'role:transition', from: 'scientist', to: 'poet' }]);
    expect(transition?.role).toBe('system');
    expect(s.role).toBe('poet');
    expect(s.head()).toEqual({ id: transition?.id, version: 0 });
    expect(await s.switchRole('poet')).toBeNull();

    await expect(ws.roles.delete('poet')).rejects.toMatchObject({
      code: 'ROLE_IN_USE',
      message: expect.stringContaining('Cannot delete role – still referenced by sessions'),
    });
    await expect(ws.preferences.delete(pref.id)).rejects.toMatchObject({ code: 'PREFERENCE_IN_USE' });
    await ws.roles.delete('scientist');
    await ws.preferences.delete(pref.id);
    expect(ws.roles.list().map((r) => r.name)).toEqual(['poet']);
    const updated = await ws.roles.update('poet', { persona: 'You write haiku.' });
    expect(updated.persona).toBe('You write haiku.');
    await ws.close();
  });

  it('keeps context entries and preferences', async () => {
    const ws = await openWorkspace(kind);
    await ws.context.add({ key: 'heart', content: 'The heart has four chambers.', topics: ['anatomy'] });
    await ws.context.update('heart', { source: 'Gray' });
    expect(ws.context.get('heart')).toMatchObject({ content: 'The heart has four chambers.', source: 'Gray', topics: ['anatomy'] });
    const p = await ws.preferences.add({ id: 'p1', content: 'Be brief.' });
    await ws.preferences.update(p.id, { topics: ['style'] });
    expect(ws.preferences.list()).toMatchObject([{ id: 'p1', topics: ['style'] }]);
    const s = await ws.sessions.create({ topics: ['anatomy', 'style'] });
    expect(ws.topics()).toEqual([
      { topic: 'anatomy', sessions: [s.id], roles: [], preferences: [], context: ['heart'] },
      { topic: 'style', sessions: [s.id], roles: [], preferences: ['p1'], context: [] },
    ]);
    await ws.context.delete('heart');
    expect(ws.context.list()).toEqual([]);
    expect(ws.topics().map((t) => t.topic)).toEqual(['anatomy', 'style']);
    await ws.close();
  });

  it('serializes concurrent appends: one chain, no phantom branches', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create();
    await Promise.all(Array.from({ length: 200 }, (_, i) => s.addTurn({ role: 'user', blocks: [text(String(i))] })));
    const transcript = await s.transcript();
    expect(transcript).toHaveLength(200);
    expect(new Set(transcript.map((t) => t.blocks[0]?.type === 'text' && t.blocks[0].text)).size).toBe(200);
    for (const id of ws.manager.workspace().turns.keys())
      expect(ws.manager.workspace().childrenOf({ id: id.split('@')[0] as string, version: 0 }).size).toBeLessThanOrEqual(1);
    const log = await ws.manager.store.commandLog();
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    await ws.close();
  });

  it('refuses an append whose expected head is stale', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create();
    const seen = s.head();
    await s.addTurn({ role: 'user', blocks: [text('first')] });
    await expect(s.addTurn({ role: 'user', blocks: [text('second')] }, { expectedHead: seen })).rejects.toMatchObject({ code: 'HEAD_CONFLICT' });
    expect(await s.transcript()).toHaveLength(1);
    await ws.close();
  });

  it('rebuilds the index from the store with workspace:sync', async () => {
    const ws = await openWorkspace(kind);
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('x')] });
    const before = indexSnapshot(ws);
    const rebuilt: number[] = [];
    ws.events.on('index:rebuilt', (e) => rebuilt.push(e.lastSeq));
    await ws.manager.sync();
    expect(indexSnapshot(ws)).toEqual(before);
    expect(rebuilt).toEqual([(await ws.manager.store.stats()).commands]);
    await ws.close();
  });
});

describe('persistence', () => {
  it('closing and reopening restores the identical state', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir, clock: steppingClock(), newId: countingIds(), name: 'lab' });
    await ws.roles.add({ name: 'r', persona: 'p' });
    const s = await ws.sessions.create({ label: 's', role: 'r' });
    const b = await ws.blobs.register(new Uint8Array([9, 9, 9]), { mediaType: 'image/png' });
    const t = await s.addTurn({ role: 'user', blocks: [text('q'), { type: 'image', blob: { sha256: b.sha256 }, mediaType: 'image/png' }] });
    await s.editTurn(t.id, [text('q2')]);
    await s.addTurn({ role: 'assistant', blocks: [{ type: 'tool_use', callId: 'c', name: 'search', args: { q: 'x', n: 2, deep: { ok: true } } }] });
    await ws.sessions.fork(s.id, t.id, { version: 0 });
    const before = indexSnapshot(ws);
    const summary = await ws.summary();
    await ws.close();

    const again = await createWorkspace({ dir });
    await loadOwnersOf(again, before);
    expect(indexSnapshot(again)).toEqual(before);
    expect(again.meta().name).toBe('lab');
    expect(await again.summary()).toMatchObject({ sessions: 2, turns: 3, blobs: 1, commands: summary.commands });
    expect(textOf(await (again.sessions.get(s.id)?.transcript() ?? []))).toEqual(['q2', undefined]);
    // New commands carry on where the log left off.
    await again.sessions.create();
    expect((await again.manager.store.stats()).commands).toBe(summary.commands + 1);
    await again.close();
  });

  it('refuses to open a store holding a record that does not match its schema, and closes it', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir });
    const s = await ws.sessions.create();
    await ws.close();
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(dir, 'workspace.db'));
    db.prepare("UPDATE records SET value = json_set(value, '$.head', 42) WHERE collection = 'session'").run();
    db.close();
    const opening = createWorkspace({ dir });
    await expect(opening).rejects.toMatchObject({ code: 'CORRUPT_RECORD', details: { collection: 'session', key: s.id } });
    // The failed open released the database: it can be repaired and opened again.
    const repair = new Database(join(dir, 'workspace.db'));
    repair.prepare("UPDATE records SET value = json_set(value, '$.head', json('null')) WHERE collection = 'session'").run();
    repair.close();
    const again = await createWorkspace({ dir });
    expect(again.sessions.get(s.id)?.head()).toBeNull();
    await again.close();
  });

  it('closes cleanly under a command still in middleware, which is refused rather than half-run', async () => {
    const ws = await createWorkspace();
    const queued = ws.sessions.create();
    ws.manager.use(async (_command, next) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return next();
    });
    const inMiddleware = ws.sessions.create();
    const closing = ws.close();
    const late = await ws.manager.dispatch({ type: 'session:create', payload: {} });
    await closing;
    expect((await queued).id).toBeDefined(); // already queued: it ran
    expect(late.error?.code).toBe('WORKSPACE_CLOSED');
    await expect(inMiddleware).rejects.toMatchObject({ code: 'WORKSPACE_CLOSED' });
  });

  it('keeps the index as it was when a sync finds a corrupt record', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir });
    const s = await ws.sessions.create({ label: 'kept' });
    const before = indexSnapshot(ws);
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(dir, 'workspace.db'));
    db.prepare("UPDATE records SET value = json_set(value, '$.topics', 'not a list') WHERE collection = 'session'").run();
    db.close();
    await expect(ws.manager.sync()).rejects.toMatchObject({ code: 'CORRUPT_RECORD' });
    expect(indexSnapshot(ws)).toEqual(before);
    expect(ws.sessions.get(s.id)?.label).toBe('kept');
    await ws.close();
  });

  it('rejects commands after close', async () => {
    const ws = await createWorkspace();
    await ws.close();
    const result = await ws.manager.dispatch({ type: 'session:create', payload: {} });
    expect(result.ok).toBe(false);
    expect(result.error?.code).toBe('WORKSPACE_CLOSED');
  });
});

describe('records handed out', () => {
  it('are frozen: changing one cannot change the index behind the store', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const t = await s.addTurn({ role: 'user', blocks: [text('hi')] });
    expect(() => (t.blocks as unknown[]).push(text('injected'))).toThrow(TypeError);
    expect(() => Object.assign(t, { parent: { id: 'x', version: 0 } })).toThrow(TypeError);
    expect(() => (s.record().topics as string[]).push('x')).toThrow(TypeError);
    expect((await s.transcript())[0]?.blocks).toEqual([text('hi')]);
    await expectIndexMatchesStore(ws);
    await ws.close();
  });

  it("leave the caller's own objects alone, and equal what the store returns", async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const blocks = [text('mine')];
    const meta = { score: -0, tags: ['x'] };
    const t = await s.addTurn({ role: 'user', blocks, meta });
    blocks.push(text('still mine'));
    meta.tags.push('y');
    expect(t.blocks).toEqual([text('mine')]);
    expect(t.meta).toEqual({ score: 0, tags: ['x'] });
    await expectIndexMatchesStore(ws);
    await ws.close();
  });
});

describe('blobs under concurrency and cleanup', () => {
  it('registers bytes again while their last reference is being released', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const bytes = new TextEncoder().encode('img');
    const b = await ws.blobs.register(bytes, { mediaType: 'image/png' });
    const t = await s.addTurn({ role: 'user', blocks: [{ type: 'image', blob: { sha256: b.sha256 }, mediaType: 'image/png' }] });
    const [deleted, registered] = await Promise.all([s.deleteTurn(t.id), ws.blobs.register(bytes, { mediaType: 'image/png' })]);
    expect(deleted.releasedBlobs).toEqual([b.sha256]);
    expect(registered.refCount).toBe(0);
    expect(await ws.blobs.read(b.sha256)).toEqual(bytes);
    await ws.close();
  });

  it('registers with a hold, so the blob survives until the caller has used it', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const bytes = new TextEncoder().encode('img');
    const b = await ws.blobs.register(bytes, { mediaType: 'image/png' });
    const t = await s.addTurn({ role: 'user', blocks: [{ type: 'image', blob: { sha256: b.sha256 }, mediaType: 'image/png' }] });
    const [, held] = await Promise.all([s.deleteTurn(t.id), ws.blobs.register(bytes, { mediaType: 'image/png', hold: true })]);
    expect(held).toMatchObject({ holds: 1, refCount: 1 });
    await s.addTurn({ role: 'user', blocks: [{ type: 'image', blob: { sha256: b.sha256 }, mediaType: 'image/png' }] });
    expect(await ws.blobs.release(b.sha256)).toMatchObject({ holds: 0, refCount: 1 });
    await ws.close();
  });

  it('compares collect times as instants, not text', async () => {
    const ws = await createWorkspace({ clock: () => new Date('2026-01-01T12:00:00.500Z') });
    const b = await ws.blobs.register(new Uint8Array([1]), { mediaType: 'image/png' });
    expect(await ws.blobs.collect({ before: '2026-01-01T12:00:00Z' })).toEqual([]);
    expect(await ws.blobs.collect({ before: '2026-01-01T13:00:00+01:00' })).toEqual([]);
    expect(await ws.blobs.collect({ before: '2026-01-01T12:00:01Z' })).toEqual([b.sha256]);
    await ws.close();
  });

  it('collects blobs nothing references, sparing recent ones when asked', async () => {
    const ws = await createWorkspace({ clock: steppingClock() });
    const used = await ws.blobs.register(new Uint8Array([1]), { mediaType: 'image/png' });
    const unused = await ws.blobs.register(new Uint8Array([2]), { mediaType: 'image/png' });
    const held = await ws.blobs.register(new Uint8Array([3]), { mediaType: 'image/png' });
    await ws.blobs.retain(held.sha256);
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [{ type: 'image', blob: { sha256: used.sha256 }, mediaType: 'image/png' }] });
    expect(await ws.blobs.collect({ before: unused.createdAt })).toEqual([]);
    expect(await ws.blobs.collect()).toEqual([unused.sha256]);
    expect(await ws.manager.blobStorage.has(unused.sha256)).toBe(false);
    expect(
      ws.blobs
        .list()
        .map((b) => b.sha256)
        .sort(),
    ).toEqual([used.sha256, held.sha256].sort());
    await ws.close();
  });
});

describe('custom indexers', () => {
  it('that throw are reported and never break a command or the index', async () => {
    const ws = await createWorkspace();
    const reported: string[] = [];
    ws.events.on('indexer:error', (e) => reported.push(e.indexer));
    let armed = false;
    ws.manager.addIndexer({
      name: 'boom',
      reset() {},
      apply(change) {
        if (armed && change.collection === 'session') throw new Error('boom');
      },
    });
    armed = true;
    const s = await ws.sessions.create();
    expect(reported).toEqual(['boom']);
    await ws.manager.sync();
    expect(ws.sessions.get(s.id)).toBeDefined();
    await expectIndexMatchesStore(ws);
    await ws.close();
  });
});

describe('middleware', () => {
  it('can abort, augment and observe', async () => {
    const ws = await createWorkspace({ newId: countingIds() });
    const observed: string[] = [];
    ws.manager.use(async (command, next) => {
      const result = await next();
      observed.push(`${command.type}:${result.ok ? 'ok' : result.error.code}`);
      return result;
    });
    ws.manager.use(async (command, next) => {
      if (command.type === 'role:delete') return err(fail('ABORTED', 'roles are read-only here'));
      if (command.type === 'session:create') return next({ ...command, payload: { ...(command.payload as object), topics: ['stamped'] } });
      return next();
    });
    await ws.roles.add({ name: 'r', persona: 'p' });
    await expect(ws.roles.delete('r')).rejects.toMatchObject({ code: 'ABORTED' });
    expect(ws.roles.get('r')).toBeDefined();
    const s = await ws.sessions.create();
    expect(s.topics).toEqual(['stamped']);
    expect(observed).toEqual(['role:add:ok', 'role:delete:ABORTED', 'session:create:ok']);
    await ws.close();
  });

  it('turns a throwing middleware into an error result, writing nothing', async () => {
    const ws = await createWorkspace();
    ws.manager.use(async () => {
      throw new Error('boom');
    });
    const before = (await ws.manager.store.stats()).commands;
    const result = await ws.manager.dispatch({ type: 'session:create', payload: {} });
    expect(result.error?.code).toBe('INTERNAL');
    expect(result.error?.message).toBe('boom');
    expect((await ws.manager.store.stats()).commands).toBe(before);
    await ws.close();
  });
});

describe('extensions', () => {
  const Note = z.strictObject({ id: z.string(), text: z.string(), sessionId: z.string() });
  const noteAdd = defineCommand({
    type: 'note:add',
    description: 'Adds a note to a session.',
    payload: z.strictObject({ id: z.string(), sessionId: z.string(), text: z.string().min(1) }),
    reduce(payload, ctx) {
      if (!ctx.index.sessions.has(payload.sessionId)) throw fail('SESSION_NOT_FOUND', 'no such session');
      return { writes: [{ op: 'put', collection: 'note', key: payload.id, value: payload }], result: payload };
    },
  });
  const countBySession = (): Indexer & { counts: Map<string, number> } => ({
    name: 'notes-per-session',
    counts: new Map(),
    reset() {
      this.counts.clear();
    },
    apply(change) {
      if (change.collection !== 'note') return;
      const note = (change.value ?? change.previous) as z.infer<typeof Note>;
      this.counts.set(note.sessionId, (this.counts.get(note.sessionId) ?? 0) + (change.value === undefined ? -1 : 1));
    },
  });

  it('add commands, collections, indexers and turn processors that persist and rebuild', async () => {
    const dir = tempDir();
    const indexer = countBySession();
    const processed: string[] = [];
    const extension = {
      name: 'notes',
      collections: { note: Note },
      commands: [noteAdd],
      indexers: [indexer],
      processors: [
        {
          name: 'remember',
          accepts: (turn: { role: string }) => turn.role === 'assistant',
          async process(
            turn: { id: string; sessionId: string; blocks: unknown[] },
            ctx: { dispatch: (c: { type: string; payload: unknown }) => Promise<unknown> },
          ) {
            processed.push(turn.id);
            await ctx.dispatch({ type: 'note:add', payload: { id: `note-${turn.id}`, sessionId: turn.sessionId, text: 'seen' } });
          },
        },
      ],
    };
    const ws = await createWorkspace({ dir, extensions: [extension] });
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('q')] });
    const a = await s.addTurn({ role: 'assistant', blocks: [text('a')] });
    expect(processed).toEqual([a.id]);
    const r = await ws.manager.dispatch({ type: 'note:add', payload: { id: 'n2', sessionId: s.id, text: 'manual' } });
    expect(r.ok).toBe(true);
    const bad = await ws.manager.dispatch({ type: 'note:add', payload: { id: 'n3', sessionId: s.id, text: '' } });
    expect(bad.error?.code).toBe('INVALID_PAYLOAD');
    expect(indexer.counts.get(s.id)).toBe(2);
    expect(ws.manager.workspace().collections.get('note')?.size).toBe(2);
    await ws.close();

    const indexer2 = countBySession();
    const again = await createWorkspace({ dir, extensions: [{ ...extension, indexers: [indexer2] }] });
    expect(again.manager.workspace().collections.get('note')?.get('n2')).toEqual({ id: 'n2', sessionId: s.id, text: 'manual' });
    expect(indexer2.counts.get(s.id)).toBe(2);
    await again.close();
  });

  it('refuses an extension that redefines a command', async () => {
    const ws = await createWorkspace();
    expect(() => ws.manager.extend({ name: 'dup', commands: [{ ...noteAdd, type: 'turn:add' }] })).toThrow(GolemError);
    expect(ws.manager.commandTypes()).not.toContain('note:add');
    await ws.close();
  });

  it('reports a failing processor without undoing the turn', async () => {
    const ws = await createWorkspace();
    const errors: string[] = [];
    ws.events.on('processor:error', (e) => errors.push(e.processor));
    ws.manager.addProcessor({
      name: 'broken',
      process() {
        throw new Error('nope');
      },
    });
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('q')] });
    expect(errors).toEqual(['broken']);
    expect(await s.transcript()).toHaveLength(1);
    await ws.close();
  });
});

describe('events', () => {
  it('publishes each committed command under its type and as "command", and isolates failing listeners', async () => {
    const ws = await createWorkspace();
    const seen: string[] = [];
    const listenerErrors: string[] = [];
    ws.events.on('listener:error', (e) => listenerErrors.push(e.type));
    ws.events.on('turn:add', () => {
      throw new Error('listener bug');
    });
    ws.events.on('turn:add', (e) => seen.push(`turn:add#${e.seq}:${e.result.id}`));
    const off = ws.events.on('command', (e) => seen.push(e.command.type));
    const rejected: string[] = [];
    ws.events.on('rejected', (e) => rejected.push(e.error.code));
    const s = await ws.sessions.create();
    const t = await s.addTurn({ role: 'user', blocks: [text('q')] });
    off();
    await s.addTurn({ role: 'user', blocks: [text('q2')] });
    await ws.manager.dispatch({ type: 'turn:add', payload: { sessionId: 'missing', turn: { role: 'user', blocks: [] } } });
    expect(seen.slice(0, 3)).toEqual(['session:create', `turn:add#3:${t.id}`, 'turn:add']);
    expect(seen).toHaveLength(4);
    expect(listenerErrors).toEqual(['turn:add', 'turn:add']);
    expect(rejected).toEqual(['SESSION_NOT_FOUND']);
    await ws.close();
  });
});
