/**
 * `golem runs` (issue 36): the runs `ws.runs` keeps in the store, listed, shown and cancelled
 * from the command line, on a real workspace folder another handle (the process running them)
 * has open: newest first with their status, who runs them, their ages, usage, cost and error
 * code; filtered and paged; a live holder asked to stop, a run whose process is gone cancelled
 * at once, both read back from the store; bad input refused with its code and exit code.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.js';
import { createWorkspace, GolemError, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function golem(args: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd }, {});
  return { code, stdout, stderr };
}

/** The workspace of `cwd` (./.golem), open as the process that runs the runs. */
async function holderOf(cwd: string): Promise<Workspace> {
  const ws = await createWorkspace({ dir: join(cwd, '.golem') });
  cleanups.push(() => ws.close());
  return ws;
}

/** A run that holds its session until it is stopped; resolves with the handle once it runs. */
async function holding(ws: Workspace, sessionId: string, by: string) {
  const claim = await ws.runs.claim(sessionId, { by });
  const handle = claim.run(({ signal }) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true })));
  cleanups.push(async () => void (await handle.cancel().then(() => handle.done)));
  return handle;
}

/** Three runs, oldest first: one that answered (priced), one that failed, one running. */
async function threeRuns(ws: Workspace) {
  const tests = await ws.sessions.create({ label: 'fix the tests' });
  const docs = await ws.sessions.create({ label: 'docs' });
  const model = scriptedModel([{ text: 'Fixed.', usage: { inputTokens: 1000, outputTokens: 100 } }], { provider: 'openai', modelId: 'gpt-4.1' });
  const answered = (await ws.runs.claim(tests.id, { by: 'golem ask, pid 1 on here' })).run(({ signal }) =>
    ws.worker({ session: tests, model }).run('fix them', { signal }),
  );
  await answered.done;
  const failing = (await ws.runs.claim(docs.id, { by: 'golem serve, pid 2 on there' })).run(async () => {
    throw new GolemError('MODEL_ERROR', 'the model failed');
  });
  await failing.done;
  const running = await holding(ws, tests.id, 'golem serve, pid 3 on there');
  return { tests, docs, answered, failing, running };
}

describe('golem runs', () => {
  it('lists runs newest first: status, ages, calls, tokens, cost, error code, session and label, who runs it; filters, pages, --json', async () => {
    const cwd = tempDir();
    const ws = await holderOf(cwd);
    const { tests, docs, answered, failing, running } = await threeRuns(ws);

    const all = await golem(['runs'], cwd);
    expect(all.stderr).toBe('');
    expect(all.code).toBe(0);
    const lines = all.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split('  ')[0])).toEqual([running.id, failing.id, answered.id]);
    expect(lines[0]).toMatch(
      /^\S+ {2}running {4}started \d+s ago +0 calls, 0 in \/ 0 out tokens {2}session \S+ \(fix the tests\) {2}by golem serve, pid 3 on there$/,
    );
    expect(lines[1]).toMatch(
      / failed {5}started \d+s ago, ended \d+s ago +0 calls, 0 in \/ 0 out tokens {2}MODEL_ERROR {2}session \S+ \(docs\) {2}by golem serve, pid 2 on there$/,
    );
    expect(lines[2]).toMatch(/ succeeded {2}started \d+s ago, ended \d+s ago +1 call, 1,000 in \/ 100 out tokens · \$0\.0028 {2}session \S+ \(fix the tests\)/);
    expect(lines[2]).toContain(tests.id);

    // Filters: a session by a unique start of its id, a status.
    const ofDocs = await golem(['runs', '--session', docs.id.slice(-8)], cwd);
    expect(
      ofDocs.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('  ')[0]),
    ).toEqual([failing.id]);
    const failed = await golem(['runs', '--status', 'failed'], cwd);
    expect(failed.stdout).toContain('MODEL_ERROR');
    expect(failed.stdout.trimEnd().split('\n')).toHaveLength(1);
    expect((await golem(['runs', '--status', 'paused'], cwd)).stdout).toBe('No runs match.\n');

    // A page at a time: the list says how to get the next one.
    const first = await golem(['runs', '--limit', '2'], cwd);
    const more = /^More: golem runs --cursor (\S+) /m.exec(first.stdout);
    expect(more).not.toBeNull();
    const next = await golem(['runs', '--limit', '2', '--cursor', more![1]!], cwd);
    expect(
      next.stdout
        .trimEnd()
        .split('\n')
        .map((l) => l.split('  ')[0]),
    ).toEqual([answered.id]);

    const json = JSON.parse((await golem(['runs', '--json', '--limit', '2'], cwd)).stdout) as { runs: { id: string; status: string }[]; cursor?: string };
    expect(json.runs.map((r) => [r.id, r.status])).toEqual([
      [running.id, 'running'],
      [failing.id, 'failed'],
    ]);
    expect(json.cursor).toEqual(expect.any(String));
  });

  it('shows one run, named by its id or a unique start of it', async () => {
    const cwd = tempDir();
    const ws = await holderOf(cwd);
    const { answered, failing } = await threeRuns(ws);
    const shown = await golem(['runs', 'show', answered.id.slice(0, 8)], cwd);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(`^run {8}${answered.id}\nsession {4}\\S+ \\(fix the tests\\)\nstatus {5}succeeded \\(outcome: done\\)\nby {9}golem ask, pid 1 on here\n`),
    );
    expect(shown.stdout).toMatch(/^usage {6}1 model call: 1,000 tokens in, 100 out · \$0\.0028$/m);
    expect(shown.stdout).toMatch(/^ended {6}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+s ago\)$/m);
    const failedRun = await golem(['runs', 'show', failing.id], cwd);
    expect(failedRun.stdout).toMatch(/^error {6}MODEL_ERROR: the model failed$/m);
    const json = JSON.parse((await golem(['runs', 'show', failing.id, '--json'], cwd)).stdout) as unknown;
    expect(json).toEqual(ws.runs.get(failing.id));
  });

  it('cancels: asks a live holder to stop, cancels at once a run no live process holds, leaves an ended run as it was', async () => {
    const cwd = tempDir();
    const ws = await holderOf(cwd);
    const { answered, running } = await threeRuns(ws);

    // Held by a live process (the handle above): asked to stop; it stops on its next catch-up.
    const asked = await golem(['runs', 'cancel', running.id], cwd);
    expect(asked).toMatchObject({ code: 0, stderr: '' });
    expect(asked.stdout).toBe(
      `Asked golem serve, pid 3 on there to stop run ${running.id}: it stops at its next step (golem runs show ${running.id} says when it has).\n`,
    );
    const { record } = await running.done;
    expect(record).toMatchObject({
      status: 'cancelled',
      error: { code: 'RUN_CANCELLED' },
      cancel: { by: expect.stringMatching(/^golem runs cancel, pid \d+ on /) },
    });

    // Claimed by a process that is gone (its lease lapsed): cancelled at once, and its lease let go.
    const orphan = await ws.sessions.create({ label: 'orphan' });
    const claimed = await ws.manager.dispatch({
      type: 'run:claim',
      payload: { sessionId: orphan.id, holder: 'gone', by: 'golem serve, pid 9 on gone', runId: 'orphan-run', ttlMs: 100 },
    });
    expect(claimed.ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 150));
    const atOnce = await golem(['runs', 'cancel', 'orphan-run'], cwd);
    expect(atOnce).toMatchObject({ code: 0, stderr: '' });
    expect(atOnce.stdout).toBe('Cancelled run orphan-run at once: no live process held it (cancelled: its process was gone).\n');
    const reader = await createWorkspace({ dir: join(cwd, '.golem') });
    cleanups.push(() => reader.close());
    expect(reader.runs.get('orphan-run')).toMatchObject({ status: 'cancelled', endedAt: expect.any(String), error: { code: 'RUN_CANCELLED' } });
    expect(reader.manager.workspace().collection('run').get(orphan.id)).toBeUndefined();
    expect(reader.runs.get(running.id)?.status).toBe('cancelled');

    // Ended before: nothing changes.
    const ended = await golem(['runs', 'cancel', answered.id, '--json'], cwd);
    expect(JSON.parse(ended.stdout)).toMatchObject({ outcome: 'ended', run: { id: answered.id, status: 'succeeded' } });
    expect((await golem(['runs', 'cancel', answered.id], cwd)).stdout).toBe(`Run ${answered.id} had already ended (succeeded); nothing to cancel.\n`);
    await reader.manager.refresh();
    expect(reader.runs.get(answered.id)).toMatchObject({ status: 'succeeded' });
    expect(reader.runs.get(answered.id)?.cancel).toBeUndefined();
  });

  it('refuses bad input with its code: usage exits 2 (before any workspace is made), a run or session not found exits 1', async () => {
    const cwd = tempDir();
    const usage: [string[], string][] = [
      [['runs', '--status', 'done'], 'golem runs [INVALID_ARGUMENT]: --status is one of queued, running, paused, succeeded, failed, cancelled, not "done"'],
      [['runs', '--limit', 'ten'], 'golem runs [INVALID_ARGUMENT]: --limit takes a whole number, not "ten"'],
      [['runs', 'stop', 'x'], 'golem runs [INVALID_ARGUMENT]: unknown command "golem runs stop" (list, show, follow, cancel)'],
      [['runs', 'cancel'], 'golem runs [INVALID_ARGUMENT]: golem runs cancel needs a run id (see golem runs)'],
      [['runs', 'show', 'a', 'b'], 'golem runs [INVALID_ARGUMENT]: unexpected "b" after golem runs show a'],
      [['runs', 'cancel', 'x', '--status', 'running'], 'golem runs [INVALID_ARGUMENT]: --status goes with golem runs (the list), not golem runs cancel'],
    ];
    for (const [args, line] of usage) {
      const result = await golem(args, cwd);
      expect({ args, code: result.code, stdout: result.stdout, first: result.stderr.split('\n')[0] }).toEqual({ args, code: 2, stdout: '', first: line });
      expect(result.stderr).toContain('Usage: golem runs');
    }
    expect(existsSync(join(cwd, '.golem'))).toBe(false);

    // The range of --limit and a cursor are the service's to check: the same code, the same exit.
    expect(await golem(['runs', '--limit', '0'], cwd)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^golem runs \[INVALID_ARGUMENT\]: limit is a whole number from 1 to 500/),
    });
    expect(await golem(['runs', '--cursor', 'nonsense'], cwd)).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^golem runs \[INVALID_ARGUMENT\]: the cursor "nonsense"/),
    });
    expect(await golem(['runs', 'cancel', 'no-such-run'], cwd)).toEqual({ code: 1, stdout: '', stderr: 'golem runs [RUN_NOT_FOUND]: no run "no-such-run"\n' });
    expect(await golem(['runs', 'show', 'no-such-run'], cwd)).toMatchObject({ code: 1, stderr: 'golem runs [RUN_NOT_FOUND]: no run "no-such-run"\n' });
    expect(await golem(['runs', '--session', 'no-such-session'], cwd)).toMatchObject({
      code: 1,
      stderr: 'golem runs [SESSION_NOT_FOUND]: no session "no-such-session"\n',
    });
    expect((await golem(['runs'], cwd)).stdout).toBe('No runs yet. A message to the agent starts one: golem ask "…"\n');
  });

  it('follows a run another handle runs, live to its end: drawn as the chat draws it, or each event a line of JSON after a seq', async () => {
    const cwd = tempDir();
    const ws = await holderOf(cwd);
    const session = await ws.sessions.create({ label: 'followed' });
    let go!: () => void;
    const gate = new Promise<void>((resolve) => (go = resolve));
    const model = scriptedModel([{ text: 'First part. ' }]);
    const claim = await ws.runs.claim(session.id, { by: 'the holder' });
    const handle = claim.run(async ({ signal, log }) => {
      const worker = ws.worker({ session, model, onEvent: (event) => log.push({ type: 'event', event }) });
      await gate;
      return worker.run('say it', { signal });
    });
    const output = new PassThrough();
    let drawn = '';
    output.on('data', (data: Buffer) => (drawn += data.toString()));
    let stdout = '';
    const following = run(['runs', 'follow', claim.id.slice(0, 8)], { stdout: (t) => (stdout += t), stderr: () => undefined, cwd, output }, {});
    const json = golem(['runs', 'follow', claim.id, '--json', '--after', '2'], cwd);
    setTimeout(go, 100);
    await handle.done;
    expect(await following).toBe(0);
    expect(stdout).toContain(`Following run ${claim.id} (session ${session.id}, followed, running)`);
    expect(drawn).toContain('First part.');
    expect(stdout).toMatch(new RegExp(`${claim.id} {2}succeeded`));
    const lines = (await json).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { seq: number; entry: { type: string } });
    const all = claim.log.entries();
    expect(lines.map((l) => l.seq)).toEqual(all.slice(2).map((_, i) => i + 3));
    expect(lines.at(-1)?.entry.type).toBe('end');
    expect(await golem(['runs', 'follow', claim.id, '--after', 'x'], cwd)).toMatchObject({ code: 2, stderr: expect.stringContaining('--after takes a seq') });
    expect(await golem(['runs', 'show', claim.id, '--after', '3'], cwd)).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--after goes with golem runs follow'),
    });
  });

  it('is in golem --help, and a mistyped runs is guessed', async () => {
    const cwd = tempDir();
    const help = (await golem(['--help'], cwd)).stdout;
    expect(help).toMatch(/^ {2}runs \[--session <id>\] \[--status <s>\] \[--limit <n>\]$/m);
    expect(help).toMatch(/^ {2}runs show <id> /m);
    expect(help).toMatch(/^ {2}runs follow <id> \[--after <seq>\]$/m);
    expect(help).toMatch(/^ {2}runs cancel <id> /m);
    expect(help).toMatch(/^ {2}--status <s> /m);
    expect(await golem(['rusn'], cwd)).toMatchObject({ code: 2, stderr: 'golem: unknown command "rusn" (did you mean runs?); golem --help for all\n' });
  });
});
