/**
 * Run leases (`run:*`): one process runs a session's agent at a time. A live lease refuses
 * every other handle's writes to the session (and its sub-workers'); a lapsed one is taken
 * over; a holder that lost its lease writes nothing more, even once the new holder is done.
 * Two handles on one store stand for two processes.
 */
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { GolemError } from '../src/index.js';
import { createWorkspace, processIdentity, RunLeases, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { tempDir, text } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

type Kind = 'sqlite' | 'postgres';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two handles on one new workspace: two processes, as far as leases go (closed after the test). */
async function twoHandles(kind: Kind): Promise<[Workspace, Workspace]> {
  const [a, b] = await opened(kind);
  cleanups.push(
    () => a.close(),
    () => b.close(),
  );
  return [a, b];
}

async function opened(kind: Kind): Promise<[Workspace, Workspace]> {
  if (kind === 'postgres') {
    const schema = freshSchema('lease');
    const a = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
    return [a, await createWorkspace({ store: postgresStore(PG_URL, { schema }) })];
  }
  const dir = tempDir(); // both on the real clock: leases lapse by it
  return [await createWorkspace({ dir }), await createWorkspace({ dir })];
}

const at = (t0: number, ms: number) => new Date(t0 + ms).toISOString();

async function codeOf(result: Promise<{ ok: boolean; error?: GolemError }>): Promise<string | undefined> {
  const r = await result;
  return r.ok ? undefined : r.error?.code;
}

describe.each<Kind>(['sqlite', 'postgres'])('run leases on %s', (kind) => {
  it('one holder at a time: refused while live, taken over once lapsed, and the old holder is told', async () => {
    const [a, b] = await twoHandles(kind);
    const s = await a.sessions.create({ label: 'leased' });
    const t0 = Date.now();
    const claim = (ws: Workspace, ms: number, runId: string) =>
      ws.manager.dispatch({
        type: 'run:claim',
        timestamp: at(t0, ms),
        payload: { sessionId: s.id, holder: ws.manager.instanceId, by: `handle ${runId}`, runId, ttlMs: 1000 },
      });
    const claimed = await claim(a, 0, 'ra');
    expect(claimed.ok && claimed.value).toMatchObject({ holder: a.manager.instanceId, runId: 'ra', expiresAt: at(t0, 1000), takeovers: 0 });
    const before = await b.manager.store.lastSeq();

    // b is refused while a's lease is live: claiming, and writing to the session; nothing is written.
    const busy = await claim(b, 500, 'rb');
    expect(busy.ok).toBe(false);
    expect(!busy.ok && busy.error).toMatchObject({ code: 'SESSION_BUSY', details: { sessionId: s.id, holder: a.manager.instanceId } });
    expect(!busy.ok && busy.error.message).toContain('handle ra');
    const append = (ws: Workspace, ms: number, id: string) =>
      ws.manager.dispatch({ type: 'turn:add', timestamp: at(t0, ms), payload: { sessionId: s.id, turn: { id, role: 'user', blocks: [text(id)] } } });
    expect(await codeOf(append(b, 600, 'from-b'))).toBe('SESSION_BUSY');
    expect(await b.manager.store.lastSeq()).toBe(before);
    // Reading it is not writing to it: a fork of the running session is made.
    expect((await b.manager.dispatch({ type: 'session:fork', timestamp: at(t0, 600), payload: { sessionId: s.id } })).ok).toBe(true);
    // The holder writes, and renews: the lease runs from the renewal.
    expect((await append(a, 700, 'from-a')).ok).toBe(true);
    const renewed = await a.manager.dispatch({
      type: 'run:renew',
      timestamp: at(t0, 900),
      payload: { sessionId: s.id, holder: a.manager.instanceId, runId: 'ra', ttlMs: 1000 },
    });
    expect(renewed.ok && renewed.value.expiresAt).toBe(at(t0, 1900));
    expect(await codeOf(claim(b, 1500, 'rb'))).toBe('SESSION_BUSY');

    // Lapsed: b takes it over; a finds out when it renews, and is refused like anyone else.
    const taken = await claim(b, 2000, 'rb');
    expect(taken.ok && taken.value).toMatchObject({ holder: b.manager.instanceId, runId: 'rb', takeovers: 1 });
    const lost = await a.manager.dispatch({
      type: 'run:renew',
      timestamp: at(t0, 2100),
      payload: { sessionId: s.id, holder: a.manager.instanceId, runId: 'ra', ttlMs: 1000 },
    });
    expect(!lost.ok && lost.error).toMatchObject({ code: 'LEASE_LOST', details: { holder: b.manager.instanceId } });
    expect(await codeOf(append(a, 2100, 'late-a'))).toBe('SESSION_BUSY');
    // a's release leaves b's lease alone; b's ends it, and the session takes anyone's writes again.
    const released = async (ws: Workspace, runId: string) => {
      const r = await ws.manager.dispatch({
        type: 'run:release',
        timestamp: at(t0, 2200),
        payload: { sessionId: s.id, holder: ws.manager.instanceId, runId },
      });
      return r.ok && r.value;
    };
    expect(await released(a, 'ra')).toEqual({ released: false });
    expect(await released(b, 'ra')).toEqual({ released: false }); // b's lease, but another run's
    expect(await released(b, 'rb')).toEqual({ released: true });
    expect((await append(a, 2300, 'after')).ok).toBe(true); // decided on the state as it is: a's index did not know b's release
    await b.manager.refresh();
    expect(b.manager.workspace().collection('run').size).toBe(0);
    await b.sessions.open(s.id);
    expect((await b.sessions.get(s.id)?.transcript())?.map((t) => t.id)).toEqual(['from-a', 'after']);
  });

  it('fences the sub-workers of a leased session too, and refuses bad claims with typed errors', async () => {
    const [a, b] = await twoHandles(kind);
    const root = await a.sessions.create();
    await root.addTurn({ id: 'ask', role: 'assistant', blocks: [{ type: 'tool_use', callId: 'c1', name: 'spawn_worker', args: { task: 't' } }] });
    const spawned = await a.manager.dispatch({
      type: 'worker:spawn',
      payload: { parentSessionId: root.id, parentCallId: 'c1', task: 't', actions: [], maxDepth: 2 },
    });
    expect(spawned.ok).toBe(true);
    const sub = spawned.ok ? (spawned.value as { id: string }).id : '';
    const claimed = await a.manager.dispatch({ type: 'run:claim', payload: { sessionId: root.id, holder: a.manager.instanceId, runId: 'r', ttlMs: 60_000 } });
    expect(claimed.ok).toBe(true);
    const write = await b.manager.dispatch({ type: 'turn:add', payload: { sessionId: sub, turn: { role: 'user', blocks: [text('hi')] } } });
    expect(!write.ok && write.error.code).toBe('SESSION_BUSY');
    expect((await a.manager.dispatch({ type: 'turn:add', payload: { sessionId: sub, turn: { role: 'user', blocks: [text('hi')] } } })).ok).toBe(true);
    // Whatever its payload names: a worker spawned under the session, or finished, by b is refused too.
    const spawn = { parentSessionId: root.id, parentCallId: 'c2', task: 'u', actions: [], maxDepth: 2 };
    expect(await codeOf(b.manager.dispatch({ type: 'worker:spawn', payload: spawn }))).toBe('SESSION_BUSY');
    expect(await codeOf(b.manager.dispatch({ type: 'worker:finish', payload: { id: sub, status: 'failed', result: 'stopped' } }))).toBe('SESSION_BUSY');
    expect(a.manager.workspace().collection('worker').get(sub)?.status).toBe('running');
    // The session's trust modes are the running agent's too.
    expect(await codeOf(b.manager.dispatch({ type: 'trust:set', payload: { sessionId: root.id, action: 'deploy', mode: 'autonomous' } }))).toBe('SESSION_BUSY');
    // A clearance decision adds a turn under the running agent: refused too (an approval's answer is not).
    const staged = await a.manager.dispatch({
      type: 'clearance:stage',
      payload: { type: 'pending_export', description: 'run x', sessionId: root.id, workerId: root.id, metadata: {} },
    });
    if (!staged.ok) throw staged.error;
    expect(await codeOf(b.manager.dispatch({ type: 'clearance:decide', payload: { id: staged.value.id, decision: 'discard' } }))).toBe('SESSION_BUSY');
    // So is a patch to a UI its agent built.
    const built = await a.ui.patch({ instanceId: '__CREATE__', newInstanceId: 'form', patches: [] }, { builtBy: sub });
    expect(built.success).toBe(true);
    await expect(b.ui.patch({ instanceId: 'form', patches: [{ op: 'set', path: 'state.params.x', value: 1 }] })).rejects.toMatchObject({
      code: 'SESSION_BUSY',
    });
    // One run at a time within a holder too; a sub-worker's run is its root's.
    const again = { sessionId: root.id, holder: a.manager.instanceId, runId: 'r2', ttlMs: 60_000 };
    expect(await codeOf(a.manager.dispatch({ type: 'run:claim', payload: again }))).toBe('SESSION_BUSY');

    const bad = async (payload: object) => codeOf(a.manager.dispatch({ type: 'run:claim', payload } as never));
    expect(await bad({ sessionId: root.id, holder: 'h', runId: 'r', ttlMs: 5 })).toBe('INVALID_PAYLOAD');
    expect(await bad({ sessionId: root.id, holder: '', runId: 'r', ttlMs: 1000 })).toBe('INVALID_PAYLOAD');
    expect(await bad({ sessionId: 'no-such-session', holder: 'h', runId: 'r', ttlMs: 1000 })).toBe('SESSION_NOT_FOUND');
    expect(await bad({ sessionId: sub, holder: 'h', runId: 'r', ttlMs: 1000 })).toBe('INVALID_ARGUMENT');
    expect(await codeOf(a.manager.dispatch({ type: 'run:renew', payload: { sessionId: sub, holder: 'h', runId: 'r', ttlMs: 1000 } }))).toBe('LEASE_LOST');
  });

  it('a holder whose run was taken over writes nothing more, even after the new holder released it', async () => {
    const [a, b] = await twoHandles(kind);
    const leasesA = new RunLeases(a.manager, { ttlMs: 60_000, by: 'process a' });
    cleanups.push(() => leasesA.dispose());
    const s = await a.sessions.create();
    let told: GolemError | undefined;
    const held = await leasesA.claim(s.id, 'run-a', (error) => (told = error));
    expect(leasesA.holds(s.id)).toBe(true);
    // a stalls past its lease (here: b claims as if 61 s had passed), b takes over, runs and ends.
    const later = new Date(Date.now() + 61_000).toISOString();
    const taken = await b.manager.dispatch({
      type: 'run:claim',
      timestamp: later,
      payload: { sessionId: s.id, holder: b.manager.instanceId, runId: 'run-b', ttlMs: 60_000 },
    });
    expect(taken.ok).toBe(true);
    const write = () => a.manager.dispatch({ type: 'turn:add', payload: { sessionId: s.id, turn: { role: 'assistant', blocks: [text('stale')] } } });
    // While b's lease is live, a is refused as anyone else is; once it is gone, because a still believes it runs.
    expect(await codeOf(write())).toBe('SESSION_BUSY');
    expect(
      (await b.manager.dispatch({ type: 'run:release', timestamp: later, payload: { sessionId: s.id, holder: b.manager.instanceId, runId: 'run-b' } })).ok,
    ).toBe(true);
    const refused = await write();
    expect(!refused.ok && refused.error).toMatchObject({ code: 'LEASE_LOST', details: { sessionId: s.id } });
    expect(told).toBeUndefined(); // the renewal (every 20 s here) has not come yet; the guard did not wait for it
    await held.release();
    expect(leasesA.holds(s.id)).toBe(false);
    expect((await write()).ok).toBe(true); // a's run ended: a's writes are anyone's again
    await a.sessions.open(s.id);
    expect((await a.sessions.get(s.id)?.transcript())?.map((t) => t.blocks)).toEqual([[text('stale')]]);
    expect(() => new RunLeases(a.manager, { ttlMs: 10 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it("takes a live lease at once when its holder's process on this machine is gone, and waits for one that lives", async () => {
    const [a, b] = await twoHandles(kind);
    const leasesB = new RunLeases(b.manager, { ttlMs: 60_000 });
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    cleanups.push(
      () => leasesB.dispose(),
      () => child.kill('SIGKILL'),
    );
    const s = await a.sessions.create();
    let current: { holder: string; runId: string } | undefined;
    const holdAs = async (pid: number, runId: string, elsewhere = false) => {
      if (current !== undefined) await a.manager.dispatch({ type: 'run:release', payload: { sessionId: s.id, ...current } });
      current = { holder: `a-${runId}`, runId };
      const identity = processIdentity(pid);
      const process_ = elsewhere ? { ...identity, machine: 'another-machine/pid:[1]' } : identity;
      const claimed = await a.manager.dispatch({
        type: 'run:claim',
        payload: { sessionId: s.id, holder: `a-${runId}`, process: process_, runId, ttlMs: 60_000 },
      });
      expect(claimed.ok).toBe(true);
      await b.manager.refresh();
    };
    // Its process lives: b waits, as for any live lease.
    await holdAs(child.pid as number, 'alive');
    expect(leasesB.lapsed()).toEqual([]);
    await expect(leasesB.claim(s.id, 'run-b', () => undefined)).rejects.toMatchObject({ code: 'SESSION_BUSY' });
    // It dies: b takes the run over at once, long before the lease would lapse; unless the pid was another pid
    // namespace's or machine's (a container with this host's name), where b cannot tell, and waits.
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await holdAs(child.pid as number, 'elsewhere', true);
    expect(leasesB.lapsed()).toEqual([]);
    // (A run's id is its own: an ended run is not claimed again, so this is another run.)
    await holdAs(child.pid as number, 'alive-again');
    expect(leasesB.lapsed().map((l) => l.runId)).toEqual(['alive-again']);
    const held = await leasesB.claim(s.id, 'run-b', () => undefined);
    await b.manager.refresh();
    expect(b.manager.workspace().collection('run').get(s.id)).toMatchObject({ holder: b.manager.instanceId, runId: 'run-b', takeovers: 1 });
    await held.release();
    // A claim naming a holder to take over that does not hold the lease is refused like any other.
    await holdAs(process.pid, 'here');
    const forged = { sessionId: s.id, holder: b.manager.instanceId, runId: 'run-c', ttlMs: 60_000, takeOver: 'someone-else' };
    expect(await codeOf(b.manager.dispatch({ type: 'run:claim', payload: forged }))).toBe('SESSION_BUSY');
  });

  it('renews on its own while the run lasts, and tells the holder at once when a renewal finds it taken', async () => {
    const [a, b] = await twoHandles(kind);
    const leasesA = new RunLeases(a.manager, { ttlMs: 300 });
    cleanups.push(() => leasesA.dispose());
    const s = await a.sessions.create();
    let told: GolemError | undefined;
    const held = await leasesA.claim(s.id, 'run-a', (error) => (told = error));
    const first = a.manager.workspace().collection('run').get(s.id)?.expiresAt ?? '';
    await new Promise((resolve) => setTimeout(resolve, 450));
    await b.manager.refresh();
    const renewed = b.manager.workspace().collection('run').get(s.id);
    expect(renewed?.holder).toBe(a.manager.instanceId);
    expect(Date.parse(renewed?.expiresAt ?? '')).toBeGreaterThan(Date.parse(first));
    // b takes it over as if a had stalled; a's next renewal finds out.
    const later = new Date(Date.now() + 10_000).toISOString();
    expect(
      (
        await b.manager.dispatch({
          type: 'run:claim',
          timestamp: later,
          payload: { sessionId: s.id, holder: b.manager.instanceId, runId: 'run-b', ttlMs: 60_000 },
        })
      ).ok,
    ).toBe(true);
    for (let i = 0; i < 50 && told === undefined; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(told?.code).toBe('LEASE_LOST');
    await held.release();
    await b.manager.refresh();
    expect(b.manager.workspace().collection('run').get(s.id)?.holder).toBe(b.manager.instanceId); // a's release left b's lease
  });
});
