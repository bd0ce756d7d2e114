/**
 * A model's regular expression never freezes `golem serve` (issue 35, finding 2). Before,
 * search_files ran the model's pattern with JavaScript's backtracking engine on the event
 * loop: `^(\w+\s?)*$` on an ordinary README line never ended, nothing answered, SIGTERM was
 * not heard, and the killed run, resumed at the next start, froze that one too. Against real
 * `golem serve` processes with the scripted model: /health answers throughout, the model
 * reads its result, SIGTERM ends the process, and a resumed run lets the server listen.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { golemServe, killServe, until, type ServeProcess } from './helpers-serve-process.js';

const servers: ServeProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await killServe(server);
});

/** An ordinary README: the second line makes `^(\w+\s?)*$` backtrack without end. */
const README = [
  '# Notes',
  'Golem keeps the notes of the team in plain text files that anyone can read and change by hand!',
  'Install it with npm and run the tests',
  '',
].join('\n');
const SEARCH = { name: 'search_files', input: { pattern: '^(\\w+\\s?)*$', path: 'README.md' } };

type Detail = { turns: { role: string; text: string; toolResults: { text: string; isError: boolean }[] }[]; running: boolean };

function project(script: unknown[]): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'README.md'), README);
  writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
  return dir;
}

async function started(dir: string): Promise<ServeProcess> {
  const server = await golemServe(dir, { GOLEM_RUN_LEASE_MS: '2000' });
  servers.push(server);
  return server;
}

/** Waits for the session's run to end with `last` as its last answer, asking /health at every poll; answers the detail. */
async function finished(server: ServeProcess, sessionId: string, last: string): Promise<Detail> {
  return until(`the run to end with "${last}"`, async () => {
    await server.health(); // rejects when the server does not answer
    const detail = (await server.call('GET', `/api/sessions/${sessionId}`)).json as Detail;
    return !detail.running && detail.turns.at(-1)?.text === last ? detail : undefined;
  });
}

/** SIGTERM to the process alone (not its group): it closes and exits 0. */
async function terminated(server: ServeProcess): Promise<void> {
  server.child.kill('SIGTERM');
  expect(await server.exited).toBe(0);
  expect(server.output()).toContain('Stopped.');
}

describe('a model-given pattern against a real golem serve', () => {
  it('^(\\w+\\s?)*$ over a README: /health answers throughout, the model reads the matches, SIGTERM ends the process', async () => {
    const dir = project([{ toolCalls: [SEARCH] }, { text: 'Searched.' }]);
    const server = await started(dir);
    const created = await server.call('POST', '/api/sessions', { label: 'search' });
    const sessionId = (created.json as { id: string }).id;
    expect((await server.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'find the plain lines' })).status).toBe(202);

    const detail = await finished(server, sessionId, 'Searched.');
    expect(detail.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(detail.turns[2]?.toolResults).toEqual([{ callId: expect.any(String), text: 'README.md:3: Install it with npm and run the tests', isError: false }]);
    await terminated(server);
  });

  it('a run killed before such a search resumes at the next start, and the server listens and answers meanwhile', async () => {
    const dir = project([
      { toolCalls: [{ name: 'run_command', input: { command: 'echo started >> marker.txt && sleep 30' } }] },
      { toolCalls: [SEARCH] },
      { text: 'Searched.' },
    ]);
    const first = await started(dir);
    const sessionId = ((await first.call('POST', '/api/sessions', { label: 'resume' })).json as { id: string }).id;
    expect((await first.call('POST', `/api/sessions/${sessionId}/messages`, { text: 'go' })).status).toBe(202);
    const approvalId = await until(
      'the approval',
      async () => ((await first.call('GET', '/api/state')).json as { approvals: { id: string }[] }).approvals[0]?.id,
    );
    expect((await first.call('POST', `/api/approvals/${approvalId}`, { answer: 'yes' })).status).toBe(200);
    await until('the command to start', async () => (existsSync(join(dir, 'marker.txt')) ? true : undefined));
    first.signal('SIGKILL');
    await first.exited;

    // The next start resumes the run (the killed process is gone): its next step is the search.
    const second = await started(dir);
    const detail = await finished(second, sessionId, 'Searched.');
    expect(detail.turns.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(detail.turns[4]?.toolResults.map((r) => r.text)).toEqual(['README.md:3: Install it with npm and run the tests']);
    await terminated(second);
  });
});
