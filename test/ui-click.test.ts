/**
 * A user's click judged as the page judges it (src/ui/ui-click.ts, issue 23's review): on the
 * state with the values typed, to a fixpoint of the visibility rules; a key shared by fields
 * of two blocks; a file that is the blob it names; keys and patterns that are refused when
 * written because they could never work.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, liveState, type JsonObject, type PatchOperation, type Workspace } from '../src/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function built(blocks: JsonObject[], actions: JsonObject[] = [{ id: 'go', label: 'Go', style: 'primary' }], params: JsonObject = {}): Promise<Workspace> {
  const ws = await createWorkspace();
  cleanups.push(() => ws.close());
  const made = await ws.ui.patch({
    instanceId: '__CREATE__',
    newInstanceId: 'f',
    patches: [
      { op: 'set', path: 'state', value: { params, runtime: {} } },
      { op: 'set', path: 'blocks', value: blocks },
      { op: 'set', path: 'actions', value: actions },
    ],
  });
  expect(made).toMatchObject({ success: true });
  return ws;
}

const form = (id: string, fields: JsonObject[], props: JsonObject = {}, bind = 'state.params'): JsonObject => ({
  id,
  type: 'form',
  bind,
  props: { fields, ...props },
});

describe('a click, judged on the values typed', () => {
  it('takes an action (and a block action) shown by a value the click carries', async () => {
    const ws = await built(
      [
        form('a', [{ label: 'Agree', key: 'agree', type: 'switch' }]),
        form('b', [], { visible: { path: 'state.params.agree' }, actions: [{ id: 'inner', label: 'Inner', style: 'secondary' }] }),
      ],
      [{ id: 'go', label: 'Go', style: 'primary', visible: { path: 'state.params.agree', equals: true } }],
    );
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: {} })).toMatchObject({ ok: false, code: 'PATH_NOT_FOUND' });
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { agree: true } })).toMatchObject({ ok: true, version: 2 });
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'inner', values: { agree: true } })).toMatchObject({ ok: true, version: 3 });
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'inner', values: { agree: false } })).toMatchObject({ ok: false, code: 'PATH_NOT_FOUND' });
  });

  it('reads chained rules to a fixpoint: a choice undone hides what it showed, and what that showed', async () => {
    const blocks = [
      form('f', [
        {
          label: 'A',
          key: 'a',
          type: 'select',
          options: [
            { label: 'X', value: 'x' },
            { label: 'Y', value: 'y' },
          ],
        },
        { label: 'B', key: 'b', type: 'text', visible: { path: 'state.params.a', equals: 'x' } },
        { label: 'C', key: 'c', type: 'text', required: true, visible: { path: 'state.params.b', truthy: true } },
      ]),
    ];
    const state = { params: {}, runtime: {} };
    // The page's and the server's shared reading: B typed, then A set back: neither B nor C is shown, nor applied.
    expect(liveState(blocks as never, state, { a: 'y', b: 'typed', c: 'z' })).toEqual({ params: { a: 'y' }, runtime: {} });
    expect(liveState(blocks as never, state, { a: 'x', b: 'typed', c: 'z' })).toEqual({ params: { a: 'x', b: 'typed', c: 'z' }, runtime: {} });
    const ws = await built(blocks);
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { a: 'y', c: 'z' } })).toMatchObject({
      ok: false,
      code: 'PATH_NOT_FOUND',
      message: expect.stringContaining('"c"'),
    });
    // C shown, and required.
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { a: 'x', b: 'typed' } })).toMatchObject({
      ok: false,
      code: 'INVALID_VALUE',
      message: expect.stringContaining('C (c): required'),
    });
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { a: 'x', b: 'typed', c: 'z' } })).toMatchObject({ ok: true });
    expect(ws.ui.get('f')?.instance.state.params).toEqual({ a: 'x', b: 'typed', c: 'z' });
  });

  it('gives a key shared by fields of two blocks one value, and checks the rules of each', async () => {
    const ws = await built([
      form('one', [{ label: 'Status', key: 'status', type: 'text', required: true }]),
      form('two', [{ label: 'Status again', key: 'status', type: 'text', max: 5 }]),
      form('shown', [{ label: 'Status', key: 'status', type: 'badge' }], {}, 'state.runtime'),
    ]);
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: {} })).toMatchObject({
      ok: false,
      code: 'INVALID_VALUE',
      message: expect.stringContaining('required'),
    });
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { status: 'too long' } })).toMatchObject({
      ok: false,
      message: expect.stringContaining('at most 5'),
    });
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { status: 'open' } })).toMatchObject({ ok: true });
    expect(ws.ui.get('f')?.instance.state).toEqual({ params: { status: 'open' }, runtime: {} });
  });

  it('takes a file as the blob it names: its size, type and name are the workspace’s', async () => {
    const ws = await built([form('f', [{ label: 'Scan', key: 'scan', type: 'file', accept: ['image/png'], maxBytes: 100 }])]);
    const blob = await ws.blobs.register(new Uint8Array(50).fill(3), { mediaType: 'image/png', filename: 'scan.png', hold: true });
    const told = { sha256: blob.sha256, name: 'lie.exe', mediaType: 'image/png', size: 1 };
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { scan: told } })).toMatchObject({
      ok: true,
      values: { scan: { sha256: blob.sha256, name: 'scan.png', mediaType: 'image/png', size: 50 } },
    });
    expect(ws.ui.get('f')?.instance.state.params.scan).toEqual({ sha256: blob.sha256, name: 'scan.png', mediaType: 'image/png', size: 50 });
    const exe = await ws.blobs.register(new Uint8Array(10).fill(4), { mediaType: 'application/octet-stream', filename: 'x', hold: true });
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { scan: { ...told, sha256: exe.sha256 } } })).toMatchObject({
      ok: false,
      code: 'INVALID_VALUE',
      message: expect.stringContaining('of type image/png'),
    });
  });

  it('refuses, when written, keys that reach a prototype and patterns that are not RE2 syntax', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const create = (patches: PatchOperation[]) =>
      ws.ui.patch({
        instanceId: '__CREATE__',
        newInstanceId: `x${Math.random().toString(36).slice(2, 8)}`,
        patches: [{ op: 'set', path: 'blocks', value: [form('b', [])] }, ...patches],
      });
    for (const key of ['__proto__', 'constructor', 'prototype'])
      expect(await create([{ op: 'set', path: 'blocks', value: [form('b', [{ label: 'K', key, type: 'text' }])] }])).toMatchObject({
        success: false,
        errors: [{ code: 'INVALID_STRUCTURE' }],
      });
    expect(
      await create([
        { op: 'set', path: 'actions', value: [{ id: 'a', label: 'A', style: 'primary', handler: { type: 'toggle', path: 'state.params.constructor' } }] },
      ]),
    ).toMatchObject({ success: false });
    // What RE2 cannot compile (lookaround, backreferences, a bad group) is refused, naming the pattern's path.
    for (const pattern of ['(?=a)a', '(a)\\1', '(?<=a)b', '(a', 'a{1001}'])
      expect(await create([{ op: 'set', path: 'blocks', value: [form('b', [{ label: 'P', key: 'p', type: 'text', pattern }])] }]), pattern).toMatchObject({
        success: false,
        errors: [
          {
            code: 'INVALID_STRUCTURE',
            message: expect.stringMatching(/^blocks\[0\]\.props\.fields\[0\]: pattern: not RE2 syntax \(.+\); write it in RE2 syntax/),
          },
        ],
      });
    // Patterns a backtracking engine could take exponential time on are taken: RE2 matches them in linear time.
    for (const pattern of ['[A-Z]{2}-\\d{4}', '(\\d{3}-)+\\d{4}', '[a-z]+(@x)?', '(a+)+', '(a|a)*', '([a-z]+)*$', '(x{2,})*', '\\p{L}+'])
      expect(await create([{ op: 'set', path: 'blocks', value: [form('b', [{ label: 'P', key: 'p', type: 'text', pattern }])] }])).toMatchObject({
        success: true,
      });
  });

  it('judges a value against a pattern that backtracks without end ((a+){30}, ((a+))+) in linear time, with the right verdict', async () => {
    const ws = await built([
      form('f', [
        { label: 'A', key: 'a', type: 'text', pattern: '(a+){30}' },
        { label: 'B', key: 'b', type: 'text', pattern: '((a+))+' },
        { label: 'T', key: 't', type: 'tags', pattern: '((\\w+\\s?))*' },
      ]),
    ]);
    const hostile = `${'a'.repeat(5_000)}!`;
    const cases: [string, string | string[]][] = [
      ['a', hostile],
      ['b', hostile],
      ['t', ['fine', `${'word '.repeat(38)}!`]],
    ];
    for (const [key, value] of cases)
      expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: { [key]: value } }), key).toMatchObject({
        ok: false,
        code: 'INVALID_VALUE',
        message: expect.stringContaining('does not match the pattern'),
      });
    expect(ws.ui.get('f')?.version).toBe(1);
    const fine = { a: 'a'.repeat(5_000), b: 'a'.repeat(5_000), t: ['fine', 'word '.repeat(39)] };
    expect(await ws.ui.click({ instanceId: 'f', actionId: 'go', values: fine })).toMatchObject({ ok: true, version: 2 });
    expect(ws.ui.get('f')?.instance.state.params).toEqual(fine);
  });

  it('stores -0 as 0, as the JSON the log and every client read has it', async () => {
    const ws = await built([form('f', [{ label: 'N', key: 'n', type: 'metric' }])]);
    const made = await ws.ui.patch({
      instanceId: 'f',
      patches: [
        { op: 'set', path: 'state.params.n', value: -0 },
        { op: 'set', path: 'state.params.l', value: [-0, { z: -0 }] },
      ],
    });
    expect(made.success).toBe(true);
    // As the call answers it, as its JSON Patch carries it, and as the log keeps it.
    const answered = made.success ? made.instance?.state.params : undefined;
    expect(JSON.stringify(answered)).toBe('{"n":0,"l":[0,{"z":0}]}');
    expect(Object.is(answered?.n, -0)).toBe(false);
    expect(Object.is((answered?.l as number[])[0], -0)).toBe(false);
    const params = ws.ui.get('f')?.instance.state.params;
    expect(Object.is(params?.n, -0)).toBe(false);
    expect(JSON.stringify(params)).toBe('{"n":0,"l":[0,{"z":0}]}');
    expect(Object.is((params?.l as number[])[0], -0)).toBe(false);
  });
});
