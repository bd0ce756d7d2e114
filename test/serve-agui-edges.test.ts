/**
 * AG-UI where runs meet other ways in: an approval answered on the page while a client waits
 * on the thread, a page's run waiting for its dialog followed by a client, a client that
 * comes back after its tool's result was taken, two threads waiting on calls with the same
 * id, an instance that joins or leaves the thread mid-stream, the same first message sent
 * twice at once, and one user's agent naming another user's UI.
 */
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { createGolemHandler, type GolemServer } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { deployAction } from './helpers.js';
import { aguiHarness } from './helpers-agui.js';

const { started, agentOf, say, cleanups } = aguiHarness();

/** A call of the page's own API, with the token. */
async function page(server: GolemServer, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

const create = (id: string) => ({ instanceId: '__CREATE__', newInstanceId: id, patches: [] });

describe('AG-UI with the page and other threads', () => {
  it('asks a client on the thread again when its approval was answered on the page and the run asks for another', async () => {
    const { deploy, deploys } = deployAction();
    const { ws, server } = await started(
      [
        { toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
        { toolCalls: [{ name: 'deploy', input: { target: 'production' } }] },
        { text: 'Both deployed.' },
      ],
      { actions: [deploy] },
    );
    const threadId = crypto.randomUUID();
    const { agent } = agentOf(server, threadId);
    say(agent, 'Deploy both');
    await agent.runAgent();
    const [first] = agent.pendingInterrupts;
    // Answered in the page: the run resumes as the client's run was (pausing on the next approval, not waiting in a page).
    expect(await page(server, 'POST', `/api/approvals/${first!.id}`, { answer: 'yes' })).toMatchObject({ status: 200 });
    await expect.poll(() => ws.approvals.pending({ rootSessionId: threadId }).map((a) => a.description)).toEqual(['Deploy the site to production']);
    await server.settled(threadId);
    // The client, coming back with nothing new, learns of the second approval.
    const back = agentOf(server, threadId).agent;
    back.setMessages(agent.messages);
    await back.runAgent();
    expect(back.pendingInterrupts.map((i) => i.message)).toEqual(['Deploy the site to production']);
    const done = await back.runAgent({ resume: [{ interruptId: back.pendingInterrupts[0]!.id, status: 'resolved', payload: { answer: 'yes' } }] });
    expect(done.result).toEqual({ status: 'done', text: 'Both deployed.' });
    expect(deploys).toEqual(['staging', 'production']);
  });

  it("ends a client's stream with an interrupt when a page's run waits for its dialog, and the client's resume answers it there", async () => {
    const { deploy, deploys } = deployAction();
    const { server } = await started([{ toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] }, { text: 'Deployed.' }], { actions: [deploy] });
    const session = (await page(server, 'POST', '/api/sessions', {})).json as { id: string };
    await page(server, 'POST', `/api/sessions/${session.id}/messages`, { text: 'Deploy' });
    // The page's run waits in memory for the dialog; a client following the thread is asked as well.
    const { agent } = agentOf(server, session.id);
    await agent.runAgent();
    const [asked] = agent.pendingInterrupts;
    expect(asked?.message).toBe('Deploy the site to staging');
    const done = await agent.runAgent({ resume: [{ interruptId: asked!.id, status: 'resolved', payload: { answer: 'yes' } }] });
    expect(done.result).toEqual({ status: 'done', text: 'Deployed.' });
    expect(deploys).toEqual(['staging']);
  });

  it("does not hand a client a tool call again once its result was taken, and keeps two threads' calls of the same id apart", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { server } = await started(
      (() => {
        const answered = new Set<string>();
        return Array.from({ length: 4 }, () => async (prompt: { messages: unknown[] }) => {
          const last = JSON.stringify(prompt.messages.at(-1));
          const where = /Lisbon|Porto/.exec(last)?.[0];
          if (where === undefined) return { toolCalls: [{ name: 'get_location', input: {}, callId: 'call_0' }] };
          if (where === 'Lisbon' && !answered.has(where)) {
            answered.add(where);
            await gate;
          }
          return { text: `In ${where}.` };
        });
      })(),
    );
    const tools = [{ name: 'get_location', description: 'Where the user is', parameters: { type: 'object', properties: {} } }];
    const a = agentOf(server, crypto.randomUUID()).agent;
    const b = agentOf(server, crypto.randomUUID()).agent;
    say(a, 'Where am I?');
    say(b, 'Where am I?');
    await a.runAgent({ tools });
    await b.runAgent({ tools });
    // Both threads wait on a call named call_0; each result goes to its own thread.
    a.addMessage({ id: crypto.randomUUID(), role: 'tool', toolCallId: 'call_0', content: 'Lisbon' });
    b.addMessage({ id: crypto.randomUUID(), role: 'tool', toolCallId: 'call_0', content: 'Porto' });
    const answeringA = a.runAgent({ tools });
    expect((await b.runAgent({ tools })).result).toEqual({ status: 'done', text: 'In Porto.' });
    // While A's run goes on after its result, a client coming back is not told the call is pending again.
    const back = agentOf(server, a.threadId);
    back.agent.setMessages(a.messages);
    let attached!: () => void;
    const following = back.agent.runAgent({ tools }, { onRunStartedEvent: () => attached() });
    await new Promise<void>((resolve) => (attached = resolve));
    release();
    const followed = await following;
    expect(followed.result).toEqual({ status: 'done', text: 'In Lisbon.' });
    expect(back.events.filter((e) => String(e.type) === 'RUN_FINISHED')).toEqual([
      expect.not.objectContaining({ outcome: { type: 'success', pendingToolCallIds: ['call_0'] } }),
    ]);
    expect((await answeringA).result).toEqual({ status: 'done', text: 'In Lisbon.' });
  });

  it("keeps a client's state the server's when an instance joins the thread mid-stream or leaves it", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const waiting = new Promise<void>((resolve) => (reached = resolve));
    const { ws, server } = await started([
      { toolCalls: [{ name: 'patch_ui_state', input: { instanceId: 'shared', patches: [{ op: 'set', path: 'meta.status', value: 'submitted' }] } }] },
      async () => {
        reached();
        await gate;
        return { text: 'Done.' };
      },
    ]);
    await ws.ui.patch(create('shared'), { builtBy: 'elsewhere' });
    const { agent, events } = agentOf(server, crypto.randomUUID());
    say(agent, 'Mark the shared form submitted');
    const run = agent.runAgent();
    await waiting;
    // It joined with this thread's patch: the client gets the whole instance, as the server has it.
    const deltas = () =>
      events.filter((e) => String(e.type) === 'STATE_DELTA').map((e) => (e as unknown as { delta: { op: string; value?: unknown }[] }).delta);
    await expect.poll(() => deltas().length).toBe(1);
    expect(deltas()[0]).toEqual([{ op: 'add', path: '/instances/shared', value: ws.ui.get('shared')?.instance }]);
    // Another thread builds on it now: it leaves this thread's state.
    await ws.ui.patch({ instanceId: 'shared', patches: [{ op: 'set', path: 'meta.status', value: 'idle' }] }, { builtBy: 'elsewhere' });
    release();
    await run;
    expect((agent.state as { instances: object }).instances).toEqual({});
    expect(deltas().map((delta) => delta.map((d) => d.op))).toEqual([['add'], ['remove']]);
  });

  it('answers two first messages sent at once on a new thread (with the reject policy) with one run and one SESSION_BUSY', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const { ws, server } = await started([async () => (await gate, { text: 'Once.' })]);
    const threadId = crypto.randomUUID();
    const send = (id: string) =>
      fetch(`${server.url}/api/agui`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          threadId,
          runId: id,
          messages: [{ id, role: 'user', content: `hello from ${id}` }],
          forwardedProps: { golem: { policy: 'reject' } },
        }),
      });
    const answers = await Promise.all([send('one'), send('two')]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const [ran, refusal] = answers[0]?.status === 200 ? answers : [answers[1], answers[0]];
    expect(await refusal?.json()).toMatchObject({ error: { code: 'SESSION_BUSY' } });
    release();
    await ran?.text();
    await server.settled(threadId);
    expect((await (await ws.sessions.open(threadId))!.transcript()).map((t) => t.role)).toEqual(['user', 'assistant']);
  });

  it("keeps one user's agent from reading or changing another user's UI", async () => {
    const ws = await createWorkspace();
    const golem = await createGolemHandler(ws, {
      agent: {
        model: scriptedModel([
          { toolCalls: [{ name: 'patch_ui_state', input: create('signup') }] },
          { text: 'Built.' },
          { toolCalls: [{ name: 'patch_ui_state', input: { instanceId: 'signup', patches: [{ op: 'set', path: 'meta.status', value: 'submitted' }] } }] },
          (prompt) => ({ text: JSON.stringify(prompt.messages.at(-1)) }),
        ]),
      },
      auth: false,
      user: (request) => request.headers.get('x-user'),
    });
    cleanups.push(
      () => ws.close(),
      () => golem.close(),
    );
    const { HttpAgent } = await import('@ag-ui/client');
    const as = (user: string) =>
      new HttpAgent({
        url: 'http://app.example/api/agui',
        headers: { 'x-user': user },
        threadId: crypto.randomUUID(),
        fetch: (url, init) => golem.fetch(new Request(url, init)),
      });
    const ada = as('ada');
    say(ada, 'Build a sign-up form');
    await ada.runAgent();
    const before = ws.ui.get('signup');
    const bob = as('bob');
    say(bob, "Mark Ada's form submitted");
    const answer = await bob.runAgent();
    // To Bob's agent there is no such instance; Ada's is as she left it, still hers.
    expect(JSON.stringify(answer.result)).toContain('INVALID_INSTANCE');
    // Worded as for an id no instance has: nothing says the id is someone's.
    expect((answer.result as { text: string }).text).toMatch(/there is no instance \W+signup\W+; create it/);
    expect(ws.ui.get('signup')).toEqual(before);
    expect(Object.keys((bob.state as { instances: object }).instances)).toEqual([]);
  });
});
