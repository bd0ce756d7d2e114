/**
 * The AI SDK's client side against `golem serve`'s chat route, for the chat tests: its chat
 * (AbstractChat, the class under `useChat`, over a plain state instead of React's) with
 * DefaultChatTransport and `lastAssistantMessageIsCompleteWithApprovalResponses`, as an app's
 * page runs them; and every stream a test reads itself, each chunk checked against the `ai`
 * package's own schema.
 */
import {
  AbstractChat,
  DefaultChatTransport,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  uiMessageChunkSchema,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  type HttpChatTransportInitOptions,
  type PrepareSendMessagesRequest,
  type UIMessage,
} from 'ai';
import { createParser } from 'eventsource-parser';
import { afterEach, expect } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineAction, type Action, type Workspace } from '../src/index.js';
import { serve, type GolemServer, type ServeAgentOptions } from '../src/serve/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs `cleanup` after the test. */
export function afterTest(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

/** `golem serve` (no page) on a workspace of its own, or on `ws`; both closed after the test. */
export async function started(agent: ServeAgentOptions | undefined, ws?: Workspace): Promise<{ ws: Workspace; server: GolemServer }> {
  const workspace = ws ?? (await createWorkspace());
  const server = await serve(workspace, { page: false, ...(agent !== undefined && { agent }) });
  if (ws === undefined) cleanups.push(() => workspace.close());
  cleanups.push(() => server.close());
  return { ws: workspace, server };
}

/** The chat `useChat` runs, over a plain state instead of React's. */
export class NodeChat extends AbstractChat<UIMessage> {
  constructor(init: Omit<ChatInit<UIMessage>, 'messages'>) {
    super({ ...init, state: new PlainState() });
  }
}

class PlainState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  messages: UIMessage[] = [];
  pushMessage = (message: UIMessage) => void (this.messages = [...this.messages, message]);
  popMessage = () => void (this.messages = this.messages.slice(0, -1));
  replaceMessage = (index: number, message: UIMessage) => void (this.messages = this.messages.map((m, i) => (i === index ? message : m)));
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** A request body as DefaultChatTransport sends it. */
export interface ChatBody {
  id: string;
  messages: UIMessage[];
  trigger: string;
  messageId?: string;
}

/** Every request the transport made, and every chunk it read (each checked against the `ai` package's schema): for a stream read to its end. */
export interface Wire {
  bodies: ChatBody[];
  /** The status of each response, in order. */
  statuses: number[];
  chunks: Record<string, unknown>[];
}

export const newWire = (): Wire => ({ bodies: [], statuses: [], chunks: [] });

/**
 * Sends only the message Golem reads (the answered one `messageId` names, or the last), as the
 * README shows: Golem keeps the thread, and the whole body counts against its limit.
 */
export const lastMessageOnly: PrepareSendMessagesRequest<UIMessage> = ({ id, messages, trigger, messageId }) => {
  const message = messages.find((m) => m.id === messageId) ?? messages.at(-1);
  return { body: { id, trigger, messageId, messages: message === undefined ? [] : [message] } };
};

export function transportOf(
  server: GolemServer,
  wire?: Wire,
  options: Pick<HttpChatTransportInitOptions<UIMessage>, 'prepareSendMessagesRequest'> = {},
): DefaultChatTransport<UIMessage> {
  return new DefaultChatTransport({
    api: `${server.url}/api/chat`,
    headers: { authorization: `Bearer ${server.token}` },
    ...options,
    fetch: async (input, init) => {
      if (wire === undefined) return fetch(input, init);
      if (typeof init?.body === 'string') wire.bodies.push(JSON.parse(init.body) as ChatBody);
      const response = await fetch(input, init);
      wire.statuses.push(response.status);
      if (response.body === null || !response.ok) return response;
      const [mine, theirs] = response.body.tee();
      void collect(mine, wire.chunks);
      return new Response(theirs, { status: response.status, headers: response.headers });
    },
  });
}

/** The chunks of a stream as sent, each checked against the `ai` package's own schema of a chunk. */
async function collect(body: ReadableStream<Uint8Array>, into: Record<string, unknown>[]): Promise<void> {
  into.push(...(await chunksOf(new Response(body))));
}

/** A response's server-sent events read to the end, as the AI SDK's own parser (eventsource-parser) reads them. */
export async function sseEventsOf(response: Response): Promise<{ id: string | undefined; data: string }[]> {
  const events: { id: string | undefined; data: string }[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ id: event.id, data: event.data }) });
  parser.feed(await response.text());
  return events;
}

/** A response's UI message stream read to its end: its chunks, each checked against the `ai` package's own schema, `[DONE]` last. */
export async function chunksOf(response: Response): Promise<Record<string, unknown>[]> {
  expect(response.headers.get('x-vercel-ai-ui-message-stream') ?? 'v1').toBe('v1');
  const frames = (await sseEventsOf(response)).map((event) => event.data);
  expect(frames.at(-1)).toBe('[DONE]');
  const schema = uiMessageChunkSchema();
  const chunks: Record<string, unknown>[] = [];
  for (const frame of frames.slice(0, -1)) {
    const chunk = JSON.parse(frame) as Record<string, unknown>;
    const checked = await schema.validate!(chunk);
    expect(checked.success, JSON.stringify(chunk)).toBe(true);
    chunks.push(chunk);
  }
  return chunks;
}

export function chatOf(
  server: GolemServer,
  id: string,
  wire?: Wire,
  options: Pick<HttpChatTransportInitOptions<UIMessage>, 'prepareSendMessagesRequest'> = {},
): NodeChat {
  return new NodeChat({ id, transport: transportOf(server, wire, options), sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses });
}

/** A request to the chat route as any client could send it. */
export function post(server: GolemServer, body: unknown, token = server.token): Promise<Response> {
  return fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** `GET /api/chat/:id/stream`. */
export function reconnect(server: GolemServer, id: string): Promise<Response> {
  return fetch(`${server.url}/api/chat/${id}/stream`, { headers: { authorization: `Bearer ${server.token}` } });
}

/** A refused request's status and code. */
export async function refusal(response: Response): Promise<{ status: number; code: string }> {
  return { status: response.status, code: ((await response.json()) as { error: { code: string } }).error.code };
}

export async function until<T>(read: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

export type AnyPart = UIMessage['parts'][number] & Record<string, unknown>;
export const partsOf = (chat: NodeChat, at = -1) => (chat.messages.at(at)?.parts ?? []) as AnyPart[];
export const textOf = (chat: NodeChat, at = -1) =>
  partsOf(chat, at)
    .flatMap((p) => (p.type === 'text' ? [p.text as string] : []))
    .join('');
/** The parts of a message as [type, state] pairs. */
export const shapeOf = (chat: NodeChat, at = -1) => partsOf(chat, at).map((p) => [p.type, p.state ?? null]);
/** The approval a part asks for. */
export const approvalOf = (part: AnyPart | undefined) => (part?.approval as { id: string } | undefined)?.id ?? '';

/** The turns of a session as the workspace has them (role and text). */
export async function turnsOf(ws: Workspace, id: string): Promise<[string, string][]> {
  const session = await ws.sessions.open(id);
  if (session === undefined) return [];
  return (await session.transcript()).map((t) => [t.role, t.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('')]);
}

/** A call that needs no approval. */
export const lookup = defineAction({
  name: 'lookup',
  description: "Looks up a city's weather.",
  input: z.strictObject({ city: z.string() }),
  trust: 'autonomous',
  run: ({ city }) => `sunny in ${city}`,
}) as Action;

/** A promise the test lets go of. */
export function gate(): { held: Promise<void>; release: () => void } {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { held, release };
}

/** A 1×1 PNG. */
export const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
