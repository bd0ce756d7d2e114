/**
 * The commands target: arbitrary command envelopes and payloads dispatched on a workspace
 * with something of every kind in it. Every command is accepted, or refused with a typed
 * error that changed nothing (index, store, command log, blob files); after each, the
 * workspace's invariants hold and its index is the store's records.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { Turn, Workspace } from '../src/index.js';
import { get, hostileMutation, hostileString, hostileValue, isObject, mutateInPlace, paths, put, type Mutation } from './arbitraries.js';
import { Broken, countedAsync, ensure, memoryWorkspace, sound, stateOf, typedCode, type FuzzTarget } from './fuzz-kit.js';

const BYTES = new TextEncoder().encode('the bytes of a small picture');
const SHA = createHash('sha256').update(BYTES).digest('hex');
const text = (value: string) => ({ type: 'text', text: value });
const image = { type: 'image', blob: { sha256: SHA }, mediaType: 'image/png', alt: 'a heart' };
export const formBlock = {
  id: 'who',
  type: 'form',
  bind: 'state.params',
  props: {
    fields: [
      { label: 'Name', key: 'name', type: 'text' },
      { label: 'Age', key: 'age', type: 'number' },
      { label: 'Kind', key: 'kind', type: 'select', options: [{ label: 'A', value: 'a' }] },
    ],
  },
};

interface Template {
  type: string;
  payload: unknown;
}

/**
 * A workspace with something of every kind in it (sessions, a fork, turn versions and
 * branches, a blob, roles, preferences, context, environment values, a UI instance, trust,
 * a grant, an approval, a clearance item, a browser session, a sub-worker), and a valid
 * command of every type for it, to mutate: the ones it was built with, and the rest.
 */
async function seeded(): Promise<{ ws: Workspace; templates: Template[] }> {
  const ws = await memoryWorkspace();
  const templates: Template[] = [];
  const run = async (type: string, payload: unknown): Promise<Record<string, unknown>> => {
    templates.push({ type, payload });
    const result = await ws.manager.dispatch({ type, payload } as never);
    if (!result.ok) throw new Error(`seeding ${type} failed: ${result.error.message}`);
    return result.value as Record<string, unknown>;
  };
  const later = (type: string, payload: unknown) => templates.push({ type, payload });
  await run('role:add', { name: 'analyst', persona: 'You analyse.', topics: ['t'], constraints: { temperature: 0.2 } });
  await run('preference:add', { id: 'p1', content: 'Be brief.', topics: ['t'] });
  await run('context:add', { key: 'k1', content: 'Hearts have four chambers.', topics: ['t'], source: null });
  await run('session:create', { id: 's1', label: 'main', topics: ['t'], role: 'analyst', preferences: ['p1'] });
  await ws.blobs.register(BYTES, { mediaType: 'image/png' });
  later('blob:register', { sha256: SHA, size: BYTES.length, mediaType: 'image/png', filename: 'heart.png', hold: true });
  await run('turn:add', { sessionId: 's1', turn: { id: 't1', role: 'user', blocks: [text('What does a heart look like?'), image] } });
  await run('turn:add', {
    sessionId: 's1',
    expectedHead: { id: 't1', version: 0 },
    turn: {
      id: 't2',
      role: 'assistant',
      blocks: [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'tool_use', callId: 'c1', name: 'search', args: { query: 'heart', limit: 3 } },
      ],
      meta: { usage: { inputTokens: 5 } },
    },
  });
  await run('turn:add', {
    sessionId: 's1',
    turn: { id: 't3', role: 'tool', blocks: [{ type: 'tool_result', callId: 'c1', content: [text('found'), image] }] },
  });
  await run('turn:edit', {
    sessionId: 's1',
    turnId: 't3',
    blocks: [{ type: 'tool_result', callId: 'c1', content: [text('found again')], isError: false }],
    meta: {},
  });
  await run('turn:switch', { sessionId: 's1', turnId: 't3', direction: 'left' });
  await run('turn:branch', {
    sessionId: 's1',
    parent: { id: 't1', version: 0 },
    turn: { id: 't4', role: 'assistant', blocks: [{ type: 'summary', text: 'so far', summarizes: [{ id: 't1', version: 0 }] }] },
  });
  await run('session:fork', { sessionId: 's1', turnId: 't2', id: 's2', label: 'fork' });
  await run('session:update', { sessionId: 's1', updates: { label: 'renamed', topics: ['t', 'u'] } });
  await run('session:role:switch', { sessionId: 's2', role: 'analyst' });
  await run('role:update', { name: 'analyst', updates: { persona: 'You analyse carefully.', preferences: ['p1'] } });
  await run('preference:update', { id: 'p1', updates: { content: 'Be very brief.' } });
  await run('context:update', { key: 'k1', updates: { source: 'notes' } });
  await run('blob:retain', { sha256: SHA });
  await run('blob:record_remote_id', { sha256: SHA, provider: 'openai', remoteId: 'file-1' });
  await run('workspace:update', { name: 'fuzz', settings: { theme: 'dark' } });
  await run('environment:update', { environmentId: 'reader', values: { selected_book_name: 'Pocket', current_page: '1' } });
  await run('ui:patch', {
    instanceId: '__CREATE__',
    newInstanceId: 'form',
    patches: [
      { op: 'set', path: 'blocks', value: [formBlock] },
      { op: 'set', path: 'actions', value: [{ id: 'go', label: 'Go', style: 'primary' }] },
    ],
  });
  await run('ui:patch', { instanceId: 'form', patches: [{ op: 'set', path: 'state.params.name', value: 'Ada' }] });
  await run('trust:set', { sessionId: 's1', action: 'deploy', mode: 'supervised' });
  const grant = await run('grant:add', { action: 'deploy', key: '{}', scope: 'session', sessionId: 's1' });
  const approval = await run('approval:request', {
    sessionId: 's1',
    turnId: 't2',
    callId: 'c9',
    action: 'deploy',
    input: { target: 'prod' },
    grantKey: '{"target":"prod"}',
    type: 'command',
    description: 'Deploy to prod',
    details: { target: 'prod' },
    risk: 'high',
    workerPath: [{ id: 's1', depth: 0, task: 'chat' }],
  });
  const item = await run('clearance:stage', { type: 'staged_commit', description: 'a change', sessionId: 's1', workerId: 's1', metadata: { files: ['a.ts'] } });
  await run('browser:session_open', { id: 'b1', sessionId: 's1' });
  await run('browser:variable_set', { browserSessionId: 'b1', name: 'user', value: 'ada' });
  const worker = await run('worker:spawn', { parentSessionId: 's1', parentCallId: 'c2', task: 'look around', actions: ['read_file'], maxDepth: 2 });
  // A run's lease, held by another handle (commands mutated to name its session meet it) and by this one.
  await run('session:create', { id: 's9', label: 'leased' });
  await run('run:claim', { sessionId: 's9', holder: 'another-process', by: 'a fuzzed holder', runId: 'r0', ttlMs: 600_000 });
  later('run:claim', { sessionId: 's1', holder: ws.manager.instanceId, runId: 'r1', ttlMs: 60_000 });
  later('run:renew', { sessionId: 's1', holder: ws.manager.instanceId, runId: 'r1', ttlMs: 60_000 });
  later('run:release', { sessionId: 's1', holder: ws.manager.instanceId, runId: 'r1' });
  later('approval:answer', { id: approval.id, answer: 'always', reason: 'fine' });
  later('clearance:decide', { id: item.id, decision: 'push', outcome: 'wrote a.ts' });
  later('grant:revoke', { id: grant.id });
  later('browser:session_close', { id: 'b1' });
  later('worker:finish', { id: worker.id, status: 'done', result: 'all looked at' });
  later('turn:delete', { sessionId: 's1', turnId: 't4', version: 0 });
  later('session:delete', { sessionId: 's2' });
  later('role:delete', { name: 'analyst' });
  later('preference:delete', { id: 'p1' });
  later('context:delete', { key: 'k1' });
  later('blob:release', { sha256: SHA });
  later('blob:collect', { before: '2030-01-01T00:00:00Z' });
  later('blob:recount', {});
  later('workspace:sync', {});
  later('workspace:create', { name: 'again' });
  later('ui:patch', { instanceId: '__DELETE__', targetInstanceId: 'form', patches: [] });
  later('session:create', {});
  later('turn:add', { sessionId: 's2', turn: { role: 'user', blocks: [text('and in the fork?')] } });
  return { ws, templates };
}

interface Extras {
  id?: unknown;
  timestamp?: unknown;
  actor?: unknown;
  extra?: [string, unknown];
}
type CommandStep =
  | { k: 'template'; pick: number; reid: { pick: number; id: number } | null; mutations: Mutation[]; extras: Extras | null }
  | { k: 'envelope'; type: string; payload: unknown; extras: Extras | null }
  | { k: 'raw'; value: unknown };

const extrasArb: fc.Arbitrary<Extras | null> = fc.oneof(
  { weight: 3, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        id: fc.oneof(fc.uuid(), fc.constantFrom('id-1', 'id-3', ''), hostileString, hostileValue),
        timestamp: fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          fc.constantFrom('2026-01-01T00:00:00+05:00', '2026-02-30T00:00:00Z', 'last tuesday', '', '2026-01-01'),
          hostileValue,
        ),
        actor: fc.oneof(fc.constant(null), fc.string({ maxLength: 10 }), hostileValue),
        extra: fc.tuple(fc.constantFrom('seq', 'result', '__proto__', 'constructor', 'x'), hostileValue),
      },
      { requiredKeys: [] },
    ),
  },
);
const commandStep: fc.Arbitrary<CommandStep> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      k: fc.constant('template' as const),
      pick: fc.nat(),
      reid: fc.option(fc.record({ pick: fc.nat(), id: fc.nat() }), { freq: 4 }),
      mutations: fc.oneof(fc.constant<Mutation[]>([]), fc.array(hostileMutation, { minLength: 1, maxLength: 3 })),
      extras: extrasArb,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('envelope' as const),
      type: fc.oneof(
        fc.constantFrom(
          'turn:add',
          'session:create',
          'ui:patch',
          'environment:update',
          'blob:register',
          'turn:explode',
          'session:',
          ':',
          'TURN:ADD',
          '__proto__',
          'constructor',
          'toString',
        ),
        hostileString,
      ),
      payload: hostileValue,
      extras: extrasArb,
    }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('raw' as const), value: hostileValue }) },
);

/** The command a step stands for, on the workspace as it is. */
function commandOf(step: CommandStep, templates: readonly Template[], ws: Workspace): unknown {
  if (step.k === 'raw') return step.value;
  let type: string;
  let payload: unknown;
  if (step.k === 'envelope') {
    type = step.type;
    payload = step.payload;
  } else {
    const template = templates[step.pick % templates.length] as Template;
    type = template.type;
    const doc = { payload: structuredClone(template.payload) };
    if (step.reid !== null) {
      // An id of something that exists now, in place of one of the template's strings.
      const strings = paths(doc).filter((p) => typeof get(doc, p) === 'string');
      const at = strings[step.reid.pick % Math.max(1, strings.length)];
      const ids = [...ws.manager.workspace().records()].map((r) => (r.collection === 'turn' ? (r.value as Turn).id : r.key));
      if (at !== undefined && ids.length > 0) put(get(doc, at.slice(0, -1)), at.at(-1) as string | number, ids[step.reid.id % ids.length]);
    }
    for (const m of step.mutations) mutateInPlace(doc, m);
    payload = doc.payload;
  }
  const command: Record<string, unknown> = { type, payload };
  const extras = step.extras;
  if (extras !== null) {
    if ('id' in extras) command.id = extras.id;
    if ('timestamp' in extras) command.timestamp = extras.timestamp;
    if ('actor' in extras) command.actor = extras.actor;
    if (extras.extra !== undefined) put(command, extras.extra[0], extras.extra[1]);
  }
  return command;
}

export const commandsTarget: FuzzTarget = {
  name: 'commands',
  check: 'commands dispatched (memory store)',
  runs: 30,
  property: (tally) =>
    countedAsync(tally, fc.array(commandStep, { minLength: 1, maxLength: 8 }), async (steps) => {
      const { ws, templates } = await seeded();
      try {
        for (const [i, step] of steps.entries()) {
          const command = commandOf(step, templates, ws);
          const before = await stateOf(ws);
          let result: Awaited<ReturnType<Workspace['manager']['dispatch']>>;
          try {
            result = await ws.manager.dispatch(command as never);
          } catch (error) {
            throw new Broken(`dispatch threw on step ${i} instead of answering: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
          }
          const type = isObject(command) && typeof command.type === 'string' ? command.type.slice(0, 40) : typeof command;
          if (result.ok) {
            tally.accepted++;
            await sound(ws, `step ${i} (${type}, accepted)`);
            continue;
          }
          const code = typedCode(result.error, `step ${i} (${type})`);
          tally.reject(code);
          const after = await stateOf(ws);
          ensure(isDeepStrictEqual(after, before), `step ${i} (${type}) was refused with ${code} but changed the workspace`);
          await sound(ws, `step ${i} (${type}, refused)`);
        }
      } finally {
        await ws.close();
      }
    }),
};
