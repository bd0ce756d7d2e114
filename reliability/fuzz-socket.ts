/**
 * Fuzz targets of `golem serve`'s socket: the message a page sends, read as a pure function
 * (any bytes, any JSON); a click (UI_ACTION) applied to a workspace; and hostile frames
 * over a real `ws` client on loopback (text and binary, invalid JSON, invalid UTF-8,
 * oversized), after which the server keeps serving.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import WebSocket from 'ws';
import { createWorkspace, ERROR_CODES, UI_PATCH_ERROR_CODES, type Workspace } from '../src/index.js';
import { applyUiAction, serve, type GolemServer } from '../src/serve/index.js';
import { readClientMessage } from '../src/serve/client-message.js';
import { hostileJson, hostileString } from './arbitraries.js';
import { formBlock } from './fuzz-commands.js';
import { BUG_CODES, Broken, counted, countedAsync, ensure, memoryWorkspace, safeJson, sound, stateOf, typedCode, type FuzzTarget } from './fuzz-kit.js';

/** The codes a page may be answered with in a RUN_ERROR. */
export const SOCKET_CODES = new Set<string>([
  'INVALID_MESSAGE',
  'UNKNOWN_MESSAGE',
  'SESSION_BUSY',
  ...UI_PATCH_ERROR_CODES,
  ...Object.keys(ERROR_CODES).filter((c) => !BUG_CODES.has(c)),
]);

/** A UI_ACTION as a page sends it: on the form, or not, with values right, wrong or hostile. */
const uiActionMessage = fc.record(
  {
    type: fc.constant('UI_ACTION'),
    instanceId: fc.oneof({ weight: 4, arbitrary: fc.constant('form') }, hostileString, hostileJson),
    actionId: fc.oneof({ weight: 4, arbitrary: fc.constant('go') }, hostileString, hostileJson),
    values: fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record(
          {
            name: fc.oneof(fc.string({ maxLength: 10 }), hostileJson),
            age: fc.oneof(fc.integer(), hostileJson),
            kind: fc.oneof(fc.constantFrom('a', 'b'), hostileJson),
          },
          { requiredKeys: [] },
        ),
      },
      fc.dictionary(fc.oneof(fc.constantFrom('name', '__proto__', 'constructor'), hostileString), hostileJson, { maxKeys: 3 }),
      hostileJson,
    ),
  },
  { requiredKeys: ['type'] },
);
/** What a page (or anyone holding the token) may send in one frame's data. */
export const socketMessage: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 3, arbitrary: uiActionMessage.map((m) => safeJson(m)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"type":"SNAPSHOT_REQUEST"}',
      'null',
      '[]',
      '1',
      '"x"',
      '{}',
      '{"type":null}',
      '{"type":{"a":1}}',
      '{"type":"__proto__"}',
      '{"__proto__":{"type":"UI_ACTION"}}',
      'not json',
      '',
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .record({ type: fc.oneof(fc.constantFrom('SNAPSHOT_REQUEST', 'UI_ACTION', 'RUN_STARTED'), hostileString, hostileJson) }, { requiredKeys: [] })
      .map((m) => safeJson(m)),
  },
  { weight: 1, arbitrary: hostileJson.map((v) => safeJson(v)) },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 20_000 }).map((n) => `{"type":${'['.repeat(n)}${']'.repeat(n)}}`) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)) },
);

type RawCase = { k: 'text'; data: string | Buffer } | { k: 'fragments'; data: Buffer; cut: number } | { k: 'arrayBuffer'; data: Buffer };
const rawCase: fc.Arbitrary<RawCase> = fc.oneof(
  { weight: 4, arbitrary: socketMessage.map((data): RawCase => ({ k: 'text', data })) },
  fc.tuple(socketMessage, fc.nat()).map(([data, cut]): RawCase => ({ k: 'fragments', data: Buffer.from(data), cut })),
  socketMessage.map((data): RawCase => ({ k: 'arrayBuffer', data: Buffer.from(data) })),
  fc.uint8Array({ maxLength: 64 }).map((bytes): RawCase => ({
    k: 'text',
    data: Buffer.concat([Buffer.from('{"type":"'), Buffer.from(bytes), Buffer.from([0xff, 0xfe, 0xc0]), Buffer.from('"}')]),
  })),
);

export const socketParseTarget: FuzzTarget = {
  name: 'ws-parse',
  check: 'WebSocket messages (readClientMessage)',
  runs: 3000,
  property: (tally) =>
    counted(tally, rawCase, (c) => {
      const data =
        c.k === 'text'
          ? c.data
          : c.k === 'fragments'
            ? [c.data.subarray(0, c.cut % (c.data.length + 1)), c.data.subarray(c.cut % (c.data.length + 1))]
            : c.data.buffer.slice(c.data.byteOffset, c.data.byteOffset + c.data.byteLength);
      let read: ReturnType<typeof readClientMessage>;
      try {
        read = readClientMessage(data as never);
      } catch (error) {
        throw new Broken(`readClientMessage threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
      if (read.ok) {
        tally.accepted++;
        ensure(read.message.type === 'SNAPSHOT_REQUEST' || read.message.type === 'UI_ACTION', `a message of type ${String(read.message.type)} was taken`);
        return;
      }
      tally.reject(read.code);
      ensure(read.code === 'INVALID_MESSAGE' || read.code === 'UNKNOWN_MESSAGE', `a refusal with the code ${read.code as string}`);
      ensure(read.message.length > 0 && read.message.length <= 1000, `a refusal message of ${read.message.length} characters`);
    }),
};

export const uiActionTarget: FuzzTarget = {
  name: 'ui-action',
  check: 'WebSocket UI_ACTION (applyUiAction, memory store)',
  runs: 60,
  property: (tally) =>
    countedAsync(
      tally,
      fc.array(
        uiActionMessage.map((m) => safeJson(m)),
        { minLength: 1, maxLength: 6 },
      ),
      async (frames) => {
        const ws = await memoryWorkspace();
        try {
          await ws.ui.patch({
            instanceId: '__CREATE__',
            newInstanceId: 'form',
            patches: [
              { op: 'set', path: 'blocks', value: [formBlock] },
              { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Go', style: 'primary' }] },
            ],
          });
          for (const [i, frame] of frames.entries()) {
            const read = readClientMessage(frame);
            if (!read.ok || read.message.type !== 'UI_ACTION') continue;
            const before = await stateOf(ws);
            let result: Awaited<ReturnType<typeof applyUiAction>>;
            try {
              result = await applyUiAction(ws.ui, read.message as never);
            } catch (error) {
              tally.reject(typedCode(error, `click ${i}`));
              continue;
            }
            if (!result.ok) {
              tally.reject(result.code);
              ensure(SOCKET_CODES.has(result.code), `a click was refused with ${result.code}`);
              ensure(isDeepStrictEqual(await stateOf(ws), before), `click ${i} was refused (${result.code}) but changed the workspace`);
              continue;
            }
            tally.accepted++;
            const params = ws.ui.get('form')?.instance.state.params ?? {};
            for (const [key, value] of Object.entries(result.event.values))
              ensure(isDeepStrictEqual(params[key], value), `click ${i}: the value of ${key} was not applied`);
            await sound(ws, `click ${i}`);
          }
        } finally {
          await ws.close();
        }
      },
    ),
};

type Frame = { k: 'text'; data: string | Buffer } | { k: 'binary'; data: Buffer } | { k: 'badUtf8'; data: Buffer } | { k: 'oversized'; size: number };

const frame: fc.Arbitrary<Frame> = fc.oneof(
  { weight: 6, arbitrary: socketMessage.map((data): Frame => ({ k: 'text', data })) },
  { weight: 2, arbitrary: socketMessage.map((data): Frame => ({ k: 'binary', data: Buffer.from(data) })) },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 40 }).map((bytes): Frame => ({
      k: 'badUtf8',
      data: Buffer.concat([Buffer.from('{"type":"'), Buffer.from(bytes), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]),
    })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 64 * 1024 + 1, max: 256 * 1024 }).map((size): Frame => ({ k: 'oversized', size })) },
);

const MAX_MESSAGE = 64 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });
function validUtf8(bytes: Buffer): boolean {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The close code a frame must end the connection with (too big, or a text frame that is not UTF-8), or undefined when it must be answered. */
function closesWith(f: Frame): number | undefined {
  if (f.k === 'oversized') return 1009;
  const bytes = Buffer.from(f.data);
  if (bytes.length > MAX_MESSAGE) return 1009;
  if (f.k !== 'binary' && !validUtf8(bytes)) return 1007;
  return undefined;
}

interface Event {
  type?: unknown;
  code?: unknown;
  message?: unknown;
}

/** A client that keeps every event it got and how it was closed. */
async function connect(
  url: string,
): Promise<{ socket: WebSocket; events: Event[]; closed: () => number | undefined; next: (check: () => boolean, ms?: number) => Promise<boolean> }> {
  const socket = new WebSocket(url);
  const events: Event[] = [];
  let closeCode: number | undefined;
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  socket.on('message', (data, isBinary) => {
    let event: Event;
    try {
      const parsed = JSON.parse(
        (Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(new Uint8Array(data))).toString('utf8'),
      ) as unknown;
      event = parsed !== null && typeof parsed === 'object' ? (parsed as Event) : { type: parsed };
    } catch {
      event = { type: `(not JSON${isBinary ? ', binary' : ''})` };
    }
    events.push(event);
    wake();
  });
  socket.on('close', (code) => {
    closeCode = code;
    wake();
  });
  socket.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  /** Waits until `check` holds, the socket closes, or `ms` pass; resolves with whether `check` holds. */
  const next = (check: () => boolean, ms = 5_000) =>
    new Promise<boolean>((resolve) => {
      const done = () => {
        if (!check() && closeCode === undefined) return;
        waiters.delete(done);
        clearTimeout(timer);
        resolve(check());
      };
      const timer = setTimeout(() => {
        waiters.delete(done);
        resolve(check());
      }, ms);
      waiters.add(done);
      done();
    });
  return { socket, events, closed: () => closeCode, next };
}

function send(socket: WebSocket, f: Frame): Promise<void> {
  return new Promise((resolve) => {
    const done = () => resolve();
    if (f.k === 'oversized') socket.send('x'.repeat(f.size), done);
    else if (f.k === 'binary') socket.send(f.data, { binary: true }, done);
    else socket.send(f.data, { binary: false }, done);
  });
}

let state: { ws: Workspace; server: GolemServer } | undefined;
let sentinel = 0;

export const socketTarget: FuzzTarget = {
  name: 'ws-socket',
  check: 'WebSocket frames (golem serve, real socket)',
  runs: 20,
  async setup() {
    const ws = await createWorkspace();
    await ws.ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: 'form',
      patches: [
        { op: 'set', path: 'blocks', value: [formBlock] },
        { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Go', style: 'primary' }] },
      ],
    });
    state = { ws, server: await serve(ws, { page: false }) };
  },
  async teardown() {
    await state?.server.close();
    await state?.ws.close();
    state = undefined;
  },
  property: (tally) =>
    countedAsync(tally, fc.array(frame, { minLength: 1, maxLength: 6 }), async (frames) => {
      if (state === undefined) throw new Broken('the server is not started (setup)');
      const client = await connect(state.server.socketUrl);
      try {
        ensure(await client.next(() => client.events.length > 0), 'no snapshot on connect');
        // Frames up to the first that must close the connection; refusals the server answers at once, counted.
        const sent: Frame[] = [];
        for (const f of frames) {
          sent.push(f);
          await send(client.socket, f);
          if (closesWith(f) !== undefined) break;
        }
        const last = sent.at(-1) as Frame;
        const expectedClose = closesWith(last);
        if (expectedClose !== undefined) {
          ensure(await client.next(() => client.closed() !== undefined), `no close after a ${last.k} frame`);
          ensure(client.closed() === expectedClose, `a ${last.k} frame closed the connection with ${client.closed()}, not ${expectedClose}`);
          tally.reject(`close ${expectedClose}`);
        } else {
          // A frame the server must answer at once, after the others: when it is answered, so are they.
          const nonce = `FUZZ_SENTINEL_${++sentinel}`;
          client.socket.send(JSON.stringify({ type: nonce }));
          const answered = () => client.events.some((e) => typeof e.message === 'string' && e.message.includes(nonce));
          ensure(await client.next(answered), () => `the server did not answer after ${sent.length} frames (closed: ${client.closed()})`);
          ensure(client.closed() === undefined, `the connection was closed (${client.closed()}) after frames that are answered`);
          const refusedAtOnce = sent.filter((f) => f.k === 'text' || f.k === 'binary').filter((f) => !readClientMessage(Buffer.from(f.data)).ok).length;
          const refusals = client.events.filter((e) => e.type === 'RUN_ERROR' && (e.code === 'INVALID_MESSAGE' || e.code === 'UNKNOWN_MESSAGE')).length - 1;
          ensure(refusals >= refusedAtOnce, `${refusedAtOnce} frames are refused at once, ${refusals} refusals came`);
          tally.accepted += sent.length - refusedAtOnce;
        }
        for (const e of client.events) {
          ensure(typeof e.type === 'string', `an event without a type: ${JSON.stringify(e).slice(0, 100)}`);
          if (e.type === 'RUN_ERROR') {
            ensure(typeof e.code === 'string' && SOCKET_CODES.has(e.code), `a RUN_ERROR with the code ${String(e.code)}`);
            tally.reject(e.code);
          }
        }
      } finally {
        client.socket.terminate();
      }
      // The server keeps serving.
      const probe = await connect(state.server.socketUrl);
      try {
        probe.socket.send('{"type":"SNAPSHOT_REQUEST"}');
        ensure(await probe.next(() => probe.events.filter((e) => e.type === 'STATE_SNAPSHOT').length >= 2), 'the server no longer answers a new client');
      } finally {
        probe.socket.terminate();
      }
    }),
};
