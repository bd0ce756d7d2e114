/**
 * Hostile input against `golem serve`, the project's files and the browser's allowlist.
 * The server: every API route (read from the API itself) wants the token, in the header
 * only; the page holds no token; a foreign Origin and a foreign Host (DNS rebinding) are
 * refused for the API, the page and the socket; it binds loopback unless exposed. The
 * files: `..`, absolute paths and symbolic links out (made before or during a run) are
 * refused for reads, staged edits and pushes, and nothing outside is read or written. The
 * browser: redirects, meta refreshes, scripts, forms, frames and subresources never reach
 * a host off the allowlist (a second server counts every request it gets).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { run } from '../src/cli/main.js';
import { createApi } from '../src/serve/api.js';
import { BrowserAdapter } from '../src/serve/browser-adapter.js';
import { ServeHost } from '../src/serve/host.js';
import { DEFAULT_PAGE_DIR, loadPage } from '../src/serve/page.js';
import {
  createWorkspace,
  projectActions,
  type ApprovalRequest,
  type BrowserSession,
  type LaunchedBrowser,
  type ExecutionResult,
  type Workspace,
} from '../src/index.js';
import { serve, type GolemServer, type ServeOptions } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: ServeOptions = {}): Promise<{ ws: Workspace; server: GolemServer }> {
  const ws = await createWorkspace();
  const server = await serve(ws, options);
  cleanups.push(
    () => ws.close(),
    () => server.close(),
  );
  return { ws, server };
}

/** A raw HTTP request, so that any Host header can be sent (fetch sets its own). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers, ...(options.body !== undefined && { 'content-length': String(Buffer.byteLength(options.body)) }) };
    const req = request(url, { method: options.method ?? 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The status a WebSocket upgrade gets (101 when it opens). */
const upgrade = (url: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.on('open', () => {
      socket.close();
      resolve(101);
    });
    socket.on('error', () => undefined);
  });

const json = (body: string) => JSON.parse(body) as { error?: { code: string; message: string } };

/** Every route of the HTTP API, as the API itself declares them (middleware and the catch-all included). */
async function apiRoutes(): Promise<{ method: string; path: string }[]> {
  const ws = await createWorkspace();
  const host = new ServeHost(ws, new BrowserAdapter(() => undefined), () => undefined);
  const app = await createApi(host, { auth: { check: () => false, refusal: '' }, page: undefined, health: () => ({}) });
  await host.close();
  await ws.close();
  const seen = new Set<string>();
  return app.routes
    .filter((r) => r.path.startsWith('/api'))
    .map((r) => ({ method: r.method, path: r.path }))
    .filter((r) => !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`) !== undefined);
}

describe('golem serve: the token', () => {
  it('every API route answers 401 UNAUTHORIZED without the token, with a wrong one, and with the token anywhere but the header', async () => {
    const routes = await apiRoutes();
    // The enumeration found the API (a change that hid the routes would not pass for a secure server).
    expect(routes.length).toBeGreaterThanOrEqual(12);
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/api/state' },
        { method: 'POST', path: '/api/approvals/:id' },
        { method: 'POST', path: '/api/clearance/:id' },
        { method: 'ALL', path: '/api/*' },
      ]),
    );
    const { ws, server } = await started({ page: false, agent: { model: scriptedModel([]) } });
    const session = await ws.sessions.create({ label: 'target' });
    const wrong = 'f'.repeat(server.token.length);
    const attempts: [string, Record<string, string>, string][] = [
      ['none', {}, ''],
      ['wrong token', { authorization: `Bearer ${wrong}` }, ''],
      ['a prefix of it', { authorization: `Bearer ${server.token.slice(0, 16)}` }, ''],
      ['the token with more after it', { authorization: `Bearer ${server.token}x` }, ''],
      ['basic auth', { authorization: `Basic ${Buffer.from(`golem:${server.token}`).toString('base64')}` }, ''],
      ['a bare token', { authorization: server.token }, ''],
      ['a cookie', { cookie: `token=${server.token}` }, ''],
      ['another header', { 'x-golem-token': server.token }, ''],
      ['the query string', {}, `?token=${server.token}`],
    ];
    let checked = 0;
    for (const route of routes) {
      const path = route.path.replace(/:[a-zA-Z]+/g, session.id).replace('*', 'anything');
      const methods = route.method === 'ALL' ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] : [route.method];
      for (const method of methods) {
        for (const [what, headers, query] of attempts) {
          const res = await raw(`${server.url}${path}${query}`, {
            method,
            headers: { 'content-type': 'application/json', ...headers },
            ...(method !== 'GET' && { body: '{"text":"hi","label":"x","answer":"yes","action":"push","direction":"left"}' }),
          });
          expect([res.status, json(res.body).error?.code], `${method} ${path} with ${what}`).toEqual([401, 'UNAUTHORIZED']);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    // Nothing was created, sent or answered by any of them.
    expect(ws.sessions.list().map((s) => s.label)).toEqual(['target']);
    expect(await session.transcript()).toEqual([]);
    // The control: the same server answers with the token in the header.
    const ok = await raw(`${server.url}/api/state`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(ok.status).toBe(200);
  });

  it('spellings of /api that route elsewhere reach no API data', async () => {
    const { server } = await started({ page: false });
    for (const path of [
      '/API/state',
      '//api/state',
      '/api//state',
      '/./api/state',
      '/x/../api/state',
      '/api%2fstate',
      '/%61pi/state',
      '/api/state/',
      '/api/state;x',
      '/api/state%00',
    ]) {
      const res = await raw(`${server.url}${path}`);
      expect(res.status, path).not.toBe(200);
      expect(res.body, path).not.toContain('"sessions"');
    }
  });

  it('the page and its assets are public but hold no token; the address carries it only in the fragment', async () => {
    const { server } = await started();
    const files = loadPage(DEFAULT_PAGE_DIR);
    expect(files?.has('/')).toBe(true);
    expect(new URL(server.pageUrl).search).toBe('');
    expect(new URL(server.pageUrl).hash).toBe(`#token=${server.token}`);
    for (const path of [...(files?.keys() ?? []), '/health', '/no-such-file']) {
      const res = await raw(`${server.url}${path}`);
      expect(res.status === 200 || path === '/no-such-file', path).toBe(true);
      expect(res.body, path).not.toContain(server.token);
      expect(JSON.stringify(res.headers), path).not.toContain(server.token);
    }
    const page = await raw(`${server.url}/`);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
  });

  it('the page folder serves its own files only: no `..`, no encoded `..`, no symbolic link out', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'the secret\n');
    const dir = join(tempDir(), 'web');
    mkdirSync(join(dir, 'assets'), { recursive: true });
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>page</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
    writeFileSync(join(dir, '..', 'secret.txt'), 'the secret\n');
    symlinkSync(join(outside, 'secret.txt'), join(dir, 'assets', 'leak.txt'));
    symlinkSync(outside, join(dir, 'assets', 'out'));
    const { server } = await started({ page: dir });
    expect((await raw(`${server.url}/assets/app.js`)).status).toBe(200); // the control
    for (const path of [
      '/assets/leak.txt',
      '/assets/out/secret.txt',
      '/../secret.txt',
      '/%2e%2e/secret.txt',
      '/assets/..%2f..%2fsecret.txt',
      '/assets/%2e%2e/%2e%2e/secret.txt',
      '/..%5csecret.txt',
      `/${'../'.repeat(8)}etc/passwd`,
    ]) {
      const res = await raw(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('secret');
      expect(res.body, path).not.toContain('root:');
    }
  });

  it('the socket wants the token, in the query or the header, and nowhere else', async () => {
    const { server } = await started({ page: false });
    const base = server.socketUrl.replace(/\?token=.*$/, '');
    expect(await upgrade(base, { authorization: `Bearer ${'f'.repeat(server.token.length)}` })).toBe(401);
    expect(await upgrade(base, { cookie: `token=${server.token}` })).toBe(401);
    expect(await upgrade(`${base}?token=${server.token.slice(0, -1)}`)).toBe(401);
    expect(await upgrade(`${base}?tok=${server.token}`)).toBe(401);
    expect(await upgrade(`${server.url.replace(/^http/, 'ws')}/other?token=${server.token}`)).toBe(404);
    expect(await upgrade(server.socketUrl)).toBe(101); // the control
    expect(server.clients()).toBeLessThanOrEqual(1);
  });
});

describe('golem serve: Origin and Host', () => {
  it('refuses a page of another origin on the API (ORIGIN_NOT_ALLOWED) and on the socket, even with the token; its own origin passes', async () => {
    const { ws, server } = await started({ page: false });
    const auth = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    const port = new URL(server.url).port;
    for (const origin of [
      'http://evil.example',
      `http://evil.example:${port}`,
      'null',
      `http://127.0.0.1:${Number(port) + 1}`,
      `https://127.0.0.1:${port}`,
      `http://127.0.0.1.evil.example:${port}`,
    ]) {
      const created = await raw(`${server.url}/api/sessions`, { method: 'POST', headers: { ...auth, origin }, body: '{"label":"csrf"}' });
      expect([created.status, json(created.body).error?.code], origin).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
      const read = await raw(`${server.url}/api/state`, { headers: { ...auth, origin } });
      expect(read.status, origin).toBe(403);
      expect(read.body, origin).not.toContain('"sessions"');
      expect(await upgrade(server.socketUrl, { origin }), origin).toBe(403);
    }
    expect(ws.sessions.list()).toEqual([]);
    for (const origin of [server.url, `http://localhost:${port}`]) {
      expect((await raw(`${server.url}/api/sessions`, { method: 'POST', headers: { ...auth, origin }, body: '{"label":"mine"}' })).status, origin).toBe(201);
      expect(await upgrade(server.socketUrl, { origin }), origin).toBe(101);
    }
    expect(ws.sessions.list().map((s) => s.label)).toEqual(['mine', 'mine']);
  });

  it('refuses a Host that names another site (DNS rebinding) for the API, the page, /health and the socket, token or not', async () => {
    const { ws, server } = await started();
    const port = new URL(server.url).port;
    const auth = { authorization: `Bearer ${server.token}` };
    for (const host of [
      `evil.example:${port}`,
      'evil.example',
      `localhost.evil.example:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `evil@127.0.0.1:${port}`,
      `127.0.0.1:${port}/x`,
    ]) {
      for (const path of ['/api/state', '/', '/health']) {
        const res = await raw(`${server.url}${path}`, { headers: { ...auth, host, origin: `http://${host}` } });
        expect([res.status, json(res.body).error?.code], `${host} ${path}`).toEqual([403, 'HOST_NOT_ALLOWED']);
      }
      // The origin matches the host, as it does for a rebound page: still refused.
      expect(await upgrade(server.socketUrl, { host, origin: `http://${host}` }), host).toBe(403);
    }
    const session = await raw(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { ...auth, host: `evil.example:${port}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(session.status).toBe(403);
    expect(ws.sessions.list()).toEqual([]);
    // Loopback names and addresses are this server.
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`, '127.0.0.1']) {
      expect((await raw(`${server.url}/api/state`, { headers: { ...auth, host } })).status, host).toBe(200);
    }
    expect(await upgrade(server.socketUrl, { host: `localhost:${port}` })).toBe(101);
  });

  it('exposed, it answers for the host it was given and the names allowed, and still not for a rebound name', async () => {
    const { server } = await started({ page: false, host: '127.0.0.1', exposed: true, allowedHosts: ['golem.lan'] });
    const port = new URL(server.url).port;
    const auth = { authorization: `Bearer ${server.token}` };
    expect((await raw(`${server.url}/api/state`, { headers: { ...auth, host: `golem.lan:${port}`, origin: `http://golem.lan:${port}` } })).status).toBe(200);
    expect(await upgrade(server.socketUrl, { host: `golem.lan:${port}`, origin: `http://golem.lan:${port}` })).toBe(101);
    // Behind a proxy that adds TLS, the page's origin is https.
    expect((await raw(`${server.url}/api/state`, { headers: { ...auth, host: `golem.lan:${port}`, origin: `https://golem.lan:${port}` } })).status).toBe(200);
    expect(await upgrade(server.socketUrl, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` })).toBe(403);
    const rebound = await raw(`${server.url}/api/state`, { headers: { ...auth, host: `evil.example:${port}`, origin: `http://evil.example:${port}` } });
    expect([rebound.status, json(rebound.body).error?.code]).toEqual([403, 'HOST_NOT_ALLOWED']);
  });
});

describe('golem serve: loopback unless told otherwise', () => {
  it('binds 127.0.0.1 by default, and refuses an address beyond loopback without exposed', async () => {
    const { server } = await started({ page: false });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'example.com', '127.0.0.1.nip.io']) {
      await expect(serve(ws, { host, page: false }), host).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    }
  });

  it('golem serve prints a 127.0.0.1 address by default, and refuses --host 0.0.0.0 without --expose (nothing listens)', async () => {
    const cwd = tempDir();
    let out = '';
    let err = '';
    const refused = await run(['serve', '--host', '0.0.0.0', '--port', '0'], { stdout: (t) => (out += t), stderr: (t) => (err += t), cwd }, {});
    expect(refused).toBe(2);
    expect(err).toContain('--host 0.0.0.0 would serve the workspace beyond this machine; add --expose');
    expect(out).not.toContain('Open');

    const controller = new AbortController();
    out = '';
    let printed!: () => void;
    const opened = new Promise<void>((resolve) => (printed = resolve));
    const running = run(
      ['serve', '--port', '0'],
      { stdout: (t) => ((out += t), out.includes('Open ') && printed()), stderr: () => undefined, cwd, signal: controller.signal },
      {},
    );
    await opened;
    const address = /Open (\S+)/.exec(out)?.[1] ?? '';
    controller.abort();
    expect(await running).toBe(0);
    expect(new URL(address).hostname).toBe('127.0.0.1');
    expect(new URL(address).search).toBe('');
  });

  it('golem serve --allow-host answers for that name and its pages as well, and for no other', async () => {
    const controller = new AbortController();
    let out = '';
    let printed!: () => void;
    const opened = new Promise<void>((resolve) => (printed = resolve));
    const running = run(
      ['serve', '--port', '0', '--allow-host', 'golem.lan:1234'],
      { stdout: (t) => ((out += t), out.includes('Open ') && printed()), stderr: () => undefined, cwd: tempDir(), signal: controller.signal },
      {},
    );
    await opened;
    const address = new URL(/Open (\S+)/.exec(out)?.[1] ?? '');
    const token = new URLSearchParams(address.hash.slice(1)).get('token') ?? '';
    const port = address.port;
    const auth = { authorization: `Bearer ${token}` };
    expect((await raw(`${address.origin}/api/state`, { headers: { ...auth, host: `golem.lan:${port}` } })).status).toBe(200);
    // The page opened by that name calls back from its origin (the port given with the name does not matter).
    expect((await raw(`${address.origin}/api/state`, { headers: { ...auth, host: `golem.lan:${port}`, origin: `http://golem.lan:${port}` } })).status).toBe(
      200,
    );
    expect((await raw(`${address.origin}/api/state`, { headers: { ...auth, host: `other.lan:${port}` } })).status).toBe(403);
    controller.abort();
    expect(await running).toBe(0);
  });
});

describe('the project files: paths confined to the root', () => {
  /** A project with a file and links: one out to a file, one out to a folder, one dangling out, one inside (allowed). */
  function setup() {
    const outside = tempDir();
    writeFileSync(join(outside, 'secret.txt'), 'the secret\n');
    const root = tempDir();
    writeFileSync(join(root, 'in.txt'), 'in\n');
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'file.txt'), 'one\ntwo\n');
    symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'));
    symlinkSync(outside, join(root, 'linkdir'));
    symlinkSync(join(outside, 'not-yet.txt'), join(root, 'dangling.txt'));
    symlinkSync(join(root, 'in.txt'), join(root, 'inside-link.txt'));
    return { root, outside };
  }
  const outsideUnchanged = (outside: string) => {
    expect(readdirSync(outside).sort()).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('the secret\n');
  };
  /** Each tool result's text, by call, from the session. */
  const results = async (ws: Workspace, sessionId: string) =>
    (await ws.sessions.get(sessionId)!.transcript()).flatMap((t) =>
      t.blocks.flatMap((b) =>
        b.type === 'tool_result' ? [[b.callId, b.content.map((c) => (c.type === 'text' ? c.text : '')).join(''), b.isError === true] as const] : [],
      ),
    );

  const ESCAPES = (outside: string) => [
    '../x.txt',
    '../../etc/passwd',
    join(outside, 'secret.txt'),
    '/etc/passwd',
    'link.txt',
    'linkdir/secret.txt',
    'linkdir/new.txt',
    'dangling.txt',
    'sub/../../x.txt',
  ];

  it('refuses every escape for reads, searches, listings and staged (manual) edits run by a worker: nothing outside is read or written, nothing is staged', async () => {
    const { root, outside } = setup();
    const ws = await createWorkspace({ dir: join(root, '.golem') });
    cleanups.push(() => ws.close());
    const session = await ws.sessions.create();
    const escapes = ESCAPES(outside);
    const calls = escapes.flatMap((path, i) => [
      { name: 'read_file', input: { path }, callId: `read-${i}` },
      { name: 'search_files', input: { pattern: 'secret', path }, callId: `search-${i}` },
      { name: 'write_file', input: { path, content: 'pwned\n' }, callId: `write-${i}` },
      { name: 'edit_file', input: { path, old_string: 'secret', new_string: 'pwned' }, callId: `edit-${i}` },
    ]);
    const folders = ['..', '/', outside, 'linkdir'].map((path, i) => ({ name: 'list_files', input: { path }, callId: `list-${i}` }));
    const control = [
      { name: 'read_file', input: { path: 'inside-link.txt' }, callId: 'control-read' },
      { name: 'edit_file', input: { path: 'sub/file.txt', old_string: 'two', new_string: 'TWO' }, callId: 'control-edit' },
    ];
    const model = scriptedModel([{ toolCalls: [...calls, ...folders, ...control] }, { text: 'Done.' }]);
    await ws.worker({ session, model, actions: projectActions(), project: { root } }).run('try everything');

    const byCall = new Map((await results(ws, session.id)).map(([id, text, error]) => [id, { text, error }]));
    for (const call of [...calls, ...folders]) {
      const result = byCall.get(call.callId);
      expect(result?.error, `${call.name} ${JSON.stringify(call.input)}`).toBe(true);
      expect(result?.text, `${call.name} ${JSON.stringify(call.input)}`).toMatch(/outside the project|symbolic link/);
      expect(result?.text).not.toContain('the secret');
      expect(result?.text).not.toContain('root:');
    }
    // The controls: a link that stays inside is followed, an edit inside is staged.
    expect(byCall.get('control-read')).toEqual({ text: expect.stringContaining('in'), error: false });
    expect(byCall.get('control-edit')?.error).toBe(false);
    outsideUnchanged(outside);
    expect(existsSync(join(root, '..', 'x.txt'))).toBe(false);
    // One clearance item, with the one edit inside; its diff names project paths only.
    const items = ws.clearance.list();
    expect(items.map((c) => (c.metadata as { files: string[] }).files)).toEqual([['sub/file.txt']]);
    const diff = await ws.clearance.diff(items[0]?.id ?? '');
    expect(diff.split('\n').filter((l) => l.startsWith('+++') || l.startsWith('---'))).toEqual(['--- a/sub/file.txt', '+++ b/sub/file.txt']);
    expect(readFileSync(join(root, 'sub', 'file.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('a symbolic link made during the run (by an approved command) is refused by the next read and write', async () => {
    const { root, outside } = setup();
    const ws = await createWorkspace({ dir: join(root, '.golem') });
    cleanups.push(() => ws.close());
    const session = await ws.sessions.create();
    const asked: ApprovalRequest[] = [];
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: 'run_command',
            input: { command: `ln -s '${outside}' sneaky && ln -s '${join(outside, 'secret.txt')}' sneaky.txt && echo linked` },
            callId: 'ln',
          },
        ],
      },
      {
        toolCalls: [
          { name: 'read_file', input: { path: 'sneaky.txt' }, callId: 'read-file' },
          { name: 'read_file', input: { path: 'sneaky/secret.txt' }, callId: 'read-dir' },
          { name: 'write_file', input: { path: 'sneaky/new.txt', content: 'x' }, callId: 'write-dir' },
          { name: 'edit_file', input: { path: 'sneaky.txt', old_string: 'the', new_string: 'a' }, callId: 'edit-file' },
          { name: 'search_files', input: { pattern: 'secret' }, callId: 'search' },
        ],
      },
      { text: 'Done.' },
    ]);
    await ws
      .worker({ session, model, actions: projectActions(), project: { root }, requestApproval: async (r) => (asked.push(r), { approved: true }) })
      .run('link it');
    expect(asked.map((r) => r.description)).toEqual([expect.stringContaining('ln -s')]);
    expect(existsSync(join(root, 'sneaky.txt'))).toBe(true); // the command ran: the links are there
    const byCall = new Map((await results(ws, session.id)).map(([id, text, error]) => [id, { text, error }]));
    for (const id of ['read-file', 'read-dir', 'write-dir', 'edit-file']) {
      expect(byCall.get(id)?.error, id).toBe(true);
      expect(byCall.get(id)?.text, id).toMatch(/outside the project/);
      expect(byCall.get(id)?.text, id).not.toContain('the secret');
    }
    // A search of the whole project passes over the links.
    expect(byCall.get('search')?.text).not.toContain('the secret');
    outsideUnchanged(outside);
    expect(ws.clearance.list()).toEqual([]);
  });

  it('a staged edit whose folder or file is swapped for a symbolic link out before the push is refused with PATH_OUTSIDE_PROJECT, writing nothing', async () => {
    for (const swap of ['folder', 'file'] as const) {
      const { root, outside } = setup();
      execFileSync('git', ['init', '-q', root]);
      const ws = await createWorkspace({ dir: join(root, '.golem') });
      cleanups.push(() => ws.close());
      const session = await ws.sessions.create();
      const model = scriptedModel([
        { toolCalls: [{ name: 'edit_file', input: { path: 'sub/file.txt', old_string: 'two', new_string: 'TWO' } }] },
        { text: 'Staged.' },
      ]);
      await ws.worker({ session, model, actions: projectActions(), project: { root } }).run('edit');
      const [item] = ws.clearance.list();
      expect(item?.status).toBe('pending');
      // The swap: the outside gets a file of the same name and content, so a push that followed the link would write it.
      writeFileSync(join(outside, 'file.txt'), 'one\ntwo\n');
      if (swap === 'folder') {
        renameSync(join(root, 'sub'), join(root, 'sub-was'));
        symlinkSync(outside, join(root, 'sub'));
      } else {
        rmSync(join(root, 'sub', 'file.txt'));
        symlinkSync(join(outside, 'file.txt'), join(root, 'sub', 'file.txt'));
      }
      await expect(ws.clearance.push(item?.id ?? ''), swap).rejects.toMatchObject({ code: 'PATH_OUTSIDE_PROJECT' });
      expect(readFileSync(join(outside, 'file.txt'), 'utf8'), swap).toBe('one\ntwo\n');
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('the secret\n');
      expect(
        ws.clearance.list().map((c) => c.status),
        swap,
      ).toEqual(['pending']);
    }
  });

  it('the API takes ids, not paths: a path in the place of a clearance id reads nothing', async () => {
    const { server } = await started({ page: false });
    const auth = { authorization: `Bearer ${server.token}` };
    for (const id of ['..%2f..%2fetc%2fpasswd', '%2e%2e', '..', encodeURIComponent('/etc/passwd')]) {
      const res = await raw(`${server.url}/api/clearance/${id}/diff`, { headers: auth });
      expect(res.status, id).toBeGreaterThanOrEqual(400);
      expect(res.body, id).not.toContain('root:');
    }
  });
});

describe('the browser allowlist across redirects and what a page loads', () => {
  /** The server on the allowlist (127.0.0.1), and one off it (127.0.0.2, another loopback address) that counts every request. */
  let allowed: Server;
  let offList: Server;
  let base = '';
  let off = '';
  const reached: string[] = [];
  let ws: Workspace;
  let browser: LaunchedBrowser;
  const html = (body: string, head = '') => `<!doctype html><html><head><title>page</title>${head}</head><body>${body}</body></html>`;

  beforeAll(async () => {
    offList = createServer((req, res) => {
      reached.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/html' }).end(html('<h1>Off the list</h1>'));
    });
    offList.on('upgrade', (req, socket) => {
      reached.push(`UPGRADE ${req.url}`);
      socket.destroy();
    });
    await new Promise<void>((resolve) => offList.listen(0, '127.0.0.2', resolve));
    off = `http://127.0.0.2:${(offList.address() as AddressInfo).port}`;
    allowed = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const send = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      const redirect = (status: number, location: string) => res.writeHead(status, { location }).end();
      if (path === '/302') return redirect(302, `${off}/302`);
      if (path === '/307') return redirect(307, `${off}/307`);
      if (path === '/chain') return redirect(302, '/chain-2');
      if (path === '/chain-2') return redirect(301, `${base}/chain-3`);
      if (path === '/chain-3') return redirect(303, `${off}/chain-end`);
      if (path === '/meta') return send(html('<p>Moving</p>', `<meta http-equiv="refresh" content="0;url=${off}/meta">`));
      if (path === '/script') return send(html(`<p>Moving</p><script>location.href = '${off}/script'</script>`));
      if (path === '/form') return send(html(`<form method="post" action="${off}/form"><input name="q" value="x"><button>Send</button></form>`));
      if (path === '/frame') return send(html(`<p>Framed</p><iframe src="${off}/frame"></iframe><iframe src="${base}/to-off"></iframe>`));
      if (path === '/to-off') return redirect(302, `${off}/frame-redirect`);
      if (path === '/loads') {
        return send(
          html(
            `<p>Loads</p><img src="${off}/img"><link rel="stylesheet" href="${off}/css"><script src="${off}/js"></script>` +
              `<script>fetch('${off}/fetch', { mode: 'no-cors' }).catch(() => {}); navigator.sendBeacon('${off}/beacon', 'x');` +
              `try { new WebSocket('${off.replace('http', 'ws')}/ws') } catch {}; window.open('${off}/popup')</script>`,
          ),
        );
      }
      send(html('<h1>Home</h1>'));
    });
    await new Promise<void>((resolve) => allowed.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(allowed.address() as AddressInfo).port}`;
    ws = await createWorkspace();
    browser = await ws.browser.launch({ security: { allowedDomains: ['127.0.0.1'] }, timeoutMs: 2_000 });
  });

  afterAll(async () => {
    await browser.close();
    await ws.close();
    await Promise.all([allowed, offList].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  });

  async function withTab(fn: (tab: BrowserSession) => Promise<void>): Promise<void> {
    const tab = await browser.open({ session: await ws.sessions.create() });
    try {
      await fn(tab);
    } finally {
      await tab.close();
    }
  }

  /**
   * Runs `command`, then (once the navigation it set off has failed) GET_DOM: the navigation off the list is reported
   * by exactly one of the two with URL_NOT_ALLOWED, however fast the page moved.
   */
  async function navigationOff(tab: BrowserSession, command: Parameters<BrowserSession['execute']>[0]): Promise<ExecutionResult[]> {
    const failed = tab.page().waitForEvent('requestfailed', { predicate: (r) => r.url().startsWith(off), timeout: 10_000 });
    const first = await tab.execute(command);
    await failed;
    const second = await tab.execute({ action: 'GET_DOM', parameters: {} });
    return [first, second];
  }

  it('the control: the page on the list opens', async () => {
    await withTab(async (tab) => {
      expect(await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base}/` } })).toMatchObject({ success: true, page: { url: `${base}/` } });
      expect((await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${off}/direct` } })).error?.code).toBe('URL_NOT_ALLOWED');
    });
    expect(reached).toEqual([]);
  });

  it('a 302, a 307 and a chain of redirects that ends off the list fail with URL_NOT_ALLOWED and never reach it', async () => {
    await withTab(async (tab) => {
      for (const path of ['/302', '/307', '/chain']) {
        const result = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base}${path}` } });
        expect([result.success, result.error?.code], path).toEqual([false, 'URL_NOT_ALLOWED']);
        expect(result.page.url, path).not.toContain('127.0.0.2');
        expect(result.snapshot, path).toBeUndefined();
      }
    });
    expect(reached).toEqual([]);
  });

  it('a meta refresh, a script setting location, and a form posting off the list are stopped and reported as URL_NOT_ALLOWED', async () => {
    await withTab(async (tab) => {
      for (const path of ['/meta', '/script']) {
        const results = await navigationOff(tab, { action: 'OPEN_PAGE', parameters: { url: `${base}${path}` } });
        expect(
          results.filter((r) => r.error?.code === 'URL_NOT_ALLOWED'),
          path,
        ).toHaveLength(1);
        expect(
          results.every((r) => !r.page.url.includes('127.0.0.2')),
          path,
        ).toBe(true);
        expect(tab.page().url(), path).not.toContain('127.0.0.2');
      }
      expect((await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base}/form` } })).success).toBe(true);
      const results = await navigationOff(tab, { action: 'CLICK_ELEMENT', parameters: { selector: 'button' } });
      expect(results.filter((r) => r.error?.code === 'URL_NOT_ALLOWED')).toHaveLength(1);
    });
    expect(reached).toEqual([]);
  });

  it('frames, images, styles, scripts, fetch, beacons, WebSockets and popups of the page never reach a host off the list', async () => {
    await withTab(async (tab) => {
      const failed: string[] = [];
      tab
        .page()
        .context()
        .on('requestfailed', (r) => void (r.url().startsWith(off) && failed.push(r.url())));
      const frames = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base}/frame` } });
      expect(frames.success).toBe(true);
      const loads = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base}/loads` } });
      expect(loads.success).toBe(true);
      await tab.page().waitForLoadState('load');
      // Something off the list was asked for and stopped (so the absence of requests below is not for want of trying).
      expect(failed.length).toBeGreaterThan(0);
    });
    expect(reached).toEqual([]);
  });
});
