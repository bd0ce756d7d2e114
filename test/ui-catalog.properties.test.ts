/**
 * Property-based tests of the UI catalog (issue 23) over EVERY component of `ws.ui.catalog`
 * (a component added later is drawn from its example): random valid fields of each, random
 * sequences of patch_ui_state calls (blocks of those fields, display values valid and not,
 * block actions, handlers, visibility rules, templates, layouts, modal and span) applied
 * through ws.ui.patch and the pure engine in lockstep. After each call: the instance parses,
 * every field is one the catalog takes, every display value is drawable, ids are unique, a
 * refused call changes nothing, and an accepted call's JSON Patch rebuilds the new instance
 * with fast-json-patch and with the page's own applier. Each component refuses
 * an unknown type, an unknown prop, a prop of the wrong type and a display value of the wrong
 * shape with INVALID_STRUCTURE naming the field's path.
 */
import fc from 'fast-check';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  applyPatchInput,
  createWorkspace,
  UIInstance,
  type ComponentSpec,
  type JsonValue,
  type PatchInput,
  type UIPatchError,
  type Workspace,
} from '../src/index.js';
import { boundValueProblem } from '../src/ui/instance-checks.js';
import { applyPatch as pageApply } from '../web/src/json-patch.js';
import type { PatchOp as PagePatchOp } from '../web/src/types.js';

/** Scale the runs up for a long hunt: GOLEM_PROPERTY_SCALE=20 npm test. */
const SCALE = Number(process.env.GOLEM_PROPERTY_SCALE ?? 1);
const runs = (n: number) => ({ numRuns: Math.max(1, Math.round(n * SCALE)) });

type Json = Record<string, unknown>;
type Arb<T = unknown> = fc.Arbitrary<T>;
// --- Each built-in component's own props and values (others: their example) ---

const text = (max = 12) => fc.string({ minLength: 1, maxLength: max }).filter((s) => !s.includes('${'));
const none: Arb<Json> = fc.constant({});
const ordered = (min: Arb<number>) => fc.tuple(min, fc.nat({ max: 50 })).map(([lo, d]) => ({ min: lo, max: lo + d }));
const options = fc
  .uniqueArray(fc.record({ label: text(6), value: fc.string({ maxLength: 6 }) }), { selector: (o) => o.value, minLength: 1, maxLength: 4 })
  .map((o) => ({ options: o }));
const day = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);
const cell = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));
const rows = fc.array(fc.dictionary(fc.constantFrom('a', 'b', 'month', 'total'), cell, { maxKeys: 3 }), { maxLength: 4 });
const PNG = 'data:image/png;base64,iVBORw0KGgo=';
const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 64, maxLength: 64 });
const tone = fc.constantFrom('neutral', 'info', 'success', 'warning', 'danger');

const OWN: Record<string, Arb<Json>> = {
  text: fc
    .record(
      {
        placeholder: text(20),
        range: ordered(fc.nat({ max: 5 })).map(({ min, max }) => ({ min, max: max + 1 })),
        pattern: fc.constantFrom('[a-z]*', '\\d+', '.*'),
      },
      { requiredKeys: [] },
    )
    .map(({ range, ...rest }) => ({ ...rest, ...range })),
  textarea: fc.record({ rows: fc.integer({ min: 2, max: 20 }), placeholder: text(20) }, { requiredKeys: [] }),
  number: fc
    .record({ range: ordered(fc.integer({ min: -100, max: 100 })), step: fc.constantFrom(0.5, 1, 5) }, { requiredKeys: [] })
    .map(({ range, ...rest }) => ({ ...rest, ...range })),
  select: options,
  radio: options,
  multiselect: fc.tuple(options, fc.option(fc.nat({ max: 3 }), { nil: undefined })).map(([o, max]) => ({ ...o, ...(max !== undefined && { max }) })),
  date: fc
    .tuple(fc.integer({ min: -400, max: 400 }), fc.nat({ max: 400 }), fc.boolean())
    .map(([lo, d, both]) => (both ? { min: day(lo), max: day(lo + d) } : { min: day(lo) })),
  slider: fc
    .tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: 1, max: 50 }), fc.constantFrom(undefined, 1, 0.5))
    .map(([min, d, step]) => ({ min, max: min + d, ...(step !== undefined && { step }) })),
  tags: fc.record({ max: fc.integer({ min: 1, max: 9 }), pattern: fc.constantFrom('[a-z]+', '\\w+'), placeholder: text(20) }, { requiredKeys: [] }),
  file: fc.record(
    { accept: fc.constantFrom(['image/*'], ['application/pdf', 'image/png']), maxBytes: fc.integer({ min: 1, max: 5 * 1024 * 1024 }) },
    { requiredKeys: [] },
  ),
  table: fc.record(
    {
      columns: fc.uniqueArray(fc.record({ key: fc.constantFrom('a', 'b', 'month', 'total'), label: text(8) }, { requiredKeys: ['key'] }), {
        selector: (c) => c.key,
        minLength: 1,
        maxLength: 3,
      }),
      sortable: fc.boolean(),
    },
    { requiredKeys: ['columns'] },
  ),
  badge: fc.record({ tone, tones: fc.dictionary(fc.string({ maxLength: 5 }), tone, { maxKeys: 3 }) }, { requiredKeys: [] }),
  metric: fc.record({ unit: fc.constantFrom('€', '%', 'ms') }, { requiredKeys: [] }),
  image: fc.record({ alt: text(20) }, { requiredKeys: [] }),
  chart: fc.oneof(
    fc.record({ chart: fc.constantFrom('line', 'bar'), x: fc.constant('month'), y: fc.oneof(fc.constant('total'), fc.constant(['a', 'b'])) }),
    fc.record({ chart: fc.constant('pie'), x: fc.constant('month'), y: fc.constant('total') }),
  ),
  code: fc.record({ language: fc.constantFrom('sql', 'typescript', 'c++', 'c#') }, { requiredKeys: [] }),
};
/** Values a display field shows (its own `value`, or the state's at its key). */
const SHOWS: Record<string, Arb<JsonValue>> = {
  markdown: fc.oneof(fc.string({ maxLength: 30 }), fc.constant('**Hi** ${state.params.a}')),
  table: rows,
  chart: rows,
  progress: fc.oneof(
    fc.integer({ min: 0, max: 100 }),
    fc.integer({ min: 1, max: 50 }).chain((max) => fc.record({ value: fc.integer({ min: 0, max }), max: fc.constant(max) })),
  ),
  badge: fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean()),
  metric: fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.record({ value: fc.integer(), change: fc.integer({ min: -9, max: 9 }) }, { requiredKeys: ['value'] }),
  ),
  image: fc.oneof(
    fc.constant(PNG),
    fc.record({ src: fc.constant(PNG), alt: text(8) }, { requiredKeys: ['src'] }),
    hex.map((sha256) => ({ blob: { sha256 } })),
  ),
  code: fc.string({ maxLength: 30 }),
};
/** Values no display component shows, tried in turn: the first one a component's schema refuses. */
const WRONG: JsonValue[] = [{ $wrong: [1] }, [[1, 2]], 1234.5, 'https://evil.example/x.png', true];
/** Values of no prop's type, tried in turn. */
const WRONG_PROP: JsonValue[] = [{ $wrong: [1] }, [{ $wrong: 1 }], 'zz wrong', -1234.5, true, null];

const keyCounter = { n: 0 };
/** A valid field of a component: its example, label and key varied, its own props drawn, and now and then a description, visibility and (input) required, or (display) a value. */
function fieldArb(spec: ComponentSpec): Arb<Json> {
  const own = OWN[spec.type] ?? none;
  const shows = SHOWS[spec.type];
  return fc
    .record({
      label: fc.oneof(text(), fc.constant('Hi ${state.params.name}')),
      own,
      description: fc.option(text(20), { nil: undefined }),
      visible: fc.option(
        fc.record({ path: fc.constantFrom('state.params.on', 'state.runtime.mode'), equals: fc.oneof(fc.boolean(), fc.string({ maxLength: 3 })) }),
        { nil: undefined },
      ),
      required: fc.option(fc.boolean(), { nil: undefined }),
      value: shows === undefined ? fc.constant(undefined) : fc.option(shows, { nil: undefined }),
    })
    .map(({ label, own: props, description, visible, required, value }) => {
      const field: Json = { ...spec.example, ...props, label, key: `${spec.example.key as string}_${keyCounter.n++}` };
      if (OWN[spec.type] !== undefined) for (const name of Object.keys(spec.props ?? {})) if (!(name in props)) delete field[name];
      if (description !== undefined) field.description = description;
      if (visible !== undefined) field.visible = visible;
      if (spec.kind === 'input' && required !== undefined) field.required = required;
      if (spec.kind === 'display' && value !== undefined) field.value = value;
      else if (spec.kind === 'display' && shows !== undefined) delete field.value;
      return field;
    });
}

// --- Backends and checks ---

type Outcome = { ok: true; instance: UIInstance | undefined; jsonPatch: unknown[]; version: number } | { ok: false; errors: UIPatchError[] };
interface Backend {
  patch(input: PatchInput): Promise<Outcome>;
  get(id: string): { instance: UIInstance; version: number } | undefined;
}
function engine(ws: Workspace): Backend {
  const map = new Map<string, { instance: UIInstance; version: number }>();
  return {
    async patch(input) {
      const out = applyPatchInput(input, (id) => map.get(id)?.instance, ws.ui.catalog);
      if (!out.ok) return out;
      if (out.kind === 'delete') return { ok: true, instance: undefined, jsonPatch: [], version: 0 };
      const version = (map.get(out.instanceId)?.version ?? 0) + 1;
      map.set(out.instanceId, { instance: out.instance, version });
      return { ok: true, instance: out.instance, jsonPatch: out.jsonPatch, version };
    },
    get: (id) => structuredClone(map.get(id)),
  };
}
function service(ws: Workspace): Backend {
  return {
    async patch(input) {
      const r = await ws.ui.patch(input);
      return r.success ? { ok: true, instance: r.instance, jsonPatch: r.jsonPatch, version: r.version } : { ok: false, errors: r.errors };
    },
    get: (id) => {
      const r = ws.ui.get(id);
      return r === undefined ? undefined : structuredClone({ instance: r.instance, version: r.version });
    },
  };
}

function checkInstance(ws: Workspace, instance: UIInstance): void {
  const parsed = UIInstance.safeParse(instance);
  if (!parsed.success) expect.fail(`does not parse: ${JSON.stringify(parsed.error.issues)}`);
  for (const block of instance.blocks)
    for (const field of block.props?.fields ?? []) {
      const checked = ws.ui.catalog.field().safeParse(field);
      if (!checked.success) expect.fail(`${JSON.stringify(field)}: ${JSON.stringify(checked.error.issues)}`);
    }
  for (const ids of [instance.blocks.map((b) => b.id), [...instance.actions, ...instance.blocks.flatMap((b) => b.props?.actions ?? [])].map((a) => a.id)])
    expect(new Set(ids).size, ids.join()).toBe(ids.length);
  // Every display field's value drawable, though each call checks only what it wrote.
  expect(boundValueProblem(instance, ws.ui.catalog, () => true)).toBeUndefined();
}

/** Expected: null (accepted) or the code and a pattern of the message. */
type Expect = null | { code: string; message?: RegExp };
const stats = { accepted: 0, refused: new Set<string>(), types: new Set<string>() };

async function step(ws: Workspace, backends: Backend[], id: string, input: PatchInput, expected: Expect): Promise<void> {
  const outs: Outcome[] = [];
  for (const backend of backends) {
    const before = backend.get(id);
    const out = await backend.patch(input);
    const after = backend.get(id);
    const context = () => `call ${JSON.stringify(input)}`;
    if (expected !== null) {
      if (out.ok) expect.fail(`should be refused with ${expected.code}: ${context()}`);
      if (out.ok) continue;
      expect(out.errors[0], context()).toMatchObject({ code: expected.code });
      if (expected.message !== undefined) expect(out.errors[0]?.message, context()).toMatch(expected.message);
      // A refused call changes nothing.
      if (!isDeepStrictEqual(after, before)) expect(after, context()).toStrictEqual(before);
    } else {
      if (!out.ok) expect.fail(`should be accepted, got ${JSON.stringify(out.errors)}: ${context()}`);
      if (!out.ok || after === undefined) continue;
      expect(after.version).toBe((before?.version ?? 0) + 1);
      checkInstance(ws, after.instance);
      const previous = before?.instance ?? {};
      const replayed = jsonpatch.applyPatch(structuredClone(previous), structuredClone(out.jsonPatch) as Operation[], true, true).newDocument;
      if (!isDeepStrictEqual(replayed, after.instance)) expect(replayed, `fast-json-patch: ${context()}`).toStrictEqual(after.instance);
      if (before !== undefined) {
        const paged = pageApply(before.instance as never, out.jsonPatch as PagePatchOp[]);
        if (!isDeepStrictEqual(paged, after.instance)) expect(paged, `page applier: ${context()}`).toStrictEqual(after.instance);
      }
    }
    outs.push(out);
  }
  if (!isDeepStrictEqual(outs[0], outs[1])) expect(outs[1], 'ws.ui.patch and the engine differ').toStrictEqual(outs[0]);
  if (outs[0]?.ok === true) stats.accepted++;
  else if (outs[0] !== undefined) stats.refused.add(outs[0].errors[0]?.code ?? '');
}

// --- The properties ---
describe('the UI catalog: properties over every component', () => {
  let ws: Workspace;
  let specs: ComponentSpec[];
  beforeAll(async () => {
    ws = await createWorkspace();
    specs = ws.ui.catalog.components();
  });
  afterAll(async () => {
    await ws.close();
  });

  it('every component has a drawn field that the catalog takes, and its example is one', () => {
    expect(specs.length).toBeGreaterThanOrEqual(21);
    for (const spec of specs) {
      expect(ws.ui.catalog.field().safeParse(spec.example).success, spec.type).toBe(true);
      fc.assert(
        fc.property(fieldArb(spec), (field) => {
          const checked = ws.ui.catalog.field().safeParse(field);
          if (!checked.success) expect.fail(`${JSON.stringify(field)}: ${JSON.stringify(checked.error.issues)}`);
          const shows = SHOWS[spec.type];
          if (spec.kind === 'display' && shows !== undefined)
            fc.assert(
              fc.property(shows, (v) => {
                expect(ws.ui.catalog.valueProblem(spec.type, v)).toBeUndefined();
              }),
              { numRuns: 5 },
            );
        }),
        runs(20),
      );
    }
  });

  it('each component refuses an unknown prop, a prop of the wrong type and a display value of the wrong shape, naming the path', async () => {
    const backends = [service(ws), engine(ws)];
    const bad = async (field: Json, words: RegExp) => {
      const id = `bad_${keyCounter.n++}`;
      const fields = [
        { label: 'Ok', key: 'ok', type: 'text' },
        { ...field, key: 'bad' },
      ];
      await step(
        ws,
        backends,
        id,
        {
          instanceId: '__CREATE__',
          newInstanceId: id,
          patches: [{ op: 'set', path: 'blocks', value: [{ id: 'b', type: 'form', bind: 'state.params', props: { fields } }] }],
        },
        { code: 'INVALID_STRUCTURE', message: words },
      );
    };
    await bad({ ...specs[0]?.example, type: 'no_such_component' }, /blocks\[0\]\.props\.fields\[1\]: type: "no_such_component" is no component/);
    for (const spec of specs) {
      await bad({ ...spec.example, zzUnknown: 1 }, /blocks\[0\]\.props\.fields\[1\].*zzUnknown/);
      await bad({ ...spec.example, type: `${spec.type}X` }, /props\.fields\[1\]: type/);
      for (const [name, schema] of Object.entries(spec.props ?? {})) {
        const wrong = WRONG_PROP.find((v) => !(schema as z.ZodType).safeParse(v).success);
        if (wrong === undefined) continue;
        await bad({ ...spec.example, [name]: wrong }, new RegExp(`props\\.fields\\[1\\]: (${name}|type)`));
      }
      if (spec.kind === 'display' && spec.value !== undefined) {
        const wrong = WRONG.find((v) => ws.ui.catalog.valueProblem(spec.type, v) !== undefined);
        expect(wrong, spec.type).toBeDefined();
        await bad({ ...spec.example, value: wrong }, /props\.fields\[1\]: value/);
        // Bound in the state, it is refused at the state's path.
        const id = `shown_${keyCounter.n++}`;
        await step(
          ws,
          backends,
          id,
          {
            instanceId: '__CREATE__',
            newInstanceId: id,
            patches: [
              {
                op: 'set',
                path: 'blocks',
                value: [{ id: 'b', type: 'form', bind: 'state.runtime', props: { fields: [{ ...spec.example, value: undefined, key: 'shown' }] } }],
              },
            ],
          },
          null,
        );
        await step(
          ws,
          backends,
          id,
          { instanceId: id, patches: [{ op: 'set', path: 'state.runtime.shown', value: wrong }] },
          { code: 'INVALID_STRUCTURE', message: /state\.runtime\.shown/ },
        );
      }
    }
  });

  it('random calls over every component keep the invariants, through ws.ui.patch and the engine in lockstep', async () => {
    const backends = [service(ws), engine(ws)];
    const anyField = fc.constantFrom(...specs).chain((spec) => fieldArb(spec).map((field) => ({ spec, field })));
    const action = (id: string) =>
      fc
        .record({
          label: fc.oneof(text(), fc.constant('Go ${state.params.name}')),
          style: fc.constantFrom('primary', 'secondary', 'danger'),
          handler: fc.option(
            fc.oneof(
              fc.record({ type: fc.constant('increment'), path: fc.constant('state.params.n'), by: fc.integer({ min: 1, max: 5 }) }),
              fc.record({ type: fc.constant('toggle'), path: fc.constant('state.params.on') }),
              fc.record({ type: fc.constant('set'), path: fc.constant('state.runtime.mode'), value: fc.string({ maxLength: 4 }) }),
              fc.record({ type: fc.constant('template'), path: fc.constant('state.runtime.msg'), template: fc.constant('n=${state.params.n}') }),
            ),
            { nil: undefined },
          ),
          validate: fc.option(fc.boolean(), { nil: undefined }),
        })
        .map((a) => ({ id, ...Object.fromEntries(Object.entries(a).filter(([, v]) => v !== undefined)) }));
    const blockArb = (id: string, actionId: string) =>
      fc
        .record({
          fields: fc.array(anyField, { maxLength: 4 }),
          bind: fc.constantFrom('state.params', 'state.runtime'),
          title: fc.option(fc.oneof(text(), fc.constant('${state.runtime.msg}')), { nil: undefined }),
          modal: fc.option(fc.boolean(), { nil: undefined }),
          span: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
          visible: fc.option(fc.constant([{ path: 'state.params.on', truthy: true }]), { nil: undefined }),
          actions: fc.option(
            action(actionId).map((a) => [a]),
            { nil: undefined },
          ),
        })
        .map(({ fields, bind, ...props }) => ({
          block: {
            id,
            type: 'form',
            bind,
            props: { fields: fields.map((f) => f.field), ...Object.fromEntries(Object.entries(props).filter(([, v]) => v !== undefined)) },
          },
          fields,
        }));
    const layout = fc.oneof(
      fc.record({ type: fc.constant('grid'), columns: fc.integer({ min: 1, max: 4 }) }, { requiredKeys: ['type'] }),
      fc.record({ type: fc.constantFrom('single', 'column', 'row', 'tabs') }),
    );
    const stepArb = fc.record({
      kind: fc.constantFrom('block', 'block', 'show', 'showWrong', 'layout', 'action', 'dupAction', 'badField', 'remove', 'input'),
      n: fc.nat(),
      seed: fc.nat(),
    });

    let counter = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), layout, fc.nat(), async (steps, firstLayout, s) => {
        const id = `inst_${counter++}`;
        const displays: { area: string; key: string; spec: ComponentSpec }[] = [];
        const blocks: string[] = [];
        const actionIds: string[] = [];
        const draw = <T>(arb: Arb<T>, seed: number): T => fc.sample(arb, { numRuns: 1, seed })[0] as T;
        const note = (block: { id: string; bind: string }, fields: { spec: ComponentSpec; field: Json }[]) => {
          blocks.push(block.id);
          for (const { spec, field } of fields) {
            stats.types.add(spec.type);
            if (spec.kind === 'display' && SHOWS[spec.type] !== undefined) displays.push({ area: block.bind, key: field.key as string, spec });
          }
        };
        const first = draw(blockArb(`b${counter}_0`, `a${counter}_0`), s);
        await step(
          ws,
          backends,
          id,
          {
            instanceId: '__CREATE__',
            newInstanceId: id,
            patches: [
              { op: 'set', path: 'blocks', value: [first.block] },
              { op: 'set', path: 'layout', value: firstLayout },
            ],
          },
          null,
        );
        note(first.block, first.fields);
        if ('actions' in first.block.props) actionIds.push(`a${counter}_0`);
        for (const [i, { kind, n, seed }] of steps.entries()) {
          const fresh = `${counter}_${i + 1}`;
          if (kind === 'block') {
            const next = draw(blockArb(`b${fresh}`, `a${fresh}`), seed);
            await step(ws, backends, id, { instanceId: id, patches: [{ op: 'add', path: 'blocks+', value: next.block }] }, null);
            note(next.block, next.fields);
            if ('actions' in next.block.props) actionIds.push(`a${fresh}`);
          } else if ((kind === 'show' || kind === 'showWrong') && displays.length > 0) {
            const d = displays[n % displays.length]!;
            const right = kind === 'show';
            const value = right ? draw(SHOWS[d.spec.type]!, seed) : WRONG.find((v) => ws.ui.catalog.valueProblem(d.spec.type, v) !== undefined);
            await step(
              ws,
              backends,
              id,
              { instanceId: id, patches: [{ op: 'set', path: `${d.area}.${d.key}`, value }] },
              right ? null : { code: 'INVALID_STRUCTURE', message: new RegExp(`${d.area}.${d.key}`.replace(/\./g, '\\.')) },
            );
          } else if (kind === 'layout') {
            await step(ws, backends, id, { instanceId: id, patches: [{ op: 'set', path: 'layout', value: draw(layout, seed) }] }, null);
          } else if (kind === 'action') {
            await step(ws, backends, id, { instanceId: id, patches: [{ op: 'add', path: 'actions+', value: draw(action(`i${fresh}`), seed) }] }, null);
            actionIds.push(`i${fresh}`);
          } else if (kind === 'dupAction' && actionIds.length > 0) {
            // An instance action with the id of a block's (or the instance's) action.
            const taken = actionIds[n % actionIds.length]!;
            await step(
              ws,
              backends,
              id,
              { instanceId: id, patches: [{ op: 'add', path: 'actions+', value: { id: taken, label: 'Dup', style: 'primary' } }] },
              { code: 'DUPLICATE_ID' },
            );
          } else if (kind === 'badField') {
            const spec = specs[n % specs.length]!;
            await step(
              ws,
              backends,
              id,
              {
                instanceId: id,
                patches: [
                  {
                    op: 'add',
                    path: 'blocks+',
                    value: { id: `x${fresh}`, type: 'form', bind: 'state.params', props: { fields: [{ ...spec.example, zzUnknown: true }] } },
                  },
                ],
              },
              { code: 'INVALID_STRUCTURE', message: /props\.fields\[0\]/ },
            );
          } else if (kind === 'remove' && blocks.length > 1) {
            const [gone] = blocks.splice(n % blocks.length, 1);
            await step(ws, backends, id, { instanceId: id, patches: [{ op: 'remove', path: `blocks-"${gone}"` }] }, null);
            const left = ws.ui.get(id)?.instance;
            const kept = new Set((left?.blocks ?? []).flatMap((b) => (b.props?.fields ?? []).map((f) => f.key)));
            displays.splice(0, displays.length, ...displays.filter((d) => kept.has(d.key)));
            const ids = new Set([...(left?.actions ?? []), ...(left?.blocks ?? []).flatMap((b) => b.props?.actions ?? [])].map((a) => a.id));
            actionIds.splice(0, actionIds.length, ...actionIds.filter((a) => ids.has(a)));
          } else if (kind === 'input') {
            // An input's state may hold anything the model sets (a default); the click's value is what is checked.
            await step(
              ws,
              backends,
              id,
              {
                instanceId: id,
                patches: [
                  { op: 'set', path: 'state.params.n', value: n },
                  { op: 'set', path: 'state.params.on', value: seed % 2 === 0 },
                ],
              },
              null,
            );
          }
        }
      }),
      runs(60),
    );
    // Every component was drawn into some block, and calls were both taken and refused.
    expect([...stats.types].sort()).toEqual(specs.map((c) => c.type).sort());
    expect(stats.accepted).toBeGreaterThan(200);
    expect([...stats.refused].sort()).toEqual(['DUPLICATE_ID', 'INVALID_STRUCTURE']);
  });
});
