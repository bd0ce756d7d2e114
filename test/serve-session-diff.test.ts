/**
 * `GET /api/sessions/:a/diff/:b` (the page's Compare view): on `golem serve` over loopback behind
 * its token, and with users, where another user's session is not found and another user's UI
 * instances are left out of the comparison.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, type PatchInput } from '../src/index.js';
import { createGolemHandler, serve } from '../src/serve/index.js';
import type { MergeResult, SessionComparison, SessionDetail, SessionSummary } from '../src/serve/api-types.js';
import { whatIfBranches } from './fixtures/session-branches.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
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

    // A merge of another user's session, either way round, is refused as for none, and writes nothing.
    const headBefore = ws.sessions.get(ann.id)?.head();
    for (const [into, from] of [
      [ann.id, bob.id],
      [bob.id, ann.id],
    ] as const) {
      const merged = await call('ann', 'POST', `/api/sessions/${into}/merge`, { from });
      expect(merged.status).toBe(404);
      expect(((await merged.json()) as { error: { code: string } }).error.code).toBe('SESSION_NOT_FOUND');
    }
    expect(ws.sessions.get(ann.id)?.head()).toEqual(headBefore);
  });

  it('merges a branch into a session: the merge turn on its head, read back; unrelated, nothing left, a summary without a model and bad bodies are refused', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const b = await whatIfBranches(ws);
    const other = await ws.sessions.create({ label: 'unrelated' });
    await other.addTurn({ role: 'user', blocks: [text('hi')] });
    const server = await serve(ws, {});
    cleanups.push(() => server.close());
    const post = async (id: string, body: unknown) => {
      const res = await fetch(new URL(`/api/sessions/${id}/merge`, server.url), {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as MergeResult & { error?: { code: string } } };
    };
    const code = async (id: string, body: unknown) => {
      const res = await post(id, body);
      return [res.status, res.body.error?.code];
    };
    const head = () => ws.sessions.get(b.main)?.head();
    const before = head();

    expect(await code(b.main, { from: other.id })).toEqual([409, 'MERGE_NOT_RELATED']);
    expect(await code(b.main, { from: b.whatIf, as: 'summary' })).toEqual([400, 'MODEL_REQUIRED']);
    expect(await code(b.main, { from: b.whatIf, as: 'everything' })).toEqual([400, 'INVALID_ARGUMENT']);
    expect(await code(b.main, { form: b.whatIf })).toEqual([400, 'INVALID_ARGUMENT']);
    expect(await code(b.main, { from: 'nope' })).toEqual([404, 'SESSION_NOT_FOUND']);
    expect(head()).toEqual(before);

    const merged = await post(b.main, { from: b.whatIf });
    expect(merged.status).toBe(201);
    expect(merged.body).toEqual({ turn: { id: expect.any(String) as string, version: 0 }, from: b.whatIf, as: 'turns' });
    const turn = ws.manager.workspace().turn(merged.body.turn);
    expect(turn?.merge).toEqual({ from: { id: b.answered.id, version: b.answered.version }, base: { id: b.parted.id, version: 0 }, as: 'turns' });
    expect(head()).toEqual(merged.body.turn);
    // Nothing is left to bring: the comparison says so, and a second merge is refused.
    const d = (await (
      await fetch(new URL(`/api/sessions/${b.main}/diff/${b.whatIf}`, server.url), { headers: { authorization: `Bearer ${server.token}` } })
    ).json()) as SessionComparison;
    expect(d.turns.b).toEqual([]);
    expect(await code(b.main, { from: b.whatIf })).toEqual([409, 'MERGE_NOTHING']);
  });

  it("refuses a merge into a session whose agent is answering, and with the server's model merges as a summary", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const steps: ScriptStep[] = [
      async () => {
        await held;
        return { text: 'Porto it is.' };
      },
      () => ({ text: 'The branch weighed Lisbon for three nights instead.' }),
    ];
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const b = await whatIfBranches(ws);
    const server = await serve(ws, { agent: { model: scriptedModel(steps) } });
    cleanups.push(() => server.close());
    const call = async (method: string, path: string, body: unknown) => {
      const res = await fetch(new URL(path, server.url), {
        method,
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as MergeResult & { error?: { code: string } } };
    };

    expect((await call('POST', `/api/sessions/${b.main}/messages`, { text: 'book Porto' })).status).toBe(202);
    const busy = await call('POST', `/api/sessions/${b.main}/merge`, { from: b.whatIf, as: 'summary' });
    expect([busy.status, busy.body.error?.code]).toEqual([409, 'SESSION_BUSY']);
    // Nor is a branch merged while its own run is half-way.
    const halfway = await call('POST', `/api/sessions/${b.whatIf}/merge`, { from: b.main });
    expect([halfway.status, halfway.body.error?.code]).toEqual([409, 'SESSION_BUSY']);
    release();
    await server.settled(b.main);
    expect(ws.manager.workspace().turn(ws.sessions.get(b.main)?.head() ?? { id: '', version: 0 })?.merge).toBeUndefined();

    const merged = await call('POST', `/api/sessions/${b.main}/merge`, { from: b.whatIf, as: 'summary' });
    expect(merged.status).toBe(201);
    const turn = ws.manager.workspace().turn(merged.body.turn);
    expect(turn?.merge?.as).toBe('summary');
    expect(JSON.stringify(turn?.blocks)).toContain('The branch weighed Lisbon for three nights instead.');
    // The chat shows it in words, with the summary and without the session id the model is given.
    const detail = (await (
      await fetch(new URL(`/api/sessions/${b.main}`, server.url), { headers: { authorization: `Bearer ${server.token}` } })
    ).json()) as SessionDetail;
    expect(detail.turns.at(-1)?.text).toBe(
      'Merged the branch "what if Lisbon", as a summary of its 2 turns: The branch weighed Lisbon for three nights instead.',
    );
  });
});
