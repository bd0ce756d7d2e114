/** Turns become messages every provider accepts. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countPrompt, createWorkspace, NO_RESULT, promptRecordOf, transcriptSnapshot } from '../src/index.js';
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
    await s.addTurn({
      role: 'assistant',
      blocks: [
        { type: 'tool_use', callId: 'c1', name: 'weather', args: {} },
        { type: 'tool_use', callId: 'c2', name: 'clock', args: {} },
      ],
    });
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
    await s.addTurn({
      role: 'user',
      blocks: [text('screenshot please'), { type: 'document', blob: { sha256: csv.sha256 }, mediaType: 'text/csv', filename: 'data.csv' }],
    });
    await s.addTurn({ role: 'assistant', blocks: [{ type: 'tool_use', callId: 'c1', name: 'capture', args: {} }] });
    await s.addTurn({
      role: 'tool',
      blocks: [
        {
          type: 'tool_result',
          callId: 'c1',
          isError: true,
          content: [text('partial'), { type: 'image', blob: { sha256: shot.sha256 }, mediaType: 'image/png' }],
        },
      ],
    });
    await s.addTurn({ role: 'system', blocks: [text('The user is in Oslo.')] });
    const { prompt } = await s.buildPrompt({ model });
    expect(shape(prompt.messages)).toBe('user[text,text] assistant[tool-call:c1] tool[tool-result:c1] user[image,text]');
    expect(prompt.messages[0]?.content[1]).toEqual({ type: 'text', text: '[Document: data.csv]\na,b\n1,2\n' });
    expect(prompt.messages[2]?.content[0]).toMatchObject({
      output: { type: 'text', text: 'partial\n(1 attachment follows after the results)' },
      isError: true,
    });
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
    await s.addTurn({
      role: 'user',
      blocks: [text('compare these'), ...blobs.map((b) => ({ type: 'image' as const, blob: { sha256: b.sha256 }, mediaType: 'image/png' }))],
    });
    const { prompt, record } = await s.buildPrompt({ model, tokenBudget: { total: 1000, reserve: 100 } });
    expect(record.truncated).toEqual(s.head());
    expect(prompt.messages[0]?.content.map((c) => (c as { text: string }).text)).toEqual([
      'compare these',
      '[image omitted: over the token budget]',
      '[image omitted: over the token budget]',
    ]);
    expect(record.tokens.total).toBeLessThanOrEqual(900);
    await ws.close();
  });
});

describe('prompts that providers accept, within budget', () => {
  it('fit a newest tool call too large to send: arguments named, signed thinking dropped, never over', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('write the file')] });
    await s.addTurn({
      role: 'assistant',
      blocks: [
        { type: 'thinking', thinking: 'I will write it. '.repeat(40), signature: 'SIG' },
        { type: 'tool_use', callId: 'c1', name: 'write_file', args: { path: 'a.ts', content: 'const x = 1;\n'.repeat(4600) } },
      ],
    });
    await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: 'c1', content: [text('ok')] }] });
    const { prompt, record } = await s.buildPrompt({ model, tokenBudget: { total: 8000 } });
    expect(record.truncated).not.toBeNull();
    expect(record.tokens.total).toBe(countPrompt(prompt, (t) => model.countTokens(t)));
    expect(record.tokens.total).toBeLessThanOrEqual(8000 - record.tokens.reserve);
    const parts = prompt.messages.flatMap((m) => m.content);
    expect(parts.some((p) => p.type === 'thinking')).toBe(false);
    expect(parts.find((p) => p.type === 'tool-call')).toMatchObject({ input: { omitted: 'the arguments were over the token budget' } });
    await ws.close();
  });

  it('leave out thinking that cannot go back, answers that are only thinking, and empty text; rename reused call ids', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('q1'), text('   ')] });
    await s.addTurn({ role: 'assistant', blocks: [{ type: 'thinking', thinking: 'cut off here', signature: 'S' }] });
    await s.addTurn({ role: 'user', blocks: [text('q2')] });
    await s.addTurn({
      role: 'assistant',
      blocks: [
        { type: 'thinking', thinking: 'unsigned' },
        { type: 'tool_use', callId: 'c1', name: 'f', args: {} },
      ],
    });
    await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: 'c1', content: [text('one')] }] });
    await s.addTurn({ role: 'assistant', blocks: [{ type: 'tool_use', callId: 'c1', name: 'f', args: { again: true } }] });
    await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: 'c1', content: [text('two')] }] });
    const { prompt } = await s.buildPrompt({ model });
    expect(shape(prompt.messages)).toBe('user[text,text] assistant[tool-call:c1] tool[tool-result:c1] assistant[tool-call:c1~2] tool[tool-result:c1~2]');
    expect(prompt.messages[0]?.content).toEqual([text('q1'), text('q2')]);
    await ws.close();
  });

  it('answer parallel calls before the media of their results', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const shot = await ws.blobs.register(new Uint8Array([7]), { mediaType: 'image/png' });
    await s.addTurn({ role: 'user', blocks: [text('screenshot and time')] });
    await s.addTurn({
      role: 'assistant',
      blocks: [
        { type: 'tool_use', callId: 'c1', name: 'capture', args: {} },
        { type: 'tool_use', callId: 'c2', name: 'clock', args: {} },
      ],
    });
    await s.addTurn({
      role: 'tool',
      blocks: [
        { type: 'tool_result', callId: 'c1', content: [{ type: 'image', blob: { sha256: shot.sha256 }, mediaType: 'image/png' }] },
        { type: 'tool_result', callId: 'c2', content: [text('12:00')] },
      ],
    });
    const { prompt } = await s.buildPrompt({ model });
    expect(shape(prompt.messages)).toBe('user[text] assistant[tool-call:c1,tool-call:c2] tool[tool-result:c1,tool-result:c2] user[image]');
    expect(prompt.messages[2]?.content[1]).toMatchObject({ output: { type: 'text', text: '12:00' } });
    await ws.close();
  });

  it('keep only the latest of rolling summaries in force', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const t1 = await s.addTurn({ role: 'user', blocks: [text('one')] });
    const s1 = await s.addTurn({ role: 'system', blocks: [{ type: 'summary', text: 'S1', summarizes: [{ id: t1.id, version: 0 }] }] });
    const t2 = await s.addTurn({ role: 'user', blocks: [text('two')] });
    await s.addTurn({
      role: 'system',
      blocks: [
        {
          type: 'summary',
          text: 'S1 and S2',
          summarizes: [
            { id: t1.id, version: 0 },
            { id: s1.id, version: 0 },
            { id: t2.id, version: 0 },
          ],
        },
      ],
    });
    await s.addTurn({ role: 'user', blocks: [text('three')] });
    const snap = transcriptSnapshot(ws.manager.workspace(), s.head());
    expect(snap.summaries.map((x) => x.text)).toEqual(['S1 and S2']);
    expect(snap.turns.map((t) => (t.blocks[0] as { text: string }).text)).toEqual(['three']);
    await ws.close();
  });

  it('are never over budget and their record says what they cost (property)', async () => {
    const kinds = fc.constantFrom('user', 'answer', 'call', 'result', 'image', 'note', 'big');
    let runs = 0;
    let built = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(kinds, { minLength: 1, maxLength: 20 }), fc.integer({ min: 300, max: 4000 }), async (plan, total) => {
        const ws = await createWorkspace();
        const s = await ws.sessions.create();
        const img = await ws.blobs.register(new Uint8Array([1]), { mediaType: 'image/png' });
        for (const [i, kind] of plan.entries()) {
          const blocks =
            kind === 'user'
              ? [text(`question ${i} `.repeat(5))]
              : kind === 'answer'
                ? [text(`answer ${i} `.repeat(8))]
                : kind === 'call'
                  ? [{ type: 'tool_use' as const, callId: `c${i % 3}`, name: 'f', args: { i } }]
                  : kind === 'result'
                    ? [{ type: 'tool_result' as const, callId: `c${(i - 1) % 3}`, content: [text('result '.repeat(10))] }]
                    : kind === 'image'
                      ? [{ type: 'image' as const, blob: { sha256: img.sha256 }, mediaType: 'image/png' }]
                      : kind === 'note'
                        ? [text('a note')]
                        : [text('long '.repeat(900))];
          const role = kind === 'answer' || kind === 'call' ? 'assistant' : kind === 'result' ? 'tool' : kind === 'note' ? 'system' : 'user';
          await s.addTurn({ role, blocks });
        }
        const outcome = await s.buildPrompt({ model, tokenBudget: { total, reserve: 100 } }).then(
          (built) => ({ built }),
          (error: unknown) => ({ error }),
        );
        runs++;
        if ('error' in outcome) expect((outcome.error as { code?: string }).code).toBe('PROMPT_TOO_LARGE');
        else {
          const counted = countPrompt(outcome.built.prompt, (t) => model.countTokens(t));
          expect(outcome.built.record.tokens.total).toBe(counted);
          expect(counted).toBeLessThanOrEqual(total - 100);
          expect(outcome.built.prompt.messages[0]?.role).toBe('user');
          built++;
        }
        await ws.close();
      }),
      { numRuns: 150 },
    );
    expect(runs).toBe(150);
    expect(built).toBeGreaterThan(100); // most budgets fit something: the property is about real prompts
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
