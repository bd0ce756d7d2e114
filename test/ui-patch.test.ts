/**
 * patch_ui_state (seed 004) through `ws.ui`: every path pattern, the instance operations,
 * atomic calls, the seed's error codes, the command log and persistence, and the action.
 */
import { describe, expect, it } from 'vitest';
import { createWorkspace, type PatchInput, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { tempDir } from './helpers.js';

const form = (id: string, keys: string[] = ['name']) => ({
  id,
  type: 'form',
  bind: 'state.params',
  props: { fields: keys.map((key) => ({ label: key, key, type: 'text' })) },
});
const button = (id: string, style = 'primary') => ({ id, label: id, style });

/** The seed's own creation example. */
const create = (id: string): PatchInput => ({
  instanceId: '__CREATE__',
  newInstanceId: id,
  patches: [
    { op: 'set', path: 'meta', value: { pageKey: id, step: { current: 1, total: 1 }, status: 'idle' } },
    { op: 'set', path: 'state', value: { params: {}, runtime: {} } },
    { op: 'set', path: 'blocks', value: [] },
    { op: 'set', path: 'actions', value: [] },
  ],
});

async function withInstance(id = 'demo'): Promise<Workspace> {
  const ws = await createWorkspace();
  expect(await ws.ui.patch(create(id))).toMatchObject({ success: true, kind: 'create', version: 1 });
  return ws;
}

describe('patch_ui_state', () => {
  it('creates an instance as the seed shows, and reads it back', async () => {
    const ws = await withInstance('demo');
    expect(ws.ui.get('demo')).toMatchObject({
      id: 'demo',
      version: 1,
      instance: { meta: { pageKey: 'demo', status: 'idle' }, state: { params: {}, runtime: {} }, blocks: [], actions: [] },
    });
    expect(ws.ui.list().map((r) => r.id)).toEqual(['demo']);
    await ws.close();
  });

  it('applies every path pattern of the seed, in order, with one version a call', async () => {
    const ws = await withInstance();
    const call = (patches: PatchInput['patches']) => ws.ui.patch({ instanceId: 'demo', patches });
    expect(
      await call([
        { op: 'set', path: 'state.params.count', value: 42 },
        { op: 'set', path: 'state.runtime.status', value: 'busy' },
      ]),
    ).toMatchObject({ success: true, version: 2 });
    expect(
      await call([
        { op: 'add', path: 'blocks+', value: form('a') },
        { op: 'add', path: 'blocks+', items: [form('b'), form('c')] },
      ]),
    ).toMatchObject({ success: true, version: 3 });
    expect(await call([{ op: 'set', path: 'blocks-0', value: form('a', ['email']) }])).toMatchObject({ success: true });
    expect(await call([{ op: 'set', path: 'blocks["b"]', value: form('b', ['age']) }])).toMatchObject({ success: true });
    expect(await call([{ op: 'remove', path: 'blocks-"c"' }])).toMatchObject({ success: true });
    expect(
      await call([
        { op: 'replace', path: 'actions', value: [button('save'), button('reset', 'secondary')] },
        { op: 'add', path: 'actions+', value: button('drop', 'danger') },
      ]),
    ).toMatchObject({ success: true });
    expect(
      await call([
        { op: 'set', path: 'actions-1', value: button('clear', 'secondary') },
        { op: 'set', path: 'actions["save"]', value: button('save', 'secondary') },
        { op: 'remove', path: 'actions-"drop"' },
      ]),
    ).toMatchObject({ success: true });
    expect(
      await call([
        { op: 'set', path: 'layout', value: { type: 'single' } },
        { op: 'set', path: 'meta.status', value: 'submitted' },
        { op: 'set', path: 'meta.step', value: { current: 2, total: 3 } },
      ]),
    ).toMatchObject({ success: true });
    expect(await call([{ op: 'clear', path: 'state.runtime' }])).toMatchObject({ success: true, version: 10 });
    const { instance } = ws.ui.get('demo') ?? {};
    expect(instance).toEqual({
      meta: { pageKey: 'demo', step: { current: 2, total: 3 }, status: 'submitted' },
      state: { params: { count: 42 }, runtime: {} },
      blocks: [form('a', ['email']), form('b', ['age'])],
      actions: [button('save', 'secondary'), button('clear', 'secondary')],
      layout: { type: 'single' },
    });
    await ws.close();
  });

  it('refuses a call with the seed codes, naming the patch and its path, and applies none of it', async () => {
    const ws = await withInstance();
    await ws.ui.patch({ instanceId: 'demo', patches: [{ op: 'add', path: 'blocks+', value: form('a') }] });
    const before = ws.ui.get('demo');
    const cases: [PatchInput, string, number, RegExp][] = [
      [{ instanceId: 'nope', patches: [] }, 'INVALID_INSTANCE', -1, /no instance "nope"/],
      [
        {
          instanceId: 'demo',
          patches: [
            { op: 'set', path: 'state.params.x', value: 1 },
            { op: 'merge' as 'set', path: 'blocks', value: [] },
          ],
        },
        'INVALID_OP',
        1,
        /not an op/,
      ],
      [{ instanceId: 'demo', patches: [{ op: 'set', path: 'widgets.x', value: 1 }] }, 'INVALID_PATH', 0, /not a path of patch_ui_state/],
      [
        {
          instanceId: 'demo',
          patches: [
            { op: 'set', path: 'state.params.x', value: 1 },
            { op: 'set', path: 'blocks["zzz"]', value: form('zzz') },
          ],
        },
        'PATH_NOT_FOUND',
        1,
        /no item with the id "zzz" \(ids: a\)/,
      ],
      [{ instanceId: 'demo', patches: [{ op: 'set', path: 'blocks-5', value: form('q') }] }, 'PATH_NOT_FOUND', 0, /has 1 item\(s\); there is no index 5/],
      [{ instanceId: 'demo', patches: [{ op: 'set', path: 'meta.pageKey', value: 'other' }] }, 'SCHEMA_MUTATION', 0, /pageKey cannot change/],
      [{ instanceId: 'demo', patches: [{ op: 'set', path: 'state.params.x', value: 1, baseVersion: 3 } as never] }, 'SCHEMA_MUTATION', 0, /no "baseVersion"/],
      [{ instanceId: 'demo', patches: [{ op: 'set', path: 'state.params.x' }] }, 'MISSING_VALUE', 0, /needs a value/],
      [
        {
          instanceId: 'demo',
          patches: [
            { op: 'set', path: 'state.params.y', value: 1 },
            { op: 'set', path: 'state.params.x', value: undefined },
          ],
        },
        'MISSING_VALUE',
        1,
        /needs a value/,
      ],
      [{ instanceId: 'demo', patches: [{ op: 'add', path: 'blocks+', value: form('a') }] }, 'DUPLICATE_ID', 0, /two blocks would have the id "a"/],
      [{ instanceId: '__CREATE__', newInstanceId: 'demo', patches: [] }, 'INSTANCE_EXISTS', -1, /exists already/],
      [
        {
          instanceId: 'demo',
          patches: [{ op: 'add', path: 'blocks+', value: { ...form('s'), props: { fields: [{ label: 'Pick', key: 'p', type: 'select' }] } } }],
        },
        'INVALID_STRUCTURE',
        0,
        /needs options/,
      ],
      [{ instanceId: 'demo', patches: [{ op: 'add', path: 'actions+', value: button('x', 'fancy') }] }, 'INVALID_STRUCTURE', 0, /style/],
      [{ instanceId: 'demo', patches: [{ op: 'add', path: 'blocks+', value: { ...form('t'), type: 'chart' } }] }, 'INVALID_STRUCTURE', 0, /type/],
      [{ instanceId: 'demo', patches: [{ op: 'create' as 'set', path: 'blocks' }] }, 'INVALID_OP', 0, /instance operation/],
      [{ instanceId: 'demo', patches: [{ op: 'clear', path: 'blocks' }] }, 'INVALID_OP', 0, /does not apply to blocks/],
      [{ instanceId: 'demo', patches: [{ op: 'set', path: 'state.params.__proto__', value: { polluted: true } }] }, 'INVALID_PATH', 0, /cannot be a key/],
      [{ instanceId: '__DELETE__', patches: [] }, 'MISSING_VALUE', -1, /targetInstanceId is required/],
    ];
    for (const [input, code, patchIndex, message] of cases) {
      const result = await ws.ui.patch(input);
      expect(result, `${code}: ${JSON.stringify(input).slice(0, 120)}`).toMatchObject({ success: false, errors: [{ code, patchIndex }] });
      if (result.success) continue;
      expect(result.errors[0]?.message).toMatch(message);
      expect(result.errors[0]?.path).toBe(patchIndex === -1 ? '' : (input.patches[patchIndex]?.path ?? ''));
    }
    // Nothing of any refused call was applied, not even the patches before the failing one.
    expect(ws.ui.get('demo')).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await ws.close();
  });

  it('compiles each call to RFC 6902 JSON Patch, guarding id-addressed changes with a test', async () => {
    const ws = await withInstance();
    const added = await ws.ui.patch({
      instanceId: 'demo',
      patches: [
        { op: 'add', path: 'blocks+', items: [form('a'), form('b')] },
        { op: 'set', path: 'state.params.a/b~c', value: 1 },
      ],
    });
    expect(added.success && added.jsonPatch).toEqual([
      { op: 'add', path: '/blocks/-', value: form('a') },
      { op: 'add', path: '/blocks/-', value: form('b') },
      { op: 'add', path: '/state/params/a~1b~0c', value: 1 },
    ]);
    const byId = await ws.ui.patch({
      instanceId: 'demo',
      patches: [
        { op: 'set', path: 'blocks["b"]', value: form('b', ['x']) },
        { op: 'remove', path: 'blocks-"a"' },
      ],
    });
    expect(byId.success && byId.jsonPatch).toEqual([
      { op: 'test', path: '/blocks/1/id', value: 'b' },
      { op: 'replace', path: '/blocks/1', value: form('b', ['x']) },
      { op: 'test', path: '/blocks/0/id', value: 'a' },
      { op: 'remove', path: '/blocks/0' },
    ]);
    await ws.close();
  });

  it('deletes an instance, and keeps every call in the command log and on disk', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir });
    await ws.ui.patch(create('form'));
    await ws.ui.patch(create('gone'));
    await ws.ui.patch({ instanceId: 'form', patches: [{ op: 'add', path: 'blocks+', value: form('f') }] });
    expect(await ws.ui.patch({ instanceId: '__DELETE__', targetInstanceId: 'gone', patches: [] })).toMatchObject({
      success: true,
      kind: 'delete',
      instanceId: 'gone',
    });
    expect(await ws.ui.patch({ instanceId: 'gone', patches: [] })).toMatchObject({ success: false, errors: [{ code: 'INVALID_INSTANCE' }] });
    const commands = (await ws.manager.store.stats()).commands;
    await ws.close();
    const again = await createWorkspace({ dir });
    expect(again.ui.list().map((r) => [r.id, r.version])).toEqual([['form', 2]]);
    expect(again.ui.get('form')?.instance.blocks).toEqual([form('f')]);
    // Refused calls wrote nothing.
    expect((await again.manager.store.stats()).commands).toBe(commands);
    await again.close();
  });

  it('is an action a worker offers the model, on the same path', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const model = scriptedModel([
      { toolCalls: [{ name: 'patch_ui_state', input: create('signup') as never }] },
      {
        toolCalls: [
          {
            name: 'patch_ui_state',
            input: {
              instanceId: 'signup',
              patches: [
                { op: 'add', path: 'blocks+', value: form('f', ['email']) },
                { op: 'add', path: 'actions+', value: button('submit') },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'patch_ui_state', input: { instanceId: 'signup', patches: [{ op: 'add', path: 'actions+', value: button('submit') }] } }] },
      { text: 'The form is ready.' },
    ]);
    const outcome = await ws.worker({ session, model, actions: [ws.ui.action()] }).run('build a signup form');
    expect(outcome.actions.map((a) => a.ok)).toEqual([true, true, false]);
    expect(ws.ui.get('signup')).toMatchObject({ version: 2, instance: { blocks: [form('f', ['email'])], actions: [button('submit')] } });
    // The refusal reached the model with its code.
    expect(JSON.stringify(model.calls[3]?.messages.at(-1))).toContain('DUPLICATE_ID');
    await ws.close();
  });
});
