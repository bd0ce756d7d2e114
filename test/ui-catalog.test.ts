/**
 * The UI catalog (issue 23, docs/ui-catalog.md) by example: registering a component (its
 * checks, and the engine then taking it and refusing bad props), a workspace reopened without
 * it still reading its instances, `patch_ui_state`'s description and `$defs` generated from
 * the catalog (also through the MCP server), malformed templates, visibility rules and
 * handlers refused, image hosts allowed one by one. The shared rules (src/ui/rules.ts) are in
 * test/ui-catalog-rules.test.ts.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, type PatchInput, type UIPatchResponse, type Workspace } from '../src/index.js';
import { createMcpServer } from '../src/mcp/index.js';
import { UICatalog, type ComponentSpec } from '../src/ui/catalog.js';
import { scriptedModel } from '../src/test/index.js';
import { tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(dir?: string): Promise<Workspace> {
  const ws = await createWorkspace(dir === undefined ? {} : { dir });
  cleanups.push(() => ws.close());
  return ws;
}

const rating: ComponentSpec = {
  type: 'rating',
  kind: 'input',
  description: 'stars from 1 to max',
  props: { max: z.number().int().min(2).max(10) },
  value: z.number().int().min(1),
  example: { label: 'How was it?', key: 'stars', type: 'rating', max: 5 },
};

const block = (fields: unknown[], extra: Record<string, unknown> = {}) => ({ id: 'b', type: 'form', bind: 'state.params', props: { fields, ...extra } });
const create = (id: string, patches: unknown[]): PatchInput => ({ instanceId: '__CREATE__', newInstanceId: id, patches: patches as PatchInput['patches'] });
const withFields = (id: string, fields: unknown[]) => create(id, [{ op: 'set', path: 'blocks', value: [block(fields)] }]);

/** The first refusal of a response (fails the test when it was accepted). */
function refusal(response: UIPatchResponse) {
  if (response.success) expect.fail(`accepted: ${JSON.stringify(response.instance)}`);
  return response.errors[0];
}

describe('catalog.register', () => {
  it('adds a component with its props and value schema; the engine then takes it and refuses bad props', async () => {
    const ws = await workspace();
    expect(ws.ui.catalog.get('rating')).toBeUndefined();
    ws.ui.catalog.register(rating);
    expect(ws.ui.catalog.get('rating')).toMatchObject({ type: 'rating', kind: 'input' });
    expect(ws.ui.catalog.components().at(-1)?.type).toBe('rating');
    expect(ws.ui.catalog.field().safeParse(rating.example).success).toBe(true);

    const ok = await ws.ui.patch(withFields('good', [{ label: 'Stars', key: 'stars', type: 'rating', max: 5, required: true }]));
    expect(ok.success).toBe(true);
    expect(ws.ui.get('good')?.instance.blocks[0]?.props?.fields?.[0]).toEqual({ label: 'Stars', key: 'stars', type: 'rating', max: 5, required: true });

    for (const [field, words] of [
      [{ label: 'Stars', key: 's', type: 'rating', max: 5, colour: 'gold' }, /props\.fields\[0\].*colour/],
      [{ label: 'Stars', key: 's', type: 'rating', max: 'five' }, /props\.fields\[0\]: max/],
      [{ label: 'Stars', key: 's', type: 'rating', max: 11 }, /props\.fields\[0\]: max/],
      [{ label: 'Stars', key: 's', type: 'rating' }, /props\.fields\[0\]: max/],
    ] as const) {
      const refused = refusal(await ws.ui.patch(withFields('bad', [field])));
      expect(refused).toMatchObject({ code: 'INVALID_STRUCTURE', patchIndex: 0, path: 'blocks' });
      expect(refused?.message).toMatch(words);
      expect(ws.ui.get('bad')).toBeUndefined();
    }
    // Another workspace's catalog does not have it.
    const other = await workspace();
    expect(refusal(await other.ui.patch(withFields('good', [{ label: 'Stars', key: 's', type: 'rating', max: 5 }])))?.message).toMatch(
      /"rating" is no component/,
    );
  });

  it('refuses a type taken (DUPLICATE_ID), a bad type name, a bad kind, a prop named like a member every field has, and an example that is no field of it', () => {
    const catalog = new UICatalog();
    catalog.register(rating);
    expect(() => catalog.register(rating)).toThrow(expect.objectContaining({ code: 'DUPLICATE_ID' }));
    expect(() => catalog.register({ ...rating, type: 'text' })).toThrow(expect.objectContaining({ code: 'DUPLICATE_ID' }));
    for (const type of ['', '1star', 'has space', 'a/b', 'x'.repeat(41), '-x'])
      expect(() => catalog.register({ ...rating, type, example: { ...rating.example, type } }), type).toThrow(
        expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
      );
    expect(() => catalog.register({ ...rating, type: 'odd', kind: 'other' as never, example: { ...rating.example, type: 'odd' } })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT' }),
    );
    for (const name of ['label', 'key', 'type', 'value', 'visible', 'description', 'required', 'options'])
      expect(
        () =>
          catalog.register({ ...rating, type: `p_${name}`, props: { [name]: z.string().optional() }, example: { label: 'A', key: 'a', type: `p_${name}` } }),
        name,
      ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining(`"${name}"`) as unknown }));
    expect(() => catalog.register({ ...rating, type: 'stars2', example: { label: 'A', key: 'a', type: 'stars2', max: 1 } })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('example') as unknown }),
    );
    // A display component's example value must be one it can show.
    expect(() =>
      catalog.register({
        type: 'gauge',
        kind: 'display',
        description: 'a gauge',
        value: z.number(),
        example: { label: 'G', key: 'g', type: 'gauge', value: 'x' },
      }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    // None of the refused ones was added.
    expect(catalog.components().map((c) => c.type)).toEqual([...new UICatalog().components().map((c) => c.type), 'rating']);
  });

  it('a display component’s bound value is checked when a call writes it; an input component’s when a click sends it', async () => {
    const ws = await workspace();
    ws.ui.catalog.register({
      type: 'gauge',
      kind: 'display',
      description: 'a gauge',
      value: z.number().min(0).max(1),
      example: { label: 'G', key: 'g', type: 'gauge' },
    });
    ws.ui.catalog.register(rating);
    expect(
      (
        await ws.ui.patch(
          withFields('g', [
            { label: 'Load', key: 'load', type: 'gauge' },
            { label: 'S', key: 's', type: 'rating', max: 5 },
          ]),
        )
      ).success,
    ).toBe(true);
    const bad = refusal(await ws.ui.patch({ instanceId: 'g', patches: [{ op: 'set', path: 'state.params.load', value: 2 }] }));
    expect(bad).toMatchObject({ code: 'INVALID_STRUCTURE', patchIndex: 0, path: 'state.params.load' });
    expect(bad?.message).toContain('state.params.load');
    expect(ws.ui.get('g')?.version).toBe(1);
    expect((await ws.ui.patch({ instanceId: 'g', patches: [{ op: 'set', path: 'state.params.load', value: 0.5 }] })).success).toBe(true);
    // The model may set an input's state to anything (a default); the click's value is checked (test/ui-actions.test.ts).
    expect((await ws.ui.patch({ instanceId: 'g', patches: [{ op: 'set', path: 'state.params.s', value: 'x' }] })).success).toBe(true);
  });

  it('a workspace reopened without the component still opens and reads the instance (stored shapes are structural)', async () => {
    const dir = tempDir();
    const first = await createWorkspace({ dir });
    first.ui.catalog.register(rating);
    const built = await first.ui.patch(
      create('survey', [
        { op: 'set', path: 'blocks', value: [block([{ label: 'Stars', key: 'stars', type: 'rating', max: 5 }])] },
        { op: 'set', path: 'state', value: { params: { stars: 4 }, runtime: {} } },
      ]),
    );
    expect(built.success).toBe(true);
    await first.close();

    const again = await workspace(dir);
    expect(again.ui.catalog.get('rating')).toBeUndefined();
    const record = again.ui.get('survey');
    expect(record?.version).toBe(1);
    expect(record?.instance.blocks[0]?.props?.fields?.[0]).toEqual({ label: 'Stars', key: 'stars', type: 'rating', max: 5 });
    expect(record?.instance.state.params).toEqual({ stars: 4 });
    // A call that leaves its fields alone is taken; one that writes such a field again is not, until it is registered.
    expect((await again.ui.patch({ instanceId: 'survey', patches: [{ op: 'set', path: 'meta.status', value: 'submitted' }] })).success).toBe(true);
    const rewrite = { instanceId: 'survey', patches: [{ op: 'set', path: 'blocks', value: record?.instance.blocks }] } as PatchInput;
    expect(refusal(await again.ui.patch(rewrite))?.message).toMatch(/"rating" is no component/);
    again.ui.catalog.register(rating);
    expect(await again.ui.patch(rewrite)).toMatchObject({ success: true, version: 3 });
  });
});

describe("patch_ui_state's tool comes from the catalog", () => {
  type Branch = { allOf: [{ $ref: string }, { properties: Record<string, { const?: string }> }] };
  const branches = (schema: unknown) => (schema as { $defs: { field: { anyOf: Branch[] } } }).$defs.field.anyOf;
  const fieldTypes = (schema: unknown) => branches(schema).map((b) => b.allOf[1].properties.type?.const);
  const ownProps = (schema: unknown, type: string) =>
    Object.keys(branches(schema).find((b) => b.allOf[1].properties.type?.const === type)?.allOf[1].properties ?? {});

  it('its description names every component, and its $defs.field has a branch per type; a component registered later is in the next toTool()', async () => {
    const ws = await workspace();
    const action = ws.ui.action();
    const types = ws.ui.catalog.components().map((c) => c.type);
    expect(types).toHaveLength(22);
    const tool = action.toTool();
    for (const type of types) expect(tool.description).toContain(`${type} (`);
    expect(fieldTypes(tool.inputSchema)).toEqual(types);
    const defs = (tool.inputSchema as { $defs: Record<string, unknown> }).$defs;
    expect(Object.keys(defs).sort()).toEqual(['action', 'block', 'field', 'fieldBase', 'layout', 'visible']);
    expect(defs.block).toMatchObject({ properties: { props: { properties: { fields: { items: { $ref: '#/$defs/field' } } } } } });
    expect(defs.fieldBase).toMatchObject({
      required: ['label', 'key', 'type'],
      properties: { label: {}, key: {}, required: {}, visible: { $ref: '#/$defs/visible' } },
    });
    // Each branch: every field's members, then its type and its own props.
    for (const branch of branches(tool.inputSchema)) expect(branch.allOf[0]).toEqual({ $ref: '#/$defs/fieldBase' });
    expect(ownProps(tool.inputSchema, 'slider').sort()).toEqual(['max', 'min', 'step', 'type']);
    expect(ownProps(tool.inputSchema, 'table').sort()).toEqual(['columns', 'sortable', 'type']);
    expect(ownProps(tool.inputSchema, 'switch')).toEqual(['type']);

    ws.ui.catalog.register(rating);
    const next = action.toTool();
    expect(next.description).toContain('rating (stars from 1 to max; max)');
    expect(fieldTypes(next.inputSchema)).toEqual([...types, 'rating']);
    expect(fieldTypes(action.jsonSchema)).toEqual([...types, 'rating']);
    expect(action.description).toContain('rating (');
  });

  it('the MCP server lists patch_ui_state with $defs, and a call with a newly registered component works through it', async () => {
    const ws = await workspace();
    ws.ui.catalog.register(rating);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(ws, { model: scriptedModel([]) }).connect(serverSide);
    const client = new Client({ name: 'another-agent', version: '1.0.0' });
    await client.connect(clientSide);
    cleanups.push(() => client.close());
    const tool = (await client.listTools()).tools.find((t) => t.name === 'patch_ui_state');
    expect(fieldTypes(tool?.inputSchema)).toContain('rating');
    expect(tool?.description).toContain('rating (');
    const called = await client.callTool({
      name: 'patch_ui_state',
      arguments: withFields('mcp', [{ label: 'Stars', key: 'stars', type: 'rating', max: 3 }]) as never,
    });
    expect(called.isError).not.toBe(true);
    expect(ws.ui.get('mcp')?.instance.blocks[0]?.props?.fields?.[0]).toMatchObject({ type: 'rating', max: 3 });
    const bad = await client.callTool({
      name: 'patch_ui_state',
      arguments: withFields('mcp2', [{ label: 'Stars', key: 'stars', type: 'rating', max: 30 }]) as never,
    });
    expect(JSON.stringify(bad.content)).toContain('INVALID_STRUCTURE');
    expect(ws.ui.get('mcp2')).toBeUndefined();
  });
});

describe('templates, visibility and handlers are refused when malformed', () => {
  const cases: [string, unknown[], RegExp][] = [
    ['a template of no state value', [{ op: 'set', path: 'blocks', value: [block([{ label: 'Hi ${foo}', key: 'k', type: 'text' }])] }], /\$\{foo\}/],
    ['a template of another root', [{ op: 'set', path: 'blocks', value: [block([{ label: 'Hi ${state.other.x}', key: 'k', type: 'text' }])] }], /state\.other/],
    ['a block title template', [{ op: 'set', path: 'blocks', value: [block([], { title: '${meta.pageKey}' })] }], /meta\.pageKey/],
    ['an action label template', [{ op: 'set', path: 'actions', value: [{ id: 'a', label: 'Go ${state.params}', style: 'primary' }] }], /template/],
    [
      'a visibility rule of no state path',
      [{ op: 'set', path: 'blocks', value: [block([{ label: 'A', key: 'k', type: 'text', visible: { path: 'params.x' } }])] }],
      /visible/,
    ],
    ['a rule comparing two ways', [{ op: 'set', path: 'blocks', value: [block([], { visible: { path: 'state.params.x', equals: 1, in: [1] } })] }], /one way/],
    ['a rule with an unknown member', [{ op: 'set', path: 'blocks', value: [block([], { visible: { path: 'state.params.x', greater: 1 } })] }], /visible/],
    ['an empty list of rules', [{ op: 'set', path: 'actions', value: [{ id: 'a', label: 'Go', style: 'primary', visible: [] }] }], /visible/],
    [
      'a handler path outside the state',
      [{ op: 'set', path: 'actions', value: [{ id: 'a', label: 'Go', style: 'primary', handler: { type: 'set', path: 'meta.status', value: 'x' } }] }],
      /handler/,
    ],
    [
      'a handler path too deep',
      [{ op: 'set', path: 'actions', value: [{ id: 'a', label: 'Go', style: 'primary', handler: { type: 'toggle', path: 'state.params.a.b' } }] }],
      /handler/,
    ],
    [
      'an unknown handler type',
      [{ op: 'set', path: 'actions', value: [{ id: 'a', label: 'Go', style: 'primary', handler: { type: 'multiply', path: 'state.params.a' } }] }],
      /handler/,
    ],
    [
      'a handler without its value',
      [{ op: 'set', path: 'actions', value: [{ id: 'a', label: 'Go', style: 'primary', handler: { type: 'set', path: 'state.params.a' } }] }],
      /handler/,
    ],
    [
      'an increment by a negative',
      [{ op: 'set', path: 'actions', value: [{ id: 'a', label: 'Go', style: 'primary', handler: { type: 'increment', path: 'state.params.a', by: -1 } }] }],
      /by/,
    ],
    [
      'a template handler of a bad template',
      [
        {
          op: 'set',
          path: 'actions',
          value: [{ id: 'a', label: 'Go', style: 'primary', handler: { type: 'template', path: 'state.params.a', template: '${state.x}' } }],
        },
      ],
      /template/,
    ],
    [
      'a block action with a bad handler',
      [{ op: 'set', path: 'blocks', value: [block([], { actions: [{ id: 'a', label: 'Go', style: 'primary', handler: [] }] })] }],
      /handler/,
    ],
  ];
  for (const [what, patches, words] of cases)
    it(what, async () => {
      const ws = await workspace();
      const refused = refusal(await ws.ui.patch(create('x', patches)));
      expect(refused).toMatchObject({ code: 'INVALID_STRUCTURE', patchIndex: 0 });
      expect(refused?.message).toMatch(words);
      expect(ws.ui.get('x')).toBeUndefined();
    });

  it('well-formed ones are taken', async () => {
    const ws = await workspace();
    const ok = await ws.ui.patch(
      create('x', [
        {
          op: 'set',
          path: 'blocks',
          value: [
            block(
              [
                {
                  label: 'Hi ${state.params.name} ${ state.runtime.job.done }',
                  key: 'name',
                  type: 'text',
                  visible: [{ path: 'state.params.on' }, { path: 'state.runtime.n', in: [1, 2] }],
                },
              ],
              { title: '${state.params.name}', visible: { path: 'state.params.x', notEquals: null } },
            ),
          ],
        },
        {
          op: 'set',
          path: 'actions',
          value: [
            {
              id: 'a',
              label: 'Go ${state.params.n}',
              style: 'primary',
              handler: [
                { type: 'increment', path: 'state.params.n', by: 2 },
                { type: 'template', path: 'state.runtime.msg', template: 'n=${state.params.n}' },
              ],
              validate: false,
            },
          ],
        },
      ]),
    );
    expect(ok.success).toBe(true);
  });
});

describe('image fields show an https URL only of a host the user allowed', () => {
  it('refused until catalog.allowImageHosts(host), then accepted; other hosts and http still refused', async () => {
    const ws = await workspace();
    expect((await ws.ui.patch(withFields('pics', [{ label: 'Pic', key: 'pic', type: 'image' }]))).success).toBe(true);
    const show = (value: unknown) => ws.ui.patch({ instanceId: 'pics', patches: [{ op: 'set', path: 'state.params.pic', value }] });
    const url = 'https://images.example.com/a.png';
    for (const value of [url, { src: url }]) expect(refusal(await show(value))).toMatchObject({ code: 'INVALID_STRUCTURE', path: 'state.params.pic' });
    expect(refusal(await ws.ui.patch(withFields('own', [{ label: 'Pic', key: 'pic', type: 'image', value: url }])))?.message).toMatch(/fields\[0\]: value/);
    expect(ws.ui.catalog.imageHosts).toEqual([]);
    expect(() => ws.ui.catalog.allowImageHosts('https://images.example.com')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    ws.ui.catalog.allowImageHosts('Images.Example.com');
    expect(ws.ui.catalog.imageHosts).toEqual(['images.example.com']);
    expect(await show(url)).toMatchObject({ success: true, version: 2 });
    expect(await show({ src: url, alt: 'A' })).toMatchObject({ success: true, version: 3 });
    expect((await ws.ui.patch(withFields('own', [{ label: 'Pic', key: 'pic', type: 'image', value: url }]))).success).toBe(true);
    for (const value of [
      'http://images.example.com/a.png',
      'https://other.example.com/a.png',
      'https://evil.images.example.com/a.png',
      'javascript:alert(1)',
      'data:image/svg+xml;base64,PHN2Zz4=',
    ])
      expect(refusal(await show(value)), value).toMatchObject({ code: 'INVALID_STRUCTURE' });
    expect(ws.ui.get('pics')?.instance.state.params.pic).toEqual({ src: url, alt: 'A' });
  });
});
