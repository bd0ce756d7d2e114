/**
 * The live UI stream over a real WebSocket on loopback: the token and the Origin check, a
 * snapshot on connect, a delta per accepted call that brings a client's copy to the
 * server's state, clients in step, and a snapshot for one that asks after a gap.
 */
import { Agent, get } from 'node:http';
import { connect } from 'node:net';
import jsonpatch from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Operation } from 'fast-json-patch';
import { createWorkspace, type PatchInput, type Workspace } from '../src/index.js';
import { RunEventTranslator, serve, type GolemServer, type WorkerState } from '../src/serve/index.js';
import { EventSchemas } from '@ag-ui/core/schemas';
import { scriptedModel } from '../src/test/index.js';
import { tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(): Promise<{ ws: Workspace; server: GolemServer }> {
  const ws = await createWorkspace();
  const server = await serve(ws);
  cleanups.push(
    () => ws.close(),
    () => server.close(),
  );
  return { ws, server };
}

interface Event {
  type: string;
  snapshot?: { instances: Record<string, unknown> };
  delta?: Operation[];
  metadata?: { version: number };
  code?: string;
}

/** A client that keeps the state as the events say, and every event it got. */
async function client(url: string, headers: Record<string, string> = {}) {
  const socket = new WebSocket(url, { headers });
  const events: Event[] = [];
  let state: { instances: Record<string, unknown> } = { instances: {} };
  const waiters: (() => void)[] = [];
  socket.on('message', (data) => {
    const event = JSON.parse(
      (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(new Uint8Array(data))).toString('utf8'),
    ) as Event;
    events.push(event);
    if (event.type === 'STATE_SNAPSHOT' && event.snapshot !== undefined) state = structuredClone(event.snapshot);
    if (event.type === 'STATE_DELTA') state = jsonpatch.applyPatch(state, event.delta ?? [], true, false).newDocument;
    for (const wake of waiters.splice(0)) wake();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  cleanups.push(async () => void socket.close());
  const until = async (check: () => boolean) => {
    while (!check())
      await new Promise<void>((resolve, reject) => {
        waiters.push(resolve);
        setTimeout(() => reject(new Error(`timed out; events: ${JSON.stringify(events).slice(0, 300)}`)), 2_000);
      });
  };
  return { socket, events, state: () => state, until };
}

const refused = (url: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve) => {
    const socket = new WebSocket(url, { headers });
    socket.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    socket.on('open', () => resolve(101));
    socket.on('error', () => undefined);
  });

const create = (id: string): PatchInput => ({ instanceId: '__CREATE__', newInstanceId: id, patches: [] });
const form = (id: string) => ({ id, type: 'form', bind: 'state.params', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } });

describe('the live UI stream', () => {
  it('needs the token, and refuses a page of another origin', async () => {
    const { server } = await started();
    const base = server.socketUrl.replace(/\?token=.*$/, '');
    expect(await refused(base)).toBe(401);
    expect(await refused(`${base}?token=${'0'.repeat(64)}`)).toBe(401);
    expect(await refused(server.socketUrl, { origin: 'http://evil.example' })).toBe(403);
    expect(await refused(server.socketUrl, { origin: server.url })).toBe(101);
    expect(await refused(base, { authorization: `Bearer ${server.token}` })).toBe(101);
    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ ok: true });
  });

  it('sends a snapshot on connect, then deltas that bring every client to the server state', async () => {
    const { ws, server } = await started();
    await ws.ui.patch(create('before'));
    const a = await client(server.socketUrl);
    await a.until(() => a.events.length === 1);
    expect(a.events[0]).toMatchObject({
      type: 'STATE_SNAPSHOT',
      metadata: { version: 1 },
      snapshot: { instances: { before: { meta: { pageKey: 'before' } } } },
    });
    const b = await client(server.socketUrl);
    await b.until(() => b.events.length === 1);
    await ws.ui.patch(create('form'));
    await ws.ui.patch({
      instanceId: 'form',
      patches: [
        { op: 'add', path: 'blocks+', items: [form('x'), form('y')] },
        { op: 'set', path: 'state.params.name', value: 'Ada' },
      ],
    });
    await ws.ui.patch({ instanceId: 'form', patches: [{ op: 'remove', path: 'blocks-"x"' }] });
    await ws.ui.patch({ instanceId: '__DELETE__', targetInstanceId: 'before', patches: [] });
    // A refused call sends nothing.
    expect((await ws.ui.patch({ instanceId: 'form', patches: [{ op: 'remove', path: 'blocks-"nope"' }] })).success).toBe(false);
    const expected = { instances: Object.fromEntries(ws.ui.list().map((r) => [r.id, r.instance])) };
    for (const c of [a, b]) {
      await c.until(() => c.events.length === 5);
      expect(c.events.slice(1).map((e) => [e.type, e.metadata?.version])).toEqual([
        ['STATE_DELTA', 2],
        ['STATE_DELTA', 3],
        ['STATE_DELTA', 4],
        ['STATE_DELTA', 5],
      ]);
      expect(c.state()).toEqual(expected);
    }
    expect(server.clients()).toBe(2);
  });

  it('answers a snapshot request (a client that saw a gap), and an unknown message with an error', async () => {
    const { ws, server } = await started();
    const c = await client(server.socketUrl);
    await ws.ui.patch(create('one'));
    await c.until(() => c.events.length === 2);
    c.socket.send(JSON.stringify({ type: 'SNAPSHOT_REQUEST' }));
    await c.until(() => c.events.length === 3);
    expect(c.events[2]).toMatchObject({ type: 'STATE_SNAPSHOT', metadata: { version: 1 }, snapshot: { instances: { one: {} } } });
    c.socket.send('not json');
    c.socket.send(JSON.stringify({ type: 'DROP_TABLES' }));
    await c.until(() => c.events.length === 5);
    expect(c.events.slice(3).map((e) => [e.type, e.code])).toEqual([
      ['RUN_ERROR', 'INVALID_MESSAGE'],
      ['RUN_ERROR', 'UNKNOWN_MESSAGE'],
    ]);
  });

  it('sends a snapshot when another process changed the workspace (no delta says what it did)', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir });
    const server = await serve(ws);
    cleanups.push(
      () => ws.close(),
      () => server.close(),
    );
    const other = await createWorkspace({ dir });
    cleanups.push(() => other.close());
    const c = await client(server.socketUrl);
    await c.until(() => c.events.length === 1);
    await other.ui.patch(create('elsewhere'));
    expect(await ws.manager.refresh()).toBe(true);
    await c.until(() => c.events.length === 2);
    expect(c.events[1]).toMatchObject({ type: 'STATE_SNAPSHOT', metadata: { version: 1 } });
    expect(Object.keys(c.state().instances)).toEqual(['elsewhere']);
  });

  it('stays on loopback unless told otherwise, and closes with idle connections open', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    await expect(serve(ws, { host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('exposed: true') as unknown,
    });
    const server = await serve(ws);
    // A keep-alive connection left idle, and a request never finished.
    const agent = new Agent({ keepAlive: true });
    await new Promise<void>((resolve) => get(`${server.url}/health`, { agent }, (res) => res.resume().on('end', () => resolve())));
    const half = connect((server.url.match(/:(\d+)$/) as RegExpMatchArray)[1] as unknown as number, '127.0.0.1');
    half.write('GET /health HTTP/1.1\r\n');
    half.on('error', () => undefined);
    const started = performance.now();
    await server.close();
    expect(performance.now() - started).toBeLessThan(2_000);
    agent.destroy();
  });

  it("streams a worker's run as AG-UI events that @ag-ui/core's own schemas accept", async () => {
    const { ws, server } = await started();
    const session = await ws.sessions.create();
    const c = await client(server.socketUrl);
    await c.until(() => c.events.length === 1);
    const model = scriptedModel([
      { text: 'Building the form. ', toolCalls: [{ name: 'patch_ui_state', input: create('signup') as never }] },
      { text: 'It is ready.' },
    ]);
    const outcome = await ws.worker({ session, model, actions: [ws.ui.action()], onEvent: server.workerEvents(session.id, 'run-1') }).run('build a form');
    expect(outcome.status).toBe('done');
    await c.until(() => c.events.some((e) => e.type === 'RUN_FINISHED'));
    // The workspace's changes go out as CUSTOM golem.changed events (for pages to read again), the run as run events.
    await c.until(() => c.events.some((e) => e.type === 'CUSTOM' && JSON.stringify(e).includes(session.id)));
    const run = c.events.filter((e) => !e.type.startsWith('STATE_') && e.type !== 'CUSTOM');
    // Runs of streamed text pieces shown as one.
    const types = run.map((e) => e.type).filter((t, i, all) => t !== 'TEXT_MESSAGE_CONTENT' || all[i - 1] !== 'TEXT_MESSAGE_CONTENT');
    expect(types).toEqual([
      'RUN_STARTED',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    for (const event of run) {
      const parsed = EventSchemas.safeParse(event);
      expect(parsed.success, `${event.type}: ${parsed.success ? '' : parsed.error.message}`).toBe(true);
    }
    const texts = (type: string) =>
      run
        .filter((e) => e.type === type)
        .map((e) => (e as unknown as { delta: string }).delta)
        .join('');
    expect(texts('TEXT_MESSAGE_CONTENT')).toBe('Building the form. It is ready.');
    expect(run.find((e) => e.type === 'RUN_STARTED')).toMatchObject({ threadId: session.id, runId: 'run-1' });
    // A call's id begins with its run's: a page tells apart the runs it shows side by side.
    expect(run.find((e) => e.type === 'TOOL_CALL_START')).toMatchObject({ toolCallName: 'patch_ui_state', toolCallId: expect.stringMatching(/^run-1:/) });
    // The patch the run made reached the client as state too.
    expect(Object.keys(c.state().instances)).toEqual(['signup']);
  });

  it('shows a sub-worker as a step, and a failed run as RUN_ERROR', () => {
    const t = new RunEventTranslator('thread', 'run');
    const root = { id: 'root', depth: 0, task: 'all' };
    const sub = { id: 'sub', depth: 1, task: 'part' };
    const events = [
      ...t.translate({ type: 'worker-start', worker: root, parent: null }),
      ...t.translate({ type: 'worker-start', worker: sub, parent: root }),
      ...t.translate({ type: 'text-delta', worker: sub, text: 'working' }),
      ...t.translate({ type: 'worker-end', worker: sub, status: 'done', text: 'ok' }),
      ...t.translate({ type: 'worker-end', worker: root, status: 'failed', text: 'the model gave up' }),
    ];
    expect(events.map((e) => (String(e.type) === 'CUSTOM' ? `CUSTOM ${String(e.name)}` : e.type))).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'CUSTOM golem.worker',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'CUSTOM golem.worker',
      'TEXT_MESSAGE_END',
      'STEP_FINISHED',
      'CUSTOM golem.worker',
      'RUN_ERROR',
    ]);
    // The sub-worker's state, as a page shows it: running, then writing, then done with its end time.
    const states = events.filter((e) => String(e.type) === 'CUSTOM').map((e) => e.value as WorkerState);
    expect(states.map((w) => [w.id, w.parentId, w.status, w.activity, w.endedAt === null])).toEqual([
      ['sub', 'root', 'running', 'starting', true],
      ['sub', 'root', 'running', 'writing', true],
      ['sub', 'root', 'done', 'done', false],
    ]);
    expect(events.at(-1)).toMatchObject({ message: 'the model gave up', code: 'RUN_FAILED' });
    for (const event of events) expect(EventSchemas.safeParse(event).success).toBe(true);
  });

  it('turns a click away while the agent that built the form is busy, and survives a click on a form whose session is gone', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const form = { id: 'who', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } };
    const model = scriptedModel([
      {
        toolCalls: [
          {
            name: 'patch_ui_state',
            input: {
              ...create('signup'),
              patches: [
                { op: 'set', path: 'blocks', value: [form] },
                { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Go', style: 'primary' }] },
              ],
            } as never,
          },
        ],
      },
      async () => {
        await held;
        return { text: 'Built.' };
      },
      { text: 'Got it.' },
    ]);
    const server = await serve(ws, { page: false, agent: { model } });
    cleanups.push(() => server.close());
    const session = await ws.sessions.create();
    const page = await client(server.socketUrl);
    await page.until(() => page.events.length > 0);
    const sent = await fetch(`${server.url}/api/sessions/${session.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'a form' }),
    });
    expect(sent.status).toBe(202);
    await page.until(() => ws.ui.get('signup') !== undefined);
    // The agent is still answering: the click is refused before anything is applied.
    page.socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: 'signup', actionId: 'go', values: { name: 'Ada' } }));
    await page.until(() => page.events.some((e) => e.type === 'RUN_ERROR' && e.code === 'SESSION_BUSY'));
    expect(ws.ui.get('signup')?.instance.state.params).toEqual({});
    release();
    await server.settled(session.id);
    // Idle now: the click is applied and answered.
    page.socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: 'signup', actionId: 'go', values: { name: 'Ada' } }));
    await page.until(() => model.calls.length === 3);
    await server.settled(session.id);
    expect(ws.ui.get('signup')?.instance.state.params).toEqual({ name: 'Ada' });
    expect(JSON.stringify(model.calls[2]?.messages.at(-1))).toContain('Ada');
    // The session that built it is deleted (a fork keeps its turns): a click is applied, nobody is told, the server stays up.
    await ws.sessions.fork(session.id);
    await ws.sessions.delete(session.id);
    page.socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: 'signup', actionId: 'go', values: { name: 'Grace' } }));
    await page.until(() => ws.ui.get('signup')?.instance.state.params.name === 'Grace');
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(model.calls).toHaveLength(3);
  });

  it('after a restart, takes a click to the session whose agent built the instance, though its turns are not loaded', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir });
    const session = await ws.sessions.create({ label: 'builder' });
    const other = await ws.sessions.create({ label: 'bystander' });
    const patches = [
      {
        op: 'set',
        path: 'blocks',
        value: [{ id: 'who', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } }],
      },
      { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Go', style: 'primary' }] },
    ];
    const build = scriptedModel([{ toolCalls: [{ name: 'patch_ui_state', input: { ...create('signup'), patches } as never }] }, { text: 'Built.' }]);
    await ws.worker({ session, model: build, actions: [ws.ui.action()] }).run('a form');
    expect(ws.ui.get('signup')?.builtBy).toBe(session.id);
    // A patch without a builder (a page's values, a call through ws.ui.patch) keeps the one on record.
    await ws.ui.patch({ instanceId: 'signup', patches: [{ op: 'set', path: 'state.params.name', value: 'x' }] });
    expect(ws.ui.get('signup')?.builtBy).toBe(session.id);
    await other.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'unrelated' }] });
    await ws.close();

    const again = await createWorkspace({ dir });
    const model = scriptedModel([{ text: 'Got it, Ada.' }]);
    const server = await serve(again, { page: false, agent: { model } });
    cleanups.push(
      () => again.close(),
      () => server.close(),
    );
    expect(again.manager.cacheStats().sessions).toBe(0);
    const page = await client(server.socketUrl);
    await page.until(() => page.events.length > 0);
    page.socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: 'signup', actionId: 'go', values: { name: 'Ada' } }));
    await page.until(() => model.calls.length === 1);
    await server.settled(session.id);
    const turns = (await again.sessions.open(session.id))?.record().length;
    expect(turns).toBe(6); // the form's run (4 turns), then the click and its answer
    const transcript = (await again.sessions.get(session.id)?.transcript()) ?? [];
    expect(JSON.stringify(transcript.at(-2)?.blocks)).toContain('[UI action] The user clicked \\"Go\\"');
    expect(transcript.at(-1)?.blocks).toEqual([{ type: 'text', text: 'Got it, Ada.' }]);
    expect((await again.sessions.open(other.id))?.record().length).toBe(1);
  });

  it("delivers a user's action click: the form's values applied as a patch, then the click to the agent", async () => {
    const { ws, server } = await started();
    const session = await ws.sessions.create();
    const signupForm = {
      id: 'who',
      type: 'form',
      bind: 'state.params',
      props: {
        fields: [
          { label: 'Email', key: 'email', type: 'text' },
          { label: 'Age', key: 'age', type: 'number' },
          {
            label: 'Plan',
            key: 'plan',
            type: 'select',
            options: [
              { label: 'Free', value: 'free' },
              { label: 'Pro', value: 'pro' },
            ],
          },
          { label: 'News', key: 'news', type: 'checkbox' },
        ],
      },
    };
    // The agent builds the form.
    const build = scriptedModel([
      {
        toolCalls: [
          {
            name: 'patch_ui_state',
            input: {
              ...create('signup'),
              patches: [
                { op: 'set', path: 'blocks', value: [signupForm] },
                { op: 'set', path: 'actions', value: [{ id: 'submit', label: 'Sign up', style: 'primary' }] },
              ],
            } as never,
          },
        ],
      },
      { text: 'Fill it in.' },
    ]);
    await ws.worker({ session, model: build, actions: [ws.ui.action()] }).run('build a signup form');
    const page = await client(server.socketUrl);
    const other = await client(server.socketUrl);
    await page.until(() => page.events.length === 1);
    const clicks: unknown[] = [];
    server.onUiAction((e) => clicks.push(e));
    // A refused submission: a value the field does not take. The page gets the error and the state as it is.
    page.socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: 'signup', actionId: 'submit', values: { email: 'ada@example.com', plan: 'gold' } }));
    await page.until(() => page.events.length === 3);
    expect(page.events.slice(1).map((e) => e.type)).toEqual(['RUN_ERROR', 'STATE_SNAPSHOT']);
    expect(page.events[1]).toMatchObject({ code: 'INVALID_STRUCTURE' });
    expect(clicks).toEqual([]);
    // The submission: values applied (both pages see them), then the click reaches the agent.
    page.socket.send(
      JSON.stringify({ type: 'UI_ACTION', instanceId: 'signup', actionId: 'submit', values: { email: 'ada@example.com', age: 36, plan: 'pro', news: true } }),
    );
    await page.until(() => clicks.length === 1);
    expect(clicks[0]).toEqual({
      instanceId: 'signup',
      actionId: 'submit',
      actionLabel: 'Sign up',
      values: { email: 'ada@example.com', age: 36, plan: 'pro', news: true },
      version: 2,
    });
    await other.until(() => other.events.some((e) => e.type === 'STATE_DELTA'));
    expect((other.state().instances.signup as { state: { params: unknown } }).state.params).toEqual({
      email: 'ada@example.com',
      age: 36,
      plan: 'pro',
      news: true,
    });
    // The agent acts on it in the same session.
    const react = scriptedModel([{ text: 'Welcome, ada@example.com.' }]);
    const outcome = await ws
      .worker({ session, model: react })
      .run(`The user clicked "Sign up" with ${JSON.stringify((clicks[0] as { values: unknown }).values)}`);
    expect(outcome.status).toBe('done');
    expect(JSON.stringify(react.calls[0]?.messages.at(-1))).toContain('ada@example.com');
  });
});
