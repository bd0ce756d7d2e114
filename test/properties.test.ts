/**
 * Property-based tests: random command sequences, with the workspace's invariants
 * checked after every step.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkInvariants, commonAncestor, createWorkspace, GolemError, turnKey, type Turn, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { expectIndexMatchesStore, indexSnapshot, loadOwnersOf, openWorkspace, sorted, tempDir, text, type StoreKind } from './helpers.js';

type Op =
  | { k: 'create'; role: number }
  | { k: 'add'; s: number; blob: number | null }
  | { k: 'burst'; s: number; n: number }
  | { k: 'edit'; s: number; t: number; blob: number | null }
  | { k: 'branch'; s: number; t: number }
  | { k: 'deleteTurn'; s: number; t: number }
  | { k: 'fork'; s: number; t: number }
  | { k: 'deleteSession'; s: number }
  | { k: 'left' | 'right'; s: number; t: number }
  | { k: 'register' | 'retain' | 'release'; b: number }
  | { k: 'switchRole'; s: number; role: number }
  | { k: 'merge'; s: number; t: number; summary: boolean }
  | { k: 'mergeHead'; s: number; other: number }
  | { k: 'pick'; s: number; t: number };

const pick = fc.nat({ max: 1000 });
const blobPick = fc.option(fc.nat({ max: 3 }), { nil: null });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ k: fc.constant('create' as const), role: fc.nat({ max: 2 }) }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant('add' as const), s: pick, blob: blobPick }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('burst' as const), s: pick, n: fc.integer({ min: 2, max: 6 }) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('edit' as const), s: pick, t: pick, blob: blobPick }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('branch' as const), s: pick, t: pick }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('deleteTurn' as const), s: pick, t: pick }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('fork' as const), s: pick, t: pick }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('deleteSession' as const), s: pick }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constantFrom('left' as const, 'right' as const), s: pick, t: pick }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constantFrom('register' as const, 'retain' as const, 'release' as const), b: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('switchRole' as const), s: pick, role: fc.nat({ max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('merge' as const), s: pick, t: pick, summary: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('mergeHead' as const), s: pick, other: pick }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('pick' as const), s: pick, t: pick }) },
);

const ROLES = [null, 'analyst', 'poet'] as const;
/** Scale the runs up for a long hunt: GOLEM_PROPERTY_SCALE=20 npm test. */
const SCALE = Number(process.env.GOLEM_PROPERTY_SCALE ?? 1);
const blobBytes = (b: number) => new TextEncoder().encode(`blob number ${b}`);

/** Runs one op; returns an error code for an expected refusal. Any other exception fails the property. */
async function apply(ws: Workspace, o: Op): Promise<string | undefined> {
  const sessions = ws.sessions.list().sort((a, b) => a.id.localeCompare(b.id));
  // Every turn of the workspace, loaded here or not: an op may name any of them.
  const turns = [...(await ws.manager.wholeWorkspace()).turns.values()].sort((a, b) => a.seq - b.seq);
  const session = () => {
    const record = sessions[('s' in o ? o.s : 0) % Math.max(1, sessions.length)];
    return record === undefined ? undefined : ws.sessions.get(record.id);
  };
  const turn = (): Turn | undefined => turns[('t' in o ? o.t : 0) % Math.max(1, turns.length)];
  const registered = async (b: number | null) => {
    if (b === null) return [];
    const record = await ws.blobs.register(blobBytes(b), { mediaType: 'image/png' });
    return [{ type: 'image' as const, blob: { sha256: record.sha256 }, mediaType: 'image/png' }];
  };
  try {
    const s = session();
    const t = turn();
    switch (o.k) {
      case 'create':
        await ws.sessions.create({ role: ROLES[o.role] ?? null, topics: ['t'] });
        return;
      case 'add':
        if (s === undefined) return 'NO_SESSION';
        await s.addTurn({ role: 'user', blocks: [text('hi'), ...(await registered(o.blob))] });
        return;
      case 'burst': {
        if (s === undefined) return 'NO_SESSION';
        const before = s.head();
        const added = await Promise.all(Array.from({ length: o.n }, (_, i) => s.addTurn({ role: 'user', blocks: [text(`burst ${i}`)] })));
        // Concurrent appends form one chain: no phantom branches, no lost head.
        const bySeq = [...added].sort((a, b) => a.seq - b.seq);
        expect(bySeq[0]?.parent).toEqual(before);
        for (let i = 1; i < bySeq.length; i++) expect(bySeq[i]?.parent).toEqual({ id: bySeq[i - 1]?.id, version: 0 });
        expect(s.head()).toEqual({ id: bySeq.at(-1)?.id, version: 0 });
        return;
      }
      case 'edit':
        if (s === undefined || t === undefined) return 'NOTHING';
        await s.editTurn(t.id, [text('edited'), ...(await registered(o.blob))]);
        return;
      case 'branch':
        if (s === undefined || t === undefined) return 'NOTHING';
        await s.branch({ parent: { id: t.id, version: t.version }, role: 'assistant', blocks: [text('branch')] });
        return;
      case 'deleteTurn':
        if (s === undefined || t === undefined) return 'NOTHING';
        await s.deleteTurn(t.id, t.version);
        return;
      case 'fork': {
        if (s === undefined) return 'NO_SESSION';
        const count = async () => (await ws.manager.store.stats()).records.turn ?? 0;
        const before = await count();
        await ws.sessions.fork(s.id, t?.id);
        expect(await count()).toBe(before); // forks copy no turns
        return;
      }
      case 'deleteSession':
        if (s === undefined) return 'NO_SESSION';
        await ws.sessions.delete(s.id);
        return;
      case 'left':
      case 'right':
        if (s === undefined || t === undefined) return 'NOTHING';
        await (o.k === 'left' ? s.switchVersionLeft(t.id) : s.switchVersionRight(t.id));
        return;
      case 'register':
        await ws.blobs.register(blobBytes(o.b), { mediaType: 'image/png' });
        return;
      case 'retain':
      case 'release': {
        const sha = ws.blobs.list()[o.b % Math.max(1, ws.blobs.list().length)]?.sha256;
        if (sha === undefined) return 'NO_BLOB';
        await (o.k === 'retain' ? ws.blobs.retain(sha) : ws.blobs.release(sha));
        return;
      }
      case 'switchRole':
        if (s === undefined) return 'NO_SESSION';
        await s.switchRole(ROLES[o.role] ?? null);
        return;
      case 'merge': {
        if (s === undefined || t === undefined) return 'NOTHING';
        // Mostly a turn there is something to merge from (its own or another session's head, related, not merged yet).
        const whole = await ws.manager.wholeWorkspace();
        const head = s.record().head;
        const candidates = turns.filter((c) => {
          if (c.sessionId !== s.id && whole.headsAt(c).size === 0) return false;
          const base = commonAncestor(whole, head, c);
          return base !== null && turnKey(base) !== turnKey(c);
        });
        const from = candidates[o.t % Math.max(1, candidates.length)] ?? t;
        await s.merge(
          { id: from.id, version: from.version },
          o.summary ? { as: 'summary', model: scriptedModel({ text: 'what the branch did' }) } : { as: 'turns' },
        );
        return;
      }
      case 'mergeHead': {
        const other = sessions[o.other % Math.max(1, sessions.length)];
        if (s === undefined || other === undefined) return 'NO_SESSION';
        await s.merge(other.id, { as: 'turns' });
        return;
      }
      case 'pick':
        if (s === undefined || t === undefined) return 'NOTHING';
        await s.pick({ id: t.id, version: t.version });
        return;
    }
  } catch (error) {
    if (GolemError.isInstance(error) && error.code !== 'INTERNAL' && error.code !== 'STORE_ERROR') return error.code;
    throw error;
  }
}

/**
 * `fresh`: before each op, the workspace is closed and opened again with a cache of two
 * sessions, as a new process with nothing loaded would find it.
 */
async function runSequence(kind: StoreKind, ops: Op[], fresh = false): Promise<void> {
  const dir = kind === 'sqlite' ? tempDir() : undefined;
  let ws = await openWorkspace(kind, dir === undefined ? {} : { dir, durability: 'normal' });
  await ws.roles.add({ name: 'analyst', persona: 'You analyse.' });
  await ws.roles.add({ name: 'poet', persona: 'You rhyme.' });
  for (const role of ['analyst', null]) {
    const s = await ws.sessions.create({ role });
    await s.addTurn({ role: 'user', blocks: [text('seed')] });
  }
  for (const o of ops) {
    if (fresh && dir !== undefined) {
      await ws.close();
      ws = await openWorkspace(kind, { dir, durability: 'normal', cache: { maxSessions: 2 }, newId: () => randomUUID() });
    }
    // What the process holds (a refused command may still have loaded the session it named: loading changes nothing).
    const held = async () => (fresh ? sorted(await ws.manager.store.load()) : indexSnapshot(ws));
    const before = await held();
    const commandsBefore = (await ws.manager.store.stats()).commands;
    const refused = await apply(ws, o);
    if (refused !== undefined && o.k !== 'edit' && o.k !== 'add') {
      // A refused command (edit/add may have registered a blob first) changes nothing.
      expect(await held()).toEqual(before);
      expect((await ws.manager.store.stats()).commands).toBe(commandsBefore);
    }
    const violations = await checkInvariants(await ws.manager.wholeWorkspace(), ws.manager.blobStorage);
    expect(violations, `after ${JSON.stringify(o)}`).toEqual([]);
    await expectIndexMatchesStore(ws);
  }
  const snapshot = indexSnapshot(ws);
  await ws.close();
  if (dir !== undefined) {
    const again = await createWorkspace({ dir });
    await loadOwnersOf(again, snapshot);
    expect(indexSnapshot(again)).toEqual(snapshot);
    expect(await checkInvariants(await again.manager.wholeWorkspace(), again.manager.blobStorage)).toEqual([]);
    await again.close();
  }
}

describe('random command sequences keep every invariant', () => {
  it('on the memory store', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 60, size: 'large' }), (ops) => runSequence('memory', ops)),
      { numRuns: 150 * SCALE },
    );
  });

  it('on the SQLite store, across a reopen', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 40, size: 'large' }), (ops) => runSequence('sqlite', ops)),
      { numRuns: 30 * SCALE },
    );
  });

  it('on the SQLite store, each command in a fresh process that loads what it touches (a cache of two sessions)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 5, maxLength: 30, size: 'large' }), (ops) => runSequence('sqlite', ops, true)),
      { numRuns: 25 * SCALE },
    );
  });
});

describe('the invariant checker', () => {
  it('reports a broken workspace (it can fail)', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const t = await s.addTurn({ role: 'user', blocks: [text('x')] });
    const b = await ws.blobs.register(new Uint8Array([5]), { mediaType: 'image/png' });
    const view = await ws.manager.wholeWorkspace();
    // Corrupt the index directly, as a buggy reducer would.
    const index = view as unknown as { apply(writes: unknown[]): void };
    index.apply([
      { op: 'put', collection: 'session', key: s.id, value: { ...s.record(), head: { id: 'ghost', version: 0 } } },
      { op: 'put', collection: 'blob', key: b.sha256, value: { ...b, refCount: 3 } },
      {
        op: 'put',
        collection: 'turn',
        key: turnKey({ id: 'orphan', version: 0 }),
        value: { ...t, id: 'orphan', sessionId: 'dead', parent: { id: 'missing', version: 0 }, seq: 99 },
      },
    ]);
    await ws.manager.blobStorage.delete(b.sha256);
    const codes = (await checkInvariants(view, ws.manager.blobStorage)).map((v) => v.code).sort();
    expect(codes).toEqual(['BLOB_COUNT', 'BLOB_FILE_MISSING', 'HEAD_MISSING', 'PARENT_MISSING', 'SESSION_LENGTH', 'TURN_UNREACHABLE']);
    await ws.close();
  });
});
