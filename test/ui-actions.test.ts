/**
 * A user's click on a model-built UI, on the server (src/serve/ui-actions.ts, docs/ui-catalog.md):
 * the values of every input type checked for their shape (INVALID_STRUCTURE) and their rules
 * (INVALID_VALUE: required, min/max, pattern; skipped by validate: false), hidden and display
 * fields, block-level actions, handlers applied as one new version without the agent (also
 * while it is busy, over a real WebSocket of `serve()`), and a click without a handler still
 * reaching the agent. A refused click writes nothing.
 */
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { createWorkspace, type JsonValue, type PatchInput, type Workspace } from '../src/index.js';
import { applyUiAction, serve, type UIActionResult } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(): Promise<Workspace> {
  const ws = await createWorkspace();
  cleanups.push(() => ws.close());
  return ws;
}

const options = (...values: string[]) => values.map((value) => ({ label: value.toUpperCase(), value }));
const action = (id: string, extra: Record<string, unknown> = {}) => ({ id, label: id, style: 'primary', ...extra });

/** A form with a field of every input type, a display field, a field shown in pro mode, a block shown on demand, and actions. */
const booking = {
  id: 'main',
  type: 'form',
  bind: 'state.params',
  props: {
    fields: [
      { label: 'Name', key: 'name', type: 'text', required: true, min: 2, max: 10, pattern: '[A-Za-z ]+' },
      { label: 'Notes', key: 'notes', type: 'textarea', max: 20 },
      { label: 'Guests', key: 'guests', type: 'number', min: 1, max: 12, step: 1 },
      { label: 'Size', key: 'size', type: 'select', options: options('s', 'm') },
      { label: 'Plan', key: 'plan', type: 'radio', options: options('free', 'pro') },
      { label: 'News', key: 'news', type: 'checkbox' },
      { label: 'Toppings', key: 'toppings', type: 'multiselect', options: options('olives', 'ham'), max: 1 },
      { label: 'Arrival', key: 'arrival', type: 'date', min: '2026-01-01' },
      { label: 'Volume', key: 'volume', type: 'slider', min: 0, max: 10, step: 2 },
      { label: 'Dark', key: 'dark', type: 'switch' },
      { label: 'Labels', key: 'labels', type: 'tags', max: 2, pattern: '[a-z]+' },
      { label: 'Receipt', key: 'receipt', type: 'file', accept: ['image/*'], maxBytes: 1000 },
      { label: 'Settings', key: 'settings', type: 'json' },
      { label: 'Summary', key: 'summary', type: 'markdown' },
      { label: 'Secret', key: 'secret', type: 'text', required: true, visible: { path: 'state.params.plan', equals: 'pro' } },
    ],
    actions: [action('save')],
  },
};
const extra = {
  id: 'extra',
  type: 'form',
  bind: 'state.runtime',
  props: { visible: { path: 'state.params.more' }, fields: [{ label: 'Code', key: 'code', type: 'text', required: true }], actions: [action('inner')] },
};
const actions = [
  action('submit'),
  action('cancel', { validate: false }),
  action('inc', { handler: { type: 'increment', path: 'state.params.count' } }),
  action('flip', { handler: { type: 'toggle', path: 'state.params.on' } }),
  action('greet', {
    handler: [
      { type: 'set', path: 'state.runtime.stage', value: 'greeted' },
      { type: 'increment', path: 'state.runtime.greetings', by: 5 },
      { type: 'template', path: 'state.runtime.greeting', template: 'Hello ${state.params.name} (${state.runtime.greetings})' },
    ],
  }),
  action('hidden', { visible: { path: 'state.params.plan', equals: 'pro' } }),
  action('broken', { handler: { type: 'increment', path: 'state.params.name' } }),
];
const build = (id: string): PatchInput => ({
  instanceId: '__CREATE__',
  newInstanceId: id,
  patches: [
    { op: 'set', path: 'blocks', value: [booking, extra] },
    { op: 'set', path: 'actions', value: actions },
  ],
});

/** A file a click may send: a blob the workspace holds (built() uploads it); its size, type and name are the blob's. */
const upload = new Uint8Array(10).fill(7);
const file = { sha256: createHash('sha256').update(upload).digest('hex'), name: 'r.png', mediaType: 'image/png', size: 10 };

async function built(id = 'booking'): Promise<Workspace> {
  const ws = await workspace();
  await ws.blobs.register(upload, { mediaType: 'image/png', filename: 'r.png', hold: true });
  expect((await ws.ui.patch(build(id))).success).toBe(true);
  return ws;
}

/** Clicks, and checks that a refusal wrote nothing. */
async function click(ws: Workspace, actionId: string, values: Record<string, JsonValue> = {}, instanceId = 'booking'): Promise<UIActionResult> {
  const before = ws.ui.get(instanceId);
  const result = await applyUiAction(ws.ui, { instanceId, actionId, values });
  if (!result.ok) expect(ws.ui.get(instanceId)).toStrictEqual(before);
  return result;
}

describe('applyUiAction: the values of every input type', () => {
  // [key, accepted values, values of another shape]
  const cases: [string, JsonValue[], JsonValue[]][] = [
    ['notes', ['two\nlines'], [3, ['x'], { t: 'x' }]],
    ['guests', [1, 12], ['3', true, [3]]],
    ['size', ['m'], ['l', 1, ['s']]],
    ['plan', ['free'], ['gold', true]],
    ['news', [true, false], ['yes', 1]],
    ['toppings', [['ham']], ['ham', ['ham', 'ham'], ['bacon'], [1]]],
    ['arrival', ['2026-03-01'], ['2026-02-30', '01/03/2026', 20260301]],
    ['volume', [0, 10], ['5', false]],
    ['dark', [true], ['on', 0]],
    ['labels', [['a', 'b']], ['a', ['a', 'a'], [''], [5]]],
    ['receipt', [file], ['r.png', { ...file, extra: true }, { ...file, sha256: 'xyz' }]],
    ['settings', [{ any: ['json', 1, null] }, 'text', 5, null], []],
  ];
  for (const [key, good, bad] of cases)
    it(`${key}: its values taken, one version each; others refused with INVALID_STRUCTURE naming it`, async () => {
      const ws = await built();
      for (const value of good) {
        const before = ws.ui.get('booking')?.version ?? 0;
        const result = await click(ws, 'submit', { name: 'Ada', [key]: value });
        expect(result, JSON.stringify(value)).toMatchObject({ ok: true, event: { version: before + 1, values: { name: 'Ada', [key]: value } } });
        expect(ws.ui.get('booking')?.version).toBe(before + 1);
        expect(ws.ui.get('booking')?.instance.state.params[key]).toStrictEqual(value);
      }
      for (const value of bad) {
        const result = await click(ws, 'submit', { name: 'Ada', [key]: value });
        expect(result, JSON.stringify(value)).toMatchObject({ ok: false, code: 'INVALID_STRUCTURE', message: expect.stringContaining(`${key}:`) as unknown });
      }
    });

  it('text: a string; its rules are INVALID_VALUE (required, min, max, pattern), naming the field', async () => {
    const ws = await built();
    expect(await click(ws, 'submit', { name: 7 })).toMatchObject({ ok: false, code: 'INVALID_STRUCTURE' });
    for (const [name, words] of [
      [undefined, 'Name (name): required'],
      ['', 'Name (name): required'],
      ['A', 'Name (name): at least 2 characters'],
      ['Abcdefghijk', 'Name (name): at most 10 characters'],
      ['Ada1', 'Name (name): the text does not match the pattern'],
    ] as const)
      expect(await click(ws, 'submit', name === undefined ? {} : { name }), String(name)).toMatchObject({
        ok: false,
        code: 'INVALID_VALUE',
        message: expect.stringContaining(words) as unknown,
      });
    expect(ws.ui.get('booking')?.version).toBe(1);
    expect(await click(ws, 'submit', { name: 'Ada' })).toMatchObject({ ok: true, event: { version: 2 } });
    // A value held already meets required: the next click need not send it again.
    expect(await click(ws, 'submit', { notes: 'again' })).toMatchObject({ ok: true, event: { version: 3 } });
  });

  it('min/max, step and pattern of the other types are INVALID_VALUE; a file is the blob it names', async () => {
    const ws = await built();
    // A file's size and type are the blob's, whatever the page says of them.
    const big = await ws.blobs.register(new Uint8Array(1001).fill(1), { mediaType: 'image/png', filename: 'big.png', hold: true });
    const pdf = await ws.blobs.register(new Uint8Array(20).fill(2), { mediaType: 'application/pdf', filename: 'r.pdf', hold: true });
    for (const [values, words] of [
      [{ guests: 0 }, 'Guests (guests): at least 1'],
      [{ guests: 13 }, 'at most 12'],
      [{ guests: 1.5 }, 'a multiple of 1'],
      [{ volume: 3 }, 'Volume (volume): a multiple of 2 from 0'],
      [{ volume: 12 }, 'at most 10'],
      [{ arrival: '2025-12-31' }, 'on or after 2026-01-01'],
      [{ toppings: ['olives', 'ham'] }, 'at most 1 choices'],
      [{ labels: ['a', 'b', 'c'] }, 'at most 2 tags'],
      [{ labels: ['A'] }, 'the tag "A" does not match'],
      [{ notes: 'x'.repeat(21) }, 'at most 20 characters'],
      [{ receipt: { ...file, sha256: big.sha256, size: 10 } }, 'at most 1000 bytes'],
      [{ receipt: { ...file, sha256: pdf.sha256, mediaType: 'image/png' } }, 'of type image/*'],
      [{ receipt: { ...file, sha256: 'b'.repeat(64) } }, 'no uploaded file'],
    ] as [Record<string, JsonValue>, string][])
      expect(await click(ws, 'submit', { name: 'Ada', ...values }), JSON.stringify(values)).toMatchObject({
        ok: false,
        code: 'INVALID_VALUE',
        message: expect.stringContaining(words) as unknown,
      });
    expect(ws.ui.get('booking')?.version).toBe(1);
  });

  it('validate: false skips the rules, not the shapes', async () => {
    const ws = await built();
    expect(await click(ws, 'cancel', { name: 'A1', guests: 99 })).toMatchObject({ ok: true, event: { version: 2 } });
    expect(ws.ui.get('booking')?.instance.state.params).toMatchObject({ name: 'A1', guests: 99 });
    expect(await click(ws, 'cancel', {})).toMatchObject({ ok: true, event: { version: 2 } });
    expect(await click(ws, 'cancel', { guests: 'many' })).toMatchObject({ ok: false, code: 'INVALID_STRUCTURE' });
    // The held values break the rules: a click that sends them is refused until they are fixed; one that sends none
    // is judged on required alone (the page sends every shown field's value, and checks it first).
    expect(await click(ws, 'submit', { guests: 99 })).toMatchObject({ ok: false, code: 'INVALID_VALUE' });
    expect(await click(ws, 'submit', {})).toMatchObject({ ok: true, event: { version: 2 } });
  });

  it("a registered component's value is checked with its value schema", async () => {
    const ws = await workspace();
    ws.ui.catalog.register({
      type: 'rating',
      kind: 'input',
      description: 'stars',
      props: { max: z.number().int() },
      value: z.number().int().min(1).max(5),
      example: { label: 'Stars', key: 's', type: 'rating', max: 5 },
    });
    const form = { id: 'f', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Stars', key: 'stars', type: 'rating', max: 5 }] } };
    await ws.ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: 'r',
      patches: [
        { op: 'set', path: 'blocks', value: [form] },
        { op: 'set', path: 'actions', value: [action('go')] },
      ],
    });
    expect(await click(ws, 'go', { stars: 9 }, 'r')).toMatchObject({
      ok: false,
      code: 'INVALID_STRUCTURE',
      message: expect.stringContaining('stars') as unknown,
    });
    expect(await click(ws, 'go', { stars: 'five' }, 'r')).toMatchObject({ ok: false, code: 'INVALID_STRUCTURE' });
    expect(await click(ws, 'go', { stars: 4 }, 'r')).toMatchObject({ ok: true, event: { version: 2 } });
    expect(ws.ui.get('r')?.instance.state.params).toEqual({ stars: 4 });
  });
});

describe('applyUiAction: what is shown, and which action', () => {
  it("a hidden field's value is refused, and a hidden required field is not required; shown, it is", async () => {
    const ws = await built();
    expect(await click(ws, 'submit', { name: 'Ada', secret: 'x' })).toMatchObject({
      ok: false,
      code: 'PATH_NOT_FOUND',
      message: expect.stringContaining('secret') as unknown,
    });
    expect(await click(ws, 'submit', { name: 'Ada', code: 'x' })).toMatchObject({ ok: false, code: 'PATH_NOT_FOUND' });
    // Hidden: the required secret and the hidden block's required code are not asked for.
    expect(await click(ws, 'submit', { name: 'Ada', plan: 'free' })).toMatchObject({ ok: true, event: { version: 2 } });
    // What is shown is what the user saw: the plan the click sends shows the secret, which is then required.
    expect(await click(ws, 'submit', { plan: 'pro' })).toMatchObject({
      ok: false,
      code: 'INVALID_VALUE',
      message: expect.stringContaining('Secret (secret): required') as unknown,
    });
    expect(await click(ws, 'submit', { plan: 'free', secret: 'shh' })).toMatchObject({ ok: false, code: 'PATH_NOT_FOUND' });
    expect(await click(ws, 'submit', { plan: 'pro', secret: 'shh' })).toMatchObject({ ok: true, event: { version: 3 } });
    expect(await click(ws, 'submit', { secret: '' })).toMatchObject({ ok: false, code: 'INVALID_VALUE' });
    // The block shown: its field is written where the block binds, and its required field is asked for.
    await ws.ui.patch({ instanceId: 'booking', patches: [{ op: 'set', path: 'state.params.more', value: true }] });
    expect(await click(ws, 'submit', {})).toMatchObject({ ok: false, code: 'INVALID_VALUE', message: expect.stringContaining('Code (code)') as unknown });
    expect(await click(ws, 'submit', { code: 'X1' })).toMatchObject({ ok: true, event: { version: 5 } });
    expect(ws.ui.get('booking')?.instance.state.runtime.code).toBe('X1');
  });

  it("a display field's value, or one of no field, is refused", async () => {
    const ws = await built();
    expect(await click(ws, 'submit', { name: 'Ada', summary: '**mine**' })).toMatchObject({
      ok: false,
      code: 'PATH_NOT_FOUND',
      message: expect.stringContaining('shows a value') as unknown,
    });
    expect(await click(ws, 'submit', { name: 'Ada', nope: 1 })).toMatchObject({ ok: false, code: 'PATH_NOT_FOUND' });
    expect(ws.ui.get('booking')?.version).toBe(1);
  });

  it("a block's action is found; an unknown one, a hidden one, or one of a hidden block is not", async () => {
    const ws = await built();
    expect(await click(ws, 'save', { name: 'Ada' })).toMatchObject({ ok: true, event: { actionId: 'save', actionLabel: 'save', version: 2 } });
    expect(await click(ws, 'nope', { name: 'Ada' })).toMatchObject({ ok: false, code: 'PATH_NOT_FOUND' });
    expect(await click(ws, 'hidden', { name: 'Ada' })).toMatchObject({ ok: false, code: 'PATH_NOT_FOUND' });
    expect(await click(ws, 'inner', {})).toMatchObject({ ok: false, code: 'PATH_NOT_FOUND' });
    expect(await applyUiAction(ws.ui, { instanceId: 'none', actionId: 'save' })).toMatchObject({ ok: false, code: 'INVALID_INSTANCE' });
    expect(await applyUiAction(ws.ui, { instanceId: 'booking' })).toMatchObject({ ok: false, code: 'INVALID_MESSAGE' });
  });
});

describe('applyUiAction: handlers', () => {
  it('increment, toggle, set and a template of the typed value apply with the values as ONE new version, marked handled', async () => {
    const ws = await built();
    const versions: number[] = [];
    const version = () => ws.ui.get('booking')?.version ?? 0;
    for (const id of ['inc', 'inc', 'flip', 'flip', 'flip']) {
      const before = version();
      expect(await click(ws, id, { name: 'Ada' })).toMatchObject({ ok: true, event: { actionId: id, handled: true, version: before + 1 } });
      versions.push(version());
    }
    expect(versions).toEqual([2, 3, 4, 5, 6]);
    expect(ws.ui.get('booking')?.instance.state.params).toMatchObject({ count: 2, on: true, name: 'Ada' });
    // The template reads the name just typed and the count an earlier handler of the list wrote.
    expect(await click(ws, 'greet', { name: 'Grace' })).toMatchObject({ ok: true, event: { handled: true, version: 7, values: { name: 'Grace' } } });
    expect(ws.ui.get('booking')?.version).toBe(7);
    expect(ws.ui.get('booking')?.instance.state).toMatchObject({
      params: { name: 'Grace' },
      runtime: { stage: 'greeted', greetings: 5, greeting: 'Hello Grace (5)' },
    });
    // A click without a handler is not marked handled.
    expect((await click(ws, 'submit', {})) as { event: object }).not.toHaveProperty('event.handled');
  });

  it('clicks at once each see the one before: two increments count two, and a value typed by the first is held for the second', async () => {
    const ws = await built();
    const results = await Promise.all([
      applyUiAction(ws.ui, { instanceId: 'booking', actionId: 'inc', values: { name: 'Ada' } }),
      applyUiAction(ws.ui, { instanceId: 'booking', actionId: 'inc' }),
      applyUiAction(ws.ui, { instanceId: 'booking', actionId: 'flip' }),
    ]);
    expect(results.map((r) => r.ok && r.event.version)).toEqual([2, 3, 4]);
    expect(ws.ui.get('booking')?.instance.state.params).toEqual({ name: 'Ada', count: 2, on: true });
  });

  it('a handler that cannot apply refuses the click, values and all (INVALID_VALUE, nothing written)', async () => {
    const ws = await built();
    expect(await click(ws, 'broken', { name: 'Ada' })).toMatchObject({
      ok: false,
      code: 'INVALID_VALUE',
      message: expect.stringContaining('not a number') as unknown,
    });
    expect(ws.ui.get('booking')?.version).toBe(1);
    expect(ws.ui.get('booking')?.instance.state.params).toEqual({});
    // A handler's click still checks the values' rules.
    expect(await click(ws, 'inc', { name: 'A' })).toMatchObject({ ok: false, code: 'INVALID_VALUE' });
    expect(ws.ui.get('booking')?.version).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------
// Over the socket of golem serve
// ---------------------------------------------------------------------------------------

interface Event {
  type: string;
  code?: string;
}

async function page(url: string) {
  const socket = new WebSocket(url);
  const events: Event[] = [];
  socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString('utf8')) as Event));
  await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
  cleanups.push(async () => void socket.close());
  const send = (actionId: string, values: Record<string, JsonValue> = {}) =>
    socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: 'booking', actionId, values }));
  return { events, send };
}

describe('golem serve: a handled click', () => {
  it('never reaches the agent (an empty script would throw), and a click without a handler does', async () => {
    const ws = await workspace();
    const model = scriptedModel([]);
    const server = await serve(ws, { page: false, agent: { model } });
    cleanups.push(() => server.close());
    const session = await ws.sessions.create();
    expect((await ws.ui.patch(build('booking'), { builtBy: session.id })).success).toBe(true);
    const clicks: unknown[] = [];
    server.onUiAction((event) => clicks.push(event));
    const client = await page(server.socketUrl);
    client.send('inc', { name: 'Ada' });
    await expect.poll(() => ws.ui.get('booking')?.version).toBe(2);
    client.send('flip');
    await expect.poll(() => ws.ui.get('booking')?.version).toBe(3);
    client.send('greet', { name: 'Bea' });
    await expect.poll(() => ws.ui.get('booking')?.version).toBe(4);
    await server.settled(session.id);
    expect(ws.ui.get('booking')?.instance.state.runtime.greeting).toBe('Hello Bea (5)');
    expect(clicks).toHaveLength(3);
    expect(model.calls).toHaveLength(0);
    expect((await ws.sessions.open(session.id))?.record()).toHaveLength(0);
    expect(client.events.filter((e) => e.type === 'RUN_ERROR')).toEqual([]);
    // A refused handled click is answered with its code.
    client.send('broken');
    await expect.poll(() => client.events.find((e) => e.type === 'RUN_ERROR')?.code).toBe('INVALID_VALUE');
    expect(ws.ui.get('booking')?.version).toBe(4);
  });

  it('is taken while the agent that built the form is busy; a click without one is turned away, then reaches the agent once it is idle', async () => {
    const ws = await workspace();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel([
      { toolCalls: [{ name: 'patch_ui_state', input: build('booking') as never }] },
      async () => {
        await held;
        return { text: 'Built.' };
      },
      { text: 'Thanks, Ada.' },
    ]);
    const server = await serve(ws, { page: false, agent: { model } });
    cleanups.push(() => server.close());
    const session = await ws.sessions.create();
    const client = await page(server.socketUrl);
    const sent = await fetch(`${server.url}/api/sessions/${session.id}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'a booking form' }),
    });
    expect(sent.status).toBe(202);
    await expect.poll(() => ws.ui.get('booking')?.builtBy).toBe(session.id);
    // Busy: the handled click is applied.
    client.send('inc', { name: 'Ada' });
    await expect.poll(() => ws.ui.get('booking')?.instance.state.params.count).toBe(1);
    expect(ws.ui.get('booking')?.version).toBe(2);
    client.send('submit', { name: 'Ada' });
    await expect.poll(() => client.events.find((e) => e.type === 'RUN_ERROR')?.code).toBe('SESSION_BUSY');
    expect(ws.ui.get('booking')?.version).toBe(2);
    expect(model.calls).toHaveLength(2);
    release();
    await server.settled(session.id);
    client.send('submit', { name: 'Ada', guests: 2 });
    await expect.poll(() => model.calls.length).toBe(3);
    await server.settled(session.id);
    expect(ws.ui.get('booking')?.instance.state.params).toMatchObject({ name: 'Ada', guests: 2, count: 1 });
    expect(JSON.stringify(model.calls[2]?.messages.at(-1))).toContain('clicked \\"submit\\"');
  });
});
