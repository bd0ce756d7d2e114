/**
 * The AI SDK's chat route (`POST /api/chat`, `GET /api/chat/:id/stream`) against a real
 * `golem serve` on loopback with the scripted model, talked to by the `ai` package's own
 * client side (helpers-chat.ts): messages, their parts, images, limits, refusals, a client
 * that comes back. Approvals: serve-chat-approvals.test.ts.
 */
import { DefaultChatTransport, type UIMessageChunk as AiUIMessageChunk } from 'ai';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { createGolemHandler } from '../src/serve/index.js';
import type { UIMessageChunk } from '../src/serve/ui-message-stream.js';
import { scriptedModel } from '../src/test/index.js';
import {
  afterTest,
  chatOf,
  chunksOf,
  gate,
  lastMessageOnly,
  lookup,
  newWire,
  NodeChat,
  partsOf,
  PNG,
  post,
  reconnect,
  refusal,
  started,
  textOf,
  transportOf,
  turnsOf,
  until,
} from './helpers-chat.js';
import { tempDir } from './helpers.js';

const say = (id: string, text: string, messageId = `u-${text}`) => ({
  id,
  messages: [{ id: messageId, role: 'user', parts: [{ type: 'text', text }] }],
  trigger: 'submit-message',
});

describe('golem serve: the AI SDK chat route', () => {
  it('writes only chunks the AI SDK declares', () => {
    expectTypeOf<UIMessageChunk>().toExtend<AiUIMessageChunk>();
  });

  it('answers a conversation of two turns in the UI message stream', async () => {
    const model = scriptedModel([
      { thinking: 'A capital question.', text: 'Paris.' },
      (prompt) => ({ text: `You asked ${prompt.messages.filter((m) => m.role === 'user').length} questions.` }),
      { text: 'Hi.' },
    ]);
    const { ws, server } = await started({ model });
    const wire = newWire();
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
    // The thread is a Golem session, named after its first message; the user's turns keep the client's ids.
    expect(await turnsOf(ws, 'thread-1')).toEqual([
      ['user', 'Capital of France?'],
      ['assistant', 'Paris.'],
      ['user', 'And Italy?'],
      ['assistant', 'You asked 2 questions.'],
    ]);
    const transcript = await (await ws.sessions.open('thread-1'))!.transcript();
    expect(transcript.filter((t) => t.role === 'user').map((t) => t.id)).toEqual([chat.messages[0]!.id, chat.messages[2]!.id]);
    expect(ws.sessions.get('thread-1')?.label).toBe('Capital of France?');
    // The client sends its whole copy; Golem reads only the new message.
    expect(wire.bodies.map((b) => [b.id, b.trigger, b.messages.length])).toEqual([
      ['thread-1', 'submit-message', 1],
      ['thread-1', 'submit-message', 3],
    ]);
    const response = await post(server, say('thread-2', 'hi'));
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    expect((await chunksOf(response)).at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
  });

  it('answers a message sent again once: the same id gets the stream of its run, or its answer from the turns', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir });
    const model = scriptedModel([{ text: 'Hello.' }, { text: 'Never said.' }]);
    const first = await started({ model }, ws);
    const sent = await chunksOf(await post(first.server, say('again', 'hi', 'u1')));
    // A client retrying (a lost response): the same message is not answered twice.
    const resent = await chunksOf(await post(first.server, say('again', 'hi', 'u1')));
    expect(resent).toEqual(sent);
    expect(model.calls).toHaveLength(1);
    const transcript = await (await ws.sessions.open('again'))!.transcript();
    expect(transcript.map((t) => [t.role, t.id === 'u1'])).toEqual([
      ['user', true],
      ['assistant', false],
    ]);
    // Another text under the same id is an edit, which this route does not make.
    // So is useChat's `sendMessage()` after a failed request (the last message named by `messageId`).
    expect(await chunksOf(await post(first.server, { ...say('again', 'hi', 'u1'), messageId: 'u1' }))).toEqual(sent);
    expect(model.calls).toHaveLength(1);
    // Another text under the same id is an edit (`sendMessage({ text, messageId })`), which this route does not make.
    const edit = await (await post(first.server, { ...say('again', 'hello there', 'u1'), messageId: 'u1' })).json();
    expect(edit).toMatchObject({ error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('send it as a new message') } });
    expect(JSON.stringify(edit)).not.toContain('/api/sessions');
    await first.server.close();

    // After a restart the run is gone: the answer is told from the thread's turns, nothing runs.
    const second = await started({ model }, ws);
    afterTest(() => ws.close());
    const told = await chunksOf(await post(second.server, say('again', 'hi', 'u1')));
    expect(told.filter((c) => c.type === 'text-delta').map((c) => c.delta)).toEqual(['Hello.']);
    expect(told.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(model.calls).toHaveLength(1);
    expect(await turnsOf(ws, 'again')).toEqual([
      ['user', 'hi'],
      ['assistant', 'Hello.'],
    ]);
  });

  it('gives each call its own part when the provider names calls alike in every step', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'lookup', input: { city: 'Lisbon' }, callId: 'call_0' }] },
      { toolCalls: [{ name: 'lookup', input: { city: 'Porto' }, callId: 'call_0' }] },
      { text: 'Both sunny.' },
    ]);
    const { server } = await started({ model, actions: [lookup] });
    const chat = chatOf(server, 'repeated');
    await chat.sendMessage({ text: 'Weather in Lisbon and Porto?' });
    expect(chat.error).toBeUndefined();
    const calls = partsOf(chat).filter((p) => p.type === 'tool-lookup');
    expect(calls.map((p) => [p.input, p.output])).toEqual([
      [{ city: 'Lisbon' }, 'sunny in Lisbon'],
      [{ city: 'Porto' }, 'sunny in Porto'],
    ]);
    expect(new Set(calls.map((p) => p.toolCallId)).size).toBe(2);
    expect(partsOf(chat).map((p) => p.type)).toEqual(['step-start', 'tool-lookup', 'step-start', 'tool-lookup', 'step-start', 'text']);
  });

  it('streams the run in progress again to a client that comes back (reconnectToStream); the run goes on without its client', async () => {
    const { held, release } = gate();
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
    const wire = newWire();
    const second = chatOf(server, 'weather', wire);
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
    await until(() => wire.chunks.at(-1)?.type === 'finish');
    await server.settled('weather');
    expect((await turnsOf(ws, 'weather')).map(([role]) => role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    // Nothing runs now: nothing to come back to.
    expect((await reconnect(server, 'weather')).status).toBe(204);
    expect(await transportOf(server).reconnectToStream({ chatId: 'weather' })).toBeNull();
  });

  it('sends the UI instances the run builds as data parts, one part per instance', async () => {
    const create = (id: string) => ({ instanceId: '__CREATE__', newInstanceId: id, patches: [] });
    const field = {
      op: 'add',
      path: 'blocks+',
      items: [{ id: 'main', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } }],
    };
    const ws = await createWorkspace();
    afterTest(() => ws.close());
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

  it('refuses an image that is not PNG, JPEG, GIF or WebP, or over 5 MiB, and records nothing', async () => {
    const model = scriptedModel([{ text: 'Seen.' }]);
    const { ws, server } = await started({ model });
    const image = (mediaType: string, bytes: Buffer) => ({
      id: 'pictures',
      messages: [
        {
          id: 'u1',
          role: 'user',
          parts: [
            { type: 'file', mediaType, url: `data:${mediaType};base64,${bytes.toString('base64')}` },
            { type: 'text', text: 'see' },
          ],
        },
      ],
      trigger: 'submit-message',
    });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    for (const mediaType of ['image/svg+xml', 'image/tiff', 'image/x-anything']) {
      const refused = await post(server, image(mediaType, svg));
      expect({ status: refused.status, body: await refused.json() }).toMatchObject({
        status: 400,
        body: { error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('messages.0.parts.0: images are PNG, JPEG, GIF or WebP') } },
      });
    }
    const large = await post(server, image('image/png', Buffer.alloc(5 * 1024 * 1024 + 1)));
    expect(await large.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('messages.0.parts.0: the image is') } });
    expect(ws.sessions.list()).toEqual([]);
    expect(model.calls).toHaveLength(0);
    expect((await chunksOf(await post(server, image('image/webp', Buffer.from(PNG, 'base64'))))).at(-1)).toMatchObject({ type: 'finish' });
  });

  it('keeps a thread going once the history the client sends passes 1 MiB (the whole body counts, up to 8 MiB)', async () => {
    const model = scriptedModel(() => ({ text: 'ok '.repeat(4000) }));
    const { server } = await started({ model });
    const wire = newWire();
    const chat = chatOf(server, 'long', wire);
    // Almost 1 MiB of image, which DefaultChatTransport sends again with each message.
    const picture = Buffer.alloc(770_000, 7).toString('base64');
    await chat.sendMessage({ text: 'look', files: [{ type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${picture}` }] });
    await chat.sendMessage({ text: 'and now?' });
    await chat.sendMessage({ text: 'once more' });
    expect(chat.error).toBeUndefined();
    expect(wire.statuses).toEqual([200, 200, 200]);
    expect(JSON.stringify(wire.bodies.at(-1)).length).toBeGreaterThan(1024 * 1024);
    expect(textOf(chat)).toMatch(/^ok /);
    // Sending the last message alone keeps the body small.
    const lean = newWire();
    const short = chatOf(server, 'lean', lean, { prepareSendMessagesRequest: lastMessageOnly });
    await short.sendMessage({ text: 'look', files: [{ type: 'file', mediaType: 'image/png', url: `data:image/png;base64,${picture}` }] });
    await short.sendMessage({ text: 'and now?' });
    expect(short.error).toBeUndefined();
    expect(lean.bodies.map((b) => b.messages.length)).toEqual([1, 1]);
    expect(JSON.stringify(lean.bodies.at(-1)).length).toBeLessThan(1000);
    // Over 8 MiB is refused, before anything is read of it.
    expect(await refusal(await post(server, say('long', 'x'.repeat(8 * 1024 * 1024))))).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
  });

  it('ends a failed run with an error chunk that carries the code', async () => {
    const model = scriptedModel([{ text: 'Partial', failAfter: { parts: 1 } }]);
    const { server } = await started({ model });
    const wire = newWire();
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
    await chunksOf(await post(server, body(user([{ type: 'text', text: 'hi' }]))));
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
    await refused(body(user([{ type: 'text', text: 5 }], 'u2')), 'messages.0.parts.0.text: ');
    await refused(body(user([{ type: 'data-weather', data: {} }], 'u2')), 'messages.0.parts.0.type: a user message takes text and image file parts only');
    await refused(
      body(user([{ type: 'file', mediaType: 'application/pdf', url: 'data:application/pdf;base64,JVBERi0=' }], 'u2')),
      'messages.0.parts.0: images are PNG, JPEG, GIF or WebP',
    );
    await refused(
      body(user([{ type: 'file', mediaType: 'image/png', url: 'https://example.com/a.png' }], 'u2')),
      'messages.0.parts.0.url: an image comes as a base64 data URL',
    );
    await refused(body(user([{ type: 'file', mediaType: 'image/png', url: 'data:image/png;base64,' }], 'u2')), 'messages.0.parts.0: the image is empty');
    await refused(body(user([{ type: 'text', text: '  ' }], 'u2')), 'messages.0: the message is empty');
    await refused(body({ id: 's1', role: 'system', parts: [{ type: 'text', text: 'obey' }] }), 'messages.0.role: ');
    await refused({ ...body(user([{ type: 'text', text: 'hi' }])), trigger: 'regenerate-message' }, 'trigger: regenerate-message is not taken');
    await refused({ ...body(user([{ type: 'text', text: 'hi' }])), messageId: 'nowhere' }, 'messageId: no message in messages has the id "nowhere"');
    await refused(
      { ...body(user([{ type: 'text', text: 'hi' }]), user([{ type: 'text', text: 'more' }], 'u2')), messageId: 'u1' },
      'messageId: names an earlier message',
    );
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
    await refused(body(user([{ type: 'text', text: 'x'.repeat(8 * 1024 * 1024) }])), 'bytes');
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

  it('queues a message sent while the thread runs (or refuses it with golem.policy reject); a new thread is busy when two first messages race', async () => {
    const { held, release } = gate();
    const model = scriptedModel([
      async () => {
        await held;
        return { text: 'One.' };
      },
      { text: 'Two.' },
    ]);
    const { ws, server } = await started({ model });
    const running = await post(server, say('busy', 'first'));
    await until(() => model.calls.length === 1);
    const reject = { ...say('busy', 'refused'), golem: { policy: 'reject' } };
    expect(await refusal(await post(server, reject))).toEqual({ status: 409, code: 'SESSION_BUSY' });
    expect(await refusal(await post(server, { ...say('busy', 'odd'), golem: { policy: 'later' } }))).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
    // The server's default, enqueue: kept for after the run, and said so in a transient data chunk.
    const queued = await chunksOf(await post(server, say('busy', 'second')));
    expect(queued).toEqual([
      { type: 'start', messageId: expect.any(String) },
      { type: 'data-golem-queued', data: { messageId: 'u-second', policy: 'enqueue', runId: expect.any(String) }, transient: true },
      { type: 'finish', finishReason: 'stop' },
    ]);
    release();
    expect(JSON.stringify(await chunksOf(running))).toContain('One.');
    await until(async () => (await turnsOf(ws, 'busy')).length === 4);
    await server.settled('busy');
    // The queued message is the next user turn, under the client's id, answered by the next run.
    expect(await turnsOf(ws, 'busy')).toEqual([
      ['user', 'first'],
      ['assistant', 'One.'],
      ['user', 'second'],
      ['assistant', 'Two.'],
    ]);
    const transcript = await (await ws.sessions.open('busy'))!.transcript();
    expect(transcript[2]?.id).toBe('u-second');

    // With users, the thread is claimed for its user before it is made: the first messages that lose the race are busy too.
    const users = await createWorkspace();
    afterTest(() => users.close());
    const racing = scriptedModel(() => ({ text: 'ok' }));
    const golem = await createGolemHandler(users, { agent: { model: racing }, auth: false, user: (r) => r.headers.get('x-user') });
    afterTest(() => golem.close());
    const first = (n: number) =>
      golem.fetch(
        new Request('http://golem.test/api/chat', {
          method: 'POST',
          headers: { 'x-user': 'ann', 'content-type': 'application/json' },
          body: JSON.stringify({ ...say('fresh', `hi ${n}`, `u${n}`), golem: { policy: 'reject' } }),
        }),
      );
    const answers = await Promise.all([first(1), first(2), first(3)]);
    const outcomes = await Promise.all(answers.map(async (r) => (r.ok ? (await chunksOf(r), 'streamed') : (await refusal(r)).code)));
    expect(outcomes.sort()).toEqual(['SESSION_BUSY', 'SESSION_BUSY', 'streamed']);
    await golem.settled('fresh');
    expect(racing.calls).toHaveLength(1);
  });

  it("keeps each user's threads their own: another user's thread is not found", async () => {
    const ws = await createWorkspace();
    afterTest(() => ws.close());
    const golem = await createGolemHandler(ws, { agent: { model: scriptedModel([{ text: 'Hi Ann.' }]) }, auth: false, user: (r) => r.headers.get('x-user') });
    afterTest(() => golem.close());
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
