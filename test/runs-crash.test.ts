/**
 * Messages sent during a run whose process then dies (issue 36, "Bad input and failure"): a
 * `golem serve` process holds a run (its read_file call reads a named pipe nobody writes to
 * yet), another process on the same PostgreSQL schema (this test's own workspace, as any
 * process's `ws.runs.send`, or the other `golem serve` over HTTP) sends it a message with the
 * enqueue, steer or interrupt policy, and the holder is killed (SIGKILL) as soon as the
 * message is accepted. A second `golem serve` takes the run over, and every accepted message
 * is delivered exactly once: a queued
 * one as the user turn that starts the next run, a steering one before the run's next model
 * call, an interrupting one after the run ends cancelled. And a run whose process is dead is
 * cancelled at once: its lease is let go, and no process takes it over.
 */
import { closeSync, constants, openSync, writeFileSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunService } from '../src/agent/index.js';
import { createWorkspace, type Turn, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { tempDir } from './helpers.js';
import { golemServe, killServe, until, type ServeProcess } from './helpers-serve-process.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const LEASE_MS = 1000;
const servers: ServeProcess[] = [];
const workspaces: Workspace[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await killServe(server);
  for (const ws of workspaces.splice(0)) await ws.close();
});

/** A project folder with the model's script and a named pipe, a PostgreSQL schema, and this test's own workspace on it. */
async function project(script: unknown[]) {
  const schema = freshSchema('crash');
  const dir = tempDir();
  writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
  workspaces.push(ws);
  return { schema, dir, ws };
}

/** `golem serve` in the project, on the schema, with short run leases. */
async function serveOn(schema: string, dir: string): Promise<ServeProcess> {
  const server = await golemServe(dir, { GOLEM_DATABASE_URL: PG_URL, GOLEM_DATABASE_SCHEMA: schema, GOLEM_RUN_LEASE_MS: String(LEASE_MS) });
  servers.push(server);
  return server;
}

/** Starts a run in `server` on a new session; resolves once the run is in its read_file call (the model's answer asking for it is stored). */
async function runReadingThePipe(server: ServeProcess, ws: Workspace): Promise<{ sessionId: string; runId: string }> {
  const created = await server.call('POST', '/api/sessions', { label: 'crash' });
  expect(created.status).toBe(201);
  const sessionId = (created.json as { id: string }).id;
  expect((await server.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'read the pipe' })).status).toBe(202);
  await until('the read_file call', async () => {
    const last = (await stored(ws, sessionId)).at(-1);
    return last?.role === 'assistant' && last.blocks.some((b) => b.type === 'tool_use' && b.name === 'read_file') ? true : undefined;
  });
  const runId = ws.runs.list({ sessionId }).runs[0]?.id;
  expect(runId).toBeDefined();
  return { sessionId, runId: runId! };
}

/** The session's path as the store holds it now. */
async function stored(ws: Workspace, sessionId: string): Promise<Turn[]> {
  await ws.manager.refresh();
  const session = await ws.sessions.open(sessionId);
  return (await session?.transcript()) ?? [];
}

/** Writes to the pipe once a process reads it (the run taken over, in its read_file call again). */
async function feedThePipe(dir: string, text: string): Promise<void> {
  const fd = await until('a reader of the pipe', async () => {
    try {
      return openSync(join(dir, 'pipe'), constants.O_WRONLY | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENXIO') return undefined; // nobody reads it yet
      throw error;
    }
  });
  writeSync(fd, text);
  closeSync(fd);
}

const textOf = (turn: Turn) => turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
/** The user turns saying `text` among `turns`. */
const said = (turns: Iterable<Turn>, text: string) => [...turns].filter((t) => t.role === 'user' && textOf(t) === text);
/** Every turn of the session the store holds (every version, on its path or not), read after `stored`. */
const everyTurn = (ws: Workspace, sessionId: string) => [...ws.manager.workspace().turns.values()].filter((t) => t.sessionId === sessionId);

/** Checks that every call on the path is followed by its result before anything else. */
function expectCallsAnswered(turns: Turn[]): void {
  for (const [i, turn] of turns.entries()) {
    const calls = turn.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.callId] : []));
    const next = turns[i + 1];
    if (calls.length === 0) continue;
    expect(next?.role, `the turn after call ${calls.join(', ')}`).toBe('tool');
    expect(next?.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.callId] : []))).toEqual(calls);
  }
}

/** Waits until the session has no run, its inbox is empty, and its last turn says `text`. */
async function settled(ws: Workspace, sessionId: string, text: string): Promise<Turn[]> {
  return until(
    `the answer "${text}"`,
    async () => {
      const turns = await stored(ws, sessionId);
      const idle = ws.manager.workspace().collection('run').get(sessionId) === undefined;
      return idle && ws.runs.inbox(sessionId).length === 0 && turns.at(-1)?.role === 'assistant' && textOf(turns.at(-1)!) === text ? turns : undefined;
    },
    30_000,
  );
}

describe('a run whose process is killed right after a message is sent to it', () => {
  it('enqueue: the run is taken over and finishes, then the queued message starts the next run, once', async () => {
    const { schema, dir, ws } = await project([
      { toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] },
      { text: 'The pipe said hello.' },
      { text: 'And yes, I will write the tests.' },
    ]);
    const [a] = await Promise.all([serveOn(schema, dir), serveOn(schema, dir)]);
    const { sessionId, runId } = await runReadingThePipe(a, ws);
    const sent = await ws.runs.send(sessionId, { blocks: [{ type: 'text', text: 'then write the tests' }] }, { policy: 'enqueue' });
    expect(sent).toMatchObject({ status: 'queued', runId });
    await killServe(a);

    // b takes the run over (a's process is gone) and performs the read again: the pipe answers it.
    await feedThePipe(dir, 'hello\n');
    const turns = await settled(ws, sessionId, 'And yes, I will write the tests.');
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user', 'assistant']);
    expect(said(everyTurn(ws, sessionId), 'then write the tests').map((t) => t.id)).toEqual(said(turns, 'then write the tests').map((t) => t.id));
    expect(said(turns, 'then write the tests')).toHaveLength(1);
    expect(turns[4]?.meta).toMatchObject({ inbox: { policy: 'enqueue' } });
    expectCallsAnswered(turns);
    const runs = ws.runs.list({ sessionId }).runs;
    expect(runs.map((r) => [r.status, r.takeovers])).toEqual([
      ['succeeded', 0],
      ['succeeded', 1],
    ]);
    expect(runs[1]?.id).toBe(runId);
  });

  it('steer (sent to the other golem serve over HTTP): the run is taken over, and its next model call reads the message, after the call has its result', async () => {
    const { schema, dir, ws } = await project([
      { toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] },
      { text: 'The pipe said hello; I will keep it short.' },
    ]);
    const [a, b] = await Promise.all([serveOn(schema, dir), serveOn(schema, dir)]);
    const { sessionId, runId } = await runReadingThePipe(a, ws);
    const sent = await b.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'keep it short', policy: 'steer' });
    expect(sent).toMatchObject({ status: 202, json: { runId, queued: { policy: 'steer' } } });
    await killServe(a);

    await feedThePipe(dir, 'hello\n');
    const turns = await settled(ws, sessionId, 'The pipe said hello; I will keep it short.');
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(said(everyTurn(ws, sessionId), 'keep it short').map((t) => t.id)).toEqual(said(turns, 'keep it short').map((t) => t.id));
    expect(said(turns, 'keep it short')).toHaveLength(1);
    expect(turns[3]?.meta).toMatchObject({ inbox: { policy: 'steer' } });
    expectCallsAnswered(turns);
    expect(ws.runs.list({ sessionId }).runs.map((r) => [r.id, r.status, r.takeovers])).toEqual([[runId, 'succeeded', 1]]);
  });

  it('interrupt: the run taken over ends cancelled, and a run answers the new message, once', async () => {
    const { schema, dir, ws } = await project([
      { toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] },
      { text: 'Forget the pipe: here is the haiku.' },
    ]);
    const [a] = await Promise.all([serveOn(schema, dir), serveOn(schema, dir)]);
    const { sessionId, runId } = await runReadingThePipe(a, ws);
    expect(await ws.runs.send(sessionId, { blocks: [{ type: 'text', text: 'stop, write a haiku' }] }, { policy: 'interrupt' })).toMatchObject({
      status: 'queued',
      runId,
    });
    await killServe(a);

    const turns = await settled(ws, sessionId, 'Forget the pipe: here is the haiku.');
    expect(said(everyTurn(ws, sessionId), 'stop, write a haiku').map((t) => t.id)).toEqual(said(turns, 'stop, write a haiku').map((t) => t.id));
    expect(said(turns, 'stop, write a haiku')).toHaveLength(1);
    // The call the run was in when it stopped is answered as not run: the message is never between a call and its result.
    expectCallsAnswered(turns);
    expect(turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(turns[2]?.blocks).toEqual([
      expect.objectContaining({ type: 'tool_result', isError: true, content: [expect.objectContaining({ text: expect.stringContaining('Not run') })] }),
    ]);
    const runs = ws.runs.list({ sessionId }).runs;
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'cancelled']);
    expect(runs[1]).toMatchObject({ id: runId, error: { code: 'RUN_CANCELLED' } });
  });
});

describe('cancelling a run whose process is dead', () => {
  it('cancels it at once and lets its lease go: no golem serve takes it over', async () => {
    const { schema, dir, ws } = await project([{ toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] }, { text: 'Read it.' }]);
    const a = await serveOn(schema, dir);
    const { sessionId, runId } = await runReadingThePipe(a, ws);
    await killServe(a);

    const { run, outcome } = await ws.runs.cancelling(runId, { by: 'the test' });
    expect(outcome).toBe('cancelled');
    expect(run).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED' }, cancel: { by: 'the test' } });
    expect(ws.manager.workspace().collection('run').get(sessionId)).toBeUndefined();

    // A golem serve started now takes over the runs whose process died (another session's, here), not the cancelled one.
    const other = await ws.sessions.create({ label: 'control' });
    const lapsing = new RunService(ws.manager, { ttlMs: LEASE_MS, process: { host: 'elsewhere', pid: 1 } });
    const control = await lapsing.claim(other.id);
    void control.run(() => new Promise(() => undefined));
    lapsing.dispose(); // its process "dies": the lease lapses
    await serveOn(schema, dir);
    await until('b to take the control run over', async () => {
      await ws.manager.refresh();
      return ws.runs.get(control.id)?.takeovers === 1 ? true : undefined;
    });
    expect(ws.runs.get(runId)).toMatchObject({ status: 'cancelled', takeovers: 0 });
    const claims = (await ws.manager.store.commandLog()).filter((e) => e.type === 'run:claim').map((e) => (e.payload as { runId: string }).runId);
    expect(claims.filter((id) => id === runId)).toHaveLength(1); // a's own claim, none after
    expect(said(await stored(ws, sessionId), 'read the pipe')).toHaveLength(1);
  });
});
