/**
 * The runs of the HTTP API (issue 36) on createGolemHandler: `GET /api/runs` (newest first,
 * paged, by session and status), `GET /api/runs/:id` and `POST /api/runs/:id/cancel`, read back
 * from the store. With users, each sees and cancels only the runs of their own sessions:
 * another user's run is RUN_NOT_FOUND, worded as for none, and left out of every page.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../src/index.js';
import type { RunCancelView, RunPageView, RunView, SessionSummary } from '../src/serve/api-types.js';
import { createGolemHandler, type GolemHandler, type GolemHandlerOptions } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { steppingClock } from './helpers.js';
import { sseEventsOf } from './helpers-chat.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(clock: () => Date = steppingClock()): Promise<Workspace> {
  // A clock a millisecond on at each reading: runs are listed in the order they started.
  const ws = await createWorkspace({ clock });
  cleanups.push(() => ws.close());
  return ws;
}

async function handlerOf(ws: Workspace, options: GolemHandlerOptions): Promise<GolemHandler> {
  const handler = await createGolemHandler(ws, options);
  cleanups.push(() => handler.close());
  return handler;
}

type Refusal = { error: { code: string; message: string } };
type Call = <T = Refusal>(method: string, path: string, body?: unknown) => Promise<{ status: number; json: T }>;

/** A client of the handler, as `user` (a header the handler's `user` hook reads; null: none sent). */
function as(handler: GolemHandler, user: string | null): Call {
  return async <T>(method: string, path: string, body?: unknown) => {
    const res = await handler.fetch(
      new Request(`http://app.test${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(user !== null && { 'x-user': user }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, json: (await res.json()) as T };
  };
}

const byHeader: GolemHandlerOptions = { auth: false, user: (request) => request.headers.get('x-user') };

/** A run that holds its session until it is stopped. */
async function holding(ws: Workspace, sessionId: string) {
  const claim = await ws.runs.claim(sessionId, { by: 'the test' });
  const handle = claim.run(({ signal }) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })));
  cleanups.push(async () => void (await handle.cancel().then(() => handle.done)));
  return handle;
}

/** A run that ends at once. */
async function ended(ws: Workspace, sessionId: string): Promise<string> {
  const handle = (await ws.runs.claim(sessionId)).run(async () => undefined);
  await handle.done;
  return handle.id;
}

const ids = (page: RunPageView) => page.runs.map((r) => r.id);

describe('GET /api/runs, GET /api/runs/:id, POST /api/runs/:id/cancel', () => {
  it('each user sees, pages and cancels only the runs of their own sessions; another user’s run is not found, as none is', async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws, { ...byHeader, agent: { model: scriptedModel([{ text: 'Hello.' }]) } });
    const ann = as(golem, 'ann');
    const bob = as(golem, 'bob');
    const annSession = (await ann<SessionSummary>('POST', '/api/sessions', { label: 'ann’s' })).json;
    const bobSession = (await bob<SessionSummary>('POST', '/api/sessions', { label: 'bob’s' })).json;
    const nobodys = await ws.sessions.create({ label: 'the terminal’s' });

    // Ann's first run goes through the handler's own way in: a message.
    expect((await ann('POST', `/api/sessions/${annSession.id}/messages`, { text: 'hi' })).status).toBe(202);
    await golem.settled(annSession.id);
    const [viaMessage] = ids((await ann<RunPageView>('GET', '/api/runs')).json);
    expect(ws.runs.get(viaMessage!)).toMatchObject({ sessionId: annSession.id, status: 'succeeded', usage: { modelCalls: 1 } });
    // Then runs of all three, interleaved, newest last.
    const annRuns = [viaMessage!];
    const bobRuns: string[] = [];
    for (let i = 0; i < 3; i++) {
      bobRuns.push(await ended(ws, bobSession.id));
      await ended(ws, nobodys.id);
      annRuns.push(await ended(ws, annSession.id));
    }
    const bobRunning = await holding(ws, bobSession.id);
    bobRuns.push(bobRunning.id);

    // Lists: one's own, newest first, full pages, a cursor only while more of one's own follow.
    const annAll = (await ann<RunPageView>('GET', '/api/runs')).json;
    expect(ids(annAll)).toEqual([...annRuns].reverse());
    expect(annAll.cursor).toBeUndefined();
    expect(new Set(annAll.runs.map((r) => r.sessionId))).toEqual(new Set([annSession.id]));
    expect(ids((await bob<RunPageView>('GET', '/api/runs')).json)).toEqual([...bobRuns].reverse());
    const page1 = (await ann<RunPageView>('GET', '/api/runs?limit=3')).json;
    expect(ids(page1)).toEqual([annRuns[3], annRuns[2], annRuns[1]]);
    const page2 = (await ann<RunPageView>(`GET`, `/api/runs?limit=3&cursor=${page1.cursor}`)).json;
    expect(page2).toEqual({ runs: [expect.objectContaining({ id: annRuns[0] })] });
    expect(ids((await ann<RunPageView>('GET', '/api/runs?limit=4')).json)).toHaveLength(4);
    expect((await ann<RunPageView>('GET', '/api/runs?limit=4')).json.cursor).toBeUndefined();
    expect(ids((await bob<RunPageView>('GET', '/api/runs?status=running')).json)).toEqual([bobRunning.id]);
    expect(ids((await bob<RunPageView>(`GET`, `/api/runs?sessionId=${bobSession.id}&status=succeeded`)).json)).toEqual([...bobRuns.slice(0, 3)].reverse());
    // Another user's session, named: nothing, as for a session with no runs.
    expect((await ann<RunPageView>('GET', `/api/runs?sessionId=${bobSession.id}`)).json).toEqual({ runs: [] });
    expect((await ann<RunPageView>('GET', `/api/runs?sessionId=${nobodys.id}`)).json).toEqual({ runs: [] });

    // One's own run: read; another user's: RUN_NOT_FOUND, in the words for a run that does not exist.
    // (Which process ran it is the server's business: with users, by and holder are left empty.)
    expect((await ann<RunView>('GET', `/api/runs/${annRuns[1]}`)).json).toEqual({ ...ws.runs.get(annRuns[1]!), by: '', holder: '' });
    const missing = await ann('GET', '/api/runs/no-such-run');
    for (const [method, path] of [
      ['GET', `/api/runs/${bobRunning.id}`],
      ['POST', `/api/runs/${bobRunning.id}/cancel`],
      ['GET', `/api/runs/${bobRuns[0]}`],
    ] as const) {
      const hidden = await ann(method, path, method === 'POST' ? {} : undefined);
      expect({ path, status: hidden.status, code: hidden.json.error.code }).toEqual({ path, status: 404, code: 'RUN_NOT_FOUND' });
      expect(hidden.json.error.message.replace(/"[^"]+"/, 'X')).toBe(missing.json.error.message.replace('"no-such-run"', 'X'));
    }
    expect(await ann('POST', '/api/runs/no-such-run/cancel', {})).toMatchObject({ status: 404, json: { error: { code: 'RUN_NOT_FOUND' } } });
    // Ann's cancel reached nothing.
    expect(ws.runs.get(bobRunning.id)).toMatchObject({ status: 'running' });
    expect(ws.runs.get(bobRunning.id)?.cancel).toBeUndefined();

    // Bob's own: its holder is asked to stop, and stops.
    const cancelled = await bob<RunCancelView>('POST', `/api/runs/${bobRunning.id}/cancel`, {});
    expect(cancelled).toMatchObject({ status: 200, json: { outcome: 'stopping', run: { id: bobRunning.id, cancel: { by: 'bob (HTTP API)' } } } });
    const { record } = await bobRunning.done;
    expect(record).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED' } });
    expect((await bob<RunView>('GET', `/api/runs/${bobRunning.id}`)).json).toMatchObject({ status: 'cancelled', endedAt: expect.any(String) });
    // An ended run: nothing changes.
    expect((await ann<RunCancelView>('POST', `/api/runs/${annRuns[0]}/cancel`, {})).json).toMatchObject({ outcome: 'ended', run: { status: 'succeeded' } });
    expect(ws.runs.get(annRuns[0]!)?.cancel).toBeUndefined();
  });

  it('without users, lists every run and cancels any; a run no live process holds is cancelled at once', async () => {
    let now = Date.UTC(2026, 0, 1);
    const ws = await workspace(() => new Date(now++));
    const golem = await handlerOf(ws, { auth: false });
    const client = as(golem, null);
    const a = await ws.sessions.create({});
    const b = await ws.sessions.create({});
    const first = await ended(ws, a.id);
    const second = await ended(ws, b.id);
    // Claimed by a process that is gone: its lease lapsed a second ago.
    const claimed = await ws.manager.dispatch({ type: 'run:claim', payload: { sessionId: a.id, holder: 'gone', by: 'gone', runId: 'orphan', ttlMs: 100 } });
    expect(claimed.ok).toBe(true);
    now += 1100;
    expect(ids((await client<RunPageView>('GET', '/api/runs')).json)).toEqual(['orphan', second, first]);
    const cancelled = await client<RunCancelView>('POST', '/api/runs/orphan/cancel', {});
    expect(cancelled).toMatchObject({ status: 200, json: { outcome: 'cancelled', run: { status: 'cancelled', cancel: { by: 'a client of the HTTP API' } } } });
    expect(ws.runs.get('orphan')).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED' } });
    expect(ws.manager.workspace().collection('run').get(a.id)).toBeUndefined();
  });

  it("streams a run's events (GET /api/runs/:id/events) live to its end, each with its id; after a seq or a Last-Event-ID; another user's is not found", async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws, byHeader);
    const created = await as(golem, 'ann')<{ id: string }>('POST', '/api/sessions', {});
    const sessionId = created.json.id;
    const claim = await ws.runs.claim(sessionId, { by: 'the test' });
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const worker = { id: sessionId, depth: 0, task: 'say it' };
    const handle = claim.run(async ({ log }) => {
      log.push({ type: 'event', event: { type: 'worker-start', worker, parent: null } });
      log.push({ type: 'event', event: { type: 'text-delta', worker, text: 'Hello ' } });
      await gate;
      log.push({ type: 'event', event: { type: 'text-delta', worker, text: 'there.' } });
    });
    const read = async (user: string, query = '', headers: Record<string, string> = {}) =>
      golem.fetch(new Request(`http://app.test/api/runs/${claim.id}/events${query}`, { headers: { 'x-user': user, ...headers } }));
    const live = read('ann');
    setTimeout(finish, 50);
    const events = await sseEventsOf(await live);
    await handle.done;
    expect(events.map((e) => [e.id, (JSON.parse(e.data) as { type: string }).type])).toEqual([
      [`${claim.id}:1`, 'event'],
      [`${claim.id}:2`, 'event'],
      [`${claim.id}:3`, 'event'],
      [`${claim.id}:4`, 'end'],
    ]);
    expect(JSON.parse(events[3]!.data)).toEqual({ seq: 4, type: 'end', outcome: 'done', text: '(no answer text)' });
    const after = (await sseEventsOf(await read('ann', '?after=2'))).map((e) => e.id);
    expect(after).toEqual([`${claim.id}:3`, `${claim.id}:4`]);
    const back = (await sseEventsOf(await read('ann', '', { 'last-event-id': `${claim.id}:3` }))).map((e) => e.id);
    expect(back).toEqual([`${claim.id}:4`]);
    const bob = await read('bob');
    expect(bob.status).toBe(404);
    expect(await bob.json()).toMatchObject({ error: { code: 'RUN_NOT_FOUND' } });
    expect((await read('ann', '?after=soon')).status).toBe(400);
  });

  it('refuses a bad status, limit or cursor with INVALID_ARGUMENT (400), with users and without', async () => {
    const ws = await workspace();
    const session = await ws.sessions.create({});
    await ended(ws, session.id);
    for (const client of [as(await handlerOf(ws, byHeader), 'ann'), as(await handlerOf(ws, { auth: false }), null)]) {
      for (const query of ['status=done', 'status=', 'limit=0', 'limit=501', 'limit=ten', 'limit=-1', 'limit=1.5', 'cursor=nonsense']) {
        const refused = await client('GET', `/api/runs?${query}`);
        expect({ query, status: refused.status, code: refused.json.error.code }).toEqual({ query, status: 400, code: 'INVALID_ARGUMENT' });
      }
    }
  });
});
