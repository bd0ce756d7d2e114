/**
 * The seed's block properties (issue 23): showProgress, showStatus, showImages, showTable,
 * showCountInput and showTaskId each draw one fixed key of `state.runtime`. The tool's
 * description says where and in what shape, and its examples are accepted; a call that leaves
 * a shown key in another shape is refused with INVALID_STRUCTURE naming the path and the
 * patch, and changes nothing; random data is accepted exactly when the page's readers draw it
 * (fast-check); the count comes back through the click path; an image by blob is served only
 * for an instance its user may see that names it, and only as a raster image.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  applyPatchInput,
  BLOCK_DATA_KEYS,
  createWorkspace,
  type BlockDataKey,
  type JsonValue,
  type PatchInput,
  type UIInstance,
  type Workspace,
} from '../src/index.js';
import { BLOCK_DATA } from '../src/ui/block-data.js';
import type { SessionSummary } from '../src/serve/api-types.js';
import { applyUiAction, createGolemHandler, type GolemHandler } from '../src/serve/index.js';
import { readCount, readImages, readProgress, readStatus, readTable, readTaskId, type Read } from '../web/src/block-data.js';
import type { Json } from '../web/src/types.js';

/** Scale the property's runs up for a long hunt: GOLEM_PROPERTY_SCALE=20. */
const SCALE = Number(process.env.GOLEM_PROPERTY_SCALE ?? 1);
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ALL_SHOWN = { showProgress: true, showStatus: true, showImages: true, showTable: true, showCountInput: true, showTaskId: true };
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGOwjr4NAAJGAXI6KKUbAAAAAElFTkSuQmCC';
const block = (id: string, props: Record<string, unknown> = ALL_SHOWN, fields: unknown[] = []) => ({
  id,
  type: 'form',
  bind: 'state.params',
  props: { fields, ...props },
});
const examples = () => Object.fromEntries(Object.entries(BLOCK_DATA).map(([key, datum]) => [key, datum.example])) as Record<BlockDataKey, JsonValue>;

async function workspace(): Promise<Workspace> {
  const ws = await createWorkspace();
  cleanups.push(() => ws.close());
  return ws;
}

/** A dashboard instance with every property shown and the description's examples as its data. */
async function dashboard(ws: Workspace, id = 'dash', options: { builtBy?: string } = {}) {
  const created = await ws.ui.patch(
    {
      instanceId: '__CREATE__',
      newInstanceId: id,
      patches: [
        { op: 'set', path: 'state', value: { params: {}, runtime: examples() } },
        { op: 'set', path: 'blocks', value: [block('main')] },
        { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Go', style: 'primary' }] },
      ],
    },
    options,
  );
  expect(created).toMatchObject({ success: true, version: 1 });
}

/** The page's reader of each key: what it draws of a value. */
const READERS: Record<BlockDataKey, (value: Json | undefined) => Read<unknown>> = {
  progress: readProgress,
  status: readStatus,
  images: readImages,
  table: readTable,
  count: readCount,
  taskId: readTaskId,
};

describe('the block properties’ data', () => {
  it('is where the description says, and the description’s examples are accepted, kept and drawn', async () => {
    const ws = await workspace();
    const description = ws.ui.action().description;
    for (const [prop, key] of Object.entries(BLOCK_DATA_KEYS)) {
      expect(description).toContain(`${prop}: state.runtime.${key},`);
      expect(description).toContain(JSON.stringify(BLOCK_DATA[key].example));
      // What the page draws of the example: all of it.
      const read = READERS[key](BLOCK_DATA[key].example as Json);
      expect(read.kind).toBe('ok');
      if (key === 'images') expect(read).toMatchObject({ value: { skipped: 0 } });
    }
    expect(description).toContain('INVALID_STRUCTURE naming the path');
    await dashboard(ws);
    expect(ws.ui.get('dash')?.instance.state.runtime).toEqual(examples());
    expect(ws.ui.get('dash')?.instance.blocks[0]?.props).toMatchObject(ALL_SHOWN);
  });

  /** [key, value, the path the refusal names, whether the page (which reads what it knows of an object) would still draw it]. */
  const REFUSED: [BlockDataKey, unknown, string, 'page draws it'?][] = [
    ['progress', 101, 'state.runtime.progress'],
    ['progress', -1, 'state.runtime.progress'],
    ['progress', { value: 11, max: 10 }, 'state.runtime.progress.value'],
    ['progress', { value: 1, max: 0 }, 'state.runtime.progress.max'],
    ['progress', { value: 1, total: 2 }, 'state.runtime.progress', 'page draws it'],
    ['progress', 'half', 'state.runtime.progress'],
    ['status', 5, 'state.runtime.status'],
    ['status', { text: 'x', level: 'fatal' }, 'state.runtime.status.level'],
    ['status', { level: 'info' }, 'state.runtime.status.text'],
    ['status', 'x'.repeat(2001), 'state.runtime.status'],
    ['images', `data:image/png;base64,${PNG}`, 'state.runtime.images'],
    ['images', [{ src: 'https://elsewhere.example/a.png', alt: 'a' }], 'state.runtime.images.0.src'],
    ['images', [{ src: '//elsewhere.example/a.png', alt: 'a' }], 'state.runtime.images.0.src'],
    ['images', [{ src: 'javascript:window.__pwned=1', alt: 'a' }], 'state.runtime.images.0.src'],
    ['images', [{ src: 'data:image/svg+xml;base64,PHN2Zz48c2NyaXB0Pjwvc2NyaXB0Pjwvc3ZnPg==', alt: 'a' }], 'state.runtime.images.0.src'],
    ['images', [{ src: 'data:text/html;base64,PHNjcmlwdD48L3NjcmlwdD4=', alt: 'a' }], 'state.runtime.images.0.src'],
    ['images', [{ src: `data:image/png;base64,${PNG}" onerror="x`, alt: 'a' }], 'state.runtime.images.0.src'],
    ['images', [{ blob: { sha256: 'abc' }, alt: 'a' }], 'state.runtime.images.0.blob.sha256'],
    ['images', [{ src: `data:image/png;base64,${PNG}`, blob: { sha256: 'a'.repeat(64) }, alt: 'both' }], 'state.runtime.images.0'],
    ['images', [{ src: `data:image/png;base64,${PNG}` }], 'state.runtime.images.0.alt'],
    ['images', Array.from({ length: 25 }, () => ({ src: `data:image/png;base64,${PNG}`, alt: 'a' })), 'state.runtime.images'],
    ['table', [{ a: { b: 1 } }], 'state.runtime.table.0.a'],
    ['table', { rows: [{ a: [1] }] }, 'state.runtime.table.rows.0.a'],
    ['table', { columns: [{ label: 'A' }], rows: [] }, 'state.runtime.table.columns.0.key'],
    ['table', [Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, i]))], 'state.runtime.table'],
    ['table', Array.from({ length: 501 }, () => ({ a: 1 })), 'state.runtime.table'],
    ['table', 'a,b\n1,2', 'state.runtime.table'],
    ['count', -1, 'state.runtime.count'],
    ['count', 2.5, 'state.runtime.count'],
    ['count', '3', 'state.runtime.count'],
    ['taskId', '', 'state.runtime.taskId'],
    ['taskId', 42, 'state.runtime.taskId'],
    ['taskId', 't'.repeat(201), 'state.runtime.taskId'],
  ];

  it('in another shape is refused with INVALID_STRUCTURE naming the path and the patch, and nothing of the call is applied', async () => {
    const ws = await workspace();
    await dashboard(ws);
    const before = structuredClone(ws.ui.get('dash'));
    for (const [key, value, path, pageDraws] of REFUSED) {
      const result = await ws.ui.patch({
        instanceId: 'dash',
        patches: [
          { op: 'set', path: 'meta.status', value: 'submitted' },
          { op: 'set', path: `state.runtime.${key}`, value },
          { op: 'set', path: 'state.params.note', value: 'kept?' },
        ],
      });
      expect(result, `${key} = ${JSON.stringify(value).slice(0, 80)}`).toMatchObject({
        success: false,
        errors: [{ code: 'INVALID_STRUCTURE', patchIndex: 1, path: `state.runtime.${key}` }],
      });
      const message = (result as { errors: { message: string }[] }).errors[0]?.message ?? '';
      expect(message.startsWith(`${path}: `), message).toBe(true);
      // The page would not draw it either.
      const read = READERS[key](value as Json);
      if (pageDraws === undefined)
        expect(read.kind === 'bad' || (key === 'images' && read.kind === 'ok' && (read.value as { skipped: number }).skipped > 0), key).toBe(true);
    }
    expect(ws.ui.get('dash')).toEqual(before);
  });

  it('is checked only under a key a block shows, when the call writes the key or the blocks, whatever the order in the call', async () => {
    const ws = await workspace();
    await ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: 'w', patches: [{ op: 'set', path: 'blocks', value: [block('plain', {})] }] });
    const call = (patches: PatchInput['patches']) => ws.ui.patch({ instanceId: 'w', patches });
    // No block shows the progress: the key is the model's own, in any shape.
    expect(await call([{ op: 'set', path: 'state.runtime.progress', value: 'half way' }])).toMatchObject({ success: true, version: 2 });
    // A block that would show it now: refused at that patch.
    expect(
      await call([
        { op: 'set', path: 'state.runtime.status', value: 'fine' },
        { op: 'add', path: 'blocks+', value: block('bar', { showProgress: true }) },
      ]),
    ).toMatchObject({ success: false, errors: [{ code: 'INVALID_STRUCTURE', patchIndex: 1, path: 'blocks+' }] });
    expect(ws.ui.get('w')?.version).toBe(2);
    // The block first and the data after, in one call: the instance the call leaves is what counts.
    expect(
      await call([
        { op: 'add', path: 'blocks+', value: block('bar', { showProgress: true }) },
        { op: 'set', path: 'state.runtime.progress', value: { value: 1, max: 4 } },
      ]),
    ).toMatchObject({ success: true, version: 3 });
    // Null or removed: nothing to draw, and accepted.
    expect(await call([{ op: 'set', path: 'state.runtime.progress', value: null }])).toMatchObject({ success: true });
    expect(await call([{ op: 'remove', path: 'state.runtime.progress' }])).toMatchObject({ success: true });
    // The whole runtime at once is checked as well, and named by its patch.
    expect(await call([{ op: 'set', path: 'state.runtime', value: { progress: 200 } }])).toMatchObject({
      success: false,
      errors: [{ patchIndex: 0, path: 'state.runtime', message: expect.stringMatching(/^state\.runtime\.progress: /) as unknown }],
    });
    expect(await call([{ op: 'set', path: 'state', value: { params: {}, runtime: { progress: 'x' } } }])).toMatchObject({ success: false });
    // Data stored before a block showed it is not held against a call that touches neither.
    const legacy = applyPatchInput({ instanceId: 'w', patches: [{ op: 'set', path: 'meta.status', value: 'submitted' }] }, () => ({
      ...(ws.ui.get('w')?.instance as UIInstance),
      state: { params: {}, runtime: { progress: 'old' } },
    }));
    expect(legacy.ok).toBe(true);
  });

  it('is accepted exactly when its shape is right, and then the page draws it; a refused call leaves the instance as it was (property)', () => {
    const text = fc.string({ maxLength: 12 });
    const sha = fc.stringMatching(/^[0-9a-f]{64}$/);
    const png = `data:image/png;base64,${PNG}`;
    const cell = fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null));
    const row = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'name', 'constructor'), cell, { maxKeys: 3 });
    const good: Record<BlockDataKey, fc.Arbitrary<JsonValue>> = {
      progress: fc.oneof(
        fc.integer({ min: 0, max: 100 }),
        fc
          .tuple(fc.nat({ max: 1000 }), fc.integer({ min: 1, max: 1000 }), fc.option(text, { nil: undefined }))
          .map(([a, b, label]) => ({ value: Math.min(a, b), max: b, ...(label !== undefined && { label }) })),
      ),
      status: fc.oneof(text, fc.record({ text, level: fc.constantFrom('info', 'success', 'warning', 'error') }, { requiredKeys: ['text'] })),
      images: fc.array(
        fc.oneof(
          fc.record({ src: fc.constant(png), alt: text }),
          fc.record({ blob: sha.map((sha256) => ({ sha256 })), alt: text, caption: text }, { requiredKeys: ['blob', 'alt'] }),
        ),
        { maxLength: 4 },
      ),
      table: fc.oneof(
        fc.array(row, { maxLength: 4 }),
        fc.record({
          columns: fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'zz'), label: text }), { maxLength: 3 }),
          rows: fc.array(row, { maxLength: 3 }),
        }),
      ),
      count: fc.nat(),
      taskId: fc.string({ minLength: 1, maxLength: 30 }),
    };
    const bad: Record<BlockDataKey, fc.Arbitrary<JsonValue>> = {
      progress: fc.oneof(
        fc.integer({ min: 101 }),
        fc.integer({ max: -1 }),
        text,
        fc.integer({ min: 1, max: 100 }).map((max) => ({ value: max + 1, max })),
      ),
      status: fc.oneof(fc.integer(), fc.boolean(), fc.record({ text, level: fc.constantFrom('fatal', 'INFO', '') }), fc.constant({ level: 'info' })),
      images: fc.oneof(
        fc.constant(png),
        fc.webUrl().map((src) => [{ src, alt: 'x' }]),
        fc.constantFrom('javascript:window.__pwned=1', 'data:image/svg+xml;base64,PHN2Zz4=').map((src) => [{ src, alt: 'x' }]),
        fc.constant([{ src: png }]),
      ) as fc.Arbitrary<JsonValue>,
      table: fc.oneof(fc.constant([{ a: { b: 1 } }]), fc.constant({ rows: [{ a: [] }] }), text, fc.integer()) as fc.Arbitrary<JsonValue>,
      count: fc.oneof(
        fc.integer({ max: -1 }),
        fc.double({ min: 0.1, max: 1e6, noNaN: true }).filter((n) => !Number.isInteger(n)),
        text,
      ),
      taskId: fc.oneof(fc.constant(''), fc.integer(), fc.string({ minLength: 201, maxLength: 210 })),
    };
    const keys = Object.values(BLOCK_DATA_KEYS);
    const datum = (key: BlockDataKey) =>
      fc.oneof(
        fc.constant({ kind: 'absent' as const }),
        fc.constant({ kind: 'null' as const, value: null }),
        good[key].map((value) => ({ kind: 'good' as const, value })),
        bad[key].map((value) => ({ kind: 'bad' as const, value })),
      );
    const props = fc.record(Object.fromEntries(Object.keys(BLOCK_DATA_KEYS).map((prop) => [prop, fc.boolean()])) as Record<string, fc.Arbitrary<boolean>>);
    const data = fc.record(Object.fromEntries(keys.map((key) => [key, datum(key)])) as Record<BlockDataKey, ReturnType<typeof datum>>);
    fc.assert(
      fc.property(props, data, (shown, given) => {
        const runtime: Record<string, JsonValue> = {};
        for (const key of keys) if (given[key].kind !== 'absent') runtime[key] = (given[key] as { value: JsonValue }).value;
        const showing = (key: BlockDataKey) => shown[Object.entries(BLOCK_DATA_KEYS).find(([, k]) => k === key)?.[0] as string] === true;
        const wrong = keys.filter((key) => showing(key) && given[key].kind === 'bad');
        // Through an update of a valid instance: refused, it is left as it was.
        const current: UIInstance = {
          meta: { pageKey: 'p', step: { current: 1, total: 1 }, status: 'idle' },
          state: { params: {}, runtime: {} },
          blocks: [],
          actions: [],
        };
        const kept = structuredClone(current);
        const outcome = applyPatchInput(
          {
            instanceId: 'p',
            patches: [
              { op: 'set', path: 'blocks', value: [block('b', shown)] },
              { op: 'set', path: 'state.runtime', value: runtime },
            ],
          },
          (id) => (id === 'p' ? current : undefined),
        );
        expect(current).toEqual(kept);
        if (wrong.length > 0) {
          expect(outcome.ok).toBe(false);
          const error = (outcome as { errors: { code: string; patchIndex: number; message: string }[] }).errors[0];
          expect(error).toMatchObject({ code: 'INVALID_STRUCTURE', patchIndex: 1 });
          expect(wrong.some((key) => error?.message.startsWith(`state.runtime.${key}`))).toBe(true);
          return;
        }
        expect(outcome.ok).toBe(true);
        // What was accepted under a shown key, the page draws whole (nothing bad, no image left out).
        for (const key of keys.filter(showing)) {
          const read = READERS[key](runtime[key] as Json | undefined);
          expect(read.kind, `${key}: ${JSON.stringify(runtime[key])}`).not.toBe('bad');
          if (read.kind === 'ok' && key === 'images') expect((read.value as { skipped: number }).skipped).toBe(0);
        }
      }),
      { numRuns: Math.max(1, Math.round(300 * SCALE)) },
    );
  });
});

describe('the count input on the click path', () => {
  it('writes the count to state.runtime.count with the form’s values, in one patch_ui_state call, and tells the click', async () => {
    const ws = await workspace();
    await ws.ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: 'order',
      patches: [
        { op: 'set', path: 'blocks', value: [block('b', { showCountInput: true }, [{ label: 'Name', key: 'name', type: 'text' }])] },
        { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Order', style: 'primary' }] },
      ],
    });
    const clicked = await applyUiAction(ws.ui, { type: 'UI_ACTION', instanceId: 'order', actionId: 'go', values: { name: 'Ada' }, count: 4 });
    expect(clicked).toMatchObject({ ok: true, event: { values: { name: 'Ada' }, count: 4, version: 2 } });
    expect(ws.ui.get('order')?.instance.state).toEqual({ params: { name: 'Ada' }, runtime: { count: 4 } });
    // A count that is no whole number 0 or more is refused by the engine, the values with it.
    for (const count of [2.5, -3, '3']) {
      const refused = await applyUiAction(ws.ui, { type: 'UI_ACTION', instanceId: 'order', actionId: 'go', values: { name: 'Bob' }, count: count as number });
      expect(refused).toMatchObject({ ok: false, code: 'INVALID_STRUCTURE' });
    }
    expect(ws.ui.get('order')).toMatchObject({ version: 2, instance: { state: { params: { name: 'Ada' }, runtime: { count: 4 } } } });
    // Without a count, a click leaves the count as it is.
    expect(await applyUiAction(ws.ui, { type: 'UI_ACTION', instanceId: 'order', actionId: 'go', values: {} })).toMatchObject({
      ok: true,
      event: { version: 2 },
    });
    expect(((await applyUiAction(ws.ui, { type: 'UI_ACTION', instanceId: 'order', actionId: 'go' })) as { event: object }).event).not.toHaveProperty('count');
  });

  it('is refused for an instance that shows no count input', async () => {
    const ws = await workspace();
    await ws.ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: 'plain',
      patches: [
        { op: 'set', path: 'blocks', value: [block('b', {})] },
        { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Go', style: 'primary' }] },
      ],
    });
    expect(await applyUiAction(ws.ui, { type: 'UI_ACTION', instanceId: 'plain', actionId: 'go', count: 1 })).toMatchObject({
      ok: false,
      code: 'PATH_NOT_FOUND',
    });
    expect(ws.ui.get('plain')?.version).toBe(1);
  });
});

describe('an image by blob', () => {
  async function handler(ws: Workspace): Promise<GolemHandler> {
    const golem = await createGolemHandler(ws, { auth: false, user: (request) => request.headers.get('x-user') });
    cleanups.push(() => golem.close());
    return golem;
  }
  const get = (golem: GolemHandler, user: string, path: string) => golem.fetch(new Request(`http://app.test${path}`, { headers: { 'x-user': user } }));

  it('is served for an instance its user may see that shows it, as the image it is and never as a page; anything else is not found', async () => {
    const ws = await workspace();
    const golem = await handler(ws);
    const session = async (user: string) =>
      (
        (await (
          await golem.fetch(
            new Request('http://app.test/api/sessions', { method: 'POST', headers: { 'x-user': user, 'content-type': 'application/json' }, body: '{}' }),
          )
        ).json()) as SessionSummary
      ).id;
    const ann = await session('ann');
    await session('bob');
    const bytes = Buffer.from(PNG, 'base64');
    const png = await ws.blobs.register(bytes, { mediaType: 'image/png' });
    const svg = await ws.blobs.register(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), { mediaType: 'image/svg+xml' });
    const other = await ws.blobs.register(Buffer.from(`${PNG}x`), { mediaType: 'image/png' });
    const images = [png, svg].map((b) => ({ blob: { sha256: b.sha256 }, alt: b.mediaType }));
    const create = (id: string, props: Record<string, unknown>) =>
      ws.ui.patch(
        {
          instanceId: '__CREATE__',
          newInstanceId: id,
          patches: [
            { op: 'set', path: 'state', value: { params: {}, runtime: { images } } },
            { op: 'set', path: 'blocks', value: [block('pics', props)] },
          ],
        },
        { builtBy: ann },
      );
    expect(await create('gallery', { showImages: true })).toMatchObject({ success: true });
    expect(await create('hidden', {})).toMatchObject({ success: true });

    const served = await get(golem, 'ann', `/api/ui/gallery/images/${png.sha256}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);

    // Another user, an SVG, a blob no image names, an instance that shows no images, an unknown one: all alike.
    for (const [user, path] of [
      ['bob', `/api/ui/gallery/images/${png.sha256}`],
      ['ann', `/api/ui/gallery/images/${svg.sha256}`],
      ['ann', `/api/ui/gallery/images/${other.sha256}`],
      ['ann', `/api/ui/hidden/images/${png.sha256}`],
      ['ann', `/api/ui/nope/images/${png.sha256}`],
    ] as const) {
      const res = await get(golem, user, path);
      expect(res.status, `${user} ${path}`).toBe(404);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('BLOB_NOT_FOUND');
    }
  });
});
