/**
 * createGolemHandler: Golem as a fetch handler behind the servers apps use (Hono's mount,
 * plain node:http through @hono/node-server's adapter, and a bare `Request` as Next.js route
 * handlers, Bun and Deno pass it, under a basePath); who may call it (the token by default,
 * a check of the app's own, none); CORS; and sessions scoped per user, owned in the
 * workspace: another user's session, approval, clearance item or UI is not found anywhere,
 * also after the workspace is reopened and from a second handle on the same store.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { mount } from 'hono/mount';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, projectActions, type Workspace } from '../src/index.js';
import { sessionOwner } from '../src/agent/session-owners.js';
import type { ServeState, SessionDetail, SessionSummary } from '../src/serve/api-types.js';
import { assembleHandler } from '../src/serve/handler.js';
import { createGolemHandler, type GolemHandler, type GolemHandlerOptions } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { deployAction, tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(dir?: string): Promise<Workspace> {
  const ws = await createWorkspace(dir === undefined ? {} : { dir });
  cleanups.push(() => ws.close());
  return ws;
}

async function handlerOf(ws: Workspace, options: GolemHandlerOptions = {}): Promise<GolemHandler> {
  const handler = await createGolemHandler(ws, options);
  cleanups.push(() => handler.close());
  return handler;
}

type Refusal = { error: { code: string; message: string } };
type Call = <T = Refusal>(method: string, path: string, body?: unknown) => Promise<{ status: number; json: T }>;

/** A client of the handler called directly, as `user` (sent in a header the test's `user` hook reads). */
function as(handler: GolemHandler, user: string | null, base = ''): Call {
  return async <T>(method: string, path: string, body?: unknown) => {
    const res = await handler.fetch(
      new Request(`http://app.test${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json', ...(user !== null && { 'x-user': user }) },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, json: (await res.json()) as T };
  };
}

/** Users as the app knows them: here, a header its own auth in front has set. */
const byHeader: GolemHandlerOptions = { auth: false, user: (request) => request.headers.get('x-user') };

const notFound = (code = 'SESSION_NOT_FOUND') => ({ status: 404, json: { error: { code } } });

describe('createGolemHandler behind the servers apps use', () => {
  it('behind Hono: mounted under a path with hono/mount, beside the app’s own routes', async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws);
    const app = new Hono();
    app.get('/hello', (c) => c.text('the app'));
    app.all('/golem/*', mount(golem.fetch));
    const auth = { authorization: `Bearer ${golem.token}`, 'content-type': 'application/json' };
    const created = await app.request('/golem/api/sessions', { method: 'POST', headers: auth, body: JSON.stringify({ label: 'via hono' }) });
    expect(created.status).toBe(201);
    const state = (await (await app.request('/golem/api/state', { headers: auth })).json()) as ServeState;
    expect(state.sessions.map((s) => s.label)).toEqual(['via hono']);
    expect(await (await app.request('/hello')).text()).toBe('the app');
    expect((await app.request('/golem/api/state')).status).toBe(401);
    expect(ws.sessions.list().map((s) => s.label)).toEqual(['via hono']);
  });

  it('behind plain node:http through @hono/node-server’s getRequestListener, mounted under a path as Express’s app.use mounts it', async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws, { agent: { model: scriptedModel([{ text: 'Hello from Golem.' }]) } });
    const listener = getRequestListener(golem.fetch);
    // Express's app.use('/golem', listener) hands the listener the request with its url past the mount path.
    const http: Server = createServer((req, res) => {
      if (req.url?.startsWith('/golem/') !== true) return void res.end('the app');
      req.url = req.url.slice('/golem'.length);
      void listener(req, res);
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => http.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/golem`;
    const headers = { authorization: `Bearer ${golem.token}`, 'content-type': 'application/json' };
    const session = (await (await fetch(`${url}/api/sessions`, { method: 'POST', headers, body: '{}' })).json()) as SessionSummary;
    const sent = await fetch(`${url}/api/sessions/${session.id}/messages`, { method: 'POST', headers, body: JSON.stringify({ text: 'hi' }) });
    expect(sent.status).toBe(202);
    await golem.settled(session.id);
    const detail = (await (await fetch(`${url}/api/sessions/${session.id}`, { headers })).json()) as SessionDetail;
    expect(detail.turns.map((t) => [t.role, t.text])).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello from Golem.'],
    ]);
    expect((await fetch(`${url}/api/state`)).status).toBe(401);
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it('called with a bare Request, as Next.js route handlers, Bun and Deno call it, under a basePath', async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws, { basePath: '/api/golem/', auth: false });
    const call = as(golem, null, '/api/golem');
    expect(await call<SessionSummary>('POST', '/api/sessions', { label: 'next' })).toMatchObject({ status: 201, json: { label: 'next' } });
    expect((await call<ServeState>('GET', '/api/state')).json.sessions.map((s) => s.label)).toEqual(['next']);
    // Outside the base path, nothing; the API's own 404 inside it.
    expect((await golem.fetch(new Request('http://app.test/api/state'))).status).toBe(404);
    expect((await golem.fetch(new Request('http://app.test/api/golemx/api/state'))).status).toBe(404);
    // As long as the base path, but not it: not taken for it.
    expect((await golem.fetch(new Request('http://app.test/elsewhere/health'))).status).toBe(404);
    expect(await call('GET', '/api/nothing')).toMatchObject({ status: 404, json: { error: { code: 'NOT_FOUND' } } });
    expect((await golem.fetch(new Request('http://app.test/api/golem/health'))).status).toBe(200);
  });

  it('close stops the runs in progress and the UI stream, and leaves the workspace open', async () => {
    const ws = await workspace();
    let signalled: AbortSignal | undefined;
    const model = scriptedModel([
      async (_prompt, _call, options) => {
        signalled = options.signal;
        await new Promise((resolve) => setTimeout(resolve, 10_000).unref());
        return { text: 'too late' };
      },
    ]);
    const { handler, stream } = await assembleHandler(ws, { auth: false, agent: { model } });
    const heard: unknown[] = [];
    stream.subscribe((event) => heard.push(event));
    const session = (await as(handler, null)<SessionSummary>('POST', '/api/sessions', {})).json;
    await as(handler, null)('POST', `/api/sessions/${session.id}/messages`, { text: 'take your time' });
    await until(async () => signalled !== undefined);
    const started = Date.now();
    await handler.close();
    expect(signalled?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    await ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: 'after', patches: [{ op: 'set', path: 'state', value: { params: {}, runtime: {} } }] });
    expect(heard).toEqual([]);
    expect(ws.sessions.get(session.id)).toBeDefined();
  });

  it('refuses options that do not go together, before anything starts', async () => {
    const ws = await workspace();
    const refused = (options: GolemHandlerOptions) => expect(createGolemHandler(ws, options)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await refused({ token: 'x'.repeat(32), auth: false });
    await refused({ token: 'short' });
    // A token a guesser could find: one letter, however long (issue 35, finding 14).
    await expect(createGolemHandler(ws, { token: 't'.repeat(64) })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('openssl rand -hex 32') as unknown,
    });
    await refused({ ...byHeader, mcp: true });
    await refused({ basePath: 'no-slash' });
    await refused({ basePath: '/golem', page: true });
    await refused({ cors: ['https://app.example.com/path'] });
    await refused({ cors: ['not an origin'] });
  });
});

describe('createGolemHandler: who may call it', () => {
  it('wants the bearer token by default (given or generated), on the API and MCP, not on /health', async () => {
    const ws = await workspace();
    const generated = await handlerOf(ws);
    expect(generated.token).toMatch(/^[0-9a-f]{64}$/);
    const chosen = 'c0ffee42deadbeef8badf00d13572468'; // 32 hex characters: 128 bits
    const given = await handlerOf(ws, { token: chosen });
    expect(given.token).toBe(chosen);
    const get = (path: string, token?: string) =>
      given.fetch(new Request(`http://app.test${path}`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } }));
    expect((await get('/api/state')).status).toBe(401);
    expect((await get('/api/state', generated.token as string)).status).toBe(401);
    expect((await get('/api/state', chosen)).status).toBe(200);
    expect(((await (await get('/api/state')).json()) as Refusal).error.code).toBe('UNAUTHORIZED');
    const mcp = await given.fetch(new Request('http://app.test/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
    expect(mcp.status).toBe(401);
    expect((await get('/health')).status).toBe(200);
  });

  it('takes a check of the app’s own instead, or none', async () => {
    const ws = await workspace();
    const checked = await handlerOf(ws, { auth: async (request) => request.headers.get('x-api-key') === 'k-123' });
    expect(checked.token).toBeUndefined();
    const get = (handler: GolemHandler, headers: Record<string, string> = {}) => handler.fetch(new Request('http://app.test/api/state', { headers }));
    expect((await get(checked)).status).toBe(401);
    expect((await get(checked, { 'x-api-key': 'wrong' })).status).toBe(401);
    expect((await get(checked, { 'x-api-key': 'k-123' })).status).toBe(200);
    const open = await handlerOf(ws, { auth: false });
    expect(open.token).toBeUndefined();
    expect((await get(open)).status).toBe(200);
  });

  it('refuses an API request the user hook finds no user for, and calls the hook once per request', async () => {
    const ws = await workspace();
    const seen: string[] = [];
    const golem = await handlerOf(ws, {
      auth: false,
      user: (request) => {
        seen.push(new URL(request.url).pathname);
        return request.headers.get('x-user');
      },
    });
    expect(await as(golem, null)('GET', '/api/state')).toMatchObject({ status: 401, json: { error: { code: 'UNAUTHORIZED' } } });
    expect((await as(golem, 'ann')('GET', '/api/state')).status).toBe(200);
    expect((await golem.fetch(new Request('http://app.test/health'))).status).toBe(200);
    expect(seen).toEqual(['/api/state', '/api/state']);
    // MCP is off with users: its tools would show every user's sessions.
    expect((await golem.fetch(new Request('http://app.test/mcp', { method: 'POST', body: '{}' }))).status).toBe(404);
  });
});

describe('createGolemHandler: CORS', () => {
  const preflight = (handler: GolemHandler, origin: string) =>
    handler.fetch(
      new Request('http://api.test/api/sessions', {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      }),
    );

  it('answers a preflight from an allowed origin with what it asked for, and refuses other origins', async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws, { cors: ['https://app.example.com'] });
    const ok = await preflight(golem, 'https://app.example.com');
    expect(ok.status).toBe(204);
    const preflightHeaders: Record<string, string> = {};
    ok.headers.forEach((value, key) => (preflightHeaders[key] = value));
    expect(preflightHeaders).toMatchObject({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-methods': expect.stringContaining('POST'),
      'access-control-allow-headers': 'authorization, content-type',
    });
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await preflight(golem, 'https://evil.example');
    expect(other.status).toBe(403);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    // The request itself: the allowed origin may read the answer (a 401 too), another gets no CORS headers.
    const read = (origin: string, token?: string) =>
      golem.fetch(new Request('http://api.test/api/state', { headers: { origin, ...(token !== undefined && { authorization: `Bearer ${token}` }) } }));
    const allowed = await read('https://app.example.com', golem.token);
    expect([allowed.status, allowed.headers.get('access-control-allow-origin'), allowed.headers.get('vary')]).toEqual([
      200,
      'https://app.example.com',
      'Origin',
    ]);
    expect((await read('https://app.example.com')).headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    expect((await read('https://evil.example', golem.token)).headers.get('access-control-allow-origin')).toBeNull();
    expect((await read('https://app.example.com.evil.example', golem.token)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('takes a check of the origin, and sends credentials only when asked to', async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws, { cors: { origins: (origin) => origin.endsWith('.example.com'), credentials: true } });
    const ok = await preflight(golem, 'https://a.example.com');
    expect([ok.status, ok.headers.get('access-control-allow-origin'), ok.headers.get('access-control-allow-credentials')]).toEqual([
      204,
      'https://a.example.com',
      'true',
    ]);
    expect((await preflight(golem, 'https://example.org')).status).toBe(403);
    // Without cors, no preflight is answered: it meets the auth check like any request.
    const plain = await handlerOf(ws);
    expect((await preflight(plain, 'https://a.example.com')).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('createGolemHandler: each user’s own sessions', () => {
  it('another user’s session is SESSION_NOT_FOUND on every route, and lists show each user only their own', async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws, { ...byHeader, agent: { model: scriptedModel([{ text: 'one' }, { text: 'two' }]) } });
    const ann = as(golem, 'ann');
    const bob = as(golem, 'bob');
    const mine = (await ann<SessionSummary>('POST', '/api/sessions', { label: 'ann’s' })).json;
    await ann('POST', `/api/sessions/${mine.id}/messages`, { text: 'hi' });
    await golem.settled(mine.id);
    const theirs = (await bob<SessionSummary>('POST', '/api/sessions', { label: 'bob’s' })).json;
    const turn = (await ann<SessionDetail>('GET', `/api/sessions/${mine.id}`)).json.turns[0]!;

    expect((await ann<ServeState>('GET', '/api/state')).json.sessions.map((s) => s.label)).toEqual(['ann’s']);
    expect((await bob<ServeState>('GET', '/api/state')).json.sessions.map((s) => s.label)).toEqual(['bob’s']);
    for (const [method, path, body] of [
      ['GET', `/api/sessions/${mine.id}`, undefined],
      ['POST', `/api/sessions/${mine.id}/messages`, { text: 'let me in' }],
      ['POST', `/api/sessions/${mine.id}/turns/${turn.id}/edit`, { text: 'mine now' }],
      ['POST', `/api/sessions/${mine.id}/turns/${turn.id}/switch`, { direction: 'left' }],
      ['POST', `/api/sessions/${mine.id}/fork`, {}],
      ['POST', `/api/sessions/${mine.id}/stop`, {}],
    ] as const) {
      expect(await bob(method, path, body), `${method} ${path}`).toMatchObject(notFound());
    }
    // As for a session that does not exist: the same code and wording.
    const missing = await bob('GET', '/api/sessions/no-such-session');
    const hidden = await bob('GET', `/api/sessions/${mine.id}`);
    expect(hidden.json.error.message.replace(mine.id, 'X')).toBe(missing.json.error.message.replace('no-such-session', 'X'));
    // Nothing of Bob's attempts reached Ann's session.
    expect((await ann<SessionDetail>('GET', `/api/sessions/${mine.id}`)).json.turns.map((t) => t.text)).toEqual(['hi', 'one']);
    expect(ws.sessions.list()).toHaveLength(2);
    // A fork is its maker's.
    const fork = (await ann<SessionSummary>('POST', `/api/sessions/${mine.id}/fork`, {})).json;
    expect(await bob('GET', `/api/sessions/${fork.id}`)).toMatchObject(notFound());
    expect((await ann<ServeState>('GET', '/api/state')).json.sessions.map((s) => s.id).sort()).toEqual([mine.id, fork.id].sort());
    expect((await bob<ServeState>('GET', '/api/state')).json.sessions.map((s) => s.id)).toEqual([theirs.id]);
  });

  it('host.thread (the protocol routes’ way in) refuses another user’s thread, even to create it, and makes new ones the caller’s', async () => {
    const ws = await workspace();
    const { handler, host } = await assembleHandler(ws, byHeader);
    cleanups.push(() => handler.close());
    const ann = await host.thread('ann', 'thread-1', true);
    expect(sessionOwner(ws.manager.workspace(), ann.id)).toBe('ann');
    expect((await host.thread('ann', 'thread-1', false)).id).toBe('thread-1');
    await expect(host.thread('bob', 'thread-1', false)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(host.thread('bob', 'thread-1', true)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(host.thread('bob', 'thread-2', false)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await host.thread('bob', 'thread-2', true);
    // An id claimed and not yet made (its process died in between) stays its claimant's.
    expect(await ws.manager.dispatch({ type: 'owner:claim', payload: { sessionId: 'reserved', user: 'ann' } })).toMatchObject({ ok: true });
    await expect(host.thread('bob', 'reserved', true)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect((await host.thread('ann', 'reserved', true)).id).toBe('reserved');
    expect(await as(handler, 'ann')('GET', '/api/sessions/thread-2')).toMatchObject(notFound());
    // A session made without a user (the terminal, MCP) is nobody's: no user may take it over.
    await ws.sessions.create({ id: 'terminal' });
    await expect(host.thread('ann', 'terminal', true)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    // Nor by claiming its id straight away (a handle that has not seen the session yet would): the claim itself refuses it.
    const claim = await ws.manager.dispatch({ type: 'owner:claim', payload: { sessionId: 'terminal', user: 'ann' } });
    expect(claim).toMatchObject({ ok: false, error: { code: 'SESSION_NOT_FOUND' } });
    expect(sessionOwner(ws.manager.workspace(), 'terminal')).toBeUndefined();
    // Without users (golem serve), every thread is there for the asking.
    expect((await host.thread(null, 'thread-1', false)).id).toBe('thread-1');
    expect((await host.thread(null, 'terminal', false)).id).toBe('terminal');
  });

  it('another user’s approvals are neither listed nor answerable', async () => {
    const { deploy, deploys } = deployAction();
    const ws = await workspace();
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }, { text: 'Deployed.' }]);
    const golem = await handlerOf(ws, { ...byHeader, agent: { model, actions: [deploy] } });
    const ann = as(golem, 'ann');
    const bob = as(golem, 'bob');
    const session = (await ann<SessionSummary>('POST', '/api/sessions', {})).json;
    await ann('POST', `/api/sessions/${session.id}/messages`, { text: 'ship it' });
    const approval = await until(async () => (await ann<ServeState>('GET', '/api/state')).json.approvals[0]);
    const bobs = (await bob<ServeState>('GET', '/api/state')).json;
    expect([bobs.approvals, bobs.running]).toEqual([[], []]);
    expect(await bob('POST', `/api/approvals/${approval.id}`, { answer: 'yes' })).toMatchObject(notFound('APPROVAL_NOT_FOUND'));
    // Not by a part of its id either (which works without users).
    expect(await bob('POST', `/api/approvals/${approval.id.slice(-8)}`, { answer: 'yes' })).toMatchObject(notFound('APPROVAL_NOT_FOUND'));
    expect(deploys).toEqual([]);
    expect(await ann('POST', `/api/approvals/${approval.id}`, { answer: 'yes' })).toMatchObject({ status: 200 });
    await golem.settled(session.id);
    expect(deploys).toEqual(['prod']);
  });

  it('another user’s clearance items are neither listed, nor shown, nor decided', async () => {
    const root = tempDir();
    execFileSync('git', ['init', '-q', root]);
    writeFileSync(join(root, 'notes.md'), 'one\n');
    execFileSync('git', ['-C', root, 'add', '.']);
    execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'start']);
    const model = scriptedModel([{ toolCalls: [{ name: 'write_file', input: { path: 'notes.md', content: 'one\ntwo\n' } }] }, { text: 'Staged.' }]);
    const ws = await workspace(join(root, '.golem'));
    const golem = await handlerOf(ws, { ...byHeader, agent: { model, actions: projectActions(), project: { root } } });
    const ann = as(golem, 'ann');
    const bob = as(golem, 'bob');
    const session = (await ann<SessionSummary>('POST', '/api/sessions', {})).json;
    await ann('POST', `/api/sessions/${session.id}/messages`, { text: 'add a line' });
    await golem.settled(session.id);
    const [item] = (await ann<ServeState>('GET', '/api/state')).json.clearance;
    expect(item).toMatchObject({ status: 'pending', sessionId: session.id });
    expect((await bob<ServeState>('GET', '/api/state')).json.clearance).toEqual([]);
    expect(await bob('GET', `/api/clearance/${item!.id}/diff`)).toMatchObject(notFound('CLEARANCE_NOT_FOUND'));
    expect(await bob('POST', `/api/clearance/${item!.id}`, { action: 'discard' })).toMatchObject(notFound('CLEARANCE_NOT_FOUND'));
    expect((await ann<ServeState>('GET', '/api/state')).json.clearance).toMatchObject([{ id: item!.id, status: 'pending' }]);
    expect((await ann<{ diff: string }>('GET', `/api/clearance/${item!.id}/diff`)).json.diff).toContain('+two');
  });

  it('shows a user the UIs their session’s agent built, not one of no known builder', async () => {
    const ws = await workspace();
    const golem = await handlerOf(ws, byHeader);
    const session = (await as(golem, 'ann')<SessionSummary>('POST', '/api/sessions', {})).json;
    const create = (id: string) => ({
      instanceId: '__CREATE__',
      newInstanceId: id,
      patches: [{ op: 'set' as const, path: 'state', value: { params: {}, runtime: {} } }],
    });
    await ws.ui.patch(create('built-here'), { builtBy: session.id });
    await ws.ui.patch(create('no-builder'));
    expect((await as(golem, 'ann')<SessionDetail>('GET', `/api/sessions/${session.id}`)).json.uiInstances).toEqual(['built-here']);
    // Without users, as golem serve has always shown them.
    const open = await handlerOf(ws, { auth: false });
    expect((await as(open, null)<SessionDetail>('GET', `/api/sessions/${session.id}`)).json.uiInstances.sort()).toEqual(['built-here', 'no-builder']);
  });

  it('ownership is in the workspace: it survives a reopen, and a second handle on the same store keeps to it', async () => {
    const dir = tempDir();
    let ws = await createWorkspace({ dir });
    let golem = await createGolemHandler(ws, byHeader);
    const session = (await as(golem, 'ann')<SessionSummary>('POST', '/api/sessions', { label: 'kept' })).json;
    await golem.close();
    await ws.close();

    ws = await workspace(dir);
    golem = await handlerOf(ws, byHeader);
    expect(await as(golem, 'bob')('GET', `/api/sessions/${session.id}`)).toMatchObject(notFound());
    expect((await as(golem, 'bob')<ServeState>('GET', '/api/state')).json.sessions).toEqual([]);
    expect((await as(golem, 'ann')<ServeState>('GET', '/api/state')).json.sessions.map((s) => s.label)).toEqual(['kept']);

    // Two handles on one store stand for two processes: each one's claim is seen by the other, and a race has one winner.
    const other = await workspace(dir);
    const { handler: second, host: secondHost } = await assembleHandler(other, byHeader);
    cleanups.push(() => second.close());
    const { host } = await assembleHandler(ws, byHeader).then((parts) => (cleanups.push(() => parts.handler.close()), parts));
    await other.manager.refresh();
    expect(await as(second, 'bob')('GET', `/api/sessions/${session.id}`)).toMatchObject(notFound());
    await host.thread('ann', 'raced', true);
    // The second handle has not caught up: its claim is decided again on the store's state, and refused.
    expect(other.sessions.get('raced')).toBeUndefined();
    await expect(secondHost.thread('bob', 'raced', true)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(sessionOwner(other.manager.workspace(), 'raced')).toBe('ann');
  });
});

/** Polls `read` until it returns something truthy (at most 5 s). */
async function until<T>(read: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
