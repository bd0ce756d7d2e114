/**
 * The session as the unit of loading: opening reads the workspace-wide records only, a
 * session's turns load on first use (with the fork ancestry it sees), and past the cache
 * budget the least recently used leave memory, never one a command is working on or one
 * a loaded fork inherits from. Every store that keeps owners (memory, SQLite, PostgreSQL).
 */
import { describe, expect, it } from 'vitest';
import { checkInvariants, createWorkspace, GolemError, type Session, type Turn, type Workspace } from '../src/index.js';
import { expectIndexMatchesStore, openWorkspace, tempDir, text } from './helpers.js';
import { PG_URL, freshSchema } from './pg-helpers.js';
import { postgresStore } from '../src/store/postgres/index.js';

const path = async (s: Session) => (await s.transcript()).map((t: Turn) => `${t.id}@${t.version}`).join(' > ');
const loaded = (ws: Workspace, id: string) => ws.manager.workspace().isLoaded(id);

type Kind = 'sqlite' | 'postgres';

/** A new workspace on a store of this kind (a temp folder, or a fresh PostgreSQL schema). */
async function open(kind: Kind): Promise<Workspace> {
  return openWorkspace('sqlite', kind === 'postgres' ? { store: postgresStore(PG_URL, { schema: freshSchema('cache') }) } : {});
}

/** A second workspace object over the same store: another process, as far as the index knows. */
async function reopen(kind: Kind, ws: Workspace, options: { cache?: { maxSessions?: number; maxBytes?: number } } = {}): Promise<Workspace> {
  const { store } = ws.manager;
  if (kind === 'sqlite') return createWorkspace({ dir: (store as unknown as { path: string }).path.replace(/\/workspace\.db$/, ''), ...options });
  return createWorkspace({ store: postgresStore(PG_URL, { schema: (store as unknown as { schema: string }).schema }), ...options });
}

/** Three sessions, then f forked from the first at a1 and g from f at f0, each with a turn; the first deleted. */
async function forkChain(ws: Workspace): Promise<{ f: Session; g: Session }> {
  const [a] = await threeSessions(ws);
  const f = await ws.sessions.fork(a?.id ?? '', 'a1');
  await f.addTurn({ id: 'f0', role: 'user', blocks: [text('fork')] });
  const g = await ws.sessions.fork(f.id, 'f0');
  await g.addTurn({ id: 'g0', role: 'user', blocks: [text('fork of fork')] });
  await ws.sessions.delete(a?.id ?? '');
  return { f, g };
}

async function threeSessions(ws: Workspace): Promise<Session[]> {
  const sessions: Session[] = [];
  for (const label of ['a', 'b', 'c']) {
    const s = await ws.sessions.create({ label });
    for (let i = 0; i < 3; i++) await s.addTurn({ id: `${label}${i}`, role: 'user', blocks: [text(`${label} ${i}`)] });
    sessions.push(s);
  }
  return sessions;
}

describe.each<Kind>(['sqlite', 'postgres'])('loading per session on %s', (kind) => {
  it('opens with no session loaded, loads one on first use, and reads it back whole', async () => {
    const ws = await open(kind);
    const [a, b] = await threeSessions(ws);
    await ws.close();
    const again = await reopen(kind, ws);
    expect(again.manager.cacheStats().sessions).toBe(0);
    expect(again.manager.workspace().turns.size).toBe(0);
    expect(again.sessions.list().map((s) => s.label)).toEqual(['c', 'b', 'a']); // session records are workspace-wide
    expect(() => again.sessions.get(a?.id ?? '')?.turn('a0')).toThrow(expect.objectContaining({ code: 'SESSION_NOT_LOADED' }));
    expect(await path(again.sessions.get(a?.id ?? '') as Session)).toBe('a0@0 > a1@0 > a2@0');
    expect(loaded(again, a?.id ?? '')).toBe(true);
    expect(loaded(again, b?.id ?? '')).toBe(false);
    expect(again.manager.workspace().turns.size).toBe(3);
    await expectIndexMatchesStore(again);
    // A command on an unloaded session loads it before its reducer reads it.
    const added = await again.sessions.get(b?.id ?? '')?.addTurn({ role: 'assistant', blocks: [text('b answer')] });
    expect(added?.parent).toEqual({ id: 'b2', version: 0 });
    expect((await again.summary()).turns).toBe(10);
    await again.close();
  });

  it('evicts the least recently used past maxSessions, keeps the one a command works on, and reloads on demand', async () => {
    const ws = await open(kind);
    const ids = (await threeSessions(ws)).map((s) => s.id);
    await ws.close();
    const small = await reopen(kind, ws, { cache: { maxSessions: 1 } });
    const [a, b, c] = ids.map((id) => small.sessions.get(id) as Session);
    // Three commands on three sessions at once: each is pinned while it runs, so none loses its session mid-command.
    const turns = await Promise.all([a, b, c].map((s) => (s as Session).addTurn({ role: 'assistant', blocks: [text(`to ${s?.label ?? ''}`)] })));
    expect(turns.map((t) => t?.parent?.id)).toEqual(['a2', 'b2', 'c2']);
    await new Promise((resolve) => setImmediate(resolve));
    await small.sessions.get(ids[0] as string)?.load();
    await new Promise((resolve) => setImmediate(resolve));
    await small.sessions.get(ids[1] as string)?.load();
    await new Promise((resolve) => setImmediate(resolve));
    expect(small.manager.cacheStats().sessions).toBe(1);
    expect(loaded(small, ids[0] as string)).toBe(false);
    expect(loaded(small, ids[1] as string)).toBe(true);
    expect(await path(a as Session)).toBe('a0@0 > a1@0 > a2@0 > ' + `${turns[0]?.id}@0`);
    await expectIndexMatchesStore(small);
    expect(await checkInvariants(await small.manager.wholeWorkspace())).toEqual([]);
    await small.close();
  });

  it("loads a fork's ancestry through deleted sessions, and collects it once no session sees it", async () => {
    const ws = await open(kind);
    const { f, g } = await forkChain(ws);
    const h = await ws.sessions.fork(g.id, 'g0');
    await ws.sessions.delete(f.id); // h's history now passes through two deleted sessions
    await ws.close();
    const again = await reopen(kind, ws, { cache: { maxSessions: 1 } });
    expect(await path(again.sessions.get(h.id) as Session)).toBe('a0@0 > a1@0 > f0@0 > g0@0');
    await again.close();
    const third = await reopen(kind, ws, { cache: { maxSessions: 1 } });
    await third.sessions.delete(g.id);
    await third.sessions.delete(h.id); // the last to see that history: all of it goes
    expect(await checkInvariants(await third.manager.wholeWorkspace())).toEqual([]);
    expect((await third.summary()).turns).toBe(6); // a's own turns before a was deleted are gone; b's and c's remain
    await third.close();
  });

  it('loads the whole history of a session loaded as the history of another, so deleting it later leaves nothing behind', async () => {
    const ws = await open(kind);
    const [c] = await threeSessions(ws); // a0 > a1 > a2
    const q = await ws.sessions.fork(c?.id ?? '', 'a2');
    await q.addTurn({ id: 'q0', role: 'user', blocks: [text('q')] });
    const p = await ws.sessions.fork(q.id, 'q0');
    const p0 = await p.branch({ parent: { id: 'a0', version: 0 }, role: 'user', blocks: [text('p, from the top')] });
    const f = await ws.sessions.fork(p.id, p0.id);
    await ws.close();
    const again = await reopen(kind, ws);
    // f's history passes p and c, not q: loading it loads p, whose own history (through q) loads too.
    expect(await path(again.sessions.get(f.id) as Session)).toBe(`a0@0 > ${p0.id}@0`);
    await again.sessions.delete(p.id);
    await again.sessions.delete(q.id);
    await again.sessions.delete(f.id);
    expect(await checkInvariants(await again.manager.wholeWorkspace())).toEqual([]);
    await again.close();
  });

  it("loads a fork's ancestry with it, keeps it while the fork is loaded (the source deleted)", async () => {
    const ws = await open(kind);
    const { f, g } = await forkChain(ws);
    await ws.close();
    const again = await reopen(kind, ws, { cache: { maxSessions: 1 } });
    expect(await path(again.sessions.get(g.id) as Session)).toBe('a0@0 > a1@0 > f0@0 > g0@0');
    // g, and the sessions its history came from (the deleted one's id among them), all stay while g is loaded.
    await new Promise((resolve) => setImmediate(resolve));
    await again.sessions.get(f.id)?.load();
    await new Promise((resolve) => setImmediate(resolve));
    expect(loaded(again, g.id) || loaded(again, f.id)).toBe(true);
    expect(await path(again.sessions.get(g.id) as Session)).toBe('a0@0 > a1@0 > f0@0 > g0@0');
    expect(await checkInvariants(await again.manager.wholeWorkspace())).toEqual([]);
    await expectIndexMatchesStore(again);
    await again.close();
  });

  it('keeps the history a fork made here inherits while the fork is loaded, whatever else loads', async () => {
    const ws = await open(kind);
    const [a, b] = await threeSessions(ws);
    await ws.close();
    const small = await reopen(kind, ws, { cache: { maxSessions: 2 } });
    const f = await small.sessions.fork(a?.id ?? '', 'a1'); // loaded by the command that creates it, before its record exists
    await f.addTurn({ id: 'f0', role: 'user', blocks: [text('fork')] });
    // f and b in use, a the least recently used: over budget, but a's turns are f's history, so they stay.
    await small.manager.load([f.id, b?.id ?? '']);
    expect(f.turn('a0')?.id).toBe('a0');
    expect(loaded(small, a?.id ?? '')).toBe(true);
    expect(await path(small.sessions.get(f.id) as Session)).toBe('a0@0 > a1@0 > f0@0');
    await expectIndexMatchesStore(small);
    await small.close();
  });

  it("counts each session's turns in its record: lists and golem serve's /api/state count without loading a session", async () => {
    const ws = await open(kind);
    const [a, b] = await threeSessions(ws);
    const f = await ws.sessions.fork(a?.id ?? '', 'a1'); // 2, counted on the path
    await f.addTurn({ id: 'f0', role: 'user', blocks: [text('fork')] }); // 3
    const g = await ws.sessions.fork(f.id); // at the head: 3, the source's count
    await b?.editTurn('b1', [text('b again')]); // b0 > b1@1: 2
    await b?.switchVersionLeft('b1'); // back to b1@0 > b2: 3
    await ws.sessions.get(a?.id ?? '')?.deleteTurn('a2'); // 2
    await ws.close();
    const again = await reopen(kind, ws);
    const lengths = Object.fromEntries(again.sessions.list().map((s) => [s.label, s.length]));
    expect(lengths).toEqual({ a: 2, b: 3, c: 3, 'a (fork)': 3, 'a (fork) (fork)': 3 });
    expect(g.id).toBeDefined();
    const { serve } = await import('../src/serve/index.js');
    const server = await serve(again, { page: false });
    const state = (await (await fetch(`${server.url}/api/state`, { headers: { authorization: `Bearer ${server.token}` } })).json()) as {
      sessions: { label: string; turns: number }[];
    };
    expect(Object.fromEntries(state.sessions.map((s) => [s.label, s.turns]))).toEqual(lengths);
    expect(again.manager.cacheStats().sessions).toBe(0); // no session was loaded to count it
    await server.close();
    // Every length is its path's, as the invariant checker reads it on the whole workspace.
    expect(await checkInvariants(await again.manager.wholeWorkspace())).toEqual([]);
    await again.close();
  });

  it('counts a session a command did not name once it is loaded, and never writes a wrong count (an older record without one)', async () => {
    const ws = await open(kind);
    const s = await ws.sessions.create({ label: 'a' });
    for (let i = 0; i < 3; i++) await s.addTurn({ id: `a${i}`, role: 'user', blocks: [text(`a ${i}`)] });
    const staged = await ws.manager.dispatch({
      type: 'clearance:stage',
      payload: { type: 'pending_export', description: 'run x', sessionId: s.id, workerId: s.id, metadata: {} },
    });
    if (!staged.ok) throw staged.error;
    // As an older Golem wrote the session: no length.
    const { length: _length, ...older } = s.record();
    await ws.manager.store.commit(
      { id: 'strip', type: 'test:strip', payload: {}, timestamp: new Date().toISOString(), actor: null, seq: ws.manager.workspace().lastSeq + 1 },
      [{ op: 'put', collection: 'session', key: s.id, json: JSON.stringify(older), owner: null }],
    );
    await ws.close();
    const again = await reopen(kind, ws);
    expect(again.sessions.get(s.id)?.record().length).toBeUndefined();
    // clearance:decide names the item, not the session: the session it tells is loaded for it, and counted.
    const decided = await again.manager.dispatch({ type: 'clearance:decide', payload: { id: staged.value.id, decision: 'defer' } });
    expect(decided.ok).toBe(true);
    expect(again.sessions.get(s.id)?.record().length).toBe(4); // a0 > a1 > a2 > the system turn
    expect(await checkInvariants(await again.manager.wholeWorkspace())).toEqual([]);
    await again.close();
  });

  it('numbers an edit after every version of the turn, those of a sibling fork not loaded included', async () => {
    const ws = await open(kind);
    const [a] = await threeSessions(ws);
    const f = await ws.sessions.fork(a?.id ?? '', 'a1');
    const g = await ws.sessions.fork(a?.id ?? '', 'a1');
    await g.editTurn('a1', [text('g says')]);
    await ws.close();
    const again = await reopen(kind, ws);
    const edited = await again.sessions.get(f.id)?.editTurn('a1', [text('f says')]);
    expect(edited?.version).toBe(2);
    expect(await path(again.sessions.get(f.id) as Session)).toBe('a0@0 > a1@2');
    expect(await path(again.sessions.get(g.id) as Session)).toBe('a0@0 > a1@1');
    expect(await checkInvariants(await again.manager.wholeWorkspace())).toEqual([]);
    await again.close();
  });

  it('refuses to delete history that a fork of a deleted fork stands on, though neither is loaded (TURN_SHARED)', async () => {
    const ws = await open(kind);
    const [a] = await threeSessions(ws);
    const d = await ws.sessions.fork(a?.id ?? '', 'a1');
    await d.addTurn({ id: 'd0', role: 'user', blocks: [text('d')] });
    const g = await ws.sessions.fork(d.id, 'd0');
    await ws.sessions.delete(d.id); // d0 stays: it is where g was forked
    await ws.close();
    const again = await reopen(kind, ws);
    const error = await again.sessions
      .get(a?.id ?? '')
      ?.deleteTurn('a1')
      .catch((e: unknown) => e);
    expect(GolemError.isInstance(error) && error.code).toBe('TURN_SHARED');
    expect(await path(again.sessions.get(g.id) as Session)).toBe('a0@0 > a1@0 > d0@0');
    // Deleting the source session keeps what the fork needs, and the workspace stays sound.
    await again.sessions.delete(a?.id ?? '');
    expect(await path(again.sessions.get(g.id) as Session)).toBe('a0@0 > a1@0 > d0@0');
    expect(await checkInvariants(await again.manager.wholeWorkspace())).toEqual([]);
    await again.close();
  });

  it('refuses a caller-chosen turn id another session holds, even while that session is not loaded (DUPLICATE_ID)', async () => {
    const ws = await open(kind);
    const [a, b] = await threeSessions(ws);
    await ws.close();
    const again = await reopen(kind, ws);
    const before = (await again.manager.store.stats()).commands;
    const error = await again.sessions
      .get(b?.id ?? '')
      ?.addTurn({ id: 'a0', role: 'user', blocks: [text('stolen')] })
      .catch((e: unknown) => e);
    expect(GolemError.isInstance(error) && error.code).toBe('DUPLICATE_ID');
    expect((await again.manager.store.stats()).commands).toBe(before);
    expect(await path(again.sessions.get(a?.id ?? '') as Session)).toBe('a0@0 > a1@0 > a2@0');
    await again.close();
  });
});

// Only PostgreSQL tells other processes of commits (a SQLite reader catches up when it next reads).
describe('loading per session, with another process writing', () => {
  it("follows another process's commits to the sessions it holds, and hears of a session deleted there", async () => {
    const kind = 'postgres';
    const ws = await open(kind);
    const [a, b] = await threeSessions(ws);
    const other = await reopen(kind, ws);
    expect(await path(other.sessions.get(a?.id ?? '') as Session)).toBe('a0@0 > a1@0 > a2@0');
    await a?.addTurn({ id: 'a3', role: 'user', blocks: [text('more')] });
    await b?.addTurn({ id: 'b3', role: 'user', blocks: [text('more')] });
    await ws.sessions.delete(a?.id ?? '');
    await other.manager.refresh();
    expect(other.sessions.get(a?.id ?? '')).toBeUndefined();
    expect(loaded(other, b?.id ?? '')).toBe(false); // it never held b, so b's turns were left to the store
    expect(await path(other.sessions.get(b?.id ?? '') as Session)).toBe('b0@0 > b1@0 > b2@0 > b3@0');
    await expectIndexMatchesStore(other);
    await other.close();
    await ws.close();
  });
});

describe('the cache options and the paged session list', () => {
  it('refuses a budget that is not a whole number', async () => {
    await expect(createWorkspace({ cache: { maxSessions: -1 } })).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e) && e.code === 'INVALID_ARGUMENT');
    await expect(createWorkspace({ cache: { maxBytes: 1.5 } })).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e) && e.code === 'INVALID_ARGUMENT');
  });

  it('pages through the sessions, most recently updated first, and refuses a cursor it did not make', async () => {
    const ws = await openWorkspace('sqlite', { dir: tempDir() });
    for (let i = 0; i < 7; i++) await ws.sessions.create({ label: `s${i}` });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ws.sessions.list({ limit: 3, ...(cursor !== undefined && { cursor }) });
      expect(page.sessions.length).toBeLessThanOrEqual(3);
      seen.push(...page.sessions.map((s) => s.label ?? ''));
      cursor = page.cursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(ws.sessions.list().map((s) => s.label));
    expect(seen).toHaveLength(7);
    expect(() => ws.sessions.list({ limit: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => ws.sessions.list({ limit: 2, cursor: 'not-ours' })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    await ws.close();
  });
});

describe('forks of one history, with the cache small', () => {
  it('forks again at a known point in O(1) and still loads an ancestry that left memory meanwhile', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir, cache: { maxSessions: 1 } });
    const source = await ws.sessions.create();
    for (let i = 0; i < 50; i++) await source.addTurn({ role: 'user', blocks: [text(`t${i}`)] });
    const at = source.head()?.id;
    const first = await ws.sessions.fork(source.id, at);
    await first.addTurn({ role: 'user', blocks: [text('first')] });
    // The source left memory (one session at most); a second fork at the same point must bring its ancestry back.
    const second = await ws.sessions.fork(source.id, at);
    await second.addTurn({ role: 'user', blocks: [text('second')] });
    await first.load();
    expect((await first.transcript()).map((t) => (t.blocks[0] as { text: string }).text)).toEqual([...Array.from({ length: 50 }, (_, i) => `t${i}`), 'first']);
    await second.load();
    expect((await second.transcript()).length).toBe(51);
    expect(await checkInvariants(await ws.manager.wholeWorkspace())).toEqual([]);
    await ws.close();
  });
});
