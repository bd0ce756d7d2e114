/**
 * UI instance ids per user (issue 35, finding 11). With users, two users' agents may each
 * build "signup": neither is refused, neither learns the other holds one, and each reads,
 * patches, lists and deletes its own. The ids the model gave are the ones it, the AG-UI state
 * (through @ag-ui/client's HttpAgent) and the page API show; an instance kept under a bare id
 * before ids were scoped is still its user's by that id.
 */
import { HttpAgent } from '@ag-ui/client';
import { DefaultChatTransport } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, userInstanceId, userScope, type PatchInput, type Prompt, type Workspace } from '../src/index.js';
import type { SessionDetail } from '../src/serve/api-types.js';
import { createGolemHandler, type GolemHandler } from '../src/serve/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { NodeChat, partsOf } from './helpers-chat.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The call that builds "signup" (or `id`), saying in its state whose agent built it. */
const build = (owner: string, id = 'signup'): PatchInput => ({
  instanceId: '__CREATE__',
  newInstanceId: id,
  patches: [
    { op: 'set', path: 'state', value: { params: { owner }, runtime: {} } },
    {
      op: 'set',
      path: 'blocks',
      value: [{ id: 'who', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Email', key: 'email', type: 'text' }] } }],
    },
  ],
});
const call = (name: string, input: unknown): ScriptStep => ({ toolCalls: [{ name, input: input as never }] });
const calls = (...steps: [string, unknown][]): ScriptStep => ({ toolCalls: steps.map(([name, input]) => ({ name, input: input as never })) });

/** A step that keeps what the model was answered in its last message (as JSON) and ends the run. */
function keep(into: unknown[][]): ScriptStep {
  return (prompt: Prompt) => {
    into.push(
      (prompt.messages.at(-1)?.content ?? []).flatMap((part) =>
        part.type === 'tool-result' && part.output.type === 'text' ? [JSON.parse(part.output.text) as unknown] : [],
      ),
    );
    return { text: 'Done.' };
  };
}

async function handlerOf(
  script: ScriptStep[],
): Promise<{ ws: Workspace; golem: GolemHandler; say: (user: string, text: string, sessionId?: string) => Promise<string> }> {
  const ws = await createWorkspace();
  const golem = await createGolemHandler(ws, { agent: { model: scriptedModel(script) }, auth: false, user: (request) => request.headers.get('x-user') });
  cleanups.push(
    () => ws.close(),
    () => golem.close(),
  );
  const post = async (user: string, path: string, body: unknown) => {
    const res = await golem.fetch(
      new Request(`http://app.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-user': user }, body: JSON.stringify(body) }),
    );
    return (await res.json()) as { id: string };
  };
  const say = async (user: string, text: string, sessionId?: string) => {
    const id = sessionId ?? (await post(user, '/api/sessions', {})).id;
    await post(user, `/api/sessions/${id}/messages`, { text });
    await golem.settled(id);
    return id;
  };
  return { ws, golem, say };
}

describe('UI instance ids with users', () => {
  it('lets two users\' agents each build, read, list, patch and delete their own "signup", and tells neither of the other\'s', async () => {
    const seen: unknown[][] = [];
    const annPrefixed = `${userScope('ann')}signup`;
    const { ws, say } = await handlerOf([
      call('patch_ui_state', build('ann')),
      keep(seen),
      // Bob's agent takes the same id: its own instance, not "exists already".
      call('patch_ui_state', build('bob')),
      keep(seen),
      calls(['get_ui_state', { instanceId: 'signup' }], ['list_ui_instances', {}], ['get_ui_state', { instanceId: annPrefixed }]),
      keep(seen),
      calls(
        ['patch_ui_state', { instanceId: 'signup', patches: [{ op: 'set', path: 'meta.status', value: 'submitted' }] }],
        ['get_ui_state', { instanceId: 'signup' }],
      ),
      keep(seen),
      calls(
        ['patch_ui_state', { instanceId: '__DELETE__', targetInstanceId: 'signup', patches: [] }],
        ['patch_ui_state', { instanceId: annPrefixed, patches: [] }],
      ),
      keep(seen),
    ]);
    const ann = await say('ann', 'a sign-up form');
    const bob = await say('bob', 'a sign-up form too');
    expect(seen[0]).toEqual([{ success: true, kind: 'create', instanceId: 'signup', version: 1 }]);
    expect(seen[1]).toEqual([{ success: true, kind: 'create', instanceId: 'signup', version: 1 }]);
    // Each kept under its user's prefix, keyed (pageKey) by the id the model gave.
    expect(ws.ui.get(userInstanceId('ann', 'signup'))).toMatchObject({
      builtBy: ann,
      instance: { meta: { pageKey: 'signup' }, state: { params: { owner: 'ann' } } },
    });
    expect(ws.ui.get(userInstanceId('bob', 'signup'))).toMatchObject({
      builtBy: bob,
      instance: { meta: { pageKey: 'signup' }, state: { params: { owner: 'bob' } } },
    });
    expect(ws.ui.get('signup')).toBeUndefined();

    await say('bob', 'what is in my form?', bob);
    const [own, listed, others] = seen[2] as [Record<string, unknown>, { instances: { instanceId: string }[]; total: number }, unknown];
    expect(own).toMatchObject({ success: true, instanceId: 'signup', instance: { state: { params: { owner: 'bob' } } } });
    expect(listed.instances.map((i) => i.instanceId)).toEqual(['signup']);
    expect(listed.total).toBe(1);
    // Ann's instance by its stored id is not there to Bob's agent, in the words of an id no instance has.
    expect(others).toEqual({
      success: false,
      errors: [{ code: 'INVALID_INSTANCE', patchIndex: -1, path: 'instanceId', message: `no UI instance "${annPrefixed}"; list_ui_instances names them` }],
    });

    await say('ann', 'mark mine submitted', ann);
    expect(seen[3]).toMatchObject([
      { success: true, kind: 'update', instanceId: 'signup', version: 2 },
      { success: true, instanceId: 'signup', instance: { meta: { status: 'submitted' }, state: { params: { owner: 'ann' } } } },
    ]);
    expect(ws.ui.get(userInstanceId('bob', 'signup'))?.instance.meta.status).toBe('idle');

    // Bob deletes his; Ann's stays, and his agent cannot patch it by its stored id.
    await say('bob', 'delete mine, and try hers', bob);
    expect(seen[4]).toEqual([
      { success: true, kind: 'delete', instanceId: 'signup', version: 1 },
      {
        success: false,
        errors: [
          {
            code: 'INVALID_INSTANCE',
            patchIndex: -1,
            path: '',
            message: `there is no instance "${annPrefixed}"; create it with instanceId "__CREATE__" and newInstanceId "${annPrefixed}"`,
          },
        ],
      },
    ]);
    expect(ws.ui.get(userInstanceId('bob', 'signup'))).toBeUndefined();
    expect(ws.ui.get(userInstanceId('ann', 'signup'))?.version).toBe(2);
    // No answer Bob's agent had names Ann's prefix but the one it gave itself.
    expect(JSON.stringify(seen.slice(1)).replaceAll(annPrefixed, '')).not.toContain(userScope('ann'));
  });

  it("a user's instance kept under a bare id (made before ids were per user) is still theirs by it; another user takes the id for their own", async () => {
    const seen: unknown[][] = [];
    const { ws, say } = await handlerOf([
      { text: 'Hello.' },
      calls(
        ['get_ui_state', { instanceId: 'old' }],
        ['patch_ui_state', { instanceId: 'old', patches: [{ op: 'set', path: 'meta.status', value: 'submitted' }] }],
      ),
      keep(seen),
      call('patch_ui_state', build('bob', 'old')),
      keep(seen),
    ]);
    const ann = await say('ann', 'hello');
    await ws.ui.patch(build('ann', 'old'), { builtBy: ann });
    await say('ann', 'read and patch the old form', ann);
    expect(seen[0]).toMatchObject([
      { success: true, instanceId: 'old', instance: { state: { params: { owner: 'ann' } } } },
      { success: true, kind: 'update', instanceId: 'old', version: 2 },
    ]);
    expect(ws.ui.get('old')?.instance.meta.status).toBe('submitted');
    await say('bob', 'build "old"');
    expect(seen[1]).toEqual([{ success: true, kind: 'create', instanceId: 'old', version: 1 }]);
    expect(ws.ui.get(userInstanceId('bob', 'old'))?.instance.state.params.owner).toBe('bob');
    expect(ws.ui.get('old')?.instance.state.params.owner).toBe('ann');
  });

  it("an instance the app made (no agent built it) is no user's agent's to patch, delete or detect, even by another user's full id", async () => {
    const seen: unknown[][] = [];
    const annsFull = userInstanceId('ann', 'signup');
    const { ws, say } = await handlerOf([
      calls(
        ['patch_ui_state', { instanceId: annsFull, patches: [{ op: 'set', path: 'state.params.email', value: 'bob@example.com' }] }],
        ['patch_ui_state', { instanceId: '__DELETE__', targetInstanceId: annsFull, patches: [] }],
        ['patch_ui_state', { instanceId: 'welcome', patches: [{ op: 'set', path: 'meta.status', value: 'submitted' }] }],
        ['patch_ui_state', build('bob', 'welcome')],
      ),
      keep(seen),
    ]);
    await ws.ui.patch(build('ann'), {});
    await ws.ui.patch({ ...build('ann'), newInstanceId: annsFull });
    await ws.ui.patch(build('app', 'welcome'));
    await say('bob', 'change what the app made');
    const [patched, deleted, other, created] = seen[0] as { success: boolean; errors?: { code: string }[] }[];
    for (const refused of [patched, deleted, other]) expect(refused).toMatchObject({ success: false, errors: [{ code: 'INVALID_INSTANCE' }] });
    // Taking the id is Bob's own instance, not "exists already".
    expect(created).toMatchObject({ success: true, kind: 'create', instanceId: 'welcome' });
    expect(ws.ui.get(annsFull)?.instance.state.params).toEqual({ owner: 'ann' });
    expect(ws.ui.get('welcome')?.instance).toMatchObject({ meta: { status: 'idle' }, state: { params: { owner: 'app' } } });
    expect(ws.ui.get(userInstanceId('bob', 'welcome'))?.instance.state.params.owner).toBe('bob');
  });

  it("the AG-UI state (HttpAgent), the AI SDK stream (useChat's Chat) and the page API show each user their agent's ids", async () => {
    const { golem, say } = await handlerOf([
      call('patch_ui_state', build('ann')),
      { text: 'Built.' },
      call('patch_ui_state', build('bob')),
      { text: 'Built.' },
      { text: 'Hi.' },
      call('patch_ui_state', build('bob', 'survey')),
      { text: 'Here it is.' },
    ]);
    const ann = await say('ann', 'a sign-up form');
    const bob = await say('bob', 'a sign-up form too');
    const detail = async (user: string, id: string) =>
      (await (await golem.fetch(new Request(`http://app.test/api/sessions/${id}`, { headers: { 'x-user': user } }))).json()) as SessionDetail;
    expect((await detail('ann', ann)).uiInstances).toEqual(['signup']);
    expect((await detail('bob', bob)).uiInstances).toEqual(['signup']);

    const agent = new HttpAgent({
      url: 'http://app.test/api/agui',
      headers: { 'x-user': 'bob' },
      threadId: bob,
      fetch: (url, init) => golem.fetch(new Request(url, init)),
    });
    agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'hi' });
    await agent.runAgent();
    const instances = (agent.state as { instances: Record<string, { state: { params: { owner: string } } }> }).instances;
    expect(Object.keys(instances)).toEqual(['signup']);
    expect(instances.signup?.state.params.owner).toBe('bob');

    const chat = new NodeChat({
      id: 'bob-chat',
      transport: new DefaultChatTransport({
        api: 'http://app.test/api/chat',
        headers: { 'x-user': 'bob' },
        fetch: (url, init) => golem.fetch(new Request(url, init)),
      }),
    });
    await chat.sendMessage({ text: 'a survey' });
    expect(chat.error).toBeUndefined();
    const data = partsOf(chat).filter((p) => p.type === 'data-ui');
    expect(data.map((p) => [p.id, (p.data as { instanceId: string }).instanceId])).toEqual([['survey', 'survey']]);
  });
});
