/**
 * The limits that keep one bad request from hurting the rest (issue 9): the largest blob,
 * the largest WebSocket message, the most patches a call, a worker's step limit, and the
 * time limits on model calls and browser commands. Each fails with a clear, typed error,
 * and nothing is left half-written.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createWorkspace, GolemError, resolveModel, type Workspace } from '../src/index.js';
import { serve } from '../src/serve/index.js';
import { parseJsonText, readJsonBody } from '../src/serve/json-body.js';
import { scriptedModel } from '../src/test/index.js';
import { startFakeProvider, type FakeProvider } from './servers/fake-provider.js';
import { tempDir } from './helpers.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(options: Parameters<typeof createWorkspace>[0] = {}): Promise<Workspace> {
  const ws = await createWorkspace(options);
  cleanups.push(() => ws.close());
  return ws;
}

const codeOf = (error: unknown) => (GolemError.isInstance(error) ? error.code : String(error));

describe('the largest blob', () => {
  it('refuses bytes over maxBlobBytes before storing anything, and takes bytes at the limit', async () => {
    const ws = await workspace({ dir: tempDir(), maxBlobBytes: 1024 });
    const refused = await ws.blobs.register(new Uint8Array(1025), { mediaType: 'application/octet-stream' }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'BLOB_TOO_LARGE', details: { size: 1025, maxBytes: 1024 } });
    expect((refused as GolemError).message).toContain('at most 1024');
    expect(ws.blobs.list()).toEqual([]);
    expect(await ws.manager.blobStorage.list()).toEqual([]);
    const taken = await ws.blobs.register(new Uint8Array(1024).fill(7), { mediaType: 'application/octet-stream' });
    expect(ws.blobs.get(taken.sha256)).toMatchObject({ size: 1024 });
  });

  it('defaults to 256 MiB and refuses a limit that is not a positive whole number', async () => {
    const ws = await workspace();
    expect(ws.blobs.maxBytes).toBe(256 * 1024 * 1024);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      await expect(createWorkspace({ maxBlobBytes: bad })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('maxBlobBytes') as unknown,
      });
    }
  });
});

describe('the most patches a call', () => {
  it('refuses a patch_ui_state call of over 200 patches as a whole, leaving the instance as it was', async () => {
    const ws = await workspace();
    const created = await ws.ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: 'form',
      patches: [{ op: 'set', path: 'state', value: { params: {}, runtime: {} } }],
    });
    expect(created).toMatchObject({ success: true, version: 1 });
    const many = Array.from({ length: 201 }, (_, i) => ({ op: 'set' as const, path: `state.params.f${i}`, value: i }));
    const refused = await ws.ui.patch({ instanceId: 'form', patches: many });
    expect(refused).toMatchObject({ success: false });
    expect(JSON.stringify(refused)).toContain('at most 200 patches a call');
    expect(ws.ui.get('form')).toMatchObject({ version: 1, instance: { state: { params: {} } } });
    expect(await ws.ui.patch({ instanceId: 'form', patches: many.slice(0, 200) })).toMatchObject({ success: true, version: 2 });
  });
});

describe('the largest WebSocket message', () => {
  it('closes a socket that sends over 64 KiB with 1009, and goes on serving the others', async () => {
    const ws = await workspace();
    const server = await serve(ws, { page: false });
    cleanups.push(() => server.close());
    const connect = () =>
      new Promise<{ socket: WebSocket; first: unknown }>((resolve, reject) => {
        const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${server.token}` } });
        socket.once('message', (data: Buffer) => resolve({ socket, first: JSON.parse(data.toString('utf8')) as unknown }));
        socket.once('error', reject);
      });
    const big = await connect();
    const other = await connect();
    expect(big.first).toMatchObject({ type: 'STATE_SNAPSHOT' });
    const closed = new Promise<number>((resolve) => big.socket.once('close', (code: number) => resolve(code)));
    big.socket.send('x'.repeat(64 * 1024 + 1));
    expect(await closed).toBe(1009);
    // The other client still gets what happens next.
    const next = new Promise<unknown>((resolve) => other.socket.once('message', (data: Buffer) => resolve(JSON.parse(data.toString('utf8')))));
    await ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: 'after', patches: [{ op: 'set', path: 'state', value: { params: {}, runtime: {} } }] });
    expect(await next).toMatchObject({ type: 'STATE_DELTA' });
    other.socket.close();
  });
});

describe("a worker's step limit", () => {
  it('ends a run that keeps calling actions after maxSteps model calls, with the calls it made answered', async () => {
    const ws = await workspace();
    const session = await ws.sessions.create();
    const loop = scriptedModel(() => ({ toolCalls: [{ name: 'patch_ui_state', input: { instanceId: 'nothing', patches: [] } }] }));
    const outcome = await ws.worker({ session, model: loop, maxSteps: 4 }).run('go');
    expect(outcome).toMatchObject({ status: 'step_limit', steps: 4 });
    expect(loop.calls).toHaveLength(4);
    // Every call of the four answers has its result: the history is whole, and a later run starts clean.
    const transcript = await session.transcript();
    const calls = transcript.flatMap((t) => t.blocks.filter((b) => b.type === 'tool_use'));
    const results = transcript.flatMap((t) => t.blocks.filter((b) => b.type === 'tool_result'));
    expect(calls).toHaveLength(4);
    expect(results).toHaveLength(4);
  });
});

describe('time limits on model calls', () => {
  let provider: FakeProvider | undefined;
  afterEach(async () => {
    await provider?.close();
    provider = undefined;
  });

  it('cancels a model that stops sending mid-answer, records what came as incomplete, and says which limit', async () => {
    provider = await startFakeProvider('openai', [{ text: 'one two three four five six', hangAfterEvents: 2 }]);
    const model = resolveModel('openai:gpt-4.1-mini', { env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: provider.url } });
    const ws = await workspace();
    const session = await ws.sessions.create();
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'count' }] });
    const error = await session.respond({ model, idleTimeoutMs: 300 }).catch((e: unknown) => e);
    expect(codeOf(error)).toBe('MODEL_TIMEOUT');
    expect((error as GolemError).message).toContain('sent nothing for 300 ms');
    const [, answer] = await session.transcript();
    expect(answer).toMatchObject({ role: 'assistant', meta: { status: 'incomplete', error: { code: 'MODEL_TIMEOUT' } } });
    expect(JSON.stringify(answer?.blocks)).toContain('one');
  });

  it('cancels a model that never answers, with nothing recorded; the whole-call limit holds even while parts keep coming', async () => {
    const silent = scriptedModel(() => new Promise<never>(() => undefined));
    const ws = await workspace();
    const session = await ws.sessions.create();
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'hello?' }] });
    await expect(session.respond({ model: silent, idleTimeoutMs: 200 })).rejects.toMatchObject({ code: 'MODEL_TIMEOUT', details: { idleTimeoutMs: 200 } });
    expect(await session.transcript()).toHaveLength(1);

    // A stream that trickles a part every 50 ms never goes idle for 200 ms, but the whole call is over 300 ms.
    provider = await startFakeProvider('openai', [{ text: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), delayBetweenEventsMs: 50 }]);
    const trickle = resolveModel('openai:gpt-4.1-mini', { env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: provider.url } });
    await expect(session.respond({ model: trickle, idleTimeoutMs: 200, timeoutMs: 300 })).rejects.toMatchObject({
      code: 'MODEL_TIMEOUT',
      details: { timeoutMs: 300 },
    });
  });

  it('ends a worker run with the timeout as its error, and refuses a limit out of range', async () => {
    const ws = await workspace();
    const session = await ws.sessions.create();
    const outcome = await ws.worker({ session, model: scriptedModel(() => new Promise<never>(() => undefined)), idleTimeoutMs: 100 }).run('hello?');
    expect(outcome).toMatchObject({ status: 'error', error: { code: 'MODEL_TIMEOUT' } });
    for (const idleTimeoutMs of [0, -5, 2 ** 31]) {
      await expect(session.respond({ model: scriptedModel({ text: 'hi' }), idleTimeoutMs })).rejects.toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('idleTimeoutMs') as unknown,
      });
    }
  });
});

describe('time limits on browser commands', () => {
  let slow: Server | undefined;
  afterEach(async () => {
    slow?.closeAllConnections();
    await new Promise((resolve) => slow?.close(resolve) ?? resolve(undefined));
    slow = undefined;
  });

  it('fails a page that never answers with BROWSER_TIMEOUT, and an element that never comes with ELEMENT_NOT_FOUND after the wait', async () => {
    let requests = 0;
    slow = createServer((req, res) => {
      requests++;
      if (req.url === '/empty') res.end('<!doctype html><title>empty</title><p>nothing to click</p>');
      // Anything else: never answered.
    });
    await new Promise<void>((resolve) => slow?.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
    const ws = await workspace();
    const browser = await ws.browser.launch({ timeoutMs: 1_000 });
    cleanups.push(() => browser.close());
    const tab = await browser.open({ session: await ws.sessions.create() });
    const hung = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base}/hang` } });
    expect(hung).toMatchObject({ success: false, error: { code: 'BROWSER_TIMEOUT' } });
    expect(requests).toBeGreaterThan(0);
    expect(await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base}/empty` } })).toMatchObject({ success: true });
    const missing = await tab.execute({ action: 'CLICK_ELEMENT', parameters: { selector: '#never' } });
    expect(missing).toMatchObject({ success: false, error: { code: 'ELEMENT_NOT_FOUND' } });
    expect(missing.error?.message).toContain('waited 1000 ms');
    await tab.close();
  });
});

describe('withTimeLimits', () => {
  it('counts only the wait for the model: a caller slower than idleTimeoutMs between parts is not timed out', async () => {
    const { withTimeLimits } = await import('../src/index.js');
    async function* parts() {
      for (let i = 0; i < 3; i++) {
        await Promise.resolve();
        yield { type: 'text-delta' as const, text: `p${i} ` };
      }
    }
    const seen: string[] = [];
    for await (const part of withTimeLimits(() => parts(), { idleTimeoutMs: 50 })) {
      if (part.type === 'text-delta') seen.push(part.text);
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
    expect(seen).toEqual(['p0 ', 'p1 ', 'p2 ']);
  });
});

describe('the deepest JSON a request may carry', () => {
  /** `{"v":{"v":...1...}}` nested `depth` deep, as text (JSON.stringify would recurse). */
  const nested = (depth: number) => `${'{"v":'.repeat(depth)}1${'}'.repeat(depth)}`;
  const DEEP = 20_000;

  it('refuses a body nested past 256 levels with INVALID_ARGUMENT naming the limit, on every route that reads JSON, and takes one at the limit', async () => {
    const ws = await workspace();
    const server = await serve(ws, { page: false, agent: { model: scriptedModel([{ text: 'Taken.' }]) } });
    cleanups.push(() => server.close());
    const session = await ws.sessions.create();
    const post = async (path: string, body: string) => {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
        body,
      });
      return { status: res.status, json: (await res.json()) as { error?: { code: string; message: string } } };
    };
    const refusedDeep = { status: 400, json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('deeper than 256 levels') as unknown } } };
    const agui = (state: string) => `{"threadId":"t-deep","runId":"r","state":${state},"messages":[],"tools":[],"context":[],"forwardedProps":{}}`;
    expect(await post('/api/agui', agui(nested(DEEP)))).toMatchObject(refusedDeep);
    expect(
      await post(
        '/api/chat',
        `{"id":"c-deep","trigger":"submit-message","messages":[{"id":"m","role":"user","parts":[{"type":"text","text":"hi"}],"metadata":${nested(DEEP)}}]}`,
      ),
    ).toMatchObject(refusedDeep);
    expect(await post(`/api/sessions/${session.id}/messages`, `{"text":"hi","extra":${nested(DEEP)}}`)).toMatchObject(refusedDeep);
    expect(await post('/api/sessions', nested(DEEP))).toMatchObject(refusedDeep);
    // Nothing was started or written by the refused requests.
    expect(ws.sessions.list().map((s) => s.id)).toEqual([session.id]);
    // A state nested as deep as the limit is taken.
    const atLimit = await fetch(`${server.url}/api/agui`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: agui(nested(255)).replace('"messages":[]', '"messages":[{"id":"u","role":"user","content":"hi"}]'),
    });
    expect(atLimit.status).toBe(200);
    expect(await atLimit.text()).toContain('Taken.');
  });

  it('takes JSON nested exactly 256 levels and refuses 257; only a refusal for depth names the limit in its details', async () => {
    expect(parseJsonText(nested(256))).toEqual({ ok: true, value: JSON.parse(nested(256)) as unknown });
    expect(parseJsonText(`[${nested(255)}]`)).toMatchObject({ ok: true });
    expect(parseJsonText(nested(257))).toMatchObject({ ok: false, reason: 'depth', problem: expect.stringContaining('deeper than 256 levels') });
    expect(parseJsonText(`[${nested(256)}]`)).toMatchObject({ ok: false, reason: 'depth' });
    expect(parseJsonText('{"v":')).toEqual({ ok: false, reason: 'syntax', problem: 'is not JSON' });

    const read = (text: string) => readJsonBody(new Request('http://golem.test/', { method: 'POST', body: text })).catch((error: unknown) => error);
    expect(await read(nested(256))).toEqual(JSON.parse(nested(256)));
    expect(await read(nested(257))).toMatchObject({ code: 'INVALID_ARGUMENT', details: { maxDepth: 256 } });
    for (const wrong of ['{"v":', `${'{"v":'.repeat(300)}`, 'x'.repeat(1024 * 1024 + 1)]) {
      const refused = await read(wrong);
      expect(refused, wrong.slice(0, 20)).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect((refused as GolemError).details, wrong.slice(0, 20)).toEqual({});
    }
  });

  it('answers a socket message nested past 256 levels with a typed RUN_ERROR naming the limit, and goes on serving', async () => {
    const ws = await workspace();
    const server = await serve(ws, { page: false });
    cleanups.push(() => server.close());
    const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, { headers: { authorization: `Bearer ${server.token}` } });
    const messages: { type: string; code?: string; message?: string }[] = [];
    socket.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8')) as { type: string }));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    // Under the 64 KiB a message may have, and past the stack of a recursive reader.
    socket.send(`{"type":"UI_ACTION","instanceId":"form","actionId":"submit","values":${nested(10_000).replaceAll('"v":', '"":')}}`);
    await expect
      .poll(() => messages.find((m) => m.type === 'RUN_ERROR'))
      .toMatchObject({ code: 'INVALID_MESSAGE', message: expect.stringContaining('deeper than 256 levels') });
    socket.send('{"type":"SNAPSHOT_REQUEST"}');
    await expect.poll(() => messages.filter((m) => m.type === 'STATE_SNAPSHOT').length).toBe(2);
    socket.close();
  });
});
