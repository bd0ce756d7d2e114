/**
 * `golem serve` as several processes on one PostgreSQL database, behind one address (a
 * round-robin TCP proxy on loopback): clients land on different processes and all see
 * the same UI state, whichever process a change went through.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createWorkspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { serve } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { deployAction } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** `golem serve` in a child process on the schema; resolves with its port once it prints its address. */
async function golemServe(schema: string, token: string): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'bin', 'golem.js'), 'serve', '--port', '0'], {
    env: { ...process.env, GOLEM_DATABASE_URL: PG_URL, GOLEM_DATABASE_SCHEMA: schema, GOLEM_TOKEN: token },
    cwd: join(import.meta.dirname, '..'),
  });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  let out = '';
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      const port = /Open http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1];
      if (port !== undefined) resolve({ port: Number(port), child });
    });
    child.stderr?.on('data', (data: Buffer) => (out += data.toString()));
    child.once('exit', (code) => reject(new Error(`golem serve exited with ${code}: ${out}`)));
  });
}

/** One address in front of several ports: each new connection goes to the next. */
async function roundRobin(ports: number[]): Promise<{ port: number; close(): Promise<void> }> {
  let next = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(ports[next++ % ports.length] as number, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

interface Client {
  socket: WebSocket;
  state(): { instances: Record<string, { state: { params: Record<string, unknown> } }> };
  until(check: () => boolean): Promise<void>;
}

async function client(url: string): Promise<Client> {
  const socket = new WebSocket(url);
  let state: ReturnType<Client['state']> = { instances: {} };
  const waiters = new Set<() => void>();
  socket.on('message', (data: Buffer) => {
    const event = JSON.parse(data.toString()) as { type: string; snapshot?: typeof state; delta?: Operation[] };
    if (event.type === 'STATE_SNAPSHOT' && event.snapshot !== undefined) state = event.snapshot;
    if (event.type === 'STATE_DELTA') state = jsonpatch.applyPatch(state, event.delta ?? [], true, false).newDocument;
    for (const wake of waiters) wake();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  cleanups.push(() => socket.terminate());
  return {
    socket,
    state: () => state,
    until: (check) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out; state ${JSON.stringify(state)}`)), 10_000);
        const wake = () => {
          if (!check()) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
        wake();
      }),
  };
}

describe('golem serve as several processes on PostgreSQL', () => {
  it('keeps clients on different processes in step, behind one address', async () => {
    const schema = freshSchema();
    const token = randomBytes(32).toString('hex');
    const servers = await Promise.all([golemServe(schema, token), golemServe(schema, token), golemServe(schema, token)]);
    const front = await roundRobin(servers.map((s) => s.port));
    cleanups.push(() => front.close());
    // Six clients through the one address: two on each process.
    const clients = await Promise.all(Array.from({ length: 6 }, () => client(`ws://127.0.0.1:${front.port}/ws?token=${token}`)));
    // A fourth process (this one) builds a form in the workspace.
    const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
    cleanups.push(() => ws.close());
    const form = {
      id: 'who',
      type: 'form',
      bind: 'state.params',
      props: {
        fields: [
          { label: 'Name', key: 'name', type: 'text' },
          { label: 'Age', key: 'age', type: 'number' },
        ],
      },
    };
    expect(
      (
        await ws.ui.patch({
          instanceId: '__CREATE__',
          newInstanceId: 'signup',
          patches: [
            { op: 'set', path: 'blocks', value: [form] },
            { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Go', style: 'primary' }] },
          ],
        })
      ).success,
    ).toBe(true);
    for (const c of clients) await c.until(() => c.state().instances.signup !== undefined);
    // Each client in turn submits through whichever process it is on; every client sees every submission.
    for (const [i, c] of clients.entries()) {
      c.socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: 'signup', actionId: 'go', values: { name: `client ${i}`, age: i } }));
      for (const other of clients) await other.until(() => other.state().instances.signup?.state.params.name === `client ${i}`);
    }
    await ws.manager.refresh();
    const final = ws.ui.get('signup')?.instance;
    expect(final?.state.params).toEqual({ name: 'client 5', age: 5 });
    for (const c of clients) expect(c.state().instances.signup).toEqual(final);
    // One log, in order, with each submission once.
    const log = await ws.manager.store.commandLog();
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
    expect(log.filter((e) => e.type === 'ui:patch' || e.type === 'ui:click')).toHaveLength(1 + clients.length);
  });

  it('an approval answered through another process reaches the run waiting in the first, which performs the call once', async () => {
    const schema = freshSchema();
    const { deploy, deploys } = deployAction();
    const open = async (model: ReturnType<typeof scriptedModel>) => {
      const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
      const server = await serve(ws, { page: false, agent: { model, actions: [deploy] } });
      cleanups.push(
        () => ws.close(),
        () => server.close(),
      );
      return { ws, server };
    };
    const a = await open(scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }, { text: 'Deployed.' }]));
    const b = await open(scriptedModel([{ text: 'b must not answer' }]));
    const call = (server: typeof a.server, method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    const session = await a.ws.sessions.create();
    expect((await call(a.server, 'POST', `/api/sessions/${session.id}/messages`, { text: 'ship it' })).status).toBe(202);
    // Process b sees the approval (it follows a), and the user answers it there.
    let approvalId: string | undefined;
    for (let i = 0; i < 250 && approvalId === undefined; i++) {
      approvalId = ((await (await call(b.server, 'GET', '/api/state')).json()) as { approvals: { id: string }[] }).approvals[0]?.id;
      if (approvalId === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(approvalId).toBeDefined();
    expect((await call(b.server, 'POST', `/api/approvals/${approvalId}`, { answer: 'yes' })).status).toBe(200);
    // a's run takes the answer from the workspace and goes on; b starts no run of its own.
    await a.server.settled(session.id);
    for (let i = 0; i < 250 && deploys.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    await a.server.settled(session.id);
    expect(deploys).toEqual(['prod']);
    // b hears of the run's end through PostgreSQL's notifications: soon, not at once (it failed once under load).
    await expect.poll(async () => ((await (await call(b.server, 'GET', '/api/state')).json()) as { running: string[] }).running, { timeout: 5000 }).toEqual([]);
    await a.ws.manager.refresh();
    const texts = (await a.ws.sessions.get(session.id)?.transcript())?.map((t) => t.blocks.map((x) => (x.type === 'text' ? x.text : x.type)).join(' '));
    expect(texts?.at(-1)).toBe('Deployed.');
    expect(texts?.some((t) => t.includes('b must not answer'))).toBe(false);
  });
});
