/**
 * `npm run fuzz`'s targets, small (issue 9, "Hostile input"): every boundary where outside
 * data comes in, with valid-ish and hostile input, must answer with no crash, no
 * unhandled rejection, no partial write and a typed error for every refusal. Then the
 * bugs the fuzz found, each as a test of its own.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createWorkspace, extractInstructions, type Workspace } from '../src/index.js';
import { serve, type GolemServer } from '../src/serve/index.js';
import { readClientMessage } from '../src/serve/client-message.js';
import { counted, typedCode, type FuzzTarget } from '../reliability/fuzz-kit.js';
import { socketTarget } from '../reliability/fuzz-socket.js';
import { FUZZ_TARGETS, runFuzz } from '../reliability/fuzz.js';
import { Reader } from './fixtures/reader.js';
import { text } from './helpers.js';

/** Scale the runs up for a long hunt: GOLEM_PROPERTY_SCALE=20 npm test (or npm run fuzz). */
const SCALE = Number(process.env.GOLEM_PROPERTY_SCALE ?? 1);
// Beside other test files on two cores an idle golem serve can take 150 ms to answer /health; here the regex
// target holds it to 1 s (a pattern that holds the loop never answers), `npm run fuzz` to 100 ms.
process.env.GOLEM_FUZZ_HEALTH_MS ??= '1000';

describe('fuzz: every boundary keeps its promises under hostile input', () => {
  for (const target of FUZZ_TARGETS) {
    // The real socket gets a few hundred frames, the other targets on a workspace a few hundred cases; the pure ones their runs at scale 1.
    const scale = (target === socketTarget ? 8 : target.runs < 100 ? 3 : 1) * SCALE;
    it(`${target.check}`, async () => {
      const [row] = await runFuzz({ scale, targets: [target] });
      expect(row?.failures, row?.detail).toBe(0);
      expect(row?.runs).toBe(Math.max(1, Math.ceil(target.runs * scale)));
      expect(row?.checked).toBe(row?.runs);
      // Both kinds of input reached the boundary: some accepted, some refused.
      expect(row?.detail).toMatch(/^[1-9][\d,]* accepted; [1-9][\d,]* rejected with typed codes: /);
    });
  }

  it('counts a failure when a boundary answers with an untyped error (it can fail)', async () => {
    const untyped: FuzzTarget = {
      name: 'untyped',
      check: 'a boundary that throws a plain Error',
      runs: 10,
      property: (tally) => counted(tally, fc.nat(), (n) => void typedCode(n % 2 === 0 ? new Error('boom') : new TypeError('bang'), 'the call')),
    };
    const [row] = await runFuzz({ scale: 1, targets: [untyped], seed: 7 });
    expect(row).toMatchObject({ area: 'fuzz', check: 'a boundary that throws a plain Error', runs: 10, checked: 10, failures: 10 });
    expect(row?.detail).toMatch(/FIRST FAILURE: the call failed with an untyped (Error: boom|TypeError: bang).*; seed 7$/);
  });
});

describe('regressions the fuzz found', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function started(): Promise<{ ws: Workspace; server: GolemServer }> {
    const ws = await createWorkspace();
    const server = await serve(ws, { page: false });
    cleanups.push(
      () => ws.close(),
      () => server.close(),
    );
    return { ws, server };
  }

  it('a socket message of null, or with a type nested deeper than the stack, is refused; the server does not crash', async () => {
    const { server } = await started();
    const socket = new WebSocket(server.socketUrl);
    const events: { type: string; code?: string }[] = [];
    socket.on('message', (data) => events.push(JSON.parse((data as Buffer).toString('utf8')) as { type: string; code?: string }));
    await new Promise((resolve) => socket.once('open', resolve));
    cleanups.push(async () => void socket.terminate());
    const deep = `{"type":${'['.repeat(30_000)}${']'.repeat(30_000)}}`;
    for (const message of ['null', deep, '{"type":"SNAPSHOT_REQUEST"}']) socket.send(message);
    await expect.poll(() => events.length, { timeout: 5_000 }).toBe(4);
    expect(events.map((e) => [e.type, e.code])).toEqual([
      ['STATE_SNAPSHOT', undefined],
      ['RUN_ERROR', 'INVALID_MESSAGE'],
      ['RUN_ERROR', 'INVALID_MESSAGE'],
      ['STATE_SNAPSHOT', undefined],
    ]);
    // The reading is total, whatever the data.
    expect(readClientMessage(Buffer.from('null'))).toMatchObject({ ok: false, code: 'INVALID_MESSAGE' });
    expect(readClientMessage(deep)).toMatchObject({ ok: false, code: 'INVALID_MESSAGE', message: expect.stringContaining('deeper than 256 levels') });
    expect(readClientMessage('{"type":[]}')).toMatchObject({ ok: false, code: 'UNKNOWN_MESSAGE', message: expect.stringContaining('of type object') });
  });

  it('an environment field named __proto__, constructor or toString is unknown, and no prototype is touched', async () => {
    const ws = await createWorkspace();
    const reader = new Reader();
    await reader.mount(ws.manager);
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const result = await reader.updateEditableStatus(name, 'polluted');
      expect(result, name).toMatchObject({ success: false, error: expect.stringContaining(`Unknown editable field: ${name}`) });
    }
    expect(({} as Record<string, unknown>).value).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.getOwnPropertyDescriptor(Object.prototype, 'toString')?.value as object)).not.toContain('value');
    expect(ws.manager.workspace().collections.get('environment')?.get('reader')).toBeUndefined();
    await ws.close();
  });

  it('a JSON value nested past the stack is refused with INVALID_PAYLOAD (not a thrown RangeError, nor STORE_ERROR)', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = { v: deep };
    for (const payload of [
      { sessionId: s.id, turn: { role: 'user', blocks: [text('hi')], meta: { deep } } },
      { sessionId: s.id, turn: { role: 'assistant', blocks: [{ type: 'tool_use', callId: 'c', name: 'n', args: { deep } }] } },
    ]) {
      const result = await ws.manager.dispatch({ type: 'turn:add', payload: payload as never });
      expect(result.ok).toBe(false);
      expect(result.error).toMatchObject({ code: 'INVALID_PAYLOAD', message: expect.stringContaining('must not nest deeper than 256 levels') });
    }
    expect((await ws.summary()).turns).toBe(0);
    // Nested as deep as the limit, it is taken.
    let limit: unknown = 1;
    for (let i = 0; i < 256; i++) limit = [limit];
    expect(
      (await ws.manager.dispatch({ type: 'turn:add', payload: { sessionId: s.id, turn: { role: 'user', blocks: [], meta: { limit: limit as never } } } })).ok,
    ).toBe(true);
    await ws.close();
  });

  it('reads text with thousands of braces never closed in linear time, saying where it stopped', () => {
    const started = performance.now();
    const { requests, errors } = extractInstructions(`${'{"a":"'.repeat(50_000)} {"action":"next_page"}`);
    // Before: each unclosed brace was read to the end of the text, 55 s for this one.
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(requests).toEqual([]);
    expect(errors.at(-1)?.message).toBe('more than 50 "{" are not closed; the rest of the answer was not read for instructions');
    // A few unclosed braces in prose change nothing.
    expect(extractInstructions('a { b { c {"action":"next_page"}').requests).toEqual([{ action: 'next_page', params: {}, source: '{"action":"next_page"}' }]);
  });
});
