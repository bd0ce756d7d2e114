/** Turns become messages every provider accepts. */
import { describe, expect, it } from 'vitest';
import { createWorkspace, NO_RESULT, promptRecordOf } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { text } from './helpers.js';

const model = scriptedModel([]);
const shape = (messages: { role: string; content: { type: string; callId?: string }[] }[]) =>
  messages.map((m) => `${m.role}[${m.content.map((c) => (c.callId === undefined ? c.type : `${c.type}:${c.callId}`)).join(',')}]`).join(' ');

describe('messages from turns', () => {
  it('answer a call whose result never came, and turn a result that lost its call into user text', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('weather and time?')] });
    await s.addTurn({ role: 'assistant', blocks: [{ type: 'tool_use', callId: 'c1', name: 'weather', args: {} }, { type: 'tool_use', callId: 'c2', name: 'clock', args: {} }] });
    await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: 'c1', content: [text('sunny')] }] });
    await s.addTurn({ role: 'user', blocks: [text('and?')] });
    await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: 'c2', content: [text('noon (late)')] }] });
    const { prompt } = await s.buildPrompt({ model });
    expect(shape(prompt.messages)).toBe('user[text] assistant[tool-call:c1,tool-call:c2] tool[tool-result:c1,tool-result:c2] user[text,text]');
    expect(prompt.messages[2]?.content[1]).toMatchObject({ callId: 'c2', output: { type: 'text', text: NO_RESULT }, isError: true });
    expect(prompt.messages[3]?.content[1]).toEqual({ type: 'text', text: '[Result of an earlier clock call (c2)]\nnoon (late)' });
    await ws.close();
  });

  it("send a tool result's media after it as the user's, documents of text as text, and system notes in place", async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const shot = await ws.blobs.register(new Uint8Array([1, 2, 3]), { mediaType: 'image/png' });
    const csv = await ws.blobs.register(new TextEncoder().encode('a,b\n1,2\n'), { mediaType: 'text/csv', filename: 'data.csv' });
    await s.addTurn({ role: 'user', blocks: [text('screenshot please'), { type: 'document', blob: { sha256: csv.sha256 }, mediaType: 'text/csv', filename: 'data.csv' }] });
    await s.addTurn({ role: 'assistant', blocks: [{ type: 'tool_use', callId: 'c1', name: 'capture', args: {} }] });
    await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: 'c1', isError: true, content: [text('partial'), { type: 'image', blob: { sha256: shot.sha256 }, mediaType: 'image/png' }] }] });
    await s.addTurn({ role: 'system', blocks: [text('The user is in Oslo.')] });
    const { prompt } = await s.buildPrompt({ model });
    expect(shape(prompt.messages)).toBe('user[text,text] assistant[tool-call:c1] tool[tool-result:c1] user[image,text]');
    expect(prompt.messages[0]?.content[1]).toEqual({ type: 'text', text: '[Document: data.csv]\na,b\n1,2\n' });
    expect(prompt.messages[2]?.content[0]).toMatchObject({ output: { type: 'text', text: 'partial\n(1 attachment follows in the next message)' }, isError: true });
    expect(prompt.messages[3]?.content).toEqual([
      { type: 'image', mediaType: 'image/png', base64: Buffer.from([1, 2, 3]).toString('base64') },
      { type: 'text', text: '[System note] The user is in Oslo.' },
    ]);
    await ws.close();
  });

  it('omit media from a newest turn too large for the budget, and keep within it', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const blobs = await Promise.all([1, 2].map((n) => ws.blobs.register(new Uint8Array([n]), { mediaType: 'image/png' })));
    await s.addTurn({ role: 'user', blocks: [text('compare these'), ...blobs.map((b) => ({ type: 'image' as const, blob: { sha256: b.sha256 }, mediaType: 'image/png' }))] });
    const { prompt, record } = await s.buildPrompt({ model, tokenBudget: { total: 1000, reserve: 100 } });
    expect(record.truncated).toEqual(s.head());
    expect(prompt.messages[0]?.content.map((c) => (c as { text: string }).text)).toEqual(['compare these', '[image omitted: over the token budget]', '[image omitted: over the token budget]']);
    expect(record.tokens.total).toBeLessThanOrEqual(900);
    await ws.close();
  });
});

describe('respond, at the edges', () => {
  it('refuses a session with nothing to answer', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    await expect(s.respond({ model: scriptedModel([{ text: 'hm' }]) })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await ws.close();
  });

  it('hands back an answer it could not record, and reads a record back typed', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('q')] });
    const late = scriptedModel([
      async () => {
        await s.addTurn({ role: 'user', blocks: [text('meanwhile')] });
        return { text: 'paid-for answer' };
      },
    ]);
    const error = await s.respond({ model: late }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'HEAD_CONFLICT', details: { answer: { blocks: [text('paid-for answer')], meta: { status: 'complete' } } } });
    const turn = await s.respond({ model: scriptedModel([{ text: 'ok' }]) });
    expect(promptRecordOf(turn)?.turns.count).toBe(2);
    expect(promptRecordOf(s.turn((await s.transcript())[0]?.id ?? '') ?? turn)).toBeUndefined();
    await ws.close();
  });
});
