import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, GolemError, resolveModel, type StreamPart, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { startFakeProvider, type FakeProvider } from './servers/fake-provider.js';
import { text } from './helpers.js';

const servers: FakeProvider[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function chat(ws: Workspace) {
  const s = await ws.sessions.create({ topics: ['anatomy'] });
  await s.addTurn({ role: 'user', blocks: [text('How many chambers has the heart?')] });
  return s;
}

describe('session.respond', () => {
  it('records the answer as one assistant turn, with thinking, text and tool calls, usage and the prompt record', async () => {
    const ws = await createWorkspace();
    const s = await chat(ws);
    const model = scriptedModel([
      {
        thinking: 'Basic anatomy.',
        text: 'Four.',
        toolCalls: [{ name: 'lookup', input: { organ: 'heart' }, callId: 'c1' }],
        usage: { inputTokens: 30, outputTokens: 9 },
      },
    ]);
    const parts: StreamPart['type'][] = [];
    const turn = await s.respond({ model, tokenBudget: { total: 8000 }, onPart: (part) => parts.push(part.type) });
    expect(turn.role).toBe('assistant');
    expect(turn.blocks).toEqual([
      { type: 'thinking', thinking: 'Basic anatomy.' },
      { type: 'text', text: 'Four.' },
      { type: 'tool_use', callId: 'c1', name: 'lookup', args: { organ: 'heart' } },
    ]);
    expect(turn.meta).toMatchObject({
      status: 'complete',
      stopReason: 'tool-calls',
      usage: { inputTokens: 30, outputTokens: 9 },
      cost: null,
      model: { provider: 'scripted', modelId: 'scripted-model' },
    });
    expect(turn.meta.prompt).toMatchObject({ turns: { count: 1 }, dropped: { count: 0 }, tokens: { budget: 8000, reserve: 2000 } });
    expect(s.head()).toEqual({ id: turn.id, version: 0 });
    expect(parts[0]).toBe('thinking-delta');
    expect(parts.at(-1)).toBe('finish');
    expect(model.calls).toHaveLength(1);
    expect(model.calls[0]?.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'How many chambers has the heart?' }] }]);
    await ws.close();
  });

  it('stores the cost of a priced model', async () => {
    const server = await startFakeProvider('openai', [{ text: 'Four.', usage: { input: 1_000_000, output: 500_000 } }]);
    servers.push(server);
    const ws = await createWorkspace();
    const s = await chat(ws);
    const turn = await s.respond({ model: resolveModel('openai:gpt-4.1-mini', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.url } }) });
    expect(turn.meta.usage).toMatchObject({ inputTokens: 1_000_000, outputTokens: 500_000 });
    expect(turn.meta.cost).toBeCloseTo(0.4 + 0.8, 6);
    await ws.close();
  });

  it('marks an interrupted answer incomplete, records what arrived, and reports the error', async () => {
    const ws = await createWorkspace();
    const s = await chat(ws);
    const model = scriptedModel([{ text: 'Four chambers, namely the', failAfter: { parts: 3 } }]);
    const failure = await s.respond({ model }).catch((e: unknown) => e);
    expect(GolemError.isInstance(failure) && failure.code).toBe('MODEL_ERROR');
    const recorded = (failure as GolemError).details.turn as { id: string };
    const turn = s.turn(recorded.id);
    expect(turn?.meta).toMatchObject({ status: 'incomplete', error: { code: 'MODEL_ERROR' } });
    expect(turn?.blocks).toEqual([{ type: 'text', text: 'Four chambers, namely ' }]);
    expect(s.head()).toEqual({ id: recorded.id, version: 0 });
    await ws.close();
  });

  it('records nothing when the call fails before any output', async () => {
    const ws = await createWorkspace();
    const s = await chat(ws);
    const head = s.head();
    await expect(s.respond({ model: scriptedModel([{ text: 'x', failAfter: { parts: 0 } }]) })).rejects.toMatchObject({ code: 'MODEL_ERROR' });
    await expect(s.respond({ model: scriptedModel([]) })).rejects.toMatchObject({ code: 'MODEL_SCRIPT_EXHAUSTED' });
    expect(s.head()).toEqual(head);
    await ws.close();
  });

  it('stops on cancellation, keeping what arrived as an incomplete turn', async () => {
    const ws = await createWorkspace();
    const s = await chat(ws);
    const controller = new AbortController();
    const onPart = (part: StreamPart) => {
      if (part.type === 'text-delta') controller.abort();
    };
    const failure = await s.respond({ model: scriptedModel([{ text: 'one two three' }]), signal: controller.signal, onPart }).catch((e: unknown) => e);
    expect((failure as GolemError).code).toBe('MODEL_ABORTED');
    const recorded = (failure as GolemError).details.turn as { id: string };
    expect(s.turn(recorded.id)?.blocks).toEqual([text('one ')]);
    expect(s.turn(recorded.id)?.meta.status).toBe('incomplete');
    await ws.close();
  });

  it('refuses to record an answer onto a head that moved while it streamed', async () => {
    const ws = await createWorkspace();
    const s = await chat(ws);
    const model = scriptedModel([
      async () => {
        await s.addTurn({ role: 'user', blocks: [text('(typed meanwhile)')] });
        return { text: 'late answer' };
      },
    ]);
    await expect(s.respond({ model })).rejects.toMatchObject({ code: 'HEAD_CONFLICT' });
    expect((await s.transcript()).map((t) => t.blocks[0])).toEqual([text('How many chambers has the heart?'), text('(typed meanwhile)')]);
    await ws.close();
  });
});
