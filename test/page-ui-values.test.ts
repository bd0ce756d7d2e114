/**
 * The page's own readers of the UI catalog (web/src, no browser): what a display field draws
 * from a value (and the note for one it cannot), where an image may come from, the charts'
 * geometry, the table's sort, and what a click sends: each input type's shape, hidden fields
 * left out, the rules checked as the server checks them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { niceTicks, pieSlices } from '../web/src/chart-geometry.js';
import { readBadge, readChart, readImage, readMetric, readRows, sortRows, type Row } from '../web/src/display-values.js';
import { builtinCatalog } from '../src/ui/catalog.js';
import { clickPatches } from '../src/ui/ui-click.js';
import { collectValues, editProblem, fieldProblems, liveState, namedField, type InstanceEdits } from '../web/src/form-values.js';
import type { FieldConfig, Json, UIBlock, UIInstance } from '../web/src/types.js';

const instance = (fields: FieldConfig[], params: Record<string, Json> = {}): UIInstance => ({
  meta: { pageKey: 'p', step: { current: 1, total: 1 }, status: 'idle' },
  state: { params, runtime: {} },
  blocks: [{ id: 'b', type: 'form', bind: 'state.params', props: { fields } }],
  actions: [],
});

describe('display values', () => {
  it('images: blobs, raster data URLs and https addresses of allowed hosts only', () => {
    const sha256 = 'a'.repeat(64);
    expect(readImage({ blob: { sha256 } }, [])).toEqual({ kind: 'ok', value: { kind: 'blob', sha256 } });
    expect(readImage('data:image/png;base64,AAAA', [])).toEqual({ kind: 'ok', value: { kind: 'src', src: 'data:image/png;base64,AAAA' } });
    expect(readImage({ src: 'https://img.example.com/a.png' }, ['img.example.com'])).toEqual({
      kind: 'ok',
      value: { kind: 'src', src: 'https://img.example.com/a.png' },
    });
    expect(readImage('https://img.example.com/a.png', [])).toEqual({ kind: 'ok', value: { kind: 'refused', src: 'https://img.example.com/a.png' } });
    for (const src of [
      'http://img.example.com/a.png',
      'https://user:pw@img.example.com/a.png',
      'https://img.example.com.evil.test/a.png',
      'javascript:alert(1)',
      'data:image/svg+xml;base64,PHN2Zz4=',
      '/api/ui/x/files/y',
    ])
      expect(readImage(src, ['img.example.com'])).toEqual({ kind: 'ok', value: { kind: 'refused', src } });
    expect(readImage({ blob: { sha256: 'nope' } }, [])).toEqual({ kind: 'bad' });
    expect(readImage(42, [])).toEqual({ kind: 'bad' });
  });

  it('badges, metrics, rows and charts: the shapes drawn, anything else bad, nothing none', () => {
    expect(readBadge('late', 'info', { late: 'danger' })).toEqual({ kind: 'ok', value: { text: 'late', tone: 'danger' } });
    expect(readBadge(true, 'loud', undefined)).toEqual({ kind: 'ok', value: { text: 'true', tone: 'neutral' } });
    expect(readBadge({ a: 1 }, undefined, undefined)).toEqual({ kind: 'bad' });
    expect(readMetric(3, 'ms')).toEqual({ kind: 'ok', value: { value: 3, change: undefined, unit: 'ms' } });
    expect(readMetric({ value: 3, change: 'up' }, undefined)).toEqual({ kind: 'bad' });
    expect(readRows([{ a: { nested: 1 } }])).toEqual({ kind: 'bad' });
    expect(readRows(null)).toEqual({ kind: 'none' });
    const chart = readChart(
      [
        { m: 'Jan', a: 1, b: 'x' },
        { m: 'Feb', a: 2 },
      ],
      'm',
      ['a', 'b'],
    );
    expect(chart).toEqual({
      kind: 'ok',
      value: {
        labels: ['Jan', 'Feb'],
        series: [
          { key: 'a', values: [1, 2] },
          { key: 'b', values: [null, null] },
        ],
      },
    });
    expect(readChart([{ m: 'Jan' }], 'm', 3)).toEqual({ kind: 'bad' });
  });

  it('a sort keeps every row, orders by the column, and puts empty cells last both ways', () => {
    const cell = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.constant(null), fc.constant(''));
    fc.assert(
      fc.property(fc.array(fc.record({ n: cell, i: fc.nat() }), { maxLength: 30 }), fc.boolean(), (rows: Row[], up) => {
        const sorted = sortRows(rows, 'n', up ? 'ascending' : 'descending');
        expect(sorted).toHaveLength(rows.length);
        expect(new Set(sorted)).toEqual(new Set(rows));
        const numbers = sorted.map((r) => r.n).filter((n): n is number => typeof n === 'number');
        expect(numbers).toEqual([...numbers].sort((a, b) => (up ? a - b : b - a)));
        const firstEmpty = sorted.findIndex((r) => typeof r.n !== 'number');
        if (firstEmpty >= 0) expect(sorted.slice(firstEmpty).every((r) => typeof r.n !== 'number')).toBe(true);
      }),
    );
  });

  it('chart geometry: ticks cover the values, slices share the whole circle', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: -1e6, max: 1e6, noNaN: true }), (a, b) => {
        // As the charts ask: a range that holds 0 (bars stand on the axis).
        const [min, max] = [Math.min(a, b, 0), Math.max(a, b, 0)];
        const { ticks, low, high } = niceTicks(min, max);
        expect(low).toBeLessThanOrEqual(min);
        expect(high).toBeGreaterThanOrEqual(max);
        expect(high).toBeGreaterThan(low);
        expect(ticks.every(Number.isFinite)).toBe(true);
        expect(ticks.length).toBeGreaterThanOrEqual(2);
        expect(ticks.length).toBeLessThanOrEqual(10);
      }),
    );
    const slices = pieSlices([1, null, 3, -2, 0], 50, 50, 40);
    expect(slices.map((s) => s.index)).toEqual([0, 2]);
    expect(slices.reduce((sum, s) => sum + s.share, 0)).toBeCloseTo(1);
    expect(pieSlices([5], 50, 50, 40)[0]?.whole).toBe(true);
  });
});

describe('what a click sends', () => {
  it('each input type in its shape; display fields, hidden fields and unreadable values left out', () => {
    const ui = instance(
      [
        { label: 'N', key: 'n', type: 'number' },
        { label: 'S', key: 's', type: 'slider', min: 2, max: 9 },
        { label: 'W', key: 'w', type: 'switch' },
        {
          label: 'M',
          key: 'm',
          type: 'multiselect',
          options: [
            { label: 'A', value: 'a' },
            { label: 'B', value: 'b' },
          ],
        },
        { label: 'T', key: 't', type: 'tags' },
        { label: 'D', key: 'd', type: 'date' },
        { label: 'J', key: 'j', type: 'json' },
        { label: 'F', key: 'f', type: 'file' },
        { label: 'Hidden', key: 'h', type: 'text', visible: { path: 'state.params.w', equals: true } },
        { label: 'Shown', key: 'md', type: 'markdown', value: 'hi' },
      ],
      { t: ['x'] },
    );
    const file = { sha256: 'b'.repeat(64), name: 'a.txt', mediaType: 'text/plain', size: 3, extra: 1 };
    const values = collectValues(ui, { n: '4.5', m: ['b', 'zz', 'a'], d: 'soon', j: '{"a": [1]}', f: file, h: 'typed' });
    expect(values).toEqual({
      n: 4.5,
      s: 2,
      w: false,
      m: ['b', 'a'],
      t: ['x'],
      j: { a: [1] },
      f: { sha256: 'b'.repeat(64), name: 'a.txt', mediaType: 'text/plain', size: 3 },
    });
    // The switch turned on shows the hidden field: then it is sent, and templates and rules read the typed state.
    expect(collectValues(ui, { w: true, h: 'typed' })).toMatchObject({ w: true, h: 'typed' });
    // The state the rules read is the one the server builds from what is sent: the slider's minimum, the shown text's ''.
    expect(liveState(ui, { w: true, j: 'not json' }).params).toEqual({ t: ['x'], w: true, s: 2, h: '' });
    // A file removed is sent as null (the field cleared).
    expect(collectValues(ui, { f: null })).toMatchObject({ f: null });
  });

  it('the rules, as the server checks them; a JSON field that is not JSON is its own error', () => {
    const ui = instance([
      { label: 'Name', key: 'name', type: 'text', required: true },
      { label: 'Age', key: 'age', type: 'number', min: 18 },
      { label: 'J', key: 'j', type: 'json' },
      { label: 'Later', key: 'later', type: 'text', required: true, visible: { path: 'state.params.age', truthy: true } },
    ]);
    expect(fieldProblems(ui, {})).toEqual({ name: 'required' });
    expect(fieldProblems(ui, { name: 'Ada', age: '12', j: '{' })).toMatchObject({ age: 'at least 18', later: 'required' });
    expect(fieldProblems(ui, { name: 'Ada', age: '12', j: '{' }).j).toMatch(/^Not valid JSON/);
    expect(fieldProblems(ui, { name: 'Ada', age: '20', later: 'x', j: '[1]' })).toEqual({});
  });
});

const ab = (...values: string[]) => values.map((value) => ({ label: value.toUpperCase(), value }));

/** A: a select; B shown when A is x; C (required) shown when B is filled; more fields behind a switch, in another block and bind. */
function chained(options: { aDefault?: string; params?: Record<string, Json> } = {}): UIInstance {
  const blocks: UIBlock[] = [
    {
      id: 'one',
      type: 'form',
      bind: 'state.params',
      props: {
        fields: [
          { label: 'A', key: 'a', type: 'select', options: ab('x', 'y', 'z'), ...(options.aDefault !== undefined && { value: options.aDefault }) },
          { label: 'Switch', key: 'sw', type: 'switch' },
          { label: 'N', key: 'n', type: 'number', min: 2, required: true },
          { label: 'B', key: 'b', type: 'text', visible: { path: 'state.params.a', equals: 'x' } },
          { label: 'C', key: 'c', type: 'text', required: true, visible: { path: 'state.params.b', truthy: true } },
        ],
      },
    },
    {
      id: 'two',
      type: 'form',
      bind: 'state.runtime',
      props: {
        visible: { path: 'state.params.sw', equals: true },
        fields: [
          { label: 'Terms', key: 'terms', type: 'checkbox', required: true },
          { label: 'Tags', key: 'tags', type: 'tags', min: 1 },
          { label: 'M', key: 'm', type: 'multiselect', options: ab('p', 'q'), required: true, visible: { path: 'state.runtime.terms' } },
        ],
      },
    },
  ];
  return {
    meta: { pageKey: 'p', step: { current: 1, total: 1 }, status: 'idle' },
    state: { params: options.params ?? {}, runtime: {} },
    blocks,
    actions: [{ id: 'go', label: 'Go', style: 'primary' }],
  };
}

/** The server's judgement of the click the page would send. */
const judged = (ui: UIInstance, edits: InstanceEdits) =>
  clickPatches(ui as never, { instanceId: 'p', actionId: 'go', values: collectValues(ui, edits) as never }, builtinCatalog());

describe('the page judges a click as the server does', () => {
  it('chained rules: a choice undone hides what it showed, and what that showed; neither is sent', () => {
    const ui = chained();
    const shown = { a: 'x', b: 'typed', n: '3' };
    expect(collectValues(ui, shown)).toMatchObject({ a: 'x', b: 'typed', c: '' });
    expect(fieldProblems(ui, shown)).toEqual({ c: 'required' });
    const undone = { ...shown, a: 'y' };
    expect(liveState(ui, undone).params).toEqual({ a: 'y', sw: false, n: 3 });
    expect(collectValues(ui, undone)).toEqual({ a: 'y', sw: false, n: 3 });
    expect(fieldProblems(ui, undone)).toEqual({});
    expect(judged(ui, undone)).toMatchObject({ ok: true });
  });

  it('a default the select shows counts: the field it shows is shown, and required', () => {
    const ui = chained({ aDefault: 'x', params: { n: 5 } });
    expect(liveState(ui, {}).params).toMatchObject({ a: 'x', b: '' });
    expect(fieldProblems(ui, { b: 'hi' })).toEqual({ c: 'required' });
    expect(judged(ui, { b: 'hi' })).toMatchObject({ ok: false, code: 'INVALID_VALUE', message: 'C (c): required' });
  });

  it('a field left out is checked only for required, on what the state holds; an emptied one the page stops', () => {
    const ui = chained({ params: { n: 5 } });
    // Unreadable: the page's own note (the server would keep 5, but the user sees "abc").
    expect(fieldProblems(ui, { n: 'abc' })).toEqual({ n: 'Not a number.' });
    expect(fieldProblems(ui, {})).toEqual({});
    expect(judged(ui, {})).toMatchObject({ ok: true });
    expect(fieldProblems(ui, { n: ' ' })).toEqual({ n: 'required' });
    // A required checkbox must be on, as the server says.
    expect(fieldProblems(ui, { sw: true, tags: ['t'] })).toEqual({ terms: 'required' });
    expect(judged(ui, { sw: true, tags: ['t'] })).toMatchObject({ ok: false, message: 'Terms (terms): required' });
  });

  it('an action that skips the rules still checks a file’s own limits', () => {
    const ui = instance([
      { label: 'F', key: 'f', type: 'file', accept: ['image/*'], required: true },
      { label: 'N', key: 'n', type: 'number', required: true },
    ]);
    const file = { sha256: 'c'.repeat(64), name: 'a.txt', mediaType: 'text/plain', size: 3 };
    expect(fieldProblems(ui, {}, undefined, false)).toEqual({});
    expect(fieldProblems(ui, { f: file }, undefined, false)).toEqual({ f: 'a file of type image/*' });
  });

  it('whatever is typed: the page sends what the server takes, and stops only what it would refuse (or what reads as nothing)', () => {
    const edit = {
      a: fc.constantFrom('x', 'y', 'z', 'nope'),
      sw: fc.boolean(),
      n: fc.constantFrom('', ' ', '1', '2', '3.5', '4', 'abc'),
      b: fc.constantFrom('', 'typed'),
      c: fc.constantFrom('', 'c'),
      terms: fc.boolean(),
      tags: fc.constantFrom([], ['t'], ['t', 'u']),
      m: fc.constantFrom([], ['p'], ['q', 'p']),
    };
    const stored = fc.record({ a: fc.constantFrom('x', 'y'), b: fc.constantFrom('', 'kept'), n: fc.constantFrom(1, 5) }, { requiredKeys: [] });
    fc.assert(
      fc.property(fc.record(edit, { requiredKeys: [] }), stored, fc.option(fc.constantFrom('x', 'y'), { nil: undefined }), (edits, params, aDefault) => {
        const ui = chained({ params: params as Record<string, Json>, ...(aDefault !== undefined && { aDefault }) });
        const problems = fieldProblems(ui, edits as InstanceEdits);
        const plan = judged(ui, edits as InstanceEdits);
        if (Object.keys(problems).length === 0) expect(plan).toMatchObject({ ok: true });
        if (!plan.ok) expect(problems).not.toEqual({});
        // Stricter than the server only where what was typed reads as no value.
        if (plan.ok)
          for (const key of Object.keys(problems)) {
            const typed = (edits as Record<string, Json>)[key];
            const field = (ui.blocks ?? []).flatMap((b) => b.props?.fields ?? []).find((f) => f.key === key) as FieldConfig;
            expect(editProblem(field, edits as InstanceEdits) !== undefined || (typeof typed === 'string' && typed.trim() === '')).toBe(true);
          }
      }),
      { numRuns: 400 },
    );
  });

  it('a refusal names its field: "Label (key): problem", or "key: problem"', () => {
    const ui = instance([
      { label: 'Name (full)', key: 'name', type: 'text' },
      { label: 'Age', key: 'age', type: 'number' },
    ]);
    expect(namedField(ui, 'INVALID_VALUE', 'Name (full) (name): at most 5 characters')).toEqual({ key: 'name', problem: 'at most 5 characters' });
    expect(namedField(ui, 'INVALID_STRUCTURE', 'age: a number field takes a number')).toEqual({ key: 'age', problem: 'a number field takes a number' });
    expect(namedField(ui, 'INVALID_VALUE', 'age: a number')).toBeUndefined();
    expect(namedField(ui, 'SESSION_BUSY', 'Age (age): busy')).toBeUndefined();
  });
});
