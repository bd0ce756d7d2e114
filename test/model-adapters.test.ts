import { afterEach, describe, expect, it } from 'vitest';
import { GolemError, resolveModel, type ModelAdapter } from '../src/index.js';
import { describeModelAdapterConformance } from '../src/test/conformance.js';
import { scriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { startFakeProvider, type FakeAnswer, type FakeProvider } from './servers/fake-provider.js';

const servers: FakeProvider[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

function toFake(r: ScriptedResponse, i: number): FakeAnswer {
  return {
    ...(r.text !== undefined && { text: r.text }),
    ...(r.thinking !== undefined && { thinking: { text: r.thinking, signature: `sig-${i}` } }),
    ...(r.toolCalls !== undefined && { toolCalls: r.toolCalls.map((c, j) => ({ id: c.callId ?? `call_${i}_${j}`, name: c.name, input: c.input })) }),
    usage: { input: r.usage?.inputTokens ?? 10, output: r.usage?.outputTokens ?? 5 },
  };
}

async function served(kind: 'openai' | 'anthropic', spec: (url: string) => { spec: string; env: Record<string, string> }, responses: ScriptedResponse[]) {
  const server = await startFakeProvider(kind, responses.map(toFake));
  servers.push(server);
  const { spec: s, env } = spec(server.url);
  return { model: resolveModel(s, { env, retryDelayMs: 1 }) as ModelAdapter, server };
}

describeModelAdapterConformance('scripted', { thinking: true, create: async (responses) => ({ model: scriptedModel(responses) }) });
describeModelAdapterConformance('openai (chat completions over HTTP)', {
  thinking: false,
  create: async (responses) =>
    served('openai', (url) => ({ spec: 'openai:gpt-4.1-mini', env: { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: url } }), responses),
});
describeModelAdapterConformance('anthropic (messages over HTTP)', {
  thinking: true,
  signsThinking: true,
  create: async (responses) =>
    served('anthropic', (url) => ({ spec: 'anthropic:claude-sonnet-4-5', env: { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: url } }), responses),
});
describeModelAdapterConformance('openai-compatible (over HTTP)', {
  thinking: false,
  create: async (responses) => served('openai', (url) => ({ spec: `openai-compatible:${url}#local-model`, env: {} }), responses),
});

describe('resolveModel', () => {
  it('refuses an unknown provider or a malformed spec, naming the forms it knows', () => {
    for (const spec of ['mistral:large', 'gpt-4', 'openai:', 'openai-compatible:localhost#m', 'openai-compatible:http://x/v1']) {
      expect(() => resolveModel(spec, { env: { OPENAI_API_KEY: 'k' } })).toThrow(expect.objectContaining({ code: 'MODEL_UNKNOWN_PROVIDER' }));
    }
    expect(() => resolveModel('mistral:large', { env: {} })).toThrow(/openai-compatible:<baseURL>#<model>/);
  });

  it('names the missing key', () => {
    expect(() => resolveModel('openai:gpt-4.1-mini', { env: {} })).toThrow(
      expect.objectContaining({ code: 'MODEL_KEY_MISSING', message: expect.stringContaining('OPENAI_API_KEY') }),
    );
    expect(() => resolveModel('anthropic:claude-sonnet-4-5', { env: {} })).toThrow(
      expect.objectContaining({ code: 'MODEL_KEY_MISSING', message: expect.stringContaining('ANTHROPIC_API_KEY') }),
    );
    expect(() => resolveModel('google:gemini-2.5-flash', { env: {} })).toThrow(expect.objectContaining({ code: 'MODEL_KEY_MISSING' }));
    expect(resolveModel('ollama:qwen3', { env: {} })).toMatchObject({ provider: 'ollama', modelId: 'qwen3' });
  });

  it('reports a server that is not there as unreachable, after retrying', async () => {
    const server = await startFakeProvider('openai', []);
    const url = server.url;
    await server.close(); // the port is free now: nothing listens
    const model = resolveModel(`openai-compatible:${url}#m`, { env: {}, retryDelayMs: 1, maxAttempts: 2 });
    await expect(model.generate({ system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).rejects.toMatchObject({
      code: 'MODEL_UNREACHABLE',
    });
  });

  it('retries 429 and 5xx with backoff, honouring Retry-After, then succeeds', async () => {
    const server = await startFakeProvider('openai', [{ status: 429, retryAfter: 0 }, { status: 503 }, { text: 'third time lucky' }]);
    servers.push(server);
    const model = resolveModel('openai:gpt-4.1-mini', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.url }, retryDelayMs: 1 });
    const result = await model.generate({ system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(result.text).toBe('third time lucky');
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a refused key, and says so', async () => {
    const server = await startFakeProvider('anthropic', [{ status: 401 }]);
    servers.push(server);
    const model = resolveModel('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: 'bad', ANTHROPIC_BASE_URL: server.url }, retryDelayMs: 1 });
    await expect(model.generate({ system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).rejects.toMatchObject({
      code: 'MODEL_AUTH',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('gives up on a persistent 500 with MODEL_ERROR after its attempts', async () => {
    const server = await startFakeProvider('openai', [{ status: 500 }]);
    servers.push(server);
    const model = resolveModel('openai:gpt-4.1-mini', { env: { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.url }, retryDelayMs: 1, maxAttempts: 3 });
    const failure = model.generate({ system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    await expect(failure).rejects.toMatchObject({ code: 'MODEL_ERROR', details: { status: 500 } });
    expect(server.requests).toHaveLength(3);
  });

  it('retries an error the stream reports before any output (overloaded), never after output', async () => {
    const streamed: string[] = [];
    const again = await startFakeProvider('anthropic', [{ streamError: 'overloaded_error' }, { text: 'second try' }]);
    servers.push(again);
    const streaming = resolveModel('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: again.url }, retryDelayMs: 1 });
    for await (const part of streaming.stream({ system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }))
      if (part.type === 'text-delta') streamed.push(part.text);
    expect(streamed.join('')).toBe('second try');
    expect(again.requests).toHaveLength(2);
    const failing = await startFakeProvider('anthropic', [{ streamError: 'invalid_request_error' }]);
    servers.push(failing);
    const refused = resolveModel('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: failing.url }, retryDelayMs: 1 });
    const error = await (async () => {
      for await (const _ of refused.stream({ system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }));
    })().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MODEL_ERROR', message: expect.stringContaining('invalid_request_error: scripted invalid_request_error') });
    expect(failing.requests).toHaveLength(1);
  });

  it('cancels a stream that is under way', async () => {
    const server = await startFakeProvider('anthropic', [{ text: 'one two three four five', hangAfterEvents: 3 }]);
    servers.push(server);
    const model = resolveModel('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.url } });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const part of model.stream(
        { system: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
        { signal: controller.signal },
      )) {
        if (part.type === 'text-delta') {
          seen.push(part.text);
          controller.abort();
        }
      }
    })();
    await expect(run).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e) && e.code === 'MODEL_ABORTED');
    expect(seen).toEqual(['one ']);
  });
});
