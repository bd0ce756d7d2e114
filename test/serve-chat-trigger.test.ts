/**
 * `POST /api/chat` without `trigger` (issue 37): older AI SDK clients, and a hand-written
 * `fetch` following the AI SDK's docs, send `{ id, messages }` alone. Golem takes it as
 * `submit-message`: the message is answered, and the turns are kept as for any other client.
 */
import type { UIMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../src/test/index.js';
import { chatOf, chunksOf, newWire, post, refusal, started, textOf, turnsOf, until } from './helpers-chat.js';

describe('golem serve: a chat request without trigger', () => {
  it('answers a plain fetch of { id, messages } as a new message', async () => {
    const { ws, server } = await started({ model: scriptedModel([{ text: 'Paris.' }]) });
    const response = await post(server, { id: 'plain', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Capital of France?' }] }] });
    expect(response.status).toBe(200);
    const chunks = await chunksOf(response);
    expect(chunks.filter((c) => c.type === 'text-delta').map((c) => c.delta)).toEqual(['Paris.']);
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    await server.settled('plain');
    expect(await turnsOf(ws, 'plain')).toEqual([
      ['user', 'Capital of France?'],
      ['assistant', 'Paris.'],
    ]);
    // What is there is still read: regenerate-message stays refused, as with a trigger given.
    const again = await post(server, {
      id: 'plain',
      trigger: 'regenerate-message',
      messages: [{ id: 'u2', role: 'user', parts: [{ type: 'text', text: 'Again?' }] }],
    });
    expect(await refusal(again)).toEqual({ status: 400, code: 'INVALID_ARGUMENT' });
    expect(await turnsOf(ws, 'plain')).toHaveLength(2);
  });

  it("answers the ai package's chat whose requests carry no trigger, over two turns", async () => {
    const model = scriptedModel([
      { text: 'Paris.' },
      (prompt) => ({ text: `You asked ${prompt.messages.filter((m) => m.role === 'user').length} questions.` }),
    ]);
    const { ws, server } = await started({ model });
    const wire = newWire();
    // An older client's body: the thread and its messages, nothing else.
    const chat = chatOf(server, 'older', wire, {
      prepareSendMessagesRequest: ({ id, messages }: { id: string; messages: UIMessage[] }) => ({ body: { id, messages } }),
    });
    await chat.sendMessage({ text: 'Capital of France?' });
    expect(chat.error).toBeUndefined();
    expect(textOf(chat)).toBe('Paris.');
    await chat.sendMessage({ text: 'And Italy?' });
    expect(chat.error).toBeUndefined();
    expect(textOf(chat)).toBe('You asked 2 questions.');
    await until(() => wire.chunks.filter((c) => c.type === 'finish').length === 2);
    expect(wire.bodies.map((b) => 'trigger' in b)).toEqual([false, false]);
    expect(wire.statuses).toEqual([200, 200]);
    expect(await turnsOf(ws, 'older')).toEqual([
      ['user', 'Capital of France?'],
      ['assistant', 'Paris.'],
      ['user', 'And Italy?'],
      ['assistant', 'You asked 2 questions.'],
    ]);
  });
});
