/**
 * Following a run from another `golem serve` process (issue 36): two processes on one
 * PostgreSQL schema; a run started through `@ag-ui/client`'s HttpAgent on the first is
 * followed from the second with the `ai` package's own `DefaultChatTransport.reconnectToStream`
 * and with an AG-UI reconnect (a request that adds nothing). The first is killed mid-run; the
 * second takes the run over and finishes it, and its followers get the rest of the same run,
 * to its end. A client that comes back with `Last-Event-ID` gets what follows that event, once.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { EventType, HttpAgent, type BaseEvent } from '@ag-ui/client';
import { DefaultChatTransport, type UIMessageChunk } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { tempDir } from './helpers.js';
import { sseEventsOf } from './helpers-chat.js';
import { golemServe, killServe, until, type ServeProcess } from './helpers-serve-process.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const servers: ServeProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await killServe(server);
});

const base = (server: ServeProcess) => `http://127.0.0.1:${server.port}`;
const auth = (server: ServeProcess) => ({ authorization: `Bearer ${server.token}` });

/** Two serve processes on a fresh schema, in a project holding the model's script and a named pipe the run reads. */
async function twoServers(script: unknown[]) {
  const schema = freshSchema('follow');
  const project = tempDir();
  writeFileSync(join(project, 'script.json'), JSON.stringify(script));
  execFileSync('mkfifo', [join(project, 'pipe')]);
  const env = { GOLEM_DATABASE_URL: PG_URL, GOLEM_DATABASE_SCHEMA: schema, GOLEM_RUN_LEASE_MS: '1000' };
  const [a, b] = await Promise.all([golemServe(project, env), golemServe(project, env)]);
  servers.push(a, b);
  return { project, a, b };
}

/** Every chunk of a UI message stream, read to its end. */
async function drain(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  const reader = stream.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  return chunks;
}

const textOf = (chunks: readonly UIMessageChunk[]) => chunks.flatMap((c) => (c.type === 'text-delta' ? [c.delta] : [])).join('');

describe('a run followed from another golem serve process', () => {
  it('is followed with reconnectToStream and an AG-UI reconnect; its first process killed, the other finishes it and its followers see the end', async () => {
    const { project, a, b } = await twoServers([
      { text: 'Reading the pipe first. ', toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] },
      { text: 'Done, after the take-over.' },
    ]);
    const threadId = 'followed';
    // Started on a, by a stock AG-UI client; its run blocks reading the pipe.
    const starter = new HttpAgent({ url: `${base(a)}/api/agui`, headers: auth(a), threadId });
    starter.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'Read the pipe' });
    const startedEvents: BaseEvent[] = [];
    const starting = starter.runAgent({}, { onEvent: ({ event }) => void startedEvents.push(event) }).catch(() => undefined);
    await until('the run to call read_file', async () => (startedEvents.some((e) => e.type === EventType.TOOL_CALL_START) ? true : undefined));

    // Followed from b: the AI SDK's own transport, and an AG-UI request that adds nothing.
    const transport = new DefaultChatTransport({ api: `${base(b)}/api/chat`, headers: auth(b) });
    const stream = await transport.reconnectToStream({ chatId: threadId });
    expect(stream).not.toBeNull();
    const followedChunks = drain(stream!);
    const follower = new HttpAgent({ url: `${base(b)}/api/agui`, headers: auth(b), threadId });
    const followedEvents: BaseEvent[] = [];
    const following = follower.runAgent({}, { onEvent: ({ event }) => void followedEvents.push(event) });
    await until('the AG-UI follower to have the call', async () => (followedEvents.some((e) => e.type === EventType.TOOL_CALL_START) ? true : undefined));

    // The client that started it goes away (the run goes on), then the first process dies mid-run; b takes the run over.
    starter.abortRun();
    await starting;
    // Gone for good before the pipe is written: a reader still dying would take what is written with it.
    await killServe(a);
    // b reads the pipe again (a read is safe to repeat), and goes on.
    await writeFile(join(project, 'pipe'), 'go');
    const chunks = await followedChunks;
    await following;
    expect(chunks[0]).toMatchObject({ type: 'start' });
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(textOf(chunks)).toBe('Reading the pipe first. Done, after the take-over.');
    const types = followedEvents.map((e) => e.type);
    expect(types[0]).toBe(EventType.RUN_STARTED);
    expect(types.at(-1)).toBe(EventType.RUN_FINISHED);
    const said = followedEvents.flatMap((e) => (e.type === EventType.TEXT_MESSAGE_CONTENT ? [(e as unknown as { delta: string }).delta] : [])).join('');
    expect(said).toBe('Reading the pipe first. Done, after the take-over.');
    // One run, carried on by b under its id.
    const runs = (await b.call('GET', `/api/runs?sessionId=${threadId}`)).json as { runs: { id: string; status: string; takeovers: number }[] };
    expect(runs.runs).toEqual([expect.objectContaining({ status: 'succeeded', takeovers: 1 })]);
  });

  it("shows a run another process holds live on this one's page socket, to its end", async () => {
    const { project, a, b } = await twoServers([
      { text: 'Reading the pipe. ', toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] },
      { text: 'It said: go.' },
    ]);
    // A page on b, listening to its socket.
    const socket = new WebSocket(`ws://127.0.0.1:${b.port}/ws?token=${b.token}`);
    const seen: { type: string; threadId?: string; delta?: string }[] = [];
    socket.on('message', (data: Buffer) => void seen.push(JSON.parse(data.toString()) as { type: string }));
    await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
    try {
      // The run starts on a, from its own page's API.
      const created = (await a.call('POST', '/api/sessions', { label: 'on a' })).json as { id: string };
      expect((await a.call('POST', `/api/sessions/${created.id}/messages`, { text: 'Read the pipe' })).status).toBe(202);
      await until('b to start the run', async () => (seen.some((e) => e.type === 'RUN_STARTED' && e.threadId === created.id) ? true : undefined));
      await until('b to show the call', async () => (seen.some((e) => e.type === 'TOOL_CALL_START') ? true : undefined));
      await writeFile(join(project, 'pipe'), 'go');
      await until('b to show the end', async () => (seen.some((e) => e.type === 'RUN_FINISHED' && e.threadId === created.id) ? true : undefined));
      const text = seen.flatMap((e) => (e.type === 'TEXT_MESSAGE_CONTENT' ? [e.delta ?? ''] : [])).join('');
      expect(text).toBe('Reading the pipe. It said: go.');
      expect(seen.filter((e) => e.type === 'RUN_STARTED' && e.threadId === created.id)).toHaveLength(1);
    } finally {
      socket.close();
    }
  });

  it('gives a client that comes back with Last-Event-ID the events after it, each once', async () => {
    const { project, a, b } = await twoServers([
      { text: 'Reading the pipe. ', toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] },
      { text: 'It said: go.' },
    ]);
    const threadId = 'again';
    const starter = new HttpAgent({ url: `${base(a)}/api/agui`, headers: auth(a), threadId });
    starter.addMessage({ id: crypto.randomUUID(), role: 'user', content: 'Read the pipe' });
    const startedEvents: BaseEvent[] = [];
    const starting = starter.runAgent({}, { onEvent: ({ event }) => void startedEvents.push(event) });
    await until('the run to call read_file', async () => (startedEvents.some((e) => e.type === EventType.TOOL_CALL_START) ? true : undefined));

    // A follower on b reads what the run kept so far, and loses its connection.
    const url = `${base(b)}/api/chat/${threadId}/stream`;
    const first = new AbortController();
    const response = await fetch(url, { headers: auth(b), signal: first.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    let text = '';
    const decoder = new TextDecoder();
    while (!/id: [^\n]+\ndata: [^\n]*\n\n/.test(text)) text += decoder.decode((await reader.read()).value as Uint8Array | undefined);
    first.abort();
    const before = await sseEventsOf(new Response(text));
    const lastId = before.findLast((e) => e.id !== undefined)!.id!;
    const seq = Number(lastId.slice(lastId.lastIndexOf(':') + 1));
    const chunksBefore = before.map((e) => JSON.parse(e.data) as UIMessageChunk);
    expect(chunksBefore[0]).toMatchObject({ type: 'start' });

    // The run goes on; the follower comes back with the last id it had.
    await writeFile(join(project, 'pipe'), 'go');
    const again = await fetch(url, { headers: { ...auth(b), 'last-event-id': lastId } });
    const events = await sseEventsOf(again);
    const ids = events.flatMap((e) => (e.id === undefined ? [] : [Number(e.id.slice(e.id.lastIndexOf(':') + 1))]));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.every((n) => n > seq)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const chunks = events.flatMap((e) => (e.data === '[DONE]' ? [] : [JSON.parse(e.data) as UIMessageChunk]));
    // Nothing told twice: no new start, and the text from where the lost connection left it.
    expect(chunks.some((c) => c.type === 'start')).toBe(false);
    expect(textOf(chunksBefore) + textOf(chunks)).toBe('Reading the pipe. It said: go.');
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    await starting;
  });
});
