/**
 * Fuzz targets at the boundaries where a model's output comes in: content blocks,
 * `patch_ui_state` calls (the pure engine, and `ws.ui.patch` on a workspace), model
 * envelopes and text instructions, and environment updates.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { z } from 'zod';
import {
  applyPatchInput,
  blobRefsOf,
  ContentBlock,
  createSchemaManager,
  defineAction,
  Envelope,
  extractInstructions,
  parseResponseText,
  UI_PATCH_ERROR_CODES,
  UIInstance,
  validateFieldValue,
  type Action,
  type Workspace,
} from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { TurnInput } from '../src/core/commands/index.js';
import { Reader } from '../test/fixtures/reader.js';
import {
  contentBlockArb,
  deepValue,
  hostileMutation,
  hostileNumber,
  hostileString,
  hostileValue,
  isObject,
  mutateInPlace,
  nearUiCall,
  uiActionBodyArb,
  uiBlockBodyArb,
  render,
  rendering,
  responseMutation,
  responseText,
  wellFormedResponse,
  type Mutation,
} from './arbitraries.js';
import { Broken, counted, countedAsync, ensure, memoryWorkspace, sound, stateOf, typedCode, type FuzzTarget } from './fuzz-kit.js';

type BlockCase =
  | { k: 'valid'; block: Record<string, unknown> }
  | { k: 'mutated'; block: Record<string, unknown>; mutations: Mutation[] }
  | { k: 'hostile'; value: unknown }
  | { k: 'deep'; block: Record<string, unknown>; value: unknown };
const blockCase: fc.Arbitrary<BlockCase> = fc.oneof(
  fc.record({ k: fc.constant('valid' as const), block: contentBlockArb }),
  {
    weight: 3,
    arbitrary: fc.record({ k: fc.constant('mutated' as const), block: contentBlockArb, mutations: fc.array(hostileMutation, { minLength: 1, maxLength: 3 }) }),
  },
  fc.record({ k: fc.constant('hostile' as const), value: hostileValue }),
  fc.record({ k: fc.constant('deep' as const), block: contentBlockArb, value: deepValue }),
);

export const contentBlocksTarget: FuzzTarget = {
  name: 'blocks',
  check: 'content blocks (ContentBlock, TurnInput)',
  runs: 4000,
  property: (tally) =>
    counted(tally, blockCase, (c) => {
      let input: unknown;
      if (c.k === 'valid') input = c.block;
      else if (c.k === 'hostile') input = c.value;
      else if (c.k === 'mutated') input = c.mutations.reduce((doc, m) => mutateInPlace(doc, m), structuredClone(c.block));
      else input = { type: 'tool_use', callId: 'c', name: 'n', args: { deep: c.value } };
      let parsed: ReturnType<typeof ContentBlock.safeParse> | undefined;
      try {
        parsed = ContentBlock.safeParse(input);
      } catch (error) {
        throw new Broken(`ContentBlock.safeParse threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
      // A turn's content takes the block exactly when the block parses.
      let inTurn: boolean;
      try {
        inTurn = TurnInput.safeParse({ role: 'user', blocks: [input] }).success;
      } catch (error) {
        throw new Broken(`TurnInput.safeParse threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
      ensure(inTurn === parsed.success, `ContentBlock ${parsed.success ? 'took' : 'refused'} the block, TurnInput did not`);
      // (Compared as JSON: fast-check makes some objects without a prototype, Zod gives plain ones.)
      if (c.k === 'valid')
        ensure(
          parsed.success && isDeepStrictEqual(JSON.parse(JSON.stringify(parsed.data)), JSON.parse(JSON.stringify(input))),
          'a valid block was refused or changed',
        );
      if (!parsed.success) {
        tally.reject('INVALID_BLOCK');
        ensure(
          parsed.error.issues.length > 0 && parsed.error.issues.every((i) => Array.isArray(i.path) && typeof i.message === 'string'),
          'a refusal without issues',
        );
        return;
      }
      tally.accepted++;
      // What is accepted is JSON data that reads back the same, and its blob references are digests.
      const json = JSON.stringify(parsed.data);
      const again = ContentBlock.safeParse(JSON.parse(json));
      ensure(again.success && JSON.stringify(again.data) === json, 'an accepted block does not read back the same from JSON');
      ensure(
        blobRefsOf([parsed.data]).every((sha) => /^[0-9a-f]{64}$/.test(sha)),
        'a blob reference is not a digest',
      );
    }),
};

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
const EXISTING = deepFreeze(
  UIInstance.parse({
    meta: { pageKey: 'p', step: { current: 1, total: 2 }, status: 'idle' },
    state: { params: { count: 1, 'a/b': 'x' }, runtime: { busy: true } },
    blocks: [
      { id: 'a', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } },
      { id: 'b', type: 'form', bind: 'state.runtime', props: { fields: [{ label: 'Pick', key: 'p', type: 'select', options: [{ label: 'A', value: 'a' }] }] } },
    ],
    actions: [{ id: 's', label: 'Save', style: 'primary' }],
    layout: { type: 'single' },
  }),
);
export const UI_CODES = new Set<string>(UI_PATCH_ERROR_CODES);

/** A patch_ui_state call: nearly right, or anything, or nearly right with a huge or deep value in it. */
const uiCall: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: nearUiCall },
  {
    weight: 3,
    arbitrary: fc
      .array(
        fc.oneof(
          fc.record({
            op: fc.constant('set'),
            path: fc.constantFrom('state.params.count', 'state.runtime.busy', 'state.params.name'),
            value: fc.jsonValue({ maxDepth: 2 }),
          }),
          fc.record({ op: fc.constant('set'), path: fc.constant('meta.status'), value: fc.constantFrom('idle', 'submitted', 'done') }),
          fc.record({
            op: fc.constant('add'),
            path: fc.constant('actions+'),
            items: fc.array(
              uiActionBodyArb.map((a) => ({ id: `n${String(a.label).length}`, ...a })),
              { maxLength: 2 },
            ),
          }),
          fc.record({
            op: fc.constantFrom('remove', 'set'),
            path: fc.constantFrom('blocks-"b"', 'actions-s', 'state.params.count', 'blocks["a"]'),
            value: uiBlockBodyArb.map((b) => ({ id: 'a', ...b })),
          }),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((patches) => ({ instanceId: 'p', patches })),
  },
  { weight: 1, arbitrary: hostileValue },
  { weight: 1, arbitrary: fc.jsonValue() },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('state.params.count', 'state.runtime.x', 'meta.status', 'blocks+', 'layout'), fc.oneof(deepValue, hostileString, hostileNumber))
      .map(([path, value]) => ({
        instanceId: 'p',
        patches: [{ op: path === 'blocks+' ? 'add' : 'set', path, ...(path === 'blocks+' ? { items: [value] } : { value }) }],
      })),
  },
);

export function checkErrors(errors: readonly { code: string; patchIndex: number; path: string; message: string }[]): void {
  ensure(errors.length > 0, 'a refusal without errors');
  for (const e of errors) {
    ensure(UI_CODES.has(e.code), `a refusal with the code ${e.code}, not one of the seed's`);
    ensure(Number.isInteger(e.patchIndex) && e.patchIndex >= -1, `a refusal at patch ${e.patchIndex}`);
    ensure(typeof e.path === 'string' && typeof e.message === 'string' && e.message.length > 0, 'a refusal without path or message');
  }
}

export const uiEngineTarget: FuzzTarget = {
  name: 'ui-engine',
  check: 'patch_ui_state input (engine)',
  runs: 6000,
  property: (tally) =>
    counted(tally, uiCall, (input) => {
      let out: ReturnType<typeof applyPatchInput>;
      try {
        out = applyPatchInput(input, (id) => (id === 'p' ? EXISTING : undefined));
      } catch (error) {
        throw new Broken(`applyPatchInput threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
      if (!out.ok) {
        checkErrors(out.errors);
        for (const e of out.errors) tally.reject(e.code);
        return;
      }
      tally.accepted++;
      if (out.kind === 'delete') return;
      ensure(UIInstance.safeParse(out.instance).success, 'an accepted call left an instance that does not parse');
      if (out.kind === 'update') ensure(out.instance.meta.pageKey === 'p', 'an accepted call changed the pageKey');
      ensure(({} as Record<string, unknown>).polluted === undefined, 'Object.prototype was polluted');
    }),
};

export const uiWorkspaceTarget: FuzzTarget = {
  name: 'ui-workspace',
  check: 'patch_ui_state input (ws.ui.patch, memory store)',
  runs: 60,
  property: (tally) =>
    countedAsync(tally, fc.array(uiCall, { minLength: 1, maxLength: 6 }), async (calls) => {
      const ws = await memoryWorkspace();
      try {
        const created = await ws.ui.patch({
          instanceId: '__CREATE__',
          newInstanceId: 'p',
          patches: [
            { op: 'set', path: 'blocks', value: EXISTING.blocks },
            { op: 'set', path: 'actions', value: EXISTING.actions },
          ],
        });
        ensure(created.success, 'the instance p could not be created');
        for (const [i, input] of calls.entries()) {
          const before = await stateOf(ws);
          const instances = ws.ui.list();
          let response: Awaited<ReturnType<Workspace['ui']['patch']>>;
          try {
            response = await ws.ui.patch(input as never);
          } catch (error) {
            tally.reject(typedCode(error, `call ${i}`));
            ensure(isDeepStrictEqual(await stateOf(ws), before), `call ${i} threw but changed the workspace`);
            continue;
          }
          if (!response.success) {
            checkErrors(response.errors);
            for (const e of response.errors) tally.reject(e.code);
            ensure(isDeepStrictEqual(ws.ui.list(), instances), `call ${i} was refused but changed an instance`);
            ensure(isDeepStrictEqual(await stateOf(ws), before), `call ${i} was refused but changed the workspace`);
            continue;
          }
          tally.accepted++;
          if (response.instance !== undefined) ensure(UIInstance.safeParse(response.instance).success, `call ${i} left an instance that does not parse`);
          await sound(ws, `call ${i}`);
        }
      } finally {
        await ws.close();
      }
    }),
};

const schemaManager = createSchemaManager();
const SCHEMAS = {
  strict: schemaManager.generateResponseSchema(),
  lenient: schemaManager.generateResponseSchema({ validationMode: 'lenient' }),
  minimal: schemaManager.generateResponseSchema({ includeOptionalFields: false, requireReasoning: false }),
} as const;
type SchemaName = keyof typeof SCHEMAS;
/** A worker's envelope, offering two actions of its own. */
const envelope = new Envelope([
  defineAction({
    name: 'update_editable_status',
    description: 'Sets a field.',
    input: z.object({ fieldName: z.string(), value: z.string().nullable() }),
    run: () => null,
  }) as Action,
]);

type EnvelopeCase =
  | { k: 'wellFormed'; schema: SchemaName; response: Record<string, unknown>; how: string }
  | { k: 'mutated'; schema: SchemaName; response: Record<string, unknown>; mutations: Mutation[]; how: string }
  | { k: 'text'; schema: SchemaName; text: string }
  | { k: 'hostile'; schema: SchemaName; value: unknown };
const schemaName = fc.constantFrom<SchemaName>('strict', 'lenient', 'minimal');
const envelopeCase: fc.Arbitrary<EnvelopeCase> = schemaName.chain((schema) =>
  fc.oneof(
    fc.record({ k: fc.constant('wellFormed' as const), schema: fc.constant(schema), response: wellFormedResponse(schema !== 'minimal'), how: rendering }),
    {
      weight: 2,
      arbitrary: fc.record({
        k: fc.constant('mutated' as const),
        schema: fc.constant(schema),
        response: wellFormedResponse(schema !== 'minimal'),
        mutations: fc.array(responseMutation, { minLength: 1, maxLength: 3 }),
        how: rendering,
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        k: fc.constant('text' as const),
        schema: fc.constant(schema),
        text: fc.oneof(
          responseText,
          hostileString,
          fc.integer({ min: 1_000, max: 50_000 }).map((n) => `{"decision":${'['.repeat(n)}1${']'.repeat(n)}}`),
          fc.tuple(fc.constantFrom('{', '{"a":"', '{ "action": ', '```json\n{'), fc.integer({ min: 100, max: 20_000 })).map(([piece, n]) => piece.repeat(n)),
          fc
            .tuple(fc.string({ maxLength: 20 }), fc.jsonValue({ maxDepth: 2 }))
            .map(
              ([prose, v]) =>
                `${prose} {"action":"update_editable_status","fieldName":${JSON.stringify(v)},"value":1} {"type":"workspace_action","params":${JSON.stringify(v)}}`,
            ),
        ),
      }),
    },
    fc.record({ k: fc.constant('hostile' as const), schema: fc.constant(schema), value: hostileValue }),
  ),
);

export const envelopesTarget: FuzzTarget = {
  name: 'envelopes',
  check: 'model envelopes and text instructions',
  runs: 300,
  property: (tally) =>
    counted(tally, envelopeCase, (c) => {
      const input =
        c.k === 'wellFormed'
          ? render(c.response, c.how)
          : c.k === 'mutated'
            ? render(
                c.mutations.reduce((doc, m) => mutateInPlace(doc, m), structuredClone(c.response)),
                c.how,
              )
            : c.k === 'text'
              ? c.text
              : c.value;
      let result: ReturnType<typeof schemaManager.validateAIResponse>;
      try {
        result = schemaManager.validateAIResponse(input, SCHEMAS[c.schema]);
      } catch (error) {
        throw new Broken(`validateAIResponse threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
      ensure(typeof result.valid === 'boolean' && Array.isArray(result.errors) && Array.isArray(result.warnings), 'a validation result of the wrong shape');
      if (c.k === 'wellFormed')
        ensure(result.valid && result.executorCompatible, () => `a well-formed response was refused: ${JSON.stringify(result.errors).slice(0, 200)}`);
      if (result.valid) {
        tally.accepted++;
        ensure(result.errors.length === 0 && isObject(result.response), 'a valid result with errors or without a response');
      } else {
        tally.reject('PROTOCOL_INVALID_RESPONSE');
        ensure(result.errors.length > 0 && result.response === undefined, 'an invalid result without errors, or with a response');
        for (const e of result.errors)
          ensure(
            Array.isArray(e.path) && e.path.every((s) => typeof s === 'string') && e.field === e.path.join('.') && e.message.length > 0,
            `an error at a bad path: ${JSON.stringify(e.path)}`,
          );
      }
      if (typeof input !== 'string') return;
      // The same text as a worker reads it: an answer in envelope mode, a text instruction, a bare JSON reading.
      let reading: ReturnType<Envelope['read']>;
      let extracted: ReturnType<typeof extractInstructions>;
      const started = performance.now();
      try {
        parseResponseText(input);
        reading = envelope.read({
          id: 't',
          version: 0,
          parent: null,
          sessionId: 's',
          role: 'assistant',
          blocks: [{ type: 'text', text: input }],
          meta: {},
          seq: 1,
          createdAt: '2026-01-01T00:00:00Z',
        });
        extracted = extractInstructions(input);
      } catch (error) {
        throw new Broken(`reading the text threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
      }
      // Read in time linear in the text (a few hundred kB at most here): a reader that is quadratic blocks the process for seconds.
      const ms = performance.now() - started;
      ensure(ms < 2_000, () => `reading ${input.length} characters took ${ms.toFixed(0)} ms`);
      ensure(['invalid', 'command', 'final'].includes(reading.kind), `a reading of kind ${reading.kind}`);
      ensure(
        extracted.requests.every((r) => typeof r.action === 'string' && r.action !== '' && isObject(r.params)),
        'an instruction without an action name or params object',
      );
      ensure(
        extracted.errors.every((e) => typeof e.message === 'string' && e.snippet.length <= 200),
        'an instruction error without a message, or with a long snippet',
      );
    }),
};

const FIELDS = ['selected_book_name', 'current_page', 'mode', 'large_print'];
const fieldValue = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      null,
      'Physiology',
      'Anatomy',
      'Pocket',
      'Pocket',
      'true',
      'false',
      '1',
      '2',
      '3',
      '4',
      '450',
      '521',
      '-1',
      '1.5',
      '0x2',
      ' 2 ',
      'x',
    ),
  },
  { weight: 2, arbitrary: fc.integer({ min: -5, max: 600 }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: hostileString },
  { weight: 1, arbitrary: hostileNumber },
  { weight: 1, arbitrary: hostileValue },
);
const fieldName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FIELDS, '__proto__', 'constructor', 'toString') },
  { weight: 1, arbitrary: hostileString },
);
const updateInput = fc.oneof(
  { weight: 6, arbitrary: fc.record({ fieldName, value: fieldValue }) },
  { weight: 1, arbitrary: fc.record({ fieldName: fc.oneof(fieldName, hostileValue), value: fieldValue, extra: hostileValue }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: hostileValue },
);
type EnvironmentStep = { k: 'input'; input: unknown } | { k: 'text'; text: string };
const environmentStep: fc.Arbitrary<EnvironmentStep> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ k: fc.constant('input' as const), input: updateInput }) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.string({ maxLength: 20 }), updateInput, fc.constantFrom('short', 'long', 'broken')).map(([prose, input, form]): EnvironmentStep => {
      let json: string;
      try {
        json =
          JSON.stringify(
            form === 'long'
              ? { type: 'workspace_action', action: 'update_editable_status', params: input }
              : { action: 'update_editable_status', ...(isObject(input) ? input : { value: input }) },
          ) ?? 'null';
      } catch {
        json = '{"action":"update_editable_status"';
      }
      return { k: 'text', text: `${prose} ${form === 'broken' ? json.slice(0, -1) : json} ${prose}` };
    }),
  },
);

export const environmentTarget: FuzzTarget = {
  name: 'environment',
  check: 'environment updates (update_editable_status)',
  runs: 40,
  property: (tally) =>
    countedAsync(tally, fc.array(environmentStep, { minLength: 1, maxLength: 8 }), async (steps) => {
      const ws = await memoryWorkspace();
      try {
        const session = await ws.sessions.create();
        const reader = new Reader();
        const worker = ws.worker({ session, model: scriptedModel([]), environments: [reader] });
        await worker.mount();
        const update = worker.actions.find((a) => a.name === 'update_editable_status');
        ensure(update !== undefined, 'the worker offers no update_editable_status');
        const stored = () => ws.manager.workspace().collections.get('environment')?.get('reader');
        for (const [i, step] of steps.entries()) {
          const inputs =
            step.k === 'input'
              ? [step.input]
              : extractInstructions(step.text)
                  .requests.filter((r) => r.action === 'update_editable_status')
                  .map((r) => r.params);
          for (const input of inputs) {
            const before = { schema: JSON.stringify(reader.getEditableStatusSchema()), stored: stored(), state: await stateOf(ws) };
            const unchanged = async (why: string) => {
              ensure(JSON.stringify(reader.getEditableStatusSchema()) === before.schema, `step ${i}: ${why}, but a value changed`);
              ensure(
                isDeepStrictEqual(stored(), before.stored) && isDeepStrictEqual(await stateOf(ws), before.state),
                `step ${i}: ${why}, but the workspace changed`,
              );
            };
            const valid = update.validate(input);
            if (!valid.ok) {
              tally.reject(typedCode(valid.error, `step ${i} validate`));
              await unchanged('the input was refused');
              continue;
            }
            const result = (await update.run(valid.value, {})) as { success: boolean; error?: string; updatedField?: string; newValue?: string | null };
            ensure(typeof result.success === 'boolean', `step ${i}: a result without success`);
            if (!result.success) {
              ensure(typeof result.error === 'string' && result.error.length > 0, `step ${i}: a refusal without an error`);
              tally.reject('UPDATE_REFUSED');
              await unchanged(`the update was refused (${result.error})`);
              continue;
            }
            tally.accepted++;
            for (const [name, status] of Object.entries(reader.editableStatus))
              ensure(validateFieldValue(name, status, status.value).valid, `step ${i}: ${name} was left invalid (${status.value})`);
            const values = (stored() as { values?: Record<string, string | null> } | undefined)?.values ?? {};
            ensure(result.updatedField !== undefined && values[result.updatedField] === result.newValue, `step ${i}: the new value was not stored`);
          }
        }
        // What is stored is what the environment holds: another reader mounted on it reads the same.
        const again = new Reader();
        const { ignored } = await again.mount(ws.manager);
        ensure(ignored.length === 0, () => `stored values were not valid: ${JSON.stringify(ignored)}`);
        ensure(
          JSON.stringify(again.getEditableStatusSchema()) === JSON.stringify(reader.getEditableStatusSchema()),
          'the stored values differ from the environment',
        );
        await sound(ws, 'the updates');
      } finally {
        await ws.close();
      }
    }),
};
