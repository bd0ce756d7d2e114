/**
 * Any process can carry on a run: two `golem serve` processes on one PostgreSQL schema,
 * the run started in the first. Killed (SIGKILL) mid-action, or stalled (SIGSTOP) while
 * its run waits for an approval, the first loses its lease; the second takes the run over
 * when it lapses and resumes it from the log, never repeating an action that started, and
 * the first, woken up, writes nothing more. (A process on the same machine that finds the
 * holder's process gone does not wait for the lapse.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, type Turn } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const LEASE_MS = 1000;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Server {
  child: ChildProcess;
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  /** Signals the process and everything it started (its commands' shells). */
  signal(signal: NodeJS.Signals): void;
}

/** `golem serve` with a scripted model in its own process group, on the schema, in the project folder. */
async function golemServe(schema: string, project: string, token: string): Promise<Server> {
  const child = spawn(process.execPath, [join(import.meta.dirname, '..', 'bin', 'golem.js'), 'serve', '--port', '0'], {
    env: {
      ...process.env,
      GOLEM_DATABASE_URL: PG_URL,
      GOLEM_DATABASE_SCHEMA: schema,
      GOLEM_TOKEN: token,
      GOLEM_MODEL: 'scripted:script.json',
      GOLEM_RUN_LEASE_MS: String(LEASE_MS),
    },
    cwd: project,
    detached: true,
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-(child.pid as number), name);
    } catch {
      // gone already
    }
  };
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        signal('SIGCONT');
        signal('SIGKILL');
      }),
  );
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      const found = /Open http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1];
      if (found !== undefined) resolve(Number(found));
    });
    child.stderr?.on('data', (data: Buffer) => (out += data.toString()));
    child.once('exit', (code) => reject(new Error(`golem serve exited with ${code}: ${out}`)));
  });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as unknown };
  };
  return { child, call, signal };
}

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

type State = { approvals: { id: string }[]; running: string[] };
type Detail = { turns: { role: string; text: string; toolResults: { text: string }[] }[]; running: boolean };

/** Two serve processes on a fresh schema, a project folder with `script` as the model's script, and a session started in the first. */
async function twoServers(script: unknown[]) {
  const schema = freshSchema('takeover');
  const project = tempDir();
  writeFileSync(join(project, 'script.json'), JSON.stringify(script));
  const token = randomBytes(32).toString('hex');
  const [a, b] = await Promise.all([golemServe(schema, project, token), golemServe(schema, project, token)]);
  const created = await a.call('POST', '/api/sessions', { label: 'takeover' });
  expect(created.status).toBe(201);
  const sessionId = (created.json as { id: string }).id;
  expect((await a.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'go' })).status).toBe(202);
  const approvalId = await until('the approval', async () => ((await a.call('GET', '/api/state')).json as State).approvals[0]?.id);
  return { schema, project, a, b, sessionId, approvalId };
}

/** The session as the store holds it, read by a third process. */
async function stored(schema: string, sessionId: string) {
  const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
  try {
    const session = await ws.sessions.open(sessionId);
    const turns: Turn[] = (await session?.transcript()) ?? [];
    const log = await ws.manager.store.commandLog();
    return { turns, leases: [...ws.manager.workspace().collection('run').values()], log };
  } finally {
    await ws.close();
  }
}

describe('a run carried on by another golem serve process', () => {
  it('killed mid-action: the other takes the run over, and does not run the started command again', async () => {
    const { schema, project, a, b, sessionId, approvalId } = await twoServers([
      { toolCalls: [{ name: 'run_command', input: { command: 'echo started >> marker.txt && sleep 20' } }] },
      { text: 'The command was cut off; I did not run it again.' },
    ]);
    expect((await a.call('POST', `/api/approvals/${approvalId}`, { answer: 'yes' })).status).toBe(200);
    await until('the command to start', async () => (existsSync(join(project, 'marker.txt')) ? true : undefined));
    // b refuses a message to the session while a runs it.
    const refused = await b.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'me too' });
    expect(refused).toMatchObject({ status: 409, json: { error: { code: 'SESSION_BUSY' } } });
    a.signal('SIGKILL');
    const killedAt = Date.now();

    const detail = await until('b to finish the run', async () => {
      const d = (await b.call('GET', `/api/sessions/${sessionId}`)).json as Detail;
      return !d.running && d.turns.at(-1)?.text.includes('cut off') === true ? d : undefined;
    });
    // On the same machine b sees a's process is gone, and does not wait for the lease to lapse (another machine would).
    expect(Date.now() - killedAt).toBeLessThan(10_000);
    expect(readFileSync(join(project, 'marker.txt'), 'utf8')).toBe('started\n'); // once
    expect(detail.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(detail.turns[2]?.toolResults[0]?.text).toContain('was started, but the run stopped');

    const { turns, leases, log } = await stored(schema, sessionId);
    expect(turns).toHaveLength(4);
    expect(leases).toEqual([]); // b released it at the end
    const claims = log.filter((e) => e.type === 'run:claim').map((e) => e.payload as { holder: string });
    expect(claims).toHaveLength(2);
    expect(claims[0]?.holder).not.toBe(claims[1]?.holder);
    expect(log.filter((e) => e.type === 'call:start')).toHaveLength(1);
  });

  it('stalled while its run waits for an approval: the other asks again; the first, woken meanwhile, writes nothing', async () => {
    const { schema, project, a, b, sessionId, approvalId } = await twoServers([
      { toolCalls: [{ name: 'run_command', input: { command: 'echo ran >> marker.txt' } }] },
      { text: 'Done.' },
    ]);
    a.signal('SIGSTOP');
    // b takes the run over once a's lease lapses; its run asks for the same approval, and waits.
    await until('b to run the session', async () => (((await b.call('GET', '/api/state')).json as State).running.includes(sessionId) ? true : undefined));
    const takenOver = await stored(schema, sessionId);
    expect(takenOver.leases.map((l) => l.takeovers)).toEqual([1]);

    // a wakes up while b waits: its renewal finds the run taken, its run stops (its wait for the approval aborted),
    // and it records nothing: not the turn of an aborted call, nor a "no" to the approval b waits for.
    a.signal('SIGCONT');
    await until('a to stop its run', async () => (((await a.call('GET', '/api/state')).json as State).running.length === 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    const woken = await stored(schema, sessionId);
    expect(woken.turns).toEqual(takenOver.turns);
    expect(new Set(woken.log.slice(takenOver.log.length).map((e) => e.type))).toEqual(new Set(['run:renew'])); // b's, while it waits
    expect(((await b.call('GET', '/api/state')).json as State).approvals.map((x) => x.id)).toEqual([approvalId]);

    // The user answers where the run is now; b performs the call once and finishes.
    expect((await b.call('POST', `/api/approvals/${approvalId}`, { answer: 'yes' })).status).toBe(200);
    await until('b to finish the run', async () => {
      const d = (await b.call('GET', `/api/sessions/${sessionId}`)).json as Detail;
      return !d.running && d.turns.at(-1)?.text === 'Done.' ? d : undefined;
    });
    const after = await stored(schema, sessionId);
    expect(after.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(readFileSync(join(project, 'marker.txt'), 'utf8')).toBe('ran\n');
    expect(after.leases).toEqual([]);
    expect(after.log.filter((e) => e.type === 'approval:answer').map((e) => (e.payload as { answer: string }).answer)).toEqual(['yes']);
  });
});
