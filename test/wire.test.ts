/**
 * A session with every kind of block, through the prompt pipeline to each provider's
 * wire format: the exact requests a real OpenAI or Anthropic server would receive.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineAction, resolveModel, type Workspace } from '../src/index.js';
import { startFakeProvider, type FakeProvider } from './servers/fake-provider.js';

const servers: FakeProvider[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const PNG2 = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 9, 9, 9]);
const PDF = new TextEncoder().encode('%PDF-1.7 tiny');
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');

/** A session holding text, inline and file-id images, a document, thinking, a tool call and its result, a role switch. */
async function richSession(): Promise<{ ws: Workspace; sessionId: string }> {
  const ws = await createWorkspace();
  await ws.roles.add({ name: 'analyst', persona: 'You analyse documents.' });
  await ws.roles.add({ name: 'editor', persona: 'You edit prose.' });
  const s = await ws.sessions.create({ role: 'analyst' });
  const byFileId = await ws.blobs.register(PNG, { mediaType: 'image/png', filename: 'chart.png' });
  const inline = await ws.blobs.register(PNG2, { mediaType: 'image/png' });
  const pdf = await ws.blobs.register(PDF, { mediaType: 'application/pdf', filename: 'report.pdf' });
  await ws.blobs.recordRemoteId(byFileId.sha256, 'anthropic', 'file_img');
  await ws.blobs.recordRemoteId(pdf.sha256, 'openai', 'file-pdf');
  await ws.blobs.recordRemoteId(pdf.sha256, 'anthropic', 'file_pdf');
  await s.addTurn({
    role: 'user',
    blocks: [
      { type: 'text', text: 'Look at these.' },
      { type: 'image', blob: { sha256: byFileId.sha256 }, mediaType: 'image/png' },
      { type: 'image', blob: { sha256: inline.sha256 }, mediaType: 'image/png' },
      { type: 'document', blob: { sha256: pdf.sha256 }, mediaType: 'application/pdf', filename: 'report.pdf' },
    ],
  });
  await s.addTurn({
    role: 'assistant',
    blocks: [
      { type: 'thinking', thinking: 'I should search.', signature: 'sig-1' },
      { type: 'text', text: 'Searching.' },
      { type: 'tool_use', callId: 'call_1', name: 'search', args: { q: 'heart' } },
    ],
  });
  await s.addTurn({ role: 'tool', blocks: [{ type: 'tool_result', callId: 'call_1', content: [{ type: 'text', text: 'found 3 pages' }] }] });
  await s.switchRole('editor');
  await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'Thanks. Now tighten the summary.' }] });
  return { ws, sessionId: s.id };
}

const tools = [{ name: 'search', description: 'Search the pages.', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } }];

describe.each([false, true])('the wire formats (streaming: %s)', (streaming) => {
  const call = async (spec: string, env: Record<string, string>, ws: Workspace, sessionId: string) => {
    const model = resolveModel(spec, { env });
    const session = ws.sessions.get(sessionId);
    if (session === undefined) throw new Error('no session');
    if (streaming) return session.respond({ model, tools, tokenBudget: { total: 100_000 } });
    const { prompt } = await session.buildPrompt({ model, tools, tokenBudget: { total: 100_000 } });
    return model.generate(prompt);
  };

  it('OpenAI chat completions', async () => {
    const server = await startFakeProvider('openai', [{ text: 'Done.' }]);
    servers.push(server);
    const { ws, sessionId } = await richSession();
    await call('openai:gpt-4.1-mini', { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url }, ws, sessionId);
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/chat/completions');
    expect(request?.headers.authorization).toBe('Bearer sk-test');
    expect(request?.body.stream ?? false).toBe(streaming);
    expect(request?.body.model).toBe('gpt-4.1-mini');
    expect(request?.body.messages).toEqual([
      { role: 'system', content: 'You edit prose.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at these.' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${b64(PNG)}` } },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${b64(PNG2)}` } },
          { type: 'file', file: { file_id: 'file-pdf' } },
        ],
      },
      { role: 'assistant', content: 'Searching.', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"heart"}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'found 3 pages' },
      { role: 'user', content: 'Thanks. Now tighten the summary.' },
    ]);
    expect(request?.body.tools).toEqual([
      { type: 'function', function: { name: 'search', description: 'Search the pages.', parameters: tools[0]?.inputSchema } },
    ]);
    await ws.close();
  });

  it('Anthropic messages', async () => {
    const server = await startFakeProvider('anthropic', [{ text: 'Done.' }]);
    servers.push(server);
    const { ws, sessionId } = await richSession();
    await call('anthropic:claude-sonnet-4-5', { ANTHROPIC_API_KEY: 'sk-ant', ANTHROPIC_BASE_URL: server.url }, ws, sessionId);
    const [request] = server.requests;
    expect(request?.path).toBe('/v1/messages');
    expect(request?.headers['x-api-key']).toBe('sk-ant');
    expect(String(request?.headers['anthropic-beta'])).toContain('files-api-2025-04-14');
    expect(request?.body.stream ?? false).toBe(streaming);
    expect(request?.body.system).toEqual([{ type: 'text', text: 'You edit prose.' }]);
    expect(request?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at these.' },
          { type: 'image', source: { type: 'file', file_id: 'file_img' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(PNG2) } },
          { type: 'document', source: { type: 'file', file_id: 'file_pdf' }, title: 'report.pdf' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should search.', signature: 'sig-1' },
          { type: 'text', text: 'Searching.' },
          { type: 'tool_use', id: 'call_1', name: 'search', input: { q: 'heart' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_1', content: 'found 3 pages' },
          { type: 'text', text: 'Thanks. Now tighten the summary.' },
        ],
      },
    ]);
    expect(request?.body.tools).toEqual([
      { name: 'search', description: 'Search the pages.', input_schema: tools[0]?.inputSchema, ...(streaming && { eager_input_streaming: true }) },
    ]);
    await ws.close();
  });
});

describe('envelope mode on the wire', () => {
  it('sends the response schema as OpenAI structured output, not strict (its optional fields stay optional)', async () => {
    const answer = JSON.stringify({
      decision: { action: 'PROCEED', message: 'Nothing to do.' },
      reasoning: { analysis: 'a', rationale: 'r', expectedOutcome: 'e' },
    });
    const server = await startFakeProvider('openai', [{ text: answer }]);
    servers.push(server);
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const note = defineAction({ name: 'note', description: 'Notes a line.', input: z.object({ text: z.string() }), run: () => 'ok' });
    const model = resolveModel('openai:gpt-4.1-mini', { env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.url } });
    const outcome = await ws.worker({ session, model, actions: [note], mode: 'envelope' }).run('nothing');
    expect(outcome).toMatchObject({ status: 'done', decision: { action: 'PROCEED', message: 'Nothing to do.' } });
    const body = server.requests[0]?.body as {
      response_format?: { type: string; json_schema: { name: string; strict: boolean; schema: { properties: Record<string, unknown>; allOf?: unknown } } };
      tools?: unknown;
    };
    expect(body.tools).toBeUndefined();
    expect(body.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'step', strict: false } });
    const schema = body.response_format?.json_schema.schema;
    expect(Object.keys(schema?.properties ?? {})).toEqual(expect.arrayContaining(['decision', 'reasoning', 'command']));
    expect(JSON.stringify(schema?.properties.command)).toContain('"note"');
    // What providers do not take is left out; the worker still enforces it when it validates.
    expect(schema?.allOf).toBeUndefined();
    await ws.close();
  });
});
