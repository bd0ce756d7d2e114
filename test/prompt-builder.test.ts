import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONFLICT_RULE,
  CONTINUED,
  createWorkspace,
  JaccardRetriever,
  planTokens,
  SUPERSEDED_NOTE,
  type PromptRecord,
  type Session,
  type Workspace,
} from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { text } from './helpers.js';

const model = scriptedModel([]); // counts tokens (about 4 characters each); never called here
const words = (n: number, word = 'word') => Array.from({ length: n }, () => word).join(' ');

async function conversation(turns: number, size = 40): Promise<{ ws: Workspace; s: Session }> {
  const ws = await createWorkspace();
  const s = await ws.sessions.create();
  for (let i = 0; i < turns; i++) await s.addTurn({ role: i % 2 === 0 ? 'user' : 'assistant', blocks: [text(`${i}: ${words(size)}`)] });
  return { ws, s };
}

describe('the token planner in the pipeline', () => {
  it('drops the oldest turns first, keeps the newest, and says what it dropped', async () => {
    const { ws, s } = await conversation(30);
    const { prompt, record, dropped } = await s.buildPrompt({ model, tokenBudget: { total: 1000, reserve: 200 } });
    expect(record.dropped.count).toBeGreaterThan(0);
    expect(record.turns.count + record.dropped.count).toBe(30);
    expect(record.tokens.total).toBeLessThanOrEqual(800);
    expect(record.dropped.first).toEqual({ id: (await s.transcript())[0]?.id, version: 0 });
    expect(dropped).toHaveLength(record.dropped.count);
    const sent = prompt.messages.flatMap((m) => m.content.map((c) => (c.type === 'text' ? c.text : '')));
    expect(sent.at(-1)?.startsWith('29:')).toBe(true);
    expect(sent[0]?.startsWith(`${record.dropped.count}:`)).toBe(true);
    await ws.close();
  });

  it('opens with the user even when the history sent starts with an answer', async () => {
    const { ws, s } = await conversation(30);
    const { prompt, record } = await s.buildPrompt({ model, tokenBudget: { total: 1000, reserve: 200 } });
    expect(prompt.messages[0]?.role).toBe('user');
    const firstSent = (prompt.messages[0]?.content[0] as { text: string }).text;
    expect(firstSent === CONTINUED).toBe(record.dropped.count % 2 === 1); // an odd number dropped leaves an answer first
    const greeting = await ws.sessions.create();
    await greeting.addTurn({ role: 'assistant', blocks: [text('Hello! How can I help?')] });
    const opened = await greeting.buildPrompt({ model });
    expect(opened.prompt.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(opened.prompt.messages[0]?.content).toEqual([{ type: 'text', text: CONTINUED }]);
    await ws.close();
  });

  it('cuts a newest turn that alone is over the budget from its front', async () => {
    const { ws, s } = await conversation(1, 2000);
    const { prompt, record } = await s.buildPrompt({ model, tokenBudget: { total: 600, reserve: 100 } });
    expect(record.truncated).toEqual(s.head());
    const sentText = (prompt.messages[0]?.content[0] as { text: string }).text;
    expect(sentText.startsWith('…')).toBe(true);
    expect(model.countTokens(sentText)).toBeLessThanOrEqual(500);
    expect(s.turn(s.head()?.id ?? '')?.blocks[0]).toEqual(text(`0: ${words(2000)}`)); // the stored turn is untouched
    await ws.close();
  });

  it('refuses a budget the system instruction alone does not fit', async () => {
    const ws = await createWorkspace();
    await ws.roles.add({ name: 'verbose', persona: words(500) });
    const s = await ws.sessions.create({ role: 'verbose' });
    await s.addTurn({ role: 'user', blocks: [text('hi')] });
    await expect(s.buildPrompt({ model, tokenBudget: { total: 400, reserve: 100 } })).rejects.toMatchObject({ code: 'PROMPT_TOO_LARGE' });
    await ws.close();
  });

  it('counts preferences against the budget: the weakest by the conflict rule are left out and recorded, before the prompt is refused', async () => {
    const ws = await createWorkspace();
    for (const id of ['r1', 'r2']) await ws.preferences.add({ id, content: `${id}: ${words(60, 'role')}` });
    for (const id of ['s1', 's2']) await ws.preferences.add({ id, content: `${id}: ${words(60, 'mine')}` });
    await ws.roles.add({ name: 'helper', persona: 'Help.', preferences: ['r1', 'r2'] });
    const s = await ws.sessions.create({ role: 'helper', preferences: ['s1', 's2'] });
    await s.addTurn({ role: 'user', blocks: [text('hi')] });
    // Everything fits in a wide budget.
    const wide = await s.buildPrompt({ model, tokenBudget: { total: 4000, reserve: 100 } });
    expect(wide.record.preferences.map((p) => p.id)).toEqual(['r1', 'r2', 's1', 's2']);
    expect(wide.record.preferencesLeftOut).toBeUndefined();
    // Room for two: the role's defaults go first (a session's own choice beats them), and the prompt is built.
    const tight = await s.buildPrompt({ model, tokenBudget: { total: 260, reserve: 20 } });
    expect(tight.record.preferences.map((p) => p.id)).toEqual(['s1', 's2']);
    expect(tight.record.preferencesLeftOut).toEqual([
      { id: 'r1', tier: 'role' },
      { id: 'r2', tier: 'role' },
    ]);
    expect(tight.prompt.system).not.toContain('r1:');
    expect(tight.prompt.system).toContain('s2:');
    expect(tight.record.tokens.total).toBeLessThanOrEqual(240);
    // No room even for the persona and the turn without preferences: refused, saying so.
    await expect(s.buildPrompt({ model, tokenBudget: { total: 30, reserve: 20 } })).rejects.toMatchObject({
      code: 'PROMPT_TOO_LARGE',
      message: expect.stringContaining('even without the preferences'),
    });
    await ws.close();
  });

  it('never separates a tool call from its result (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('chat', 'tools', 'long'), { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 150, max: 2000 }),
        async (kinds, total) => {
          const ws = await createWorkspace();
          const s = await ws.sessions.create();
          for (const [i, kind] of kinds.entries()) {
            if (kind === 'tools') {
              await s.addTurn({ role: 'assistant', blocks: [{ type: 'tool_use', callId: `c${i}`, name: 'f', args: { n: i } }] });
              await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: `c${i}`, content: [text(words(20))] }] });
            } else await s.addTurn({ role: 'user', blocks: [text(words(kind === 'long' ? 120 : 10))] });
          }
          const built = await s.buildPrompt({ model, tokenBudget: { total, reserve: 50 } }).catch(() => undefined);
          if (built !== undefined) {
            const calls = built.prompt.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool-call' ? [p.callId] : [])));
            const results = built.prompt.messages.flatMap((m) => m.content.flatMap((p) => (p.type === 'tool-result' ? [p.callId] : [])));
            expect(results.sort()).toEqual(calls.sort());
            expect(built.record.turns.count + built.record.dropped.count).toBe(kinds.length + kinds.filter((k) => k === 'tools').length);
          }
          await ws.close();
        },
      ),
      { numRuns: 60 },
    );
  });

  it('plans context within its share and history newest first', () => {
    const plan = planTokens({
      budget: { total: 1000, reserve: 100 },
      systemTokens: 100,
      toolTokens: 0,
      context: [
        { id: 'a', tokens: 150 },
        { id: 'b', tokens: 300 },
        { id: 'c', tokens: 20 },
      ],
      groups: [{ tokens: 300 }, { tokens: 300 }, { tokens: 100 }],
    });
    expect(plan).toMatchObject({ reserve: 100, context: ['a', 'c'], firstGroup: 1, tokens: { system: 100, context: 170, history: 400, total: 670 } });
  });
});

describe('instructions and retrieval', () => {
  it('merges persona and preferences by the conflict rule: role defaults, then topics, then the session; older first', async () => {
    const ws = await createWorkspace({
      clock: (() => {
        let t = Date.UTC(2026, 0, 1);
        return () => new Date(t++);
      })(),
    });
    await ws.preferences.add({ id: 'role-old', content: 'Use imperial units.' });
    await ws.preferences.add({ id: 'role-new', content: 'Cite sources.' });
    await ws.preferences.add({ id: 'topic', content: 'Prefer metric units when discussing cooking recipes.', topics: ['cooking'] });
    await ws.preferences.add({ id: 'mine', content: 'Use metric units.' });
    await ws.preferences.add({ id: 'unrelated', content: 'Mention train timetables.', topics: ['railways'] });
    await ws.roles.add({ name: 'chef', persona: 'You are a chef.', preferences: ['role-new', 'role-old', 'mine'] });
    const s = await ws.sessions.create({ role: 'chef', topics: ['cooking'], preferences: ['mine'] });
    await s.addTurn({ role: 'user', blocks: [text('How much flour for a cooking recipe of bread?')] });
    const { prompt, record } = await s.buildPrompt({ model });
    expect(record.preferences).toEqual([
      { id: 'role-old', tier: 'role' },
      { id: 'role-new', tier: 'role' },
      { id: 'topic', tier: 'topic' },
      { id: 'mine', tier: 'session' },
    ]);
    expect(prompt.system).toBe(
      `You are a chef.\n\n## User preferences\n${CONFLICT_RULE}\n1. Use imperial units.\n2. Cite sources.\n3. Prefer metric units when discussing cooking recipes.\n4. Use metric units.`,
    );
    await ws.close();
  });

  it('retrieves relevant context above the minimum score, from the recent window only', async () => {
    const ws = await createWorkspace();
    await ws.context.add({ key: 'heart', content: 'The heart has four chambers: two atria, two ventricles.', topics: ['anatomy'] });
    await ws.context.add({ key: 'bread', content: 'Sourdough rises with a wild yeast starter.', topics: ['cooking'] });
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('Tell me about sourdough bread and its starter.')] });
    await s.addTurn({ role: 'assistant', blocks: [text('Happy to.')] });
    await s.addTurn({ role: 'user', blocks: [text('Actually, how many chambers has the heart?')] });
    const wide = await s.buildPrompt({ model, relevance: { recentMessageWindow: 6 } });
    expect(wide.record.context.map((c) => c.key).sort()).toEqual(['bread', 'heart']);
    const narrow = await s.buildPrompt({ model, relevance: { recentMessageWindow: 1 } });
    expect(narrow.record.context.map((c) => c.key)).toEqual(['heart']);
    expect(narrow.prompt.system).toContain('## Relevant context\n- [heart] The heart has four chambers');
    const strict = await s.buildPrompt({ model, relevance: { recentMessageWindow: 1, minScore: 0.99 } });
    expect(strict.record.context).toEqual([]);
    await ws.close();
  });
});

describe("a role's constraints and topics", () => {
  it("apply to every prompt of a session in the role: temperature, maxTokens (kept free in the window) and contextWindow; a call's own options win", async () => {
    const ws = await createWorkspace();
    await ws.roles.add({
      name: 'terse',
      persona: 'Be brief.',
      constraints: { temperature: 0.2, maxTokens: 300, contextWindow: 2000, model: 'openai:gpt-4.1-mini', team: 'ops' },
    });
    const s = await ws.sessions.create({ role: 'terse' });
    for (let i = 0; i < 40; i++) await s.addTurn({ role: i % 2 === 0 ? 'user' : 'assistant', blocks: [text(`${i}: ${words(40)}`)] });
    const byRole = await s.buildPrompt({ model });
    expect(byRole.prompt.temperature).toBe(0.2);
    expect(byRole.prompt.maxOutputTokens).toBe(300);
    expect(byRole.record.tokens).toMatchObject({ budget: 2000, reserve: 300 });
    expect(byRole.record.tokens.total).toBeLessThanOrEqual(1700);
    expect(byRole.record.dropped.count).toBeGreaterThan(0);
    // The call's own options win over the role's.
    const own = await s.buildPrompt({ model, temperature: 0.9, maxOutputTokens: 50, tokenBudget: { total: 100_000 } });
    expect(own.prompt).toMatchObject({ temperature: 0.9, maxOutputTokens: 50 });
    expect(own.record.tokens.budget).toBe(100_000);
    expect(own.record.dropped.count).toBe(0);
    // The same session without the role: none of them.
    await ws.manager.dispatch({ type: 'session:role:switch', payload: { sessionId: s.id, role: null } });
    const plain = await s.buildPrompt({ model });
    expect(plain.prompt.temperature).toBeUndefined();
    expect(plain.prompt.maxOutputTokens).toBeUndefined();
    expect(plain.record.tokens.budget).toBe(128_000);
    await ws.close();
  });

  it('refuses constraints of the wrong type with INVALID_PAYLOAD, and keeps keys it does not know', async () => {
    const ws = await createWorkspace();
    for (const constraints of [{ temperature: 'hot' }, { temperature: 3 }, { maxTokens: 0 }, { contextWindow: 1.5 }, { model: '' }]) {
      await expect(ws.roles.add({ name: 'bad', persona: 'x', constraints: constraints as never }), JSON.stringify(constraints)).rejects.toMatchObject({
        code: 'INVALID_PAYLOAD',
      });
    }
    expect(ws.roles.list()).toEqual([]);
    const role = await ws.roles.add({ name: 'ok', persona: 'x', constraints: { temperature: 0, style: { tone: 'dry' } } });
    expect(role.constraints).toEqual({ temperature: 0, style: { tone: 'dry' } });
    await ws.close();
  });

  it("the role's topics bring in the context entries and preferences of those topics, as the session's own do", async () => {
    const ws = await createWorkspace();
    await ws.context.add({ key: 'ecg', content: 'An ECG records the electrical activity of the heart.', topics: ['cardiology'] });
    await ws.context.add({ key: 'bread', content: 'Sourdough rises with a wild yeast starter.', topics: ['cooking'] });
    await ws.roles.add({ name: 'cardiologist', persona: 'You are a cardiologist.', topics: ['cardiology'] });
    const s = await ws.sessions.create({ role: 'cardiologist' });
    await s.addTurn({ role: 'user', blocks: [text('What should I read first?')] });
    const withRole = await s.buildPrompt({ model });
    expect(withRole.record.context.map((c) => c.key)).toEqual(['ecg']);
    const without = await ws.sessions.create();
    await without.addTurn({ role: 'user', blocks: [text('What should I read first?')] });
    expect((await without.buildPrompt({ model })).record.context).toEqual([]);
    await ws.close();
  });
});

describe('the replaceable stages, as createWorkspace options', () => {
  it("takes its own instructions stage, token planner and retriever, and falls back to Golem's for the rest", async () => {
    const planned: number[] = [];
    const ws = await createWorkspace({
      prompt: {
        retriever: new JaccardRetriever(),
        stages: {
          instructions: (parts) => `HOUSE RULES. ${parts.context.map((c) => c.key).join(',')}`,
          // Keeps only the newest turn, whatever the budget.
          plan: (input) => {
            planned.push(input.groups.length);
            const plan = planTokens(input);
            return 'tooLarge' in plan ? plan : { ...plan, firstGroup: Math.max(plan.firstGroup, input.groups.length - 1) };
          },
        },
      },
    });
    await ws.context.add({ key: 'heart', content: 'The heart has four chambers.', topics: ['anatomy'] });
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('hello')] });
    await s.addTurn({ role: 'assistant', blocks: [text('hi')] });
    await s.addTurn({ role: 'user', blocks: [text('How many chambers has the heart?')] });
    const { prompt, record } = await s.buildPrompt({ model });
    expect(prompt.system).toBe('HOUSE RULES. heart');
    expect(record.retriever).toBe('jaccard');
    expect(record.turns.count).toBe(1);
    expect(planned).toEqual([3]);
    await ws.close();
  });
});

describe('summaries', () => {
  it('stand in for the turns they summarise', async () => {
    const { ws, s } = await conversation(6, 5);
    const path = await s.transcript();
    await s.addTurn({
      role: 'system',
      blocks: [{ type: 'summary', text: 'They greeted each other.', summarizes: path.slice(0, 4).map((t) => ({ id: t.id, version: 0 })) }],
    });
    const { prompt, record } = await s.buildPrompt({ model });
    expect(record.summarized).toHaveLength(4);
    expect(record.turns.count).toBe(2);
    expect(prompt.system).toContain('## Earlier conversation (summary)\nThey greeted each other.');
    expect(prompt.messages.flatMap((m) => m.content.map((c) => (c as { text: string }).text.slice(0, 2)))).toEqual(['4:', '5:']);
    await ws.close();
  });

  it('are asked for within the same time limits as an answer: a summarizer that never answers fails with MODEL_TIMEOUT', async () => {
    const { ws, s } = await conversation(24, 60);
    const before = ws.manager.workspace().turns.size;
    const silent = scriptedModel(() => new Promise<never>(() => undefined));
    const answerer = scriptedModel([{ text: 'Noted.' }]);
    await expect(
      s.respond({ model: answerer, tokenBudget: { total: 1200, reserve: 200 }, summarize: { model: silent }, idleTimeoutMs: 100 }),
    ).rejects.toMatchObject({ code: 'MODEL_TIMEOUT' });
    expect(answerer.calls).toHaveLength(0);
    expect(ws.manager.workspace().turns.size).toBe(before);
    await ws.close();
  });

  it('are written by the summarizer when history no longer fits, leaving the summarised turns in the DAG', async () => {
    const { ws, s } = await conversation(24, 60);
    const before = ws.manager.workspace().turns.size;
    const summarizer = scriptedModel((_prompt, call) => ({ text: call === 0 ? 'The first turns counted words.' : 'Twenty turns of counting words.' }));
    const answerer = scriptedModel([{ text: 'Noted.' }]);
    const turn = await s.respond({ model: answerer, tokenBudget: { total: 1200, reserve: 200 }, summarize: { model: summarizer } });
    // The dropped turns are more than one call should carry: summarised in chunks, each summary carried into the next.
    expect(summarizer.calls.length).toBeGreaterThan(1);
    const asked = summarizer.calls.map((p) => (p.messages[0]?.content[0] as { text: string }).text);
    expect(asked[0]).toContain('0: word');
    expect(asked[1]).toContain('Summary of what came before:\nThe first turns counted words.');
    for (const text of asked) expect(summarizer.countTokens(text)).toBeLessThanOrEqual(1200 / 2 + 50);
    const path = await s.transcript();
    const summaryTurn = path.at(-2);
    expect(summaryTurn?.blocks[0]).toMatchObject({ type: 'summary', text: 'Twenty turns of counting words.' });
    expect(ws.manager.workspace().turns.size).toBe(before + 2);
    expect(answerer.calls[0]?.system).toContain('Twenty turns of counting words.');
    const record = turn.meta.prompt as unknown as PromptRecord;
    expect(record.summarized.length).toBeGreaterThan(0);
    // The record reads back as exactly the turns the model was sent.
    const sent = ws.prompts.sentTurns(record).map((t) => (t.blocks[0] as { text: string }).text);
    const seen = answerer.calls[0]?.messages.flatMap((m) => m.content.map((c) => (c as { text: string }).text)) ?? [];
    expect(sent).toEqual(seen.filter((t) => t !== CONTINUED));
    expect(sent.length).toBe(record.turns.count);
    await ws.close();
  });
});

describe('observations in the prompt', () => {
  it('leaves out an observation once a newer one of the same key follows, and keeps every turn whole in the session', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const observe = (key: string, n: number) =>
      s.addTurn({
        role: 'user',
        blocks: [text(`Result ${n}`), text(`Snapshot ${key} #${n}: ${words(200, 'cell')}`)],
        meta: { observation: { key, block: 1 } },
      });
    await observe('browser:a', 1);
    await s.addTurn({ role: 'assistant', blocks: [text('next')] });
    await observe('browser:b', 2);
    await s.addTurn({ role: 'assistant', blocks: [text('next')] });
    await observe('browser:a', 3);
    await s.addTurn({ role: 'assistant', blocks: [text('next')] });
    await observe('browser:a', 4);
    const { prompt, record } = await s.buildPrompt({ model });
    const sent = prompt.messages.flatMap((m) => m.content.map((c) => (c.type === 'text' ? c.text : '')));
    expect(sent.filter((t) => t.startsWith('Snapshot'))).toEqual([
      expect.stringMatching(/^Snapshot browser:b #2/),
      expect.stringMatching(/^Snapshot browser:a #4/),
    ]);
    expect(sent.filter((t) => t === SUPERSEDED_NOTE)).toHaveLength(2);
    // The summaries of the results stay; only the observations go.
    expect(sent.filter((t) => t.startsWith('Result '))).toEqual(['Result 1', 'Result 2', 'Result 3', 'Result 4']);
    expect(record.superseded).toBe(2);
    expect(record.turns.count).toBe(7);
    // The session keeps them whole, and sentTurns reads back the originals.
    expect((await s.transcript()).filter((t) => JSON.stringify(t.blocks).includes('Snapshot'))).toHaveLength(4);
    expect(ws.prompts.sentTurns(record).filter((t) => JSON.stringify(t.blocks).includes('Snapshot'))).toHaveLength(4);
    // Without a newer one, nothing is left out.
    const { record: fresh } = await (await ws.sessions.fork(s.id, (await s.transcript())[0]?.id)).buildPrompt({ model });
    expect(fresh.superseded).toBeUndefined();
    await ws.close();
  });

  it('leaves out a view (a page, a query, changes) only for a newer whole observation or a newer one of its view', async () => {
    const ws = await createWorkspace();
    const s = await ws.sessions.create();
    const observe = (n: number, view?: string) =>
      s.addTurn({
        role: 'user',
        blocks: [text(`Result ${n}`), text(`Seen #${n}${view === undefined ? '' : ` (${view})`}`)],
        meta: { observation: { key: 'browser:a', block: 1, ...(view !== undefined && { view }) } },
      });
    const shown = async () => {
      const { prompt } = await s.buildPrompt({ model });
      return prompt.messages.flatMap((m) => m.content.flatMap((c) => (c.type === 'text' && c.text.startsWith('Seen #') ? [c.text] : [])));
    };
    await observe(1);
    await observe(2, 'changes s2');
    await observe(3, 'page 2');
    await observe(4, 'query s4');
    await observe(5, 'page 2');
    // Page 2 again makes the older page 2 obsolete; the whole snapshot, its changes and the query stay.
    expect(await shown()).toEqual(['Seen #1', 'Seen #2 (changes s2)', 'Seen #4 (query s4)', 'Seen #5 (page 2)']);
    // A whole one makes every older one obsolete, views too; changes after it stay.
    await observe(6);
    await observe(7, 'changes s7');
    expect(await shown()).toEqual(['Seen #6', 'Seen #7 (changes s7)']);
    await ws.close();
  });
});
