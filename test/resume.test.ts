/**
 * A run killed (SIGKILL) at each of its steps resumes from its last recorded step without
 * repeating an action that already ran (issue 9): killed while the model streams, while an
 * action runs, and while an approval waits. The worker runs in a child process
 * (test/fixtures/resume-child.ts) against a model server on loopback; its actions leave
 * their effects in a file, so the test counts how often each really ran.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkInvariants, createWorkspace, defineAction, type Action } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { startFakeProvider, type FakeProvider } from './servers/fake-provider.js';
import { tempDir } from './helpers.js';

const CHILD = join(import.meta.dirname, 'fixtures', 'resume-child.ts');

let provider: FakeProvider | undefined;
afterEach(async () => {
  await provider?.close();
  provider = undefined;
});

interface Line {
  step: string;
  [key: string]: unknown;
}

/** Runs the child until it prints `killAt` (then SIGKILLs it), or until it exits; answers what it printed. */
function runChild(dir: string, modelUrl: string, options: { killAt?: string; hang?: boolean } = {}): Promise<{ lines: Line[]; killed: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, modelUrl, ...(options.hang === true ? ['hang'] : [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: Line[] = [];
    let buffered = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const line = JSON.parse(buffered.slice(0, end)) as Line;
        buffered = buffered.slice(end + 1);
        lines.push(line);
        if (line.step === options.killAt && !killed) {
          killed = true;
          child.kill('SIGKILL');
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!killed && code !== 0) reject(new Error(`the child exited with ${code}: ${stderr}`));
      else resolve({ lines, killed });
    });
  });
}

describe('a run killed at each step', () => {
  it('resumes after a kill mid-stream, mid-action and mid-approval, running each action exactly once', async () => {
    const dir = tempDir();
    provider = await startFakeProvider('openai', [
      // 1: killed while it streams (slowly), so nothing of it is recorded.
      {
        text: 'I will migrate the database first, then announce the release.',
        toolCalls: [{ id: 'c1', name: 'migrate', input: { version: 7 } }],
        delayBetweenEventsMs: 200,
      },
      // 2: asked again on resume; the migration it calls is killed while it runs.
      { text: 'Migrating first.', toolCalls: [{ id: 'c1', name: 'migrate', input: { version: 7 } }] },
      // 3: told the migration's outcome is unknown; the announcement waits for approval, killed there.
      { text: 'Announcing.', toolCalls: [{ id: 'c2', name: 'announce', input: { text: 'v7 is out' } }] },
      // 4: the announcement ran after the approval; the end.
      { text: 'Released.' },
    ]);
    const url = provider.url;

    const streaming = await runChild(dir, url, { killAt: 'stream' });
    expect(streaming).toMatchObject({ killed: true, lines: [{ step: 'stream' }] });
    const running = await runChild(dir, url, { killAt: 'running', hang: true });
    expect(running.killed).toBe(true);
    expect(running.lines.at(-1)).toEqual({ step: 'running', action: 'migrate' });
    const asking = await runChild(dir, url, { killAt: 'approval', hang: true });
    expect(asking.killed).toBe(true);
    expect(asking.lines.some((l) => l.step === 'running')).toBe(false); // the migration was not run again

    // The user answers the approval while no run is alive (as `golem approve` or the page would).
    const ws = await createWorkspace({ dir });
    const [pending] = ws.approvals.pending();
    expect(pending).toMatchObject({ action: 'announce', status: 'pending' });
    await ws.approvals.answer(pending?.id as string, { approved: true });
    await ws.close();

    const last = await runChild(dir, url);
    expect(last.lines.at(-1)).toEqual({ step: 'outcome', status: 'done', actions: ['announce'] });

    // Each action ran once, whatever the kills.
    expect(readFileSync(join(dir, 'effects.log'), 'utf8')).toBe('migrate 7\nannounce v7 is out\n');
    // The model was asked four times: the stream killed, then once a step.
    expect(provider.requests).toHaveLength(4);
    const told = JSON.stringify(provider.requests[2]?.body.messages);
    expect(told).toContain('whether it took effect is unknown. It was not run again');

    const after = await createWorkspace({ dir });
    const transcript = await after.sessions.get(after.sessions.list()[0]?.id ?? '')?.transcript();
    expect(transcript?.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool', 'assistant']);
    expect(transcript?.[2]?.blocks[0]).toMatchObject({ type: 'tool_result', callId: 'c1', isError: true });
    expect(transcript?.[4]?.blocks[0]).toMatchObject({ type: 'tool_result', callId: 'c2', content: [{ type: 'text', text: 'announced' }] });
    // One approval, asked once and answered once, though the run asking for it was killed.
    expect(after.approvals.pending()).toEqual([]);
    expect(after.manager.workspace().collections.get('approval')?.size).toBe(1);
    expect(await checkInvariants(await after.manager.wholeWorkspace(), after.manager.blobStorage)).toEqual([]);
    await after.close();
  });
});

describe('a call started but never answered', () => {
  /** A session whose last answer called `touch` on `paths`, and the actions' runs. */
  async function answered(paths: string[], mode: 'tools' | 'text' = 'tools') {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'touch them' }] });
    const blocks =
      mode === 'tools'
        ? paths.map((path, i) => ({ type: 'tool_use' as const, callId: `k${i}`, name: 'touch', args: { path } }))
        : [{ type: 'text' as const, text: paths.map((path) => JSON.stringify({ action: 'touch', path })).join('\n') }];
    const answer = await session.addTurn({ role: 'assistant', blocks });
    const runs: string[] = [];
    const action = (repeatable: boolean) =>
      defineAction({
        name: 'touch',
        description: 'Touches a file.',
        input: z.strictObject({ path: z.string() }),
        repeatable,
        run: ({ path }) => runs.push(path),
      }) as Action;
    /** Marks calls started, as a run killed inside (or after) them leaves them. */
    const start = async (...callIds: string[]) => {
      for (const callId of callIds)
        await ws.manager.dispatch({
          type: 'call:start',
          payload: { sessionId: session.id, turn: { id: answer.id, version: answer.version }, callId, action: 'touch' },
        });
    };
    return { ws, session, answer, runs, action, start };
  }

  it('is not run again when its action is not repeatable, and the model is told why', async () => {
    const { ws, session, runs, action, start } = await answered(['a']);
    await start('k0');
    const worker = ws.worker({ session, model: scriptedModel({ text: 'done' }), actions: [action(false)] });
    expect(worker.interrupted()).toBe(true);
    const outcome = await worker.run();
    expect(runs).toEqual([]);
    expect(outcome).toMatchObject({ status: 'done', actions: [{ name: 'touch', ok: false }] });
    const [, , result] = await session.transcript();
    expect(JSON.stringify(result?.blocks)).toContain('touch was started, but the run stopped');
    await ws.close();
  });

  it('is run again when its action is repeatable', async () => {
    const { ws, session, runs, action, start } = await answered(['a']);
    await start('k0');
    const outcome = await ws.worker({ session, model: scriptedModel({ text: 'done' }), actions: [action(true)] }).run();
    expect(runs).toEqual(['a']);
    expect(outcome).toMatchObject({ status: 'done', actions: [{ name: 'touch', ok: true }] });
    await ws.close();
  });

  it('remembers every call of the answer started, in text mode too, where results are recorded together', async () => {
    const { ws, session, runs, action, start } = await answered(['a', 'b', 'c'], 'text');
    const [, answer] = await session.transcript();
    await start(`${answer?.id}#0`, `${answer?.id}#1`); // a ran, b was running: the kill came before the results were recorded
    await ws.worker({ session, model: scriptedModel({ text: 'done' }), actions: [action(false)], mode: 'text' }).run();
    expect(runs).toEqual(['c']);
    await ws.close();
  });

  it('is not run again from a fork that shares the answer', async () => {
    const { ws, session, runs, action, start, answer } = await answered(['a']);
    await start('k0');
    const fork = await ws.sessions.fork(session.id, answer.id);
    await ws.worker({ session: fork, model: scriptedModel({ text: 'done' }), actions: [action(false)] }).run();
    expect(runs).toEqual([]);
    await ws.close();
  });

  it('does not hold back a call of a later version of the answer with the same id', async () => {
    const { ws, session, runs, action, start, answer } = await answered(['a']);
    await start('k0');
    await session.editTurn(answer.id, [{ type: 'tool_use', callId: 'k0', name: 'touch', args: { path: 'b' } }]);
    await ws.worker({ session, model: scriptedModel({ text: 'done' }), actions: [action(false)] }).run();
    expect(runs).toEqual(['b']);
    await ws.close();
  });
});
