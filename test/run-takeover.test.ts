/**
 * Any process can carry on a run: two `golem serve` processes on one PostgreSQL schema,
 * the run started in the first. Killed (SIGKILL) mid-action, or stalled (SIGSTOP) while
 * its run waits for an approval, the first loses its lease; the second takes the run over
 * when it lapses and resumes it from the log, never repeating an action that started, and
 * the first, woken up, writes nothing more. (A process on the same machine that finds the
 * holder's process gone does not wait for the lapse.)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, type Turn } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { tempDir } from './helpers.js';
import { golemServe, killServe, until, type ServeProcess } from './helpers-serve-process.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const LEASE_MS = 1000;
const servers: ServeProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await killServe(server);
});

/** `golem serve` with the scripted model in the project folder, on the PostgreSQL schema, with short run leases. */
async function serveOn(schema: string, project: string): Promise<ServeProcess> {
  const server = await golemServe(project, { GOLEM_DATABASE_URL: PG_URL, GOLEM_DATABASE_SCHEMA: schema, GOLEM_RUN_LEASE_MS: String(LEASE_MS) });
  servers.push(server);
  return server;
}

type State = { approvals: { id: string }[]; running: string[] };
type Detail = { turns: { role: string; text: string; toolResults: { text: string }[] }[]; running: boolean };

/** Two serve processes on a fresh schema, a project folder with `script` as the model's script, and a session started in the first. */
async function twoServers(script: unknown[]) {
  const schema = freshSchema('takeover');
  const project = tempDir();
  writeFileSync(join(project, 'script.json'), JSON.stringify(script));
  const [a, b] = await Promise.all([serveOn(schema, project), serveOn(schema, project)]);
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
    const refused = await b.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'me too', policy: 'reject' });
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
