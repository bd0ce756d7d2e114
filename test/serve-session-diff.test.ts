/**
 * `GET /api/sessions/:a/diff/:b` (the page's Compare view): on `golem serve` over loopback behind
 * its token, and with users, where another user's session is not found and another user's UI
 * instances are left out of the comparison.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, type PatchInput } from '../src/index.js';
import { createGolemHandler, serve } from '../src/serve/index.js';
import type { SessionComparison, SessionSummary } from '../src/serve/api-types.js';
import { whatIfBranches } from './fixtures/session-branches.js';
import { text } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const card = (id: string): PatchInput => ({
  instanceId: '__CREATE__',
  newInstanceId: id,
  patches: [
    { op: 'set', path: 'meta', value: { pageKey: id, step: { current: 1, total: 1 }, status: 'idle' } },
    { op: 'set', path: 'state', value: { params: {}, runtime: {} } },
    { op: 'set', path: 'blocks', value: [] },
    { op: 'set', path: 'actions', value: [] },
  ],
});

describe('GET /api/sessions/:a/diff/:b', () => {
  it('gives the comparison behind the server token; an unknown session is SESSION_NOT_FOUND', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const b = await whatIfBranches(ws);
    const server = await serve(ws, {});
    cleanups.push(() => server.close());
    const get = (path: string, token: string | null = server.token) =>
      fetch(new URL(path, server.url), { headers: token === null ? {} : { authorization: `Bearer ${token}` } });

    const res = await get(`/api/sessions/${b.main}/diff/${b.whatIf}`);
    expect(res.status).toBe(200);
    const d = (await res.json()) as SessionComparison;
    expect(d.labels).toEqual({ a: 'main', b: 'what if Lisbon' });
    expect(d.turns.base).toEqual({ id: b.parted.id, version: 0 });
    expect(d.turns.b.map((t) => t.id)).toEqual([b.asked.id, b.answered.id]);
    // As the chat reads them: each turn's text, role and versions.
    expect(d.turns.a.map((t) => [t.role, t.text, t.branch.total])).toEqual([['user', 'yes, Porto', 1]]);
    expect(d.turns.b.map((t) => [t.role, t.text])).toEqual([
      ['user', 'what about Lisbon?'],
      ['assistant', 'Lisbon for three nights.'],
    ]);
    expect(d.environment).toEqual([{ environment: 'reader', field: 'current_page', a: '1', b: '300' }]);
    expect(d.ui.map((u) => [u.instanceId, u.change])).toEqual([
      ['chart', 'added'],
      ['trip', 'changed'],
    ]);
    expect(d.clearance.b.map((c) => [c.id, c.description, c.status])).toEqual([[b.item, 'book the Lisbon hotel', 'pending']]);
    expect(d.clearance.a).toEqual([]);

    expect((await get(`/api/sessions/${b.main}/diff/${b.whatIf}`, null)).status).toBe(401);
    const unknown = await get(`/api/sessions/${b.main}/diff/nope`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('SESSION_NOT_FOUND');
  });

  it("with users: another user's session is not found, and their UI instances are left out", async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const golem = await createGolemHandler(ws, { auth: false, user: (request) => request.headers.get('x-user') });
    cleanups.push(() => golem.close());
    const call = (user: string, method: string, path: string, body?: unknown) =>
      golem.fetch(
        new Request(`http://app.test${path}`, {
          method,
          headers: { 'x-user': user, 'content-type': 'application/json' },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        }),
      );
    const created = async (user: string) => (await (await call(user, 'POST', '/api/sessions', {})).json()) as SessionSummary;
    const ann = await created('ann');
    await ws.sessions.get(ann.id)?.addTurn({ role: 'user', blocks: [text('hello')] });
    const fork = (await (await call('ann', 'POST', `/api/sessions/${ann.id}/fork`, {})).json()) as SessionSummary;
    const bob = await created('bob');
    expect((await ws.ui.patch(card('mine'), { builtBy: fork.id })).success).toBe(true);
    expect((await ws.ui.patch(card('theirs'), { builtBy: bob.id })).success).toBe(true);
    await ws.sessions.get(fork.id)?.addTurn({ role: 'user', blocks: [text('and a card')] });

    const res = await call('ann', 'GET', `/api/sessions/${ann.id}/diff/${fork.id}`);
    expect(res.status).toBe(200);
    const d = (await res.json()) as SessionComparison;
    expect(d.turns.b.map((t) => t.role)).toEqual(['user']);
    expect(d.ui.map((u) => u.instanceId)).toEqual(['mine']);

    const refused = await call('ann', 'GET', `/api/sessions/${ann.id}/diff/${bob.id}`);
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('SESSION_NOT_FOUND');
  });
});
