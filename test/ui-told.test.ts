/**
 * What the model is told of patch_ui_state and get_ui_state, and what the code does with it
 * (issue 37, section 4): each test reads the description or the input schema the model gets,
 * then makes the call it describes, as a model would (through a worker, whose calls are checked
 * against that schema), and reads the instance back after a reopen, on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { createWorkspace, type Action, type JsonObject, type Workspace, type WorkerEvent } from '../src/index.js';
import { SUBMITTED_VALUES } from '../src/ui/ui-read.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { scriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { openClosed, tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

type Kind = 'sqlite' | 'postgres';

function reopener(kind: Kind): () => Promise<Workspace> {
  const dir = tempDir();
  const schema = freshSchema('uitold');
  return () => openClosed(kind === 'sqlite' ? { dir } : { store: postgresStore(PG_URL, { schema }) });
}

const toolOf = (ws: Workspace, name: string) => {
  const action = ws.ui.actions().find((a) => a.name === name) as Action;
  return action.toTool() as { name: string; description: string; inputSchema: JsonObject & { $defs: Record<string, JsonObject> } };
};
const schemaAt = (schema: JsonObject, ...path: string[]) => path.reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], schema);

/** Runs a worker whose model makes these patch_ui_state calls, one an answer; the result of each. */
async function modelCalls(ws: Workspace, calls: JsonObject[]): Promise<{ ok: boolean; output: unknown }[]> {
  const session = await ws.sessions.create();
  const script: ScriptedResponse[] = [...calls.map((input) => ({ toolCalls: [{ name: 'patch_ui_state', input }] })), { text: 'built' }];
  const results: { ok: boolean; output: unknown }[] = [];
  const onEvent = (e: WorkerEvent) => e.type === 'action' && results.push({ ok: e.ok, output: e.output });
  const outcome = await ws.worker({ session, model: scriptedModel(script), actions: ws.ui.actions(), onEvent }).run('build it');
  expect(outcome.status).toBe('done');
  return results;
}

const table = { label: 'Orders', key: 'rows', type: 'table', columns: [{ key: 'month' }, { key: 'total' }] };
const chart = { label: 'Orders by month', key: 'rows', type: 'chart', chart: 'bar', x: 'month', y: ['total'] };
const rows = [
  { month: 'Jan', total: 3 },
  { month: 'Feb', total: 5 },
];

describe('patch_ui_state: what its schema and description say is what it does', () => {
  it('lists exactly the ops that work, offers no condition, and refuses the instance ops as patches', async () => {
    const ws = await createWorkspace();
    const tool = toolOf(ws, 'patch_ui_state');
    const op = schemaAt(tool.inputSchema, 'properties', 'patches', 'items', 'properties', 'op') as { enum: string[]; description: string };
    expect(op.enum).toEqual(['set', 'add', 'remove', 'clear', 'replace']);
    expect(op.description).toBe(op.enum.join(' | '));
    expect(Object.keys(schemaAt(tool.inputSchema, 'properties', 'patches', 'items', 'properties') as object)).toEqual(['op', 'path', 'value', 'items']);
    expect(tool.description).not.toMatch(/condition/);
    // Each listed op works on a path the description gives it.
    const results = await modelCalls(ws, [
      {
        instanceId: '__CREATE__',
        newInstanceId: 'ops',
        patches: [
          { op: 'set', path: 'state.params.a', value: 1 },
          { op: 'add', path: 'blocks+', value: { id: 'f', type: 'form', props: { fields: [] } } },
          { op: 'replace', path: 'layout', value: { type: 'single' } },
          { op: 'remove', path: 'state.params.a' },
          { op: 'clear', path: 'state.runtime' },
        ],
      },
      // Not in the schema: refused before it runs.
      { instanceId: 'ops', patches: [{ op: 'set', path: 'state.params.a', value: 2, condition: 'state.params.a == 1' }] },
      { instanceId: 'ops', patches: [{ op: 'delete', path: 'blocks' }] },
    ]);
    expect(results.map((r) => r.ok)).toEqual([true, false, false]);
    expect(ws.ui.get('ops')).toMatchObject({ version: 1, instance: { state: { params: {}, runtime: {} }, blocks: [{ id: 'f', bind: 'state.params' }] } });
    // Through ws.ui.patch (no schema in front), the engine still refuses both, with the seed's codes.
    expect(await ws.ui.patch({ instanceId: 'ops', patches: [{ op: 'create' as 'set', path: 'blocks' }] })).toMatchObject({
      success: false,
      errors: [{ code: 'INVALID_OP', message: expect.stringContaining('instanceId "__CREATE__"') }],
    });
    const conditional = { op: 'set', path: 'state.params.a', value: 2, condition: 'x' } as unknown as { op: 'set'; path: string };
    expect(await ws.ui.patch({ instanceId: 'ops', patches: [conditional] })).toMatchObject({ success: false, errors: [{ code: 'INVALID_STRUCTURE' }] });
    expect(ws.ui.get('ops')?.version).toBe(1);
    await ws.close();
  });

  it('tells the model rid is no member of a field, and refuses one', async () => {
    const ws = await createWorkspace();
    const tool = toolOf(ws, 'patch_ui_state');
    expect(Object.keys(schemaAt(tool.inputSchema, '$defs', 'fieldBase', 'properties') as object)).not.toContain('rid');
    const refused = await ws.ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: 'r',
      patches: [{ op: 'set', path: 'blocks', value: [{ id: 'f', type: 'form', props: { fields: [{ label: 'A', key: 'a', type: 'text', rid: 'r1' }] } }] }],
    });
    expect(refused).toMatchObject({ success: false, errors: [{ code: 'INVALID_STRUCTURE', message: expect.stringContaining('rid') }] });
    expect(ws.ui.get('r')).toBeUndefined();
    await ws.close();
  });

  it('display fields of one block may share a key as the description says; an input field keeps its key to itself', async () => {
    const ws = await createWorkspace();
    const { description } = toolOf(ws, 'patch_ui_state');
    expect(description).toContain(
      "Display fields of a block may share a key (a table and a chart of the same rows); an input field's key is its alone in its block.",
    );
    const block = (fields: JsonObject[]) => ({ op: 'set', path: 'blocks', value: [{ id: 'b', type: 'form', bind: 'state.runtime', props: { fields } }] });
    const create = (id: string, fields: JsonObject[]) =>
      ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: id, patches: [{ op: 'set', path: 'state.runtime.rows', value: rows }, block(fields)] as never });
    expect(await create('shared', [table, chart])).toMatchObject({ success: true });
    expect(ws.ui.get('shared')?.instance.blocks[0]?.props?.fields?.map((f) => f.type)).toEqual(['table', 'chart']);
    const text = { label: 'Rows', key: 'rows', type: 'text' };
    for (const fields of [
      [table, text],
      [text, { ...text, label: 'Again' }],
    ])
      expect(await create('refused', fields)).toMatchObject({
        success: false,
        errors: [
          { code: 'INVALID_STRUCTURE', patchIndex: 1, message: expect.stringContaining('takes input, so no other field of the block can have its key') },
        ],
      });
    expect(ws.ui.get('refused')).toBeUndefined();
    await ws.close();
  });
});

describe.each<Kind>(['sqlite', 'postgres'])('patch_ui_state as told, on %s', (kind) => {
  it('takes a block without bind as state.params, and a set into a state the new instance lacks, read back after a reopen', async () => {
    const reopen = reopener(kind);
    let ws = await reopen();
    const tool = toolOf(ws, 'patch_ui_state');
    expect(tool.description).toContain('bind?: "state.params" (the default) | "state.runtime"');
    expect(tool.description).toContain('(state.params by default)');
    expect(tool.description).toContain(
      'While an instance is created, set and add first make the meta, state or list they write into when no patch before them did.',
    );
    const block = tool.inputSchema.$defs.block as { required: string[]; properties: { bind: { default: string } } };
    expect(block.required).not.toContain('bind');
    expect(block.properties.bind.default).toBe('state.params');
    const results = await modelCalls(ws, [
      {
        instanceId: '__CREATE__',
        newInstanceId: 'orders',
        // The seed's own words: set creates the path if it is missing (no "set state" before it).
        patches: [
          { op: 'set', path: 'state.params.rows', value: rows },
          { op: 'set', path: 'meta.status', value: 'submitted' },
          { op: 'add', path: 'blocks+', value: { id: 'view', type: 'form', props: { fields: [table, chart] } } },
          { op: 'add', path: 'actions+', value: { id: 'ok', label: 'OK', style: 'primary' } },
        ],
      },
      {
        instanceId: 'orders',
        patches: [{ op: 'add', path: 'blocks+', value: { id: 'more', type: 'form', props: { fields: [{ label: 'Note', key: 'note', type: 'text' }] } } }],
      },
    ]);
    expect(results).toEqual([
      { ok: true, output: { success: true, kind: 'create', instanceId: 'orders', version: 1 } },
      { ok: true, output: { success: true, kind: 'update', instanceId: 'orders', version: 2 } },
    ]);
    await ws.close();
    ws = await reopen();
    expect(ws.ui.get('orders')).toMatchObject({
      version: 2,
      instance: {
        meta: { pageKey: 'orders', status: 'submitted', step: { current: 1, total: 1 } },
        state: { params: { rows }, runtime: {} },
        blocks: [
          { id: 'view', bind: 'state.params' },
          { id: 'more', bind: 'state.params' },
        ],
        actions: [{ id: 'ok' }],
      },
    });
    // The default bind is where a click writes: the note lands in state.params.
    expect(await ws.ui.click({ instanceId: 'orders', actionId: 'ok', values: { note: 'hi' } })).toMatchObject({ ok: true });
    await ws.close();
    ws = await reopen();
    expect(ws.ui.get('orders')?.instance.state.params.note).toBe('hi');
    await ws.close();
  });

  it('takes schemaVersion when the instance is created, and refuses it after, as the schema says', async () => {
    const reopen = reopener(kind);
    let ws = await reopen();
    const tool = toolOf(ws, 'patch_ui_state');
    expect(schemaAt(tool.inputSchema, 'properties', 'schemaVersion', 'description')).toBe(
      'With "__CREATE__" only: the version of your schema, kept with the instance; it cannot change after',
    );
    expect(tool.description).toContain('schemaVersion may be given then, and only then');
    const results = await modelCalls(ws, [
      { instanceId: '__CREATE__', newInstanceId: 'v', schemaVersion: '2.1', patches: [] },
      { instanceId: 'v', schemaVersion: '3', patches: [{ op: 'set', path: 'state.params.a', value: 1 }] },
    ]);
    expect(results[0]).toEqual({ ok: true, output: { success: true, kind: 'create', instanceId: 'v', version: 1 } });
    expect(results[1]?.ok).toBe(false);
    expect(results[1]?.output).toMatchObject({ success: false, errors: [{ code: 'SCHEMA_MUTATION', patchIndex: -1 }] });
    await ws.close();
    ws = await reopen();
    expect(ws.ui.get('v')).toMatchObject({ version: 1, instance: { schemaVersion: '2.1', state: { params: {} } } });
    expect(await ws.ui.patch({ instanceId: 'v', patches: [{ op: 'set', path: 'schemaVersion', value: '3' }] })).toMatchObject({
      success: false,
      errors: [{ code: 'INVALID_PATH', message: expect.stringContaining('give it on the creating call itself') }],
    });
    await ws.close();
  });
});

describe('get_ui_state and patch_ui_state say the same of what the user typed', () => {
  it('both say the state holds what a click sent, and get_ui_state returns exactly that', async () => {
    const ws = await createWorkspace();
    const patch = toolOf(ws, 'patch_ui_state').description;
    const get = toolOf(ws, 'get_ui_state').description;
    const list = toolOf(ws, 'list_ui_instances').description;
    expect(SUBMITTED_VALUES).toContain('what they typed without clicking is not there');
    expect(patch).toContain(`get_ui_state reads an instance back: ${SUBMITTED_VALUES}`);
    expect(get).toContain(SUBMITTED_VALUES);
    for (const text of [patch, get, list]) expect(text).not.toMatch(/with what the user (typed|entered)/);
    await ws.ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: 'form',
      patches: [
        { op: 'set', path: 'blocks', value: [{ id: 'f', type: 'form', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } }] },
        { op: 'set', path: 'actions', value: [{ id: 'send', label: 'Send', style: 'primary' }] },
      ],
    });
    const read = ws.ui.actions().find((a) => a.name === 'get_ui_state') as Action;
    const state = async () => ((await read.run({ instanceId: 'form' }, {} as never)) as { instance: { state: { params: JsonObject } } }).instance.state.params;
    expect(await state()).toEqual({});
    expect(await ws.ui.click({ instanceId: 'form', actionId: 'send', values: { name: 'Ada' } })).toMatchObject({ ok: true });
    expect(await state()).toEqual({ name: 'Ada' });
    await ws.close();
  });
});
