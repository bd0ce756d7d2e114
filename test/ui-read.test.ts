/**
 * The model reads what it built (issue 23): `get_ui_state` and `list_ui_instances` beside
 * `patch_ui_state` in `ws.ui.actions()`. A scripted agent builds a form, the user's click
 * writes its values through the one write path, and the agent reads them back; another
 * conversation's instance, or (golem serve with users) another user's, is not there to it;
 * a large instance comes back cut, saying what was cut; an MCP client has the three tools.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createWorkspace, userInstanceId, type PatchInput, type Prompt, type UIInstanceList, type UIStateRead, type Workspace } from '../src/index.js';
import { createMcpServer } from '../src/mcp/index.js';
import { applyUiAction, createGolemHandler, serve } from '../src/serve/index.js';
import { scriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { steppingClock } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(): Promise<Workspace> {
  const ws = await createWorkspace({ clock: steppingClock() });
  cleanups.push(() => ws.close());
  return ws;
}

const signupForm = {
  id: 'who',
  type: 'form',
  bind: 'state.params',
  props: {
    fields: [
      { label: 'Email', key: 'email', type: 'text' },
      {
        label: 'Plan',
        key: 'plan',
        type: 'select',
        options: [
          { label: 'Free', value: 'free' },
          { label: 'Pro', value: 'pro' },
        ],
      },
    ],
  },
};
const submit = { id: 'submit', label: 'Sign up', style: 'primary' };

/** The call that builds the sign-up form, as the model makes it. */
const build = (id = 'signup'): PatchInput => ({
  instanceId: '__CREATE__',
  newInstanceId: id,
  patches: [
    { op: 'set', path: 'blocks', value: [signupForm] },
    { op: 'set', path: 'actions', value: [submit] },
  ],
});
const buildCall: ScriptedResponse = { toolCalls: [{ name: 'patch_ui_state', input: build() as never }] };
const read = (instanceId: string): ScriptedResponse => ({ toolCalls: [{ name: 'get_ui_state', input: { instanceId } }] });
const list: ScriptedResponse = { toolCalls: [{ name: 'list_ui_instances', input: {} }] };

/** The results of the calls the model was answered in its last message, as JSON. */
function results(prompt: Prompt | undefined): unknown[] {
  return (prompt?.messages.at(-1)?.content ?? []).flatMap((part) =>
    part.type === 'tool-result' && part.output.type === 'text' ? [JSON.parse(part.output.text) as unknown] : [],
  );
}

/** A step that reads what the model was answered and ends the run, keeping the results. */
function keep(into: unknown[][]): (prompt: Prompt) => ScriptedResponse {
  return (prompt) => (into.push(results(prompt)), { text: 'Read.' });
}

const refusedAs = (id: string): UIStateRead => ({
  success: false,
  errors: [{ code: 'INVALID_INSTANCE', patchIndex: -1, path: 'instanceId', message: `no UI instance "${id}"; list_ui_instances names them` }],
});

describe('ws.ui.actions()', () => {
  it('offers patch_ui_state, get_ui_state and list_ui_instances; the reads are autonomous and repeatable', async () => {
    const ws = await workspace();
    const actions = ws.ui.actions({ trust: 'supervised' });
    expect(actions.map((a) => [a.name, a.trust, a.repeatable])).toEqual([
      ['patch_ui_state', 'supervised', false],
      ['get_ui_state', 'autonomous', true],
      ['list_ui_instances', 'autonomous', true],
    ]);
    expect(ws.ui.action().name).toBe('patch_ui_state');
    // What the descriptions promise is what the reads return.
    const [, get, listAction] = actions;
    for (const key of [
      'instanceId',
      'version',
      'updatedAt',
      'instance',
      'meta',
      'state',
      'params',
      'runtime',
      'blocks',
      'actions',
      'layout',
      'cut',
      'INVALID_INSTANCE',
    ])
      expect(get?.description).toContain(key);
    for (const key of ['instanceId', 'pageKey', 'status', 'step', 'version', 'blocks', 'fields', 'actions', 'updatedAt', 'large', 'total', 'note'])
      expect(listAction?.description).toContain(key);
  });

  it('an agent builds a form, the user submits it, and the agent reads back what they entered and lists its instances', async () => {
    const ws = await workspace();
    const session = await ws.sessions.create();
    const seen: unknown[][] = [];
    const model = scriptedModel([buildCall, { text: 'Fill it in.' }, { toolCalls: [...read('signup').toolCalls!, ...list.toolCalls!] }, keep(seen)]);
    const agent = () => ws.worker({ session, model, actions: ws.ui.actions() });
    expect((await agent().run('build a sign-up form')).actions.map((a) => a.ok)).toEqual([true]);
    // The user's click writes the form's values through patch_ui_state's path (version 2), as golem serve applies it.
    const click = await applyUiAction(ws.ui, { instanceId: 'signup', actionId: 'submit', values: { email: 'ada@example.com', plan: 'pro' } });
    expect(click).toMatchObject({ ok: true, event: { version: 2 } });
    const outcome = await agent().run('The user clicked "Sign up". What did they choose?');
    expect(outcome.actions.map((a) => [a.name, a.ok])).toEqual([
      ['get_ui_state', true],
      ['list_ui_instances', true],
    ]);
    const record = ws.ui.get('signup')!;
    expect(seen[0]).toEqual([
      {
        success: true,
        instanceId: 'signup',
        version: 2,
        updatedAt: record.updatedAt,
        instance: {
          meta: { pageKey: 'signup', step: { current: 1, total: 1 }, status: 'idle' },
          state: { params: { email: 'ada@example.com', plan: 'pro' }, runtime: {} },
          blocks: [signupForm],
          actions: [submit],
        },
      },
      {
        instances: [
          {
            instanceId: 'signup',
            pageKey: 'signup',
            status: 'idle',
            step: { current: 1, total: 1 },
            version: 2,
            blocks: 1,
            fields: 2,
            actions: 1,
            updatedAt: record.updatedAt,
          },
        ],
        total: 1,
      } satisfies UIInstanceList,
    ]);
  });

  it("does not show one conversation's agent another conversation's instance, but does its own sub-worker's", async () => {
    const ws = await workspace();
    const mine = await ws.sessions.create({ label: 'mine' });
    const other = await ws.sessions.create({ label: 'other' });
    await ws.worker({ session: mine, model: scriptedModel([buildCall, { text: 'Built.' }]), actions: ws.ui.actions() }).run('build');
    // One the application made itself (no agent built it) is everyone's.
    await ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: 'app-made', patches: [] });

    const seen: unknown[][] = [];
    const model = scriptedModel([{ toolCalls: [...read('signup').toolCalls!, ...read('nope').toolCalls!, ...list.toolCalls!] }, keep(seen)]);
    const outcome = await ws.worker({ session: other, model, actions: ws.ui.actions() }).run("read the other conversation's form");
    // Refused as an id no instance has: the same answer, word for word.
    expect(seen[0]?.slice(0, 2)).toEqual([refusedAs('signup'), refusedAs('nope')]);
    expect(outcome.actions.map((a) => a.ok)).toEqual([false, false, true]);
    expect((seen[0]?.[2] as UIInstanceList).instances.map((i) => i.instanceId)).toEqual(['app-made']);

    // A sub-worker of the conversation that built it reads it: the conversation is the worker tree's root session.
    const subSeen: unknown[][] = [];
    const tree = scriptedModel((prompt, call): ScriptedResponse => {
      if (prompt.system.includes('You are a sub-worker')) return results(prompt).length === 0 ? read('signup') : keep(subSeen)(prompt);
      return call === 0 ? { toolCalls: [{ name: 'spawn_worker', input: { task: 'Read the sign-up form' } }] } : { text: 'Done.' };
    });
    await ws.worker({ session: mine, model: tree, actions: ws.ui.actions(), subWorkers: true }).run('have a sub-worker read it');
    expect(subSeen[0]).toEqual([expect.objectContaining({ success: true, instanceId: 'signup' })]);
    const subWorker = [...ws.manager.workspace().collection('worker').values()].find((w) => w.rootSessionId === mine.id);
    expect(subWorker?.id).not.toBe(mine.id);
  });

  it('cuts a large instance to a size a model reads, says what was cut, and lists it as large', async () => {
    const ws = await workspace();
    await ws.ui.patch(build('big'));
    await ws.ui.patch({
      instanceId: 'big',
      patches: [
        { op: 'set', path: 'state.params.notes', value: 'n'.repeat(2_000_000) },
        { op: 'set', path: 'state.runtime.rows', value: Array.from({ length: 5_000 }, (_, i) => ({ id: i, name: `row ${i}` })) },
      ],
    });
    const [, get, listAction] = ws.ui.actions();
    const answer = (await get!.run({ instanceId: 'big' }, {})) as Extract<UIStateRead, { success: true }>;
    expect(JSON.stringify(answer).length).toBeLessThan(25_000);
    expect(answer.cut?.note).toMatch(/^The instance is 2,\d{3},\d{3} characters as JSON, more than the 20,000 shown here/);
    expect(answer.cut?.paths).toEqual([
      expect.stringMatching(/^state\.params\.notes: a text of 2,000,000 characters, its first [\d,]+ shown/),
      expect.stringMatching(/^state\.runtime\.rows: a list of 5,000 items, its first \d+ shown/),
    ]);
    // The form itself is whole.
    expect((answer.instance as { blocks: unknown }).blocks).toEqual([signupForm]);
    expect(((await listAction!.run({}, {})) as UIInstanceList).instances[0]).toMatchObject({ instanceId: 'big', large: true });

    // One that does not fit even cut (keys are not cut): its meta, and what it holds, in numbers.
    await ws.ui.patch({
      instanceId: 'big',
      patches: Array.from({ length: 8 }, (_, i) => ({ op: 'set' as const, path: `state.params.${i}${'k'.repeat(5_000)}`, value: i })),
    });
    const huge = (await get!.run({ instanceId: 'big' }, {})) as Extract<UIStateRead, { success: true }>;
    expect(huge.instance).toEqual({ meta: { pageKey: 'big', step: { current: 1, total: 1 }, status: 'idle' } });
    expect(huge.cut?.note).toMatch(
      /too large to show even shortened: only its meta is shown\. It has 1 block, 2 fields, 1 action, 9 keys in state\.params and 1 in state\.runtime\./,
    );
  });

  it('lists at most 50, latest change first, saying how many were left out', async () => {
    const ws = await workspace();
    for (let i = 0; i < 52; i++) await ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: `form-${i}`, patches: [] });
    await ws.ui.patch({ instanceId: 'form-0', patches: [{ op: 'set', path: 'state.params.touched', value: true }] });
    const listed = (await ws.ui.actions()[2]!.run({}, {})) as UIInstanceList;
    expect(listed.instances.map((i) => i.instanceId).slice(0, 3)).toEqual(['form-0', 'form-51', 'form-50']);
    expect(listed).toMatchObject({ total: 52, note: '2 more, changed longer ago, are not listed' });
    expect(listed.instances).toHaveLength(50);
  });

  it("an MCP client lists the three tools and reads an instance back with the user's values", async () => {
    const ws = await workspace();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    let offered: string[] = [];
    const model = scriptedModel((prompt) => ((offered = (prompt.tools ?? []).map((t) => t.name)), { text: 'Hi.' }));
    await createMcpServer(ws, { model }).connect(serverSide);
    const client = new Client({ name: 'another-agent', version: '1.0.0' });
    await client.connect(clientSide);
    cleanups.push(() => client.close());
    const tools = (await client.listTools()).tools;
    expect(tools.slice(0, 3).map((t) => t.name)).toEqual(['patch_ui_state', 'get_ui_state', 'list_ui_instances']);
    expect(tools.find((t) => t.name === 'get_ui_state')?.inputSchema).toMatchObject({ type: 'object', required: ['instanceId'] });
    const text = (result: unknown) => (result as { content: { text: string }[] }).content.map((c) => c.text).join('');

    expect((await client.callTool({ name: 'patch_ui_state', arguments: build() as never })).isError).not.toBe(true);
    await applyUiAction(ws.ui, { instanceId: 'signup', actionId: 'submit', values: { email: 'grace@example.com', plan: 'free' } });
    const state = JSON.parse(text(await client.callTool({ name: 'get_ui_state', arguments: { instanceId: 'signup' } }))) as UIStateRead;
    expect(state).toMatchObject({ success: true, version: 2, instance: { state: { params: { email: 'grace@example.com', plan: 'free' } } } });
    const listed = JSON.parse(text(await client.callTool({ name: 'list_ui_instances', arguments: {} }))) as UIInstanceList;
    expect(listed).toMatchObject({ instances: [{ instanceId: 'signup', version: 2, fields: 2 }], total: 1 });
    const unknown = await client.callTool({ name: 'get_ui_state', arguments: { instanceId: 'nope' } });
    expect(unknown.isError).toBe(true);
    expect(JSON.parse(text(unknown))).toEqual(refusedAs('nope'));
    // The agent that answers send_message has them too.
    await client.callTool({ name: 'send_message', arguments: { text: 'hello' } });
    expect(offered).toEqual(expect.arrayContaining(['patch_ui_state', 'get_ui_state', 'list_ui_instances']));
  });
});

describe("golem serve's agent", () => {
  it('reads back what the user submitted on the page, after the click it was told of; another conversation cannot', async () => {
    const ws = await workspace();
    const seen: unknown[][] = [];
    const model = scriptedModel([
      buildCall,
      { text: 'Fill it in.' },
      read('signup'),
      keep(seen),
      { toolCalls: [...read('signup').toolCalls!, ...list.toolCalls!] },
      keep(seen),
    ]);
    const server = await serve(ws, { page: false, agent: { model } });
    cleanups.push(() => server.close());
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
    const send = async (sessionId: string, text: string) => {
      const sent = await fetch(`${server.url}/api/sessions/${sessionId}/messages`, { method: 'POST', headers, body: JSON.stringify({ text }) });
      expect(sent.status).toBe(202);
      await server.settled(sessionId);
    };
    const mine = await ws.sessions.create();
    await send(mine.id, 'a sign-up form');
    // The page's click, over its socket: the values are applied, then the agent that built the form is told.
    const socket = new WebSocket(server.socketUrl);
    cleanups.push(async () => void socket.close());
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: 'signup', actionId: 'submit', values: { email: 'ada@example.com', plan: 'pro' } }));
    await expect.poll(() => seen.length).toBe(1);
    await server.settled(mine.id);
    expect(seen[0]).toEqual([
      expect.objectContaining({
        success: true,
        version: 2,
        instance: expect.objectContaining({ state: { params: { email: 'ada@example.com', plan: 'pro' }, runtime: {} } }),
      }),
    ]);

    const other = await ws.sessions.create();
    await send(other.id, "what did the user enter in the other conversation's form?");
    expect(seen[1]).toEqual([refusedAs('signup'), { instances: [], total: 0 }]);
  });

  it("with users, does not let one user's agent read or list another user's instance, nor one of no known builder", async () => {
    const ws = await workspace();
    const seen: unknown[][] = [];
    const model = scriptedModel([
      buildCall,
      { text: 'Built.' },
      { toolCalls: [...read('signup').toolCalls!, ...read('app-made').toolCalls!, ...list.toolCalls!] },
      keep(seen),
      { toolCalls: [...read('signup').toolCalls!, ...read('app-made').toolCalls!, ...list.toolCalls!] },
      keep(seen),
    ]);
    const golem = await createGolemHandler(ws, { agent: { model }, auth: false, user: (request) => request.headers.get('x-user') });
    cleanups.push(() => golem.close());
    const as = async (user: string, path: string, body: unknown) => {
      const res = await golem.fetch(
        new Request(`http://app.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-user': user }, body: JSON.stringify(body) }),
      );
      return (await res.json()) as { id: string };
    };
    const say = async (user: string, text: string, sessionId?: string) => {
      const id = sessionId ?? (await as(user, '/api/sessions', {})).id;
      await as(user, `/api/sessions/${id}/messages`, { text });
      await golem.settled(id);
      return id;
    };
    const ann = await say('ann', 'a sign-up form');
    // Kept under Ann's prefix (ids are per user): the app reads it by userInstanceId.
    expect(ws.ui.get(userInstanceId('ann', 'signup'))?.builtBy).toBe(ann);
    await applyUiAction(ws.ui, { instanceId: userInstanceId('ann', 'signup'), actionId: 'submit', values: { email: 'ann@example.com', plan: 'pro' } });
    // An instance no agent built may be any user's: with users, no agent reads it.
    await ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: 'app-made', patches: [] });

    await say('ann', 'what did I enter?', ann);
    expect(seen[0]?.[0]).toMatchObject({ success: true, instance: { state: { params: { email: 'ann@example.com' } } } });
    expect(seen[0]?.slice(1)).toEqual([refusedAs('app-made'), expect.objectContaining({ total: 1 })]);
    await say('bob', 'what did Ann enter?');
    expect(seen[1]).toEqual([refusedAs('signup'), refusedAs('app-made'), { instances: [], total: 0 }]);
  });
});
