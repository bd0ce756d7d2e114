/**
 * Local HTTP servers that speak the OpenAI chat-completions and Anthropic messages wire
 * formats (streaming SSE and plain JSON), answer from a script, and record every request.
 * Real servers on 127.0.0.1, port 0: the adapters under test talk HTTP to them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAnswer {
  text?: string;
  thinking?: { text: string; signature: string };
  toolCalls?: { id: string; name: string; input: Record<string, unknown> }[];
  usage?: { input: number; output: number };
  /** Answer with this HTTP status and an error body instead. */
  status?: number;
  /** Seconds for a Retry-After header (with a status). */
  retryAfter?: number;
  /** Stop the stream after this many events, holding the connection open (for cancellation tests). */
  hangAfterEvents?: number;
  /** Wait this long before each event after the first (a slow, steady stream). */
  delayBetweenEventsMs?: number;
  /** Anthropic only: answer 200 and then an `error` event of this type in the stream (e.g. overloaded_error). */
  streamError?: string;
  /** Anthropic only: stream these events as they are (each `{ type, ... }`, sent as `event: type`), a recorded answer replayed. */
  events?: Record<string, unknown>[];
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface FakeProvider {
  readonly url: string;
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startFakeProvider(kind: 'openai' | 'anthropic', script: (FakeAnswer | ((req: RecordedRequest) => FakeAnswer))[]): Promise<FakeProvider> {
  const requests: RecordedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: raw === '' ? {} : (JSON.parse(raw) as Record<string, unknown>),
      };
      requests.push(recorded);
      const step = script[requests.length - 1] ?? script.at(-1) ?? {};
      const answer = typeof step === 'function' ? step(recorded) : step;
      if (answer.status !== undefined) {
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (answer.retryAfter !== undefined) headers['retry-after'] = String(answer.retryAfter);
        res.writeHead(answer.status, headers);
        res.end(
          JSON.stringify(
            kind === 'openai'
              ? { error: { message: `scripted ${answer.status}`, type: 'error' } }
              : { type: 'error', error: { type: 'api_error', message: `scripted ${answer.status}` } },
          ),
        );
        return;
      }
      const events = kind === 'openai' ? openaiEvents(answer, String(recorded.body.model)) : anthropicEvents(answer, String(recorded.body.model));
      if (recorded.body.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(kind === 'openai' ? openaiJson(answer, String(recorded.body.model)) : anthropicJson(answer, String(recorded.body.model))));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      if (answer.streamError !== undefined) {
        res.write(events[0]);
        res.end(sse({ type: 'error', error: { type: answer.streamError, message: `scripted ${answer.streamError}` } }, 'error'));
        return;
      }
      open.add(res);
      res.on('close', () => open.delete(res));
      const limit = answer.hangAfterEvents ?? events.length;
      const sent = events.slice(0, limit);
      const finish = () => {
        if (limit >= events.length) res.end();
      };
      if (answer.delayBetweenEventsMs === undefined) {
        for (const event of sent) res.write(event);
        finish();
        return;
      }
      const delay = answer.delayBetweenEventsMs;
      const next = (i: number) => {
        if (res.destroyed) return;
        if (i === sent.length) return finish();
        res.write(sent[i]);
        setTimeout(() => next(i + 1), delay);
      };
      next(0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: async () => {
      for (const res of open) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const sse = (data: unknown, event?: string) => `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;

function openaiJson(a: FakeAnswer, model: string) {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: a.text ?? null,
          ...(a.toolCalls !== undefined && {
            tool_calls: a.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } })),
          }),
        },
        finish_reason: a.toolCalls !== undefined ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: a.usage?.input ?? 10, completion_tokens: a.usage?.output ?? 5, total_tokens: (a.usage?.input ?? 10) + (a.usage?.output ?? 5) },
  };
}

function openaiEvents(a: FakeAnswer, model: string): string[] {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    sse({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [{ index: 0, delta, finish_reason: finish }] });
  const events = [chunk({ role: 'assistant', content: '' })];
  for (const piece of (a.text ?? '').match(/\S+\s*/g) ?? []) events.push(chunk({ content: piece }));
  (a.toolCalls ?? []).forEach((c, index) => {
    const args = JSON.stringify(c.input);
    events.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    events.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, Math.ceil(args.length / 2)) } }] }));
    events.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(Math.ceil(args.length / 2)) } }] }));
  });
  events.push(chunk({}, a.toolCalls !== undefined ? 'tool_calls' : 'stop'));
  events.push(
    sse({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model,
      choices: [],
      usage: { prompt_tokens: a.usage?.input ?? 10, completion_tokens: a.usage?.output ?? 5, total_tokens: 15 },
    }),
  );
  events.push('data: [DONE]\n\n');
  return events;
}

type AnthropicBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function anthropicContent(a: FakeAnswer): AnthropicBlock[] {
  return [
    ...(a.thinking !== undefined ? [{ type: 'thinking' as const, thinking: a.thinking.text, signature: a.thinking.signature }] : []),
    ...(a.text !== undefined ? [{ type: 'text' as const, text: a.text }] : []),
    ...(a.toolCalls ?? []).map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.input })),
  ];
}

function anthropicJson(a: FakeAnswer, model: string) {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model,
    content: anthropicContent(a),
    stop_reason: a.toolCalls !== undefined ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: a.usage?.input ?? 10, output_tokens: a.usage?.output ?? 5 },
  };
}

function anthropicEvents(a: FakeAnswer, model: string): string[] {
  if (a.events !== undefined) return a.events.map((e) => sse(e, String(e.type)));
  const events = [
    sse(
      {
        type: 'message_start',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: a.usage?.input ?? 10, output_tokens: 1 },
        },
      },
      'message_start',
    ),
  ];
  anthropicContent(a).forEach((block, index) => {
    if (block.type === 'thinking') {
      events.push(sse({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } }, 'content_block_start'));
      events.push(sse({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }, 'content_block_delta'));
      events.push(sse({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } }, 'content_block_delta'));
    } else if (block.type === 'text') {
      events.push(sse({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } }, 'content_block_start'));
      for (const piece of block.text.match(/\S+\s*/g) ?? [])
        events.push(sse({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } }, 'content_block_delta'));
    } else {
      events.push(
        sse({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }, 'content_block_start'),
      );
      events.push(
        sse({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } }, 'content_block_delta'),
      );
    }
    events.push(sse({ type: 'content_block_stop', index }, 'content_block_stop'));
  });
  events.push(
    sse(
      {
        type: 'message_delta',
        delta: { stop_reason: a.toolCalls !== undefined ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: a.usage?.output ?? 5 },
      },
      'message_delta',
    ),
  );
  events.push(sse({ type: 'message_stop' }, 'message_stop'));
  return events;
}
