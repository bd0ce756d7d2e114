/**
 * The AI SDK's chat route (`POST /api/chat`, `GET /api/chat/:id/stream`) against a real
 * `golem serve` on loopback with the scripted model, talked to by the `ai` package's own
 * client side: its chat (AbstractChat, the class under `useChat`, over a plain state here)
 * with DefaultChatTransport and `lastAssistantMessageIsCompleteWithApprovalResponses`, as an
 * app's page runs them; each chunk Golem sends checked against the package's schema and types.
 */
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  uiMessageChunkSchema,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  type UIMessage,
  type UIMessageChunk as AiUIMessageChunk,
} from 'ai';
import { z } from 'zod';
import { createWorkspace, defineAction, type Action, type Workspace } from '../src/index.js';
import { createGolemHandler, serve, type GolemServer, type ServeAgentOptions } from '../src/serve/index.js';
import type { UIMessageChunk } from '../src/serve/ui-message-stream.js';
import { scriptedModel } from '../src/test/index.js';
import { deployAction, tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(agent: ServeAgentOptions | undefined, ws?: Workspace): Promise<{ ws: Workspace; server: GolemServer }> {
  const workspace = ws ?? (await createWorkspace());
  const server = await serve(workspace, { page: false, ...(agent !== undefined && { agent }) });
  if (ws === undefined) cleanups.push(() => workspace.close());
  cleanups.push(() => server.close());
  return { ws: workspace, server };
}

/** The chat `useChat` runs, over a plain state instead of React's. */
class NodeChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, 'messages'>) {
    super({ ...init, state: new PlainState() });
  }
}

class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => void (this.messages = [...this.messages, message]);
  popMessage = () => void (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index: number, message: UIMessage) => void (this.messages = this.messages.map((m, i) => (i === index ? message : m)));
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** Every request the transport made, and every chunk it read (each checked against the `ai` package's schema): for a stream read to its end. */
interface Wire {
  bodies: { id: string; messages: UIMessage[]; trigger: string; messageId?: string }[];
  chunks: Record<string, unknown>[];
}

function transportOf(server: GolemServer, wire?: Wire): DefaultChatTransport<UIMessage> {
  return new DefaultChatTransport({
    api: `${server.url}/api/chat`,
    headers: { authorization: `Bearer ${server.token}` },
    fetch: async (input, init) => {
      if (wire === undefined) return fetch(input, init);
      if (typeof init?.body === 'string') wire.bodies.push(JSON.parse(init.body) as Wire['bodies'][number]);
      const response = await fetch(input, init);
      if (response.body === null || !response.ok) return response;
      const [mine, theirs] = response.body.tee();
      void collect(mine, wire.chunks);
      return new Response(theirs, { status: response.status, headers: response.headers });
    },
  });
}

/** The chunks of a stream as sent, each checked against the `ai` package's own schema of a chunk. */
async function collect(body: ReadableStream<Uint8Array>, into: Record<string, unknown>[]): Promise<void> {
  const text = await new Response(body).text();
  const frames = text.split('\n\n').filter((frame) => frame.startsWith('data: '));
  expect(frames.at(-1)).toBe('data: [DONE]');
  const schema = uiMessageChunkSchema();
  for (const frame of frames.slice(0, -1)) {
    const chunk = JSON.parse(frame.slice(6)) as Record<string, unknown>;
    const checked = await schema.validate!(chunk);
    expect(checked.success, JSON.stringify(chunk)).toBe(true);
    into.push(chunk);
  }
}

function chatOf(server: GolemServer, id: string, wire?: Wire): NodeChat {
  return new NodeChat({ id, transport: transportOf(server, wire), sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
}

/** A request to the chat route as any client could send it. */
function post(server: GolemServer, body: unknown, token = server.token): Promise<Response> {
  return fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function until<T>(read: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

type AnyPart = UIMessage['parts'][number] & Record<string, unknown>;
const partsOf = (chat: NodeChat, at = -1) => (chat.messages.at(at)?.parts ?? []) as AnyPart[];
const textOf = (chat: NodeChat, at = -1) =>
  partsOf(chat, at)
    .flatMap((p) => (p.type === 'text' ? [p.text as string] : []))
    .join('');

/** The turns of a session as the workspace has them (role and text). */
async function turnsOf(ws: Workspace, id: string): Promise<[string, string][]> {
  const session = await ws.sessions.open(id);
  if (session === undefined) return [];
  return (await session.transcript()).map((t) => [t.role, t.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')]);
}

const { deploy, deploys } = deployAction();

describe('golem serve: the AI SDK chat route', () => {
  it('writes only chunks the AI SDK declares', () => {
    expectTypeOf<UIMessageChunk>().toExtend<AiUIMessageChunk>();
  });

  it('answers a conversation of two turns in the UI message stream', async () => {
    const model = scriptedModel([
      { thinking: 'A capital question.', text: 'Paris.' },
      (prompt) => ({ text: `You asked ${prompt.messages.filter((m) => m.role === 'user').length} questions.` }),
    ]);
    const { ws, server } = await started({ model });
    const wire: Wire = { bodies: [], chunks: [] };
    const chat = chatOf(server, 'thread-1', wire);
    await chat.sendMessage({ text: 'Capital of France?' });
    expect(chat.error).toBeUndefined();
    expect(chat.status).toBe('ready');
    expect(textOf(chat)).toBe('Paris.');
    expect(partsOf(chat).map((p) => p.type)).toEqual(['step-start', 'text', 'reasoning']);
    expect(partsOf(chat).find((p) => p.type === 'reasoning')).toMatchObject({ text: 'A capital question.', state: 'done' });
    await until(() => wire.chunks.at(-1)?.type === 'finish');
    expect(wire.chunks.map((c) => c.type)).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'reasoning-start',
      'reasoning-delta',
      'reasoning-end',
      'finish-step',
      'finish',
    ]);
    expect(wire.chunks[0]).toEqual({ type: 'start', messageId: chat.messages[1]!.id });
    expect(wire.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });

    await chat.sendMessage({ text: 'And Italy?' });
    expect(textOf(chat)).toBe('You asked 2 questions.');
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // The thread is a Golem session, named after its first message.
    expect(await turnsOf(ws, 'thread-1')).toEqual([
      ['user', 'Capital of France?'],
      ['assistant', 'Paris.'],
      ['user', 'And Italy?'],
      ['assistant', 'You asked 2 questions.'],
    ]);
    expect(ws.sessions.get('thread-1')?.label).toBe('Capital of France?');
    // The client sends its whole copy; Golem reads only the new message.
    expect(wire.bodies.map((b) => [b.id, b.trigger, b.messages.length])).toEqual([
      ['thread-1', 'submit-message', 1],
      ['thread-1', 'submit-message', 3],
    ]);
    const response = await post(server, {
      id: 'thread-2',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      trigger: 'submit-message',
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    await response.body?.cancel();
  });

  it('pauses on a supervised call for approval: yes runs it once, no with a reason reaches the model', async () => {
    deploys.length = 0;
    const model = scriptedModel([
      { text: 'Deploying to staging.', toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
      { toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] },
      (prompt) => ({ text: `Stopped: ${JSON.stringify(prompt.messages.at(-1))}` }),
    ]);
    const { ws, server } = await started({ model, actions: [deploy] });
    const wire: Wire = { bodies: [], chunks: [] };
    const chat = chatOf(server, 'ship', wire);
    await chat.sendMessage({ text: 'ship it' });
    const asked = partsOf(chat).find((p) => p.type === 'tool-deploy');
    expect(asked).toMatchObject({ state: 'approval-requested', input: { target: 'staging' }, approval: { descriptor: { risk: 'high' } } });
    const [approval] = ws.approvals.pending({ rootSessionId: 'ship' });
    expect(asked?.approval).toMatchObject({ id: approval!.id });
    expect(asked?.toolCallId).toBe(approval!.callId);
    expect(deploys).toEqual([]);

    await chat.addToolApprovalResponse({ id: approval!.id, approved: true });
    // useChat sends the answer by itself, the run resumes in the same message and pauses on the next call.
    const second = await until(() => {
      const part = partsOf(chat).find((p) => p.type === 'tool-deploy' && (p.input as { target: string }).target === 'prod');
      return chat.status === 'ready' && part?.state === 'approval-requested' && part;
    });
    expect(deploys).toEqual(['staging']);
    expect(chat.messages).toHaveLength(2);
    expect(partsOf(chat).find((p) => p.toolCallId === approval!.callId)).toMatchObject({ state: 'output-available', output: 'deployed to staging' });

    await chat.addToolApprovalResponse({ id: (second.approval as { id: string }).id, approved: false, reason: 'not on a Friday' });
    await until(() => chat.status === 'ready' && textOf(chat).includes('Stopped'));
    expect(partsOf(chat).find((p) => p.toolCallId === second.toolCallId)).toMatchObject({ state: 'output-denied' });
    expect(textOf(chat)).toContain('not on a Friday');
    expect(deploys).toEqual(['staging']);
    expect(chat.messages).toHaveLength(2);
    expect(partsOf(chat).map((p) => p.type)).toEqual(['step-start', 'text', 'tool-deploy', 'step-start', 'tool-deploy', 'step-start', 'text']);

    // The same answer again (a client retrying): nothing answered or run twice, and the stream of the run it resumed.
    const resent = wire.bodies.at(-1)!;
    const turns = await turnsOf(ws, 'ship');
    const calls = model.calls.length;
    const again = await post(server, resent);
    expect(again.status).toBe(200);
    // The run the first answer resumed, told again (not a second run, which would have nothing to say).
    const told = await again.text();
    expect(told).toContain('"delta":"Stopped: ');
    expect(told).toContain('"type":"tool-output-denied"');
    expect(await turnsOf(ws, 'ship')).toEqual(turns);
    expect(model.calls.length).toBe(calls);
    expect(deploys).toEqual(['staging']);
  });

  it('shows the calls of an answer as their turn to run comes: a call after the one that waits does not hold its answer back', async () => {
    deploys.length = 0;
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'deploy', input: { target: 'staging' }, callId: 'dep' },
          { name: 'lookup', input: { city: 'Lisbon' }, callId: 'look' },
        ],
      },
      { text: 'Both done.' },
    ]);
    const { server } = await started({ model, actions: [deploy, lookup] });
    const chat = chatOf(server, 'two-calls');
    await chat.sendMessage({ text: 'Deploy, then check the weather.' });
    const shape = () => partsOf(chat).map((p) => [p.type, p.state ?? null]);
    // The run waits at the first call: the second has not had its turn.
    expect(shape()).toEqual([
      ['step-start', null],
      ['tool-deploy', 'approval-requested'],
    ]);
    await chat.addToolApprovalResponse({ id: (partsOf(chat)[1]!.approval as { id: string }).id, approved: true });
    await until(() => chat.status === 'ready' && textOf(chat) === 'Both done.');
    expect(shape()).toEqual([
      ['step-start', null],
      ['tool-deploy', 'output-available'],
      ['tool-lookup', 'output-available'],
      ['step-start', null],
      ['text', 'done'],
    ]);
    expect(deploys).toEqual(['staging']);
  });

  it("asks for a sub-worker's call in the thread's message, with the worker's path, and shows what became of it", async () => {
    deploys.length = 0;
    const model = scriptedModel([
      { toolCalls: [{ name: 'spawn_worker', input: { task: 'deploy it' }, callId: 'spawn' }] },
      { text: 'On it.', toolCalls: [{ name: 'deploy', input: { target: 'prod' }, callId: 'dep' }] },
      { text: 'deployed to prod' },
      { text: 'All done.' },
    ]);
    const { server } = await started({ model, actions: [deploy], subWorkers: true });
    const chat = chatOf(server, 'tree');
    await chat.sendMessage({ text: 'ship it' });
    expect(chat.error).toBeUndefined();
    // The sub-worker's text is its own; its call that waits for the user is the thread's.
    expect(textOf(chat)).toBe('');
    const asked = partsOf(chat).find((p) => p.toolCallId === 'dep');
    expect(asked).toMatchObject({ type: 'tool-deploy', state: 'approval-requested', input: { target: 'prod' } });
    expect((asked!.approval as { descriptor: { workerPath: { depth: number; task: string }[] } }).descriptor.workerPath).toEqual([
      expect.objectContaining({ depth: 0 }),
      expect.objectContaining({ depth: 1, task: 'deploy it' }),
    ]);
    await chat.addToolApprovalResponse({ id: (asked!.approval as { id: string }).id, approved: true });
    await until(() => chat.status === 'ready' && textOf(chat) === 'All done.');
    expect(deploys).toEqual(['prod']);
    expect(partsOf(chat).find((p) => p.toolCallId === 'dep')).toMatchObject({ state: 'output-available', output: 'deployed to prod' });
    expect(partsOf(chat).find((p) => p.toolCallId === 'spawn')).toMatchObject({ type: 'tool-spawn_worker', state: 'output-available' });
  });

  it('resumes, once, a run whose approval was answered before this server started', async () => {
    deploys.length = 0;
    const dir = tempDir();
    const before = await createWorkspace({ dir });
    const session = await before.sessions.create({ id: 'left-over' });
    const paused = await before
      .worker({ session, model: scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }]), actions: [deploy] })
      .run('ship to prod');
    const approval = paused.approval!;
    await before.approvals.answer(approval.id, { approved: true }, { fingerprint: approval.fingerprint });
    await before.close();

    const ws = await createWorkspace({ dir });
    cleanups.push(() => ws.close());
    const { server } = await started({ model: scriptedModel([{ text: 'Live on prod.' }]), actions: [deploy] }, ws);
    const answer = {
      id: 'left-over',
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'ship to prod' }] },
        {
          id: 'a1',
          role: 'assistant',
          parts: [{ type: 'tool-deploy', toolCallId: approval.callId, state: 'approval-responded', input: {}, approval: { id: approval.id, approved: true } }],
        },
      ],
      trigger: 'submit-message',
      messageId: 'a1',
    };
    const resumed = await (await post(server, answer)).text();
    expect(resumed).toContain('"output":"deployed to prod"');
    expect(resumed).toContain('"delta":"Live "');
    expect(await (await post(server, answer)).text()).toContain('"delta":"Live "');
    expect(deploys).toEqual(['prod']);
  });

  it('streams the run in progress again to a client that comes back (reconnectToStream); the run goes on without its client', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel([
      { text: 'Looking.', toolCalls: [{ name: 'lookup', input: { city: 'Lisbon' } }] },
      async () => {
        await held;
        return { text: 'It is sunny.' };
      },
    ]);
    const { ws, server } = await started({ model, actions: [lookup] });
    const first = chatOf(server, 'weather');
    const sending = first.sendMessage({ text: 'Weather in Lisbon?' });
    await until(() => partsOf(first).some((p) => p.type === 'tool-lookup' && p.state === 'output-available'));
    // The page is closed mid-run: its request goes, the run does not.
    await first.stop();
    await sending;
    const second = chatOf(server, 'weather');
    const resuming = second.resumeStream();
    await until(() => partsOf(second).some((p) => p.type === 'tool-lookup' && p.state === 'output-available'));
    expect(second.status).toBe('streaming');
    release();
    await resuming;
    expect(second.error).toBeUndefined();
    // The same message, whole: its id is the one the first client had.
    expect(second.messages.map((m) => [m.id, m.role])).toEqual([[first.messages[1]!.id, 'assistant']]);
    expect(partsOf(second).map((p) => p.type)).toEqual(['step-start', 'text', 'tool-lookup', 'step-start', 'text']);
    expect(textOf(second)).toBe('Looking.It is sunny.');
    await server.settled('weather');
    expect((await turnsOf(ws, 'weather')).map(([role]) => role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    // Nothing runs now: nothing to come back to.
    const none = await fetch(`${server.url}/api/chat/weather/stream`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(none.status).toBe(204);
    expect(await transportOf(server).reconnectToStream({ chatId: 'weather' })).toBeNull();
  });

  it('rebuilds a resumed message whole for a client that comes back to the run an approval resumed', async () => {
    deploys.length = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel([
      { text: 'Deploying.', toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
      async () => {
        await held;
        return { text: 'Done.' };
      },
    ]);
    const { server } = await started({ model, actions: [deploy] });
    const first = chatOf(server, 'ship-again');
    await first.sendMessage({ text: 'ship it' });
    const asked = partsOf(first).find((p) => p.type === 'tool-deploy');
    await first.addToolApprovalResponse({ id: (asked!.approval as { id: string }).id, approved: true });
    await until(() => partsOf(first).some((p) => p.type === 'tool-deploy' && p.state === 'output-available'));
    const second = chatOf(server, 'ship-again');
    const resuming = second.resumeStream();
    await until(() => partsOf(second).some((p) => p.type === 'tool-deploy' && p.state === 'output-available'));
    release();
    await resuming;
    await until(() => first.status === 'ready' && textOf(first).endsWith('Done.'));
    const shape = (chat: NodeChat) => partsOf(chat).map((p) => [p.type, p.state ?? null, p.type === 'text' ? p.text : null]);
    expect(shape(second)).toEqual(shape(first));
    expect(shape(second)).toEqual([
      ['step-start', null, null],
      ['text', 'done', 'Deploying.'],
      ['tool-deploy', 'output-available', null],
      ['step-start', null, null],
      ['text', 'done', 'Done.'],
    ]);
    expect(partsOf(second).find((p) => p.type === 'tool-deploy')).toMatchObject({ approval: { id: (asked!.approval as { id: string }).id } });
    expect(second.messages.map((m) => m.id)).toEqual([first.messages[1]!.id]);
    expect(deploys).toEqual(['staging']);
  });

  it('sends the UI instances the run builds as data parts, one part per instance', async () => {
    const create = (id: string) => ({ instanceId: '__CREATE__', newInstanceId: id, patches: [] });
    const field = {
      op: 'add',
      path: 'blocks+',
      items: [{ id: 'main', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } }],
    };
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const model = scriptedModel([
      { toolCalls: [{ name: 'patch_ui_state', input: create('signup') }] },
      async () => {
        // Another thread's instance, changed while this run goes on, is not this thread's.
        await ws.ui.patch(create('elsewhere'), { builtBy: 'someone-else' });
        return { toolCalls: [{ name: 'patch_ui_state', input: { instanceId: 'signup', patches: [field] } }] };
      },
      { text: 'Here is the form.' },
    ]);
    const { server } = await started({ model }, ws);
    const chat = chatOf(server, 'forms');
    await chat.sendMessage({ text: 'A signup form, please.' });
    expect(chat.error).toBeUndefined();
    expect(ws.ui.get('elsewhere')).toBeDefined();
    const data = partsOf(chat).filter((p) => p.type.startsWith('data-'));
    expect(data).toEqual([{ type: 'data-ui', id: 'signup', data: { instanceId: 'signup', version: 2, instance: ws.ui.get('signup')!.instance } }]);
    expect(JSON.stringify(data)).toContain('"label":"Name"');
    expect(
      partsOf(chat)
        .filter((p) => p.type === 'tool-patch_ui_state')
        .map((p) => p.state),
    ).toEqual(['output-available', 'output-available']);
  });

  it('takes an image the user attached as an image block, held until its turn references it', async () => {
    const model = scriptedModel((prompt) => ({ text: `Got ${JSON.stringify(prompt.messages.at(-1)?.content.map((p) => p.type))}` }));
    const { ws, server } = await started({ model });
    const chat = chatOf(server, 'picture');
    await chat.sendMessage({
      text: 'What is this?',
      files: [{ type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${PNG}`, filename: 'dot.png' }],
    });
    expect(chat.error).toBeUndefined();
    expect(textOf(chat)).toBe('Got ["image","text"]');
    const [question] = (await (await ws.sessions.open('picture'))!.transcript()).map((t) => t.blocks);
    expect(question).toMatchObject([
      { type: 'image', mediaType: 'image/png', filename: 'dot.png' },
      { type: 'text', text: 'What is this?' },
    ]);
    const sha256 = (question![0] as { blob: { sha256: string } }).blob.sha256;
    expect(Buffer.from(await ws.blobs.read(sha256)).toString('base64')).toBe(PNG);
    await until(() => ws.blobs.get(sha256)?.holds === 0);
    expect(ws.blobs.get(sha256)).toMatchObject({ refCount: 1, holds: 0 });
  });

  it('ends a failed run with an error chunk that carries the code', async () => {
    const model = scriptedModel([{ text: 'Partial', failAfter: { parts: 1 } }]);
    const { server } = await started({ model });
    const wire: Wire = { bodies: [], chunks: [] };
    const chat = chatOf(server, 'failing', wire);
    await chat.sendMessage({ text: 'hello' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toMatch(/^MODEL_ERROR: /);
    await until(() => wire.chunks.at(-1)?.type === 'error');
    expect(wire.chunks.map((c) => c.type)).toEqual(['start', 'start-step', 'text-start', 'text-delta', 'text-end', 'finish-step', 'error']);
  });

  it('refuses a malformed request with INVALID_ARGUMENT naming what is wrong, before any stream, and writes nothing', async () => {
    const { ws, server } = await started({ model: scriptedModel([{ text: 'Hello.' }]) });
    const user = (parts: unknown[], id = 'u1') => ({ id, role: 'user', parts });
    const body = (...messages: unknown[]) => ({ id: 'kept', messages, trigger: 'submit-message' });
    await (await post(server, body(user([{ type: 'text', text: 'hi' }])))).text();
    await server.settled('kept');
    const before = await turnsOf(ws, 'kept');
    expect(before).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello.'],
    ]);
    const refused = async (sent: unknown, message: string, status = 400, code = 'INVALID_ARGUMENT') => {
      const response = await post(server, sent);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect({ status: response.status, body: await response.json() }).toMatchObject({
        status,
        body: { error: { code, message: expect.stringContaining(message) } },
      });
    };
    await refused('{not json', 'not JSON');
    await refused({}, 'id: ');
    await refused({ ...body(user([{ type: 'text', text: 'hi' }])), id: '' }, 'id: ');
    await refused({ ...body(user([{ type: 'text', text: 'hi' }])), trigger: 'anything' }, 'trigger: ');
    await refused(body(), 'messages: there is no message');
    await refused(body({ id: 'u1', role: 'user', parts: 'hi' }), 'messages.0.parts: ');
    await refused(body(user([{ type: 'text', text: 5 }])), 'messages.0.parts.0.text: ');
    await refused(body(user([{ type: 'data-weather', data: {} }])), 'messages.0.parts.0.type: a user message takes text and image file parts only');
    await refused(
      body(user([{ type: 'file', mediaType: 'application/pdf', url: 'data:application/pdf;base64,JVBERi0=' }])),
      'messages.0.parts.0.mediaType: only images',
    );
    await refused(
      body(user([{ type: 'file', mediaType: 'image/png', url: 'https://example.com/a.png' }])),
      'messages.0.parts.0.url: an image comes as a base64 data URL',
    );
    await refused(body(user([{ type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,' }])), 'messages.0.parts.0.url: the image is empty');
    await refused(body(user([{ type: 'text', text: '  ' }])), 'messages.0: the message is empty');
    await refused(body({ id: 's1', role: 'system', parts: [{ type: 'text', text: 'obey' }] }), 'messages.0.role: ');
    await refused({ ...body(user([{ type: 'text', text: 'hi' }])), trigger: 'regenerate-message' }, 'trigger: regenerate-message is not taken');
    await refused({ ...body(user([{ type: 'text', text: 'hi again' }])), messageId: 'u1' }, 'messageId: a sent message is not edited here');
    await refused(
      body(user([{ type: 'text', text: 'hi' }]), { id: 'a1', role: 'assistant', parts: [{ type: 'text', text: 'Hello.' }] }),
      'messages.1: the last message is the assistant',
    );
    await refused(
      body(user([{ type: 'text', text: 'hi' }]), {
        id: 'a1',
        role: 'assistant',
        parts: [{ type: 'tool-deploy', toolCallId: 'c1', state: 'approval-responded', approval: { id: 'x' } }],
      }),
      'messages.1.parts.0.approval.approved: ',
    );
    const answered = (approved: boolean, toolCallId: string) => ({
      type: 'tool-deploy',
      toolCallId,
      state: 'approval-responded',
      approval: { id: 'x', approved },
    });
    await refused(
      body(user([{ type: 'text', text: 'hi' }]), { id: 'a1', role: 'assistant', parts: [answered(true, 'c1'), answered(false, 'c1')] }),
      'messages.1: approval x is answered twice, yes and no',
    );
    await refused(body(user([{ type: 'text', text: 'x'.repeat(1024 * 1024) }])), 'bytes');
    // The API's own guards come first.
    expect((await post(server, body(user([{ type: 'text', text: 'hi' }])), 'x'.repeat(64))).status).toBe(401);
    const form = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(form.status).toBe(415);
    expect(await turnsOf(ws, 'kept')).toEqual(before);
    expect(ws.sessions.list().map((s) => s.id)).toEqual(['kept']);
  });

  it('refuses a second run on a busy thread, a new message while an approval waits, and answers that are not for this thread', async () => {
    deploys.length = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const model = scriptedModel([
      async () => {
        await held;
        return { text: 'One.' };
      },
      { toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
      { toolCalls: [{ name: 'deploy', input: { target: 'qa' } }] },
      { text: 'Deployed.' },
    ]);
    const { ws, server } = await started({ model, actions: [deploy] });
    const say = (id: string, text: string) => ({
      id,
      messages: [{ id: `u-${text}`, role: 'user', parts: [{ type: 'text', text }] }],
      trigger: 'submit-message',
    });
    const refusal = async (response: Response) => ({ status: response.status, code: ((await response.json()) as { error: { code: string } }).error.code });

    const running = await post(server, say('busy', 'first'));
    await until(() => model.calls.length === 1);
    expect(await refusal(await post(server, say('busy', 'second')))).toEqual({ status: 409, code: 'SESSION_BUSY' });
    release();
    expect(await running.text()).toContain('One.');
    await server.settled('busy');
    expect(await turnsOf(ws, 'busy')).toEqual([
      ['user', 'first'],
      ['assistant', 'One.'],
    ]);

    // A run paused on an approval, on this thread and on another.
    const chat = chatOf(server, 'ship');
    await chat.sendMessage({ text: 'ship it' });
    await (await post(server, say('other', 'ship qa'))).text();
    const [approval] = ws.approvals.pending({ rootSessionId: 'ship' });
    const [otherApproval] = ws.approvals.pending({ rootSessionId: 'other' });
    const turns = await turnsOf(ws, 'ship');
    expect(await refusal(await post(server, say('ship', 'never mind')))).toEqual({ status: 409, code: 'APPROVAL_PENDING' });
    const answer = (id: string, approvalId: string, toolCallId: string, approved = true) => ({
      id,
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'ship it' }] },
        {
          id: 'a1',
          role: 'assistant',
          parts: [{ type: 'tool-deploy', toolCallId, state: 'approval-responded', input: {}, approval: { id: approvalId, approved } }],
        },
      ],
      trigger: 'submit-message',
      messageId: 'a1',
    });
    expect(await refusal(await post(server, answer('ship', 'no-such-approval', approval!.callId)))).toEqual({ status: 404, code: 'APPROVAL_NOT_FOUND' });
    expect(await refusal(await post(server, answer('ship', otherApproval!.id, otherApproval!.callId)))).toEqual({ status: 404, code: 'APPROVAL_NOT_FOUND' });
    expect(await refusal(await post(server, answer('ship', approval!.id, 'another-call')))).toEqual({ status: 409, code: 'APPROVAL_MISMATCH' });
    expect(await refusal(await post(server, answer('nowhere', approval!.id, approval!.callId)))).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });
    const lost = await fetch(`${server.url}/api/chat/nowhere/stream`, { headers: { authorization: `Bearer ${server.token}` } });
    expect(await refusal(lost)).toEqual({ status: 404, code: 'SESSION_NOT_FOUND' });
    expect(await turnsOf(ws, 'ship')).toEqual(turns);
    expect(
      ws.approvals
        .pending()
        .map((a) => a.id)
        .sort(),
    ).toEqual([approval!.id, otherApproval!.id].sort());
    expect(deploys).toEqual([]);

    await chat.addToolApprovalResponse({ id: approval!.id, approved: true });
    await until(() => chat.status === 'ready' && textOf(chat) === 'Deployed.');
    expect(await refusal(await post(server, answer('ship', approval!.id, approval!.callId, false)))).toEqual({ status: 409, code: 'APPROVAL_ANSWERED' });
    expect(deploys).toEqual(['staging']);
  });

  it("keeps each user's threads their own: another user's thread is not found", async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const golem = await createGolemHandler(ws, { agent: { model: scriptedModel([{ text: 'Hi Ann.' }]) }, auth: false, user: (r) => r.headers.get('x-user') });
    const as = (user: string) =>
      new NodeChat({
        id: 'ann-thread',
        transport: new DefaultChatTransport({
          api: 'http://golem.test/api/chat',
          headers: { 'x-user': user },
          fetch: (input, init) => golem.fetch(new Request(input, init)),
        }),
      });
    const ann = as('ann');
    await ann.sendMessage({ text: 'Hello' });
    expect(textOf(ann)).toBe('Hi Ann.');
    const bob = as('bob');
    await bob.sendMessage({ text: 'Let me in' });
    expect(bob.status).toBe('error');
    expect(bob.error?.message).toContain('SESSION_NOT_FOUND');
    await bob.resumeStream();
    expect(bob.error?.message).toContain('SESSION_NOT_FOUND');
    expect(await turnsOf(ws, 'ann-thread')).toEqual([
      ['user', 'Hello'],
      ['assistant', 'Hi Ann.'],
    ]);
  });
});

/** A call that needs no approval. */
const lookup = defineAction({
  name: 'lookup',
  description: "Looks up a city's weather.",
  input: z.strictObject({ city: z.string() }),
  trust: 'autonomous',
  run: ({ city }) => `sunny in ${city}`,
}) as Action;

/** A 1×1 PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
