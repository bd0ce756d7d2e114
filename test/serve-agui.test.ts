/**
 * AG-UI over HTTP (`POST /api/agui`) against a real `golem serve` on loopback, driven by
 * `@ag-ui/client`'s own HttpAgent (which checks the stream's framing as it reads it) and the
 * scripted model: a conversation, an approval as an interrupt resumed (yes, no with a reason,
 * twice, for another call), a frontend tool's call and result, the thread's UI as state, a
 * client that lost its stream coming back to the run, and every bad input refused with its
 * code and nothing written.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { HttpAgent, verifyEvents, type BaseEvent } from '@ag-ui/client';
import { from, lastValueFrom, toArray } from 'rxjs';
import { WebSocket } from 'ws';
import { EventSchemas } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { createGolemHandler, serve } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { deployAction } from './helpers.js';
import { aguiHarness } from './helpers-agui.js';

const { started, agentOf, say, post, refused, texts, cleanups } = aguiHarness();

describe('AG-UI over HTTP: POST /api/agui', () => {
  it('runs a conversation HttpAgent accepts as it is, and the thread is a Golem session', async () => {
    const { ws, server } = await started([{ thinking: 'A mammal heart.', text: 'Four chambers.' }, { text: 'Two atria and two ventricles.' }]);
    const threadId = crypto.randomUUID();
    const { agent, events } = agentOf(server, threadId);
    say(agent, 'How many chambers has the heart?');
    const first = await agent.runAgent();
    expect(first.result).toEqual({ status: 'done', text: 'Four chambers.' });
    say(agent, 'Which?');
    await agent.runAgent();
    expect(texts(agent.messages)).toEqual([
      'user: How many chambers has the heart?',
      'reasoning: A mammal heart.',
      'assistant: Four chambers.',
      'user: Which?',
      'assistant: Two atria and two ventricles.',
    ]);
    // The thread is the session, its messages its turns (by id): the client's copy of the first exchange was not taken as new input.
    const session = await ws.sessions.open(threadId);
    expect((await session!.transcript()).map((t) => t.id)).toEqual(agent.messages.filter((m) => m.role !== 'reasoning').map((m) => m.id));
    expect(events.find((e) => String(e.type) === 'REASONING_MESSAGE_CONTENT')).toMatchObject({ delta: 'A mammal heart.' });
    const types = events.map((e) => String(e.type));
    expect(types.slice(0, 2)).toEqual(['RUN_STARTED', 'STATE_SNAPSHOT']);
    expect(types.at(-2)).toBe('MESSAGES_SNAPSHOT');
    expect(types.at(-1)).toBe('RUN_FINISHED');
    for (const event of events) expect(EventSchemas.safeParse(event).success, event.type).toBe(true);
  });

  it('ends a run on an approval with an interrupt, and goes on when the next request resumes it (yes, then no with a reason)', async () => {
    const { deploy, deploys } = deployAction();
    const model = scriptedModel([
      { text: 'Deploying.', toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
      { text: 'Deployed to staging.' },
      { toolCalls: [{ name: 'deploy', input: { target: 'production' } }] },
      (prompt) => ({ text: `Not deployed: ${JSON.stringify(prompt.messages.at(-1))}` }),
    ]);
    const ws = await createWorkspace();
    const server = await serve(ws, { page: false, agent: { model, actions: [deploy] } });
    cleanups.push(
      () => ws.close(),
      () => server.close(),
    );
    const threadId = crypto.randomUUID();
    const { agent } = agentOf(server, threadId);
    say(agent, 'Deploy to staging');
    const asked = await agent.runAgent();
    expect(asked.result).toBeUndefined();
    expect(deploys).toEqual([]);
    const [interrupt] = agent.pendingInterrupts;
    expect(interrupt).toMatchObject({
      reason: 'approval',
      message: 'Deploy the site to staging',
      metadata: { golem: { action: 'deploy', input: { target: 'staging' }, risk: 'high', workerPath: [expect.objectContaining({ depth: 0 })] } },
    });
    // The interrupt names the call it is about, as the client has it.
    const call = agent.messages.find((m) => m.role === 'assistant' && m.toolCalls?.some((c) => c.id === interrupt?.toolCallId));
    expect(call).toBeDefined();
    expect(ws.approvals.pending({ rootSessionId: threadId }).map((a) => a.id)).toEqual([interrupt?.id]);

    const resumed = await agent.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { answer: 'yes' } }] });
    expect(deploys).toEqual(['staging']);
    expect(resumed.result).toEqual({ status: 'done', text: 'Deployed to staging.' });
    expect(agent.pendingInterrupts).toEqual([]);
    // The same resume again (a retry): the call is not run twice, and the stream is a valid run.
    const retry = agentOf(server, threadId);
    await retry.agent.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { answer: 'yes' } }] });
    expect(deploys).toEqual(['staging']);
    expect(retry.events.map((e) => String(e.type))).not.toContain('TOOL_CALL_RESULT');
    expect(retry.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    // Another answer for the same interrupt: refused.
    expect(
      await refused(agentOf(server, threadId).agent.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { answer: 'no' } }] })),
    ).toMatchObject({
      status: 409,
      payload: { error: { code: 'APPROVAL_ANSWERED' } },
    });

    say(agent, 'Now production');
    await agent.runAgent();
    const second = agent.pendingInterrupts[0];
    expect(second?.message).toBe('Deploy the site to production');
    // While it waits, a new message is refused (HttpAgent itself would not send it): the interrupt is answered first.
    const extra = { threadId, runId: 'r', messages: [...agent.messages, { id: 'late', role: 'user', content: 'and something else' }] };
    expect(await post(server, extra)).toMatchObject({ status: 409, json: { error: { code: 'APPROVAL_PENDING' } } });
    await agent.runAgent({ resume: [{ interruptId: second!.id, status: 'resolved', payload: { answer: 'no', reason: 'not on a Friday' } }] });
    expect(deploys).toEqual(['staging']);
    expect(agent.messages.at(-1)?.content).toContain('not on a Friday');
  });

  it("shows a sub-worker as a step, and its call's approval as the thread's interrupt, with the worker's path", async () => {
    const { deploy, deploys } = deployAction();
    const { server } = await started(
      [
        { toolCalls: [{ name: 'spawn_worker', input: { task: 'deploy it' }, callId: 'spawn' }] },
        { text: 'On it.', toolCalls: [{ name: 'deploy', input: { target: 'prod' }, callId: 'dep' }] },
        { text: 'deployed to prod' },
        { text: 'All done.' },
      ],
      { actions: [deploy], subWorkers: true },
    );
    const { agent, events } = agentOf(server, crypto.randomUUID());
    say(agent, 'ship it');
    await agent.runAgent();
    const [interrupt] = agent.pendingInterrupts;
    expect(interrupt?.toolCallId).toBe('dep');
    expect((interrupt?.metadata?.golem as { workerPath: { depth: number; task: string }[] }).workerPath).toEqual([
      expect.objectContaining({ depth: 0 }),
      expect.objectContaining({ depth: 1, task: 'deploy it' }),
    ]);
    const steps = events.map((e) => String(e.type)).filter((t) => t === 'STEP_STARTED' || t === 'STEP_FINISHED');
    expect(steps).toEqual(['STEP_STARTED', 'STEP_FINISHED']);
    const done = await agent.runAgent({ resume: [{ interruptId: interrupt!.id, status: 'resolved', payload: { answer: 'yes' } }] });
    expect(deploys).toEqual(['prod']);
    expect(done.result).toEqual({ status: 'done', text: 'All done.' });
  });

  it("gives the run the client's context and its app's state, and offers the model its tools", async () => {
    const { server } = await started([
      (prompt) => ({
        text: [
          prompt.system.includes("- The user's plan: Pro") ? 'context' : 'no context',
          prompt.system.includes('"cart":3') && !prompt.system.includes('"instances"') ? 'state' : 'no state',
          prompt.tools?.some((t) => t.name === 'open_cart') === true ? 'tool' : 'no tool',
        ].join(', '),
      }),
    ]);
    const { agent } = agentOf(server, crypto.randomUUID());
    agent.setState({ cart: 3, instances: {} });
    say(agent, 'What do you know?');
    const run = await agent.runAgent({
      context: [{ description: "The user's plan", value: 'Pro' }],
      tools: [{ name: 'open_cart', description: 'Opens the cart', parameters: { type: 'object', properties: {} } }],
    });
    expect(run.result).toEqual({ status: 'done', text: 'context, state, tool' });
  });

  it("ends a run on a call of the client's own tool, and takes its result from the next request", async () => {
    const { ws, server } = await started([
      { toolCalls: [{ name: 'get_location', input: { precise: true }, callId: 'loc-1' }] },
      (prompt) => ({ text: `You are in ${JSON.stringify(prompt.messages.at(-1)).includes('Lisbon') ? 'Lisbon' : 'an unknown place'}.` }),
    ]);
    const threadId = crypto.randomUUID();
    const { agent } = agentOf(server, threadId);
    const tools = [
      {
        name: 'get_location',
        description: "The user's location, from the browser",
        parameters: { type: 'object', properties: { precise: { type: 'boolean' } } },
      },
    ];
    say(agent, 'Where am I?');
    await agent.runAgent({ tools });
    const call = agent.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).find((c) => c.function.name === 'get_location');
    expect(call).toMatchObject({ id: 'loc-1', function: { arguments: '{"precise":true}' } });
    agent.addMessage({ id: crypto.randomUUID(), role: 'tool', toolCallId: 'loc-1', content: 'Lisbon, Portugal' });
    const done = await agent.runAgent({ tools });
    expect(done.result).toEqual({ status: 'done', text: 'You are in Lisbon.' });
    // The result is on record as the call's, with the id the client knows it by.
    const session = await ws.sessions.open(threadId);
    const result = (await session!.transcript()).flatMap((t) => t.blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : [])));
    expect(result).toMatchObject([{ callId: 'loc-1', content: [{ type: 'text', text: 'Lisbon, Portugal' }] }]);
    expect(agent.messages.filter((m) => m.role === 'tool').map((m) => m.content)).toEqual(['Lisbon, Portugal']);
  });

  it("sends the thread's UI instances as state: a snapshot first, then each change", async () => {
    const create = (id: string) => ({ instanceId: '__CREATE__', newInstanceId: id, patches: [] });
    const field = {
      op: 'add',
      path: 'blocks+',
      items: [{ id: 'main', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } }],
    };
    const { ws, server } = await started([
      { toolCalls: [{ name: 'patch_ui_state', input: create('signup') }] },
      { toolCalls: [{ name: 'patch_ui_state', input: { instanceId: 'signup', patches: [field] } }] },
      { text: 'Here is the form.' },
    ]);
    // Another thread's instance is not this thread's state.
    await ws.ui.patch(create('elsewhere'), { builtBy: 'someone-else' });
    const { agent, events } = agentOf(server, crypto.randomUUID());
    say(agent, 'Build a sign-up form');
    await agent.runAgent();
    expect(Object.keys((agent.state as { instances: object }).instances)).toEqual(['signup']);
    expect(events.filter((e) => String(e.type) === 'STATE_DELTA')).toHaveLength(2);
    // The deltas rebuilt the instance as the server has it.
    expect((agent.state as { instances: Record<string, unknown> }).instances.signup).toEqual(
      ws.manager.workspace().collection('ui_instance').get('signup')?.instance,
    );
  });

  it('lets a client that lost its stream follow the run from its start; the run went on', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const working = new Promise<void>((resolve) => (reached = resolve));
    const { server } = await started([
      async () => {
        reached();
        await gate;
        return { text: 'Finished the long task.' };
      },
    ]);
    const threadId = crypto.randomUUID();
    const { agent } = agentOf(server, threadId);
    say(agent, 'Do the long task');
    const first = refused(agent.runAgent());
    await working;
    agent.abortRun();
    await first;
    // A second message on the busy thread, with the reject policy, is refused…
    const other = agentOf(server, threadId).agent;
    say(other, 'something else');
    expect(await refused(other.runAgent({ forwardedProps: { golem: { policy: 'reject' } } }))).toMatchObject({
      status: 409,
      payload: { error: { code: 'SESSION_BUSY' } },
    });
    // …while a request that adds nothing follows the run in progress.
    const back = agentOf(server, threadId);
    let attached!: () => void;
    const following = back.agent.runAgent(undefined, { onRunStartedEvent: () => attached() });
    await new Promise<void>((resolve) => (attached = resolve));
    release();
    const result = await following;
    expect(result.result).toEqual({ status: 'done', text: 'Finished the long task.' });
    expect(texts(back.agent.messages)).toEqual(['user: Do the long task', 'assistant: Finished the long task.']);
  });

  it('takes a message sent while the thread runs by forwardedProps.golem.policy: steer, seen before the next model call; enqueue (the default), the next run', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const working = new Promise<void>((resolve) => (reached = resolve));
    const { deploy } = deployAction();
    const { ws, server } = await started(
      [
        async () => (reached(), await gate, { toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] }),
        (prompt) => ({ text: `Saw: ${JSON.stringify(prompt.messages.at(-1))}` }),
        { text: 'The queued one, answered.' },
      ],
      { actions: [{ ...deploy, trust: 'autonomous' }] },
    );
    const threadId = crypto.randomUUID();
    const { agent } = agentOf(server, threadId);
    say(agent, 'Deploy it');
    const first = agent.runAgent();
    await working;
    const sent = async (text: string, forwardedProps?: unknown) => {
      const other = agentOf(server, threadId);
      say(other.agent, text);
      await other.agent.runAgent(forwardedProps === undefined ? {} : { forwardedProps });
      return other.events;
    };
    expect(
      await refused(
        (() => {
          const bad = agentOf(server, threadId).agent;
          say(bad, 'x');
          return bad.runAgent({ forwardedProps: { golem: { policy: 'sometimes' } } });
        })(),
      ),
    ).toMatchObject({ status: 400, payload: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('forwardedProps.golem') } } });
    const steered = await sent('use production instead', { golem: { policy: 'steer' } });
    const queued = await sent('and then tidy up');
    for (const [events, policy] of [
      [steered, 'steer'],
      [queued, 'enqueue'],
    ] as const) {
      expect(events.map((e) => e.type)).toEqual(['RUN_STARTED', 'CUSTOM', 'RUN_FINISHED']);
      expect(events[1]).toMatchObject({ name: 'golem.queued', value: { policy, runId: expect.any(String) } });
    }
    release();
    await first;
    await server.settled(threadId);
    const turns = (await (await ws.sessions.open(threadId))!.transcript()).map(
      (t) => `${t.role}: ${t.blocks.map((b) => (b.type === 'text' ? b.text : b.type)).join(' ')}`,
    );
    // The steering message after the call's result, before the next model call, which read it; the queued one, a run of its own.
    expect(turns).toEqual([
      'user: Deploy it',
      'assistant: tool_use',
      'tool: tool_result',
      'user: use production instead',
      expect.stringMatching(/^assistant: Saw: .*use production instead/),
      'user: and then tidy up',
      'assistant: The queued one, answered.',
    ]);
  });

  it('refuses bad input with a typed error and writes nothing', async () => {
    const { ws, server } = await started([{ text: 'unused' }]);
    const sessions = () => ws.sessions.list().length;
    const threadId = crypto.randomUUID();
    expect(await post(server, '{nope')).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('not JSON') } },
    });
    expect(await post(server, { threadId, messages: [] })).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('runId') } },
    });
    expect(await post(server, { threadId, runId: 'r', messages: [{ id: 'm', role: 'user' }] })).toMatchObject({ status: 400 });
    const huge = { threadId, runId: 'r', messages: [{ id: 'm', role: 'user', content: 'x'.repeat(9 * 1024 * 1024) }] };
    expect(await post(server, huge)).toMatchObject({ status: 400, json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('bytes') } } });
    // A tool whose schema cannot be compiled, a URL image, an unknown thread's interrupt.
    const message = [{ id: 'm', role: 'user', content: 'hi' }];
    expect(
      await post(server, { threadId, runId: 'r', messages: message, tools: [{ name: 'bad', description: 'd', parameters: { type: 'string' } }] }),
    ).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('bad') } },
    });
    const url = [{ id: 'm', role: 'user', content: [{ type: 'image', source: { type: 'url', value: 'https://example.com/x.png' } }] }];
    expect(await post(server, { threadId, runId: 'r', messages: url })).toMatchObject({
      status: 400,
      json: { error: { message: expect.stringContaining('data') } },
    });
    expect(
      await post(server, { threadId, runId: 'r', messages: [], resume: [{ interruptId: 'nope', status: 'resolved', payload: { answer: 'yes' } }] }),
    ).toMatchObject({
      status: 404,
      json: { error: { code: 'SESSION_NOT_FOUND' } },
    });
    // A request with nothing in it for a thread there is not: not found (as another user's is), and none is made.
    expect(await post(server, { threadId, runId: 'r', messages: [] })).toMatchObject({ status: 404, json: { error: { code: 'SESSION_NOT_FOUND' } } });
    // A client tool named as one of the agent's actions, or two named alike: refused before the thread is made.
    const tool = (name: string) => ({ name, description: 'd', parameters: { type: 'object', properties: {} } });
    for (const tools of [[tool('patch_ui_state')], [tool('a'), tool('a')], [tool('spawn_worker')]]) {
      expect(await post(server, { threadId, runId: 'r', messages: message, tools })).toMatchObject({
        status: 400,
        json: { error: { code: 'INVALID_ARGUMENT' } },
      });
    }
    // A body over the limit with no length said (chunked): cut off, refused.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(`{"threadId":"${threadId}","runId":"r","messages":[{"id":"m","role":"user","content":"`));
        for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(1024 * 1024).fill(120));
        controller.enqueue(new TextEncoder().encode('"}]}'));
        controller.close();
      },
    });
    const streamed = await fetch(`${server.url}/api/agui`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: chunked,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(400);
    expect(sessions()).toBe(0);
    // The token, as on every API route.
    const anonymous = await fetch(`${server.url}/api/agui`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
  });

  it("refuses a resume naming another thread's approval, or a payload that is no answer", async () => {
    const { deploy } = deployAction();
    const { ws, server } = await started(
      [{ toolCalls: [{ name: 'deploy', input: { target: 'a' } }] }, { toolCalls: [{ name: 'deploy', input: { target: 'b' } }] }],
      { actions: [deploy] },
    );
    const a = agentOf(server, crypto.randomUUID()).agent;
    say(a, 'deploy a');
    await a.runAgent();
    const b = agentOf(server, crypto.randomUUID()).agent;
    say(b, 'deploy b');
    await b.runAgent();
    // HttpAgent checks that a resume answers the interrupts it has; the server checks whose they are.
    const resume = (interruptId: string, payload: unknown) => ({
      threadId: b.threadId,
      runId: 'r',
      messages: b.messages,
      resume: [{ interruptId, status: 'resolved', payload }],
    });
    expect(await post(server, resume(a.pendingInterrupts[0]!.id, { answer: 'yes' }))).toMatchObject({
      status: 404,
      json: { error: { code: 'APPROVAL_NOT_FOUND' } },
    });
    expect(await post(server, resume(b.pendingInterrupts[0]!.id, { approve: true }))).toMatchObject({
      status: 400,
      json: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('answer') } },
    });
    // Both still wait, unanswered.
    expect(ws.approvals.pending().map((p) => p.status)).toEqual(['pending', 'pending']);
  });

  it('examples/agui-client.ts runs as the README shows', async () => {
    const env = { ...process.env };
    delete env.GOLEM_URL;
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/agui-client.ts'], {
      cwd: join(import.meta.dirname, '..'),
      env,
    });
    expect(stdout.trim().split('\n')).toEqual([
      'approval asked: Deploy the site to staging (risk high)',
      'user: Deploy the site to staging, please.',
      'assistant: I will deploy it to staging. [calls deploy {"target":"staging"}]',
      'tool: deployed to staging',
      'assistant: Done: the site is on staging.',
    ]);
  });

  it('speaks the same over a WebSocket (/ws/agui): each message a RunAgentInput, answered by its run alone, as a stock client checks it', async () => {
    const { server } = await started([{ text: 'One.' }, { text: 'Two.' }]);
    const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/ws/agui?token=${server.token}`);
    const events: BaseEvent[] = [];
    socket.on('message', (data: Buffer) => void events.push(JSON.parse(data.toString()) as BaseEvent));
    await new Promise((resolve) => socket.once('open', resolve));
    const finished = (n: number) => expect.poll(() => events.filter((e) => ['RUN_FINISHED', 'RUN_ERROR'].includes(String(e.type))).length).toBe(n);
    const threadId = crypto.randomUUID();
    socket.send(JSON.stringify({ threadId, runId: 'r1', messages: [{ id: 'u1', role: 'user', content: 'first' }] }));
    // One run at a time on a socket: a message sent while one streams is refused.
    socket.send(JSON.stringify({ threadId, runId: 'rx', messages: [{ id: 'ux', role: 'user', content: 'too soon' }] }));
    await finished(2);
    expect(events.find((e) => String(e.type) === 'RUN_ERROR')).toMatchObject({ code: 'SESSION_BUSY' });
    events.splice(
      events.findIndex((e) => String(e.type) === 'RUN_ERROR'),
      1,
    );
    socket.send(
      JSON.stringify({
        threadId,
        runId: 'r2',
        messages: [
          { id: 'u1', role: 'user', content: 'first' },
          { id: 'u2', role: 'user', content: 'second' },
        ],
      }),
    );
    await finished(2);
    // Two whole runs, one after the other, nothing between them: @ag-ui/client's own check takes them as they are.
    const checked = await lastValueFrom(from(events).pipe(verifyEvents(), toArray()));
    expect(checked.map((e) => String(e.type)).filter((t) => t.startsWith('RUN_'))).toEqual(['RUN_STARTED', 'RUN_FINISHED', 'RUN_STARTED', 'RUN_FINISHED']);
    socket.send('{"threadId":1}');
    await finished(3);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'INVALID_ARGUMENT' });
    socket.close();
  });

  it("runs inside any server through createGolemHandler, each user's threads their own", async () => {
    const ws = await createWorkspace();
    const golem = await createGolemHandler(ws, {
      agent: { model: scriptedModel([{ text: 'Hello, Ada.' }, { text: 'unused' }]) },
      auth: false,
      user: (request) => request.headers.get('x-user'),
    });
    cleanups.push(
      () => ws.close(),
      () => golem.close(),
    );
    // HttpAgent with the handler as its fetch: what a Next.js route handler, Bun or Deno hand it.
    const as = (user: string, threadId: string) =>
      new HttpAgent({ url: 'http://app.example/api/agui', headers: { 'x-user': user }, threadId, fetch: (url, init) => golem.fetch(new Request(url, init)) });
    const threadId = crypto.randomUUID();
    const ada = as('ada', threadId);
    say(ada, 'Hi');
    expect((await ada.runAgent()).result).toEqual({ status: 'done', text: 'Hello, Ada.' });
    // Another user naming Ada's thread: as if there were none, and nothing is added to it.
    const bob = as('bob', threadId);
    say(bob, 'Let me in');
    expect(await refused(bob.runAgent())).toMatchObject({ status: 404, payload: { error: { code: 'SESSION_NOT_FOUND' } } });
    expect((await (await ws.sessions.open(threadId))!.transcript()).map((t) => t.role)).toEqual(['user', 'assistant']);
  });
});
