/**
 * Calls the provider runs itself (Anthropic's web search, web fetch, code execution, MCP tool
 * use) and redacted thinking (issue 19). An answer streamed the way the Messages API streams
 * them (the event shapes of the AI SDK's recorded web-search stream, with data of our own)
 * goes through the real @ai-sdk/anthropic provider against a server on loopback: the calls
 * are recorded with their results, the worker does not run them, and the next request sends
 * them back as the provider expects (server_tool_use, web_search_tool_result,
 * redacted_thinking), never with a made-up tool_result.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, resolveModel, type Turn } from '../src/index.js';
import { startFakeProvider, type FakeProvider } from './servers/fake-provider.js';

const REDACTED = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2c2ufIF0x0cG05ig0GKhSIqI28w3jKkHQxwBUf';
const SEARCH_ID = 'srvtoolu_01Golem7ab3KQx4nE9uWZc2d';
const RESULTS = [
  {
    type: 'web_search_result',
    title: 'Golem: a TypeScript runtime for AI workspaces',
    url: 'https://example.org/golem',
    encrypted_content: 'EqgfCioIARgBIiQ3YTAwMjY1Mi1mZjM5LTQ1NGUtODgxNC1kNjNjNTk1ZWI3Y2QSDLeN2n5B0c1n',
    page_age: '2 days ago',
  },
];

/** One answer: redacted thinking, a web search the provider ran, its results, then text. */
function searchingAnswer(): Record<string, unknown>[] {
  const block = (index: number, content_block: object) => ({ type: 'content_block_start', index, content_block });
  const delta = (index: number, d: object) => ({ type: 'content_block_delta', index, delta: d });
  const stop = (index: number) => ({ type: 'content_block_stop', index });
  return [
    {
      type: 'message_start',
      message: {
        id: 'msg_01Golem',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 2037, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
      },
    },
    block(0, { type: 'redacted_thinking', data: REDACTED }),
    stop(0),
    block(1, { type: 'server_tool_use', id: SEARCH_ID, name: 'web_search', input: {} }),
    delta(1, { type: 'input_json_delta', partial_json: '' }),
    delta(1, { type: 'input_json_delta', partial_json: '{"query": "golem ty' }),
    delta(1, { type: 'input_json_delta', partial_json: 'pescript runtime"}' }),
    stop(1),
    block(2, { type: 'web_search_tool_result', tool_use_id: SEARCH_ID, content: RESULTS }),
    stop(2),
    block(3, { type: 'text', text: '' }),
    delta(3, { type: 'text_delta', text: 'Golem is a TypeScript runtime ' }),
    delta(3, { type: 'text_delta', text: 'for AI workspaces.' }),
    stop(3),
    {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 120, server_tool_use: { web_search_requests: 1 } },
    },
    { type: 'message_stop' },
  ];
}

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

const model = (url: string) =>
  resolveModel('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: url }, retryDelayMs: 1 });

describe('calls the provider runs itself, and redacted thinking', () => {
  it('records them with their results, and sends them back as the provider expects', async () => {
    provider = await startFakeProvider('anthropic', [{ events: searchingAnswer() }, { text: 'It was released this week.' }]);
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'What is Golem?' }] });
    const answer = await session.respond({ model: model(provider.url) });
    expect(answer.blocks.map((b) => b.type)).toEqual(['thinking', 'tool_use', 'server_tool_result', 'text']);
    expect(answer.blocks[0]).toMatchObject({ type: 'thinking', thinking: '', redacted: REDACTED });
    expect(answer.blocks[1]).toMatchObject({
      type: 'tool_use',
      callId: SEARCH_ID,
      name: 'web_search',
      args: { query: 'golem typescript runtime' },
      providerExecuted: true,
    });
    expect(answer.blocks[2]).toMatchObject({ type: 'server_tool_result', callId: SEARCH_ID, name: 'web_search' });
    expect(JSON.stringify((answer.blocks[2] as Extract<Turn['blocks'][number], { type: 'server_tool_result' }>).output)).toContain(
      RESULTS[0]?.encrypted_content,
    );
    // Read back from the store, as a reopened workspace would.
    expect((await session.transcript()).at(-1)?.blocks).toEqual(answer.blocks);

    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'When was it released?' }] });
    await session.respond({ model: model(provider.url) });
    const sent = provider.requests[1]?.body as { messages: { role: string; content: { type: string; [k: string]: unknown }[] }[] };
    const assistant = sent.messages.find((m) => m.role === 'assistant');
    expect(assistant?.content.map((c) => c.type)).toEqual(['redacted_thinking', 'server_tool_use', 'web_search_tool_result', 'text']);
    expect(assistant?.content[0]).toMatchObject({ data: REDACTED });
    expect(assistant?.content[1]).toMatchObject({ id: SEARCH_ID, name: 'web_search', input: { query: 'golem typescript runtime' } });
    expect(assistant?.content[2]).toMatchObject({
      tool_use_id: SEARCH_ID,
      content: [{ url: 'https://example.org/golem', encrypted_content: RESULTS[0]?.encrypted_content }],
    });
    // No result was made up for the search: nothing in the request is a tool_result.
    expect(JSON.stringify(sent.messages)).not.toContain('"tool_result"');
    expect(JSON.stringify(sent.messages)).not.toContain('no result');
    await ws.close();
  });

  it('a worker does not run a call the provider ran: the answer ends the run, with no action', async () => {
    provider = await startFakeProvider('anthropic', [{ events: searchingAnswer() }]);
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const worker = ws.worker({ session, model: model(provider.url) });
    const outcome = await worker.run('What is Golem?');
    expect(outcome).toMatchObject({ status: 'done', steps: 1, actions: [] });
    expect(worker.interrupted()).toBe(false);
    expect(provider.requests).toHaveLength(1);
    await ws.close();
  });
});
