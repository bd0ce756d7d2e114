import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  createWorkspace,
  decideTrust,
  defineAction,
  DiskFiles,
  projectActions,
  type ApprovalRequest,
  type Prompt,
  type WorkerEvent,
  type WorkerRecord,
} from '../src/index.js';
import { scriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { tempDir } from './helpers.js';

/** The text of a prompt's messages, for a scripted model to read. */
const said = (prompt: Prompt) =>
  prompt.messages
    .flatMap((m) => m.content.map((p) => (p.type === 'text' ? p.text : p.type === 'tool-result' && p.output.type === 'text' ? p.output.text : '')))
    .join('\n');
const isSubWorker = (prompt: Prompt) => prompt.system.includes('You are a sub-worker');
const lastResult = (prompt: Prompt) => {
  const part = prompt.messages.at(-1)?.content.at(-1);
  if (part?.type !== 'tool-result' || part.output.type !== 'text') return undefined;
  try {
    return JSON.parse(part.output.text) as Record<string, string>;
  } catch {
    return { text: part.output.text };
  }
};
const workersOf = (ws: Awaited<ReturnType<typeof createWorkspace>>) =>
  [...(ws.manager.workspace().collections.get('worker')?.values() ?? [])].sort((a, b) =>
    (a as WorkerRecord).createdAt.localeCompare((b as WorkerRecord).createdAt),
  ) as WorkerRecord[];

describe('the worker tree', () => {
  it('re-invokes a sub-worker with what the chat history says (seed 003: the JWT secret)', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create({ label: 'auth' });
    await chat.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'For tokens, use the same secret key as the API: API_SECRET_KEY.' }] });
    await chat.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'Noted.' }] });
    const signed: string[] = [];
    const sign = defineAction({
      name: 'write_signer',
      description: 'Writes the JWT signer.',
      input: z.object({ secret: z.string() }),
      run: ({ secret }) => (signed.push(secret), 'written'),
    });
    const model = scriptedModel((prompt): ScriptedResponse => {
      if (isSubWorker(prompt)) {
        const task = said(prompt);
        if (lastResult(prompt) !== undefined) return { text: 'Signed tokens with API_SECRET_KEY.' };
        if (task.includes('API_SECRET_KEY')) return { toolCalls: [{ name: 'write_signer', input: { secret: 'API_SECRET_KEY' } }] };
        return { toolCalls: [{ name: 'ask_parent', input: { question: 'Which secret key should sign the tokens?' } }] };
      }
      const result = lastResult(prompt);
      if (result === undefined) return { toolCalls: [{ name: 'spawn_worker', input: { task: 'Implement JWT signing' } }] };
      if (result.status === 'question') {
        // The root knows the answer from the chat history: it re-invokes with the clarified task.
        expect(said(prompt)).toContain('API_SECRET_KEY');
        return { toolCalls: [{ name: 'spawn_worker', input: { task: 'Implement JWT signing using API_SECRET_KEY', reinvoke: String(result.worker) } }] };
      }
      return { text: `Done: ${result.result}` };
    });
    const events: WorkerEvent[] = [];
    const outcome = await ws
      .worker({ session: chat, model, actions: [sign], subWorkers: true, onEvent: (e) => events.push(e) })
      .run('Refactor auth to use JWT');
    expect(outcome).toMatchObject({ status: 'done', turn: { blocks: [{ type: 'text', text: 'Done: Signed tokens with API_SECRET_KEY.' }] } });
    expect(signed).toEqual(['API_SECRET_KEY']);
    const [first, second] = workersOf(ws);
    expect(first).toMatchObject({
      depth: 1,
      status: 'question',
      result: 'Which secret key should sign the tokens?',
      parentSessionId: chat.id,
      rootSessionId: chat.id,
      reinvokes: null,
    });
    expect(second).toMatchObject({ depth: 1, status: 'done', task: 'Implement JWT signing using API_SECRET_KEY', reinvokes: first?.id });
    // Each sub-worker's transcript is a session of its own, linked to the call that started it; it never saw the chat.
    const calls = (await chat.transcript()).flatMap((t) => t.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.callId] : [])));
    expect([first?.parentCallId, second?.parentCallId]).toEqual(calls);
    const subTranscript = await ws.sessions.get(first?.id ?? '')?.transcript();
    expect(subTranscript?.map((t) => t.role)).toEqual(['user', 'assistant', 'tool']);
    expect(JSON.stringify(subTranscript)).not.toContain('same secret key as the API');
    expect(events.filter((e) => e.type === 'worker-start' || e.type === 'worker-end').map((e) => `${e.type}:${e.worker.depth}`)).toEqual([
      'worker-start:0',
      'worker-start:1',
      'worker-end:1',
      'worker-start:1',
      'worker-end:1',
      'worker-end:0',
    ]);
    await ws.close();
  });

  it("passes a question up to the user when no ancestor knows, and goes on with the user's answer (seed 003: Redis or in-memory)", async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const configured: string[] = [];
    const configure = defineAction({
      name: 'configure_sessions',
      description: 'Configures sessions.',
      input: z.object({ store: z.enum(['redis', 'memory']) }),
      run: ({ store }) => (configured.push(store), 'ok'),
    });
    const model = scriptedModel((prompt): ScriptedResponse => {
      const depth = /sub-worker at depth (\d)/.exec(prompt.system)?.[1];
      const result = lastResult(prompt);
      if (depth === '2') {
        if (result !== undefined) return { text: 'Configured sessions on Redis.' };
        return said(prompt).includes('Redis')
          ? { toolCalls: [{ name: 'configure_sessions', input: { store: 'redis' } }] }
          : { toolCalls: [{ name: 'ask_parent', input: { question: 'Redis or in-memory sessions?' } }] };
      }
      if (depth === '1') {
        // The middle worker does not know either: it asks its own parent.
        if (result === undefined)
          return {
            toolCalls: [{ name: 'spawn_worker', input: { task: said(prompt).includes('Redis') ? 'Configure sessions using Redis' : 'Configure sessions' } }],
          };
        if (result.status === 'question') return { toolCalls: [{ name: 'ask_parent', input: { question: String(result.question) } }] };
        return { text: `Sessions: ${result.result}` };
      }
      if (result === undefined)
        return {
          toolCalls: [
            {
              name: 'spawn_worker',
              input: {
                task:
                  said(prompt).includes('Redis') && said(prompt).includes('Redis or') ? 'Set up authentication with Redis sessions' : 'Set up authentication',
              },
            },
          ],
        };
      if (result.status === 'question') return { text: `Should I use ${result.question?.replace('?', '')}?` };
      return { text: `Authentication is set up. ${result.result}` };
    });
    const worker = ws.worker({ session: chat, model, actions: [configure], subWorkers: true });
    const asked = await worker.run('Set up authentication');
    expect(asked).toMatchObject({ status: 'done', turn: { blocks: [{ type: 'text', text: 'Should I use Redis or in-memory sessions?' }] } });
    expect(configured).toEqual([]);
    expect(workersOf(ws).map((w) => [w.depth, w.status])).toEqual([
      [1, 'question'],
      [2, 'question'],
    ]);

    const answered = await worker.run('Redis');
    expect(answered.status).toBe('done');
    expect(configured).toEqual(['redis']);
    expect(answered.turn?.blocks).toEqual([{ type: 'text', text: 'Authentication is set up. Sessions: Configured sessions on Redis.' }]);
    expect(
      workersOf(ws)
        .slice(2)
        .map((w) => [w.depth, w.status, w.task]),
    ).toEqual([
      [1, 'done', 'Set up authentication with Redis sessions'],
      [2, 'done', 'Configure sessions using Redis'],
    ]);
    await ws.close();
  });

  it('does not offer spawn_worker at the depth limit; a call to it there anyway starts nothing', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const model = scriptedModel((prompt): ScriptedResponse => {
      const result = lastResult(prompt);
      // Asks for a deeper worker at every depth, the limit's too (as a model that guesses would).
      if (result === undefined) return { toolCalls: [{ name: 'spawn_worker', input: { task: 'go deeper' } }] };
      return { text: 'stopped' };
    });
    const results: string[] = [];
    const onEvent = (e: WorkerEvent) => e.type === 'action' && results.push(`${e.ok}:${typeof e.output === 'string' ? e.output : JSON.stringify(e.output)}`);
    await ws.worker({ session: chat, model, subWorkers: { maxDepth: 2 }, onEvent }).run('dig');
    expect(workersOf(ws).map((w) => w.depth)).toEqual([1, 2]);
    expect(model.calls.find((p) => p.system.includes('sub-worker at depth 2'))?.tools?.map((t) => t.name)).not.toContain('spawn_worker');
    expect(results[0]).toBe('false:Unknown action "spawn_worker". The actions are: ask_parent');
    await ws.close();
  });

  it('asks approval from any depth with the worker path, and the tree waits for the answer', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create({ label: 'Refactor the database' });
    const ran: string[] = [];
    const psql = defineAction({
      name: 'psql',
      description: 'Runs SQL.',
      input: z.object({ sql: z.string() }),
      trust: 'supervised',
      describe: ({ sql }) => ({ type: 'command', description: `psql -c '${sql}'`, details: { sql }, risk: 'high' }),
      run: ({ sql }) => (ran.push(sql), 'ALTER TABLE'),
    });
    const model = scriptedModel((prompt): ScriptedResponse => {
      const depth = /sub-worker at depth (\d)/.exec(prompt.system)?.[1];
      const result = lastResult(prompt);
      if (result !== undefined || prompt.messages.at(-1)?.content.at(-1)?.type === 'tool-result') return { text: `d${depth ?? 0} done` };
      if (depth === undefined) return { toolCalls: [{ name: 'spawn_worker', input: { task: 'Update schema' } }] };
      if (depth === '1') return { toolCalls: [{ name: 'spawn_worker', input: { task: 'Migrate production' } }] };
      return { toolCalls: [{ name: 'psql', input: { sql: 'ALTER TABLE users' } }] };
    });
    const requests: ApprovalRequest[] = [];
    let answer!: (yes: boolean) => void;
    const outcome = ws
      .worker({
        session: chat,
        model,
        actions: [psql],
        subWorkers: true,
        requestApproval: (r) => (requests.push(r), new Promise((resolve) => (answer = (yes) => resolve(yes ? { approved: true } : { approved: false })))),
      })
      .run('Refactor the database');
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    expect(requests[0]).toMatchObject({ type: 'command', description: "psql -c 'ALTER TABLE users'", risk: 'high' });
    expect(requests[0]?.workerPath.map((w) => [w.depth, w.task])).toEqual([
      [0, 'Refactor the database'],
      [1, 'Update schema'],
      [2, 'Migrate production'],
    ]);
    // The tree is paused: nothing ran, no worker finished, the approval is workspace state.
    expect(ran).toEqual([]);
    expect(workersOf(ws).map((w) => w.status)).toEqual(['running', 'running']);
    expect(ws.approvals.pending()).toEqual([expect.objectContaining({ action: 'psql', status: 'pending', rootSessionId: chat.id })]);
    answer(true);
    expect(await outcome).toMatchObject({ status: 'done' });
    expect(ran).toEqual(['ALTER TABLE users']);
    expect(workersOf(ws).map((w) => w.status)).toEqual(['done', 'done']);
    await ws.close();
  });

  it('pauses without anyone to ask, and resumes after the answer without repeating what was done', async () => {
    const dir = tempDir();
    let ws = await createWorkspace({ dir });
    const chat = await ws.sessions.create();
    const log: string[] = [];
    const actions = () => [
      defineAction({ name: 'look', description: 'Looks.', input: z.object({}), run: () => (log.push('look'), 'seen') }),
      defineAction({
        name: 'deploy',
        description: 'Deploys.',
        input: z.object({ env: z.string() }),
        trust: 'supervised',
        run: ({ env }) => (log.push(`deploy ${env}`), 'deployed'),
      }),
    ];
    const script = (): ScriptedResponse[] => [
      { toolCalls: [{ name: 'look', input: {}, callId: 'a' }] },
      { toolCalls: [{ name: 'spawn_worker', input: { task: 'deploy it' }, callId: 'b' }] },
      {
        toolCalls: [
          { name: 'look', input: {}, callId: 'c' },
          { name: 'deploy', input: { env: 'prod' }, callId: 'd' },
        ],
      },
      { text: 'deployed to prod' },
      { text: 'All done.' },
    ];
    const first = scriptedModel(script());
    const paused = await ws.worker({ session: chat, model: first, actions: actions(), subWorkers: true }).run('ship it');
    expect(paused).toMatchObject({ status: 'paused', approval: { action: 'deploy', input: { env: 'prod' }, status: 'pending' } });
    expect(log).toEqual(['look', 'look']);
    await ws.close();

    // Another process: the approval is still there; answering it and resuming goes on from where it stopped.
    ws = await createWorkspace({ dir });
    const [pending] = ws.approvals.pending();
    expect(pending).toMatchObject({
      action: 'deploy',
      workerPath: [expect.objectContaining({ depth: 0 }), expect.objectContaining({ depth: 1, task: 'deploy it' })],
    });
    await ws.approvals.answer(pending?.id ?? '', { approved: true });
    const second = scriptedModel(script().slice(3));
    const session = await ws.sessions.open(chat.id); // its turns in memory: interrupted() reads them synchronously
    if (session === undefined) throw new Error('lost the session');
    const worker = ws.worker({ session, model: second, actions: actions(), subWorkers: true });
    expect(worker.interrupted()).toBe(true);
    const resumed = await worker.run();
    expect(resumed).toMatchObject({ status: 'done', steps: 1, turn: { blocks: [{ type: 'text', text: 'All done.' }] } });
    expect(log).toEqual(['look', 'look', 'deploy prod']);
    expect(second.calls).toHaveLength(2); // the sub-worker's last answer, then the root's
    expect(worker.interrupted()).toBe(false);
    expect(workersOf(ws)).toEqual([expect.objectContaining({ status: 'done', result: 'deployed to prod' })]);
    await ws.close();
  });

  it("tells the model a 'no' with the user's reason, and runs nothing", async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    let ran = 0;
    const deploy = defineAction({ name: 'deploy', description: 'Deploys.', input: z.object({}), trust: 'supervised', run: () => ++ran });
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', input: {} }] }, { text: 'ok, not deploying' }]);
    await ws.worker({ session: chat, model, actions: [deploy], requestApproval: async () => ({ approved: false, reason: 'not on Fridays' }) }).run('deploy');
    expect(ran).toBe(0);
    expect(said(model.calls[1] as Prompt)).toContain('The user declined deploy: not on Fridays');
    await ws.close();
  });
});

describe('manual mode and clearance', () => {
  const repo = () => {
    const root = tempDir();
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(root, 'app.ts'), 'const port = 80;\n');
    git('add', '.');
    git('commit', '-qm', 'init');
    return { root, git };
  };

  it('stages file edits in git instead of the files, shows the staged version to later reads, and pushes or discards them', async () => {
    const { root, git } = repo();
    const ws = await createWorkspace({ dir: join(root, '.golem') });
    writeFileSync(join(root, '.golem', '.gitignore'), '*\n');
    const chat = await ws.sessions.create();
    const { projectActions } = await import('../src/index.js');
    const model = scriptedModel([
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.ts', old_string: '80', new_string: '8080' } }] },
      { toolCalls: [{ name: 'read_file', input: { path: 'app.ts' } }] },
      { toolCalls: [{ name: 'write_file', input: { path: 'docs/port.md', content: 'Port 8080\n' } }] },
      { text: 'Staged.' },
    ]);
    const pending: number[] = [];
    const ui = { notifyClearancePending: (items: unknown[]) => pending.push(items.length) };
    await ws.worker({ session: chat, model, actions: projectActions(), project: { root }, onEvent: () => undefined, ui: ui as never }).run('use port 8080');
    // Nothing changed in the project; the later read saw the staged version.
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe('const port = 80;\n');
    expect(git('status', '--porcelain')).toBe('');
    expect(said(model.calls[2] as Prompt)).toContain('const port = 8080;');
    // So does a worker that did not stage it (a later golem process, say).
    const reader = scriptedModel([{ toolCalls: [{ name: 'read_file', input: { path: 'app.ts' } }] }, { text: 'read' }]);
    await ws.worker({ session: chat, model: reader, actions: projectActions(), project: { root } }).run('show app.ts');
    expect(lastResult(reader.calls[1] as Prompt)?.text).toContain('const port = 8080;');
    const [item] = ws.clearance.list();
    expect(ws.clearance.list()).toHaveLength(1); // both edits joined the conversation's open staged commit
    expect(item).toMatchObject({ type: 'staged_commit', status: 'pending', sessionId: chat.id, metadata: { files: ['app.ts', 'docs/port.md'] } });
    expect(pending).toEqual([1, 1]);
    const diff = await ws.clearance.diff(item?.id ?? '');
    expect(diff).toContain('-const port = 80;');
    expect(diff).toContain('+Port 8080');

    const pushed = await ws.clearance.push(item?.id ?? '');
    expect(pushed).toMatchObject({ status: 'pushed', outcome: 'Written: app.ts, docs/port.md.' });
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe('const port = 8080;\n');
    expect(readFileSync(join(root, 'docs/port.md'), 'utf8')).toBe('Port 8080\n');
    // The root worker is told, as a system message in its session.
    const note = (await chat.transcript()).at(-1);
    expect(note).toMatchObject({
      role: 'system',
      blocks: [{ type: 'text', text: expect.stringMatching(/^\[System: the user pushed clearance item .*Written: app.ts, docs\/port.md/) }],
    });
    await expect(ws.clearance.push(item?.id ?? '')).rejects.toMatchObject({ code: 'CLEARANCE_DECIDED' });

    // A second edit, discarded: the file stays as it is.
    const again = scriptedModel([
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.ts', old_string: '8080', new_string: '9090' } }] },
      { text: 'Staged.' },
    ]);
    await ws.worker({ session: chat, model: again, actions: projectActions(), project: { root } }).run('no, 9090');
    const [second] = ws.clearance.list();
    expect(second?.id).not.toBe(item?.id);
    expect(await ws.clearance.discard(second?.id ?? '')).toMatchObject({ status: 'discarded' });
    expect(readFileSync(join(root, 'app.ts'), 'utf8')).toBe('const port = 8080;\n');
    expect(ws.clearance.list()).toEqual([]);
    expect(() => ws.clearance.get('nope')).toThrow(expect.objectContaining({ code: 'CLEARANCE_NOT_FOUND' }));
    await ws.close();
  });

  it('makes a manual action that is not a file change wait as a call the user runs by pushing it', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const sent: string[] = [];
    const email = defineAction({
      name: 'send_email',
      description: 'Sends an email.',
      input: z.object({ to: z.string() }),
      trust: 'manual',
      run: ({ to }) => (sent.push(to), `sent to ${to}`),
    });
    const model = scriptedModel([{ toolCalls: [{ name: 'send_email', input: { to: 'boss@example.com' } }] }, { text: 'It waits for you.' }]);
    await ws.worker({ session: chat, model, actions: [email] }).run('email the boss');
    expect(sent).toEqual([]);
    const [item] = ws.clearance.list();
    expect(item).toMatchObject({ type: 'pending_export', metadata: { action: 'send_email', input: { to: 'boss@example.com' } } });
    await expect(ws.clearance.push(item?.id ?? '')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(await ws.clearance.push(item?.id ?? '', { actions: [email] })).toMatchObject({
      status: 'pushed',
      outcome: 'The user ran it: "sent to boss@example.com"',
    });
    expect(sent).toEqual(['boss@example.com']);
    await ws.close();
  });
});

describe('review findings, kept fixed', () => {
  it('refuses a write through a symbolic link whose target does not exist yet (it could lead anywhere)', async () => {
    const root = tempDir();
    const outside = mkdtempSync(join(tmpdir(), 'outside-'));
    symlinkSync(join(outside, 'pwned.txt'), join(root, 'notes.txt'));
    await expect(new DiskFiles(root).write('notes.txt', Buffer.from('x'))).rejects.toMatchObject({ code: 'PATH_OUTSIDE_PROJECT' });
    expect(existsSync(join(outside, 'pwned.txt'))).toBe(false);
  });

  it('never writes a staged, unreviewed version to disk through an action that edits directly', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'a.txt'), 'one\ntwo\nthree\n');
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const model = scriptedModel([
      { toolCalls: [{ name: 'edit_file', input: { path: 'a.txt', old_string: 'one', new_string: 'ONE (unreviewed)' } }] },
      { text: 'staged' },
      { toolCalls: [{ name: 'edit_file', input: { path: 'a.txt', old_string: 'three', new_string: 'THREE' } }] },
      { text: 'done' },
    ]);
    const results: string[] = [];
    const onEvent = (e: WorkerEvent) => e.type === 'action' && results.push(JSON.stringify(e.output));
    const worker = ws.worker({ session: chat, model, actions: projectActions(), project: { root, stagingDir: join(root, '.golem', 'staging.git') }, onEvent });
    await worker.run('stage one');
    await ws.trust.set('edit_file', 'autonomous', { sessionId: chat.id });
    results.length = 0; // the second run's results only
    await worker.run('now edit directly');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(results[0]).toMatch(/a\.txt has staged changes waiting for clearance/);
    await ws.close();
  });

  it('text mode does not pause mid-step (its results are recorded together), so nothing is repeated', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const log: string[] = [];
    const pay = defineAction({
      name: 'pay',
      description: 'Pays.',
      input: z.object({ amount: z.number() }),
      run: ({ amount }) => (log.push(`pay ${amount}`), 'paid'),
    });
    const deploy = defineAction({
      name: 'deploy',
      description: 'Deploys.',
      input: z.object({}),
      trust: 'supervised',
      run: () => (log.push('deploy'), 'deployed'),
    });
    const model = scriptedModel([{ text: '{"action":"pay","amount":100}\n{"action":"deploy"}' }, { text: 'done' }]);
    const worker = ws.worker({ session: chat, model, actions: [pay, deploy], mode: 'text' });
    expect(await worker.run('go')).toMatchObject({ status: 'done' });
    expect(worker.interrupted()).toBe(false);
    expect(log).toEqual(['pay 100']);
    expect(said(model.calls[1] as Prompt)).toMatch(/deploy \{\} -> failed: Not run: deploy needs the user's approval and nobody can be asked now/);
    await ws.close();
  });

  it('finds only own trust settings: an action named like an Object property works', async () => {
    const ws = await createWorkspace();
    expect(decideTrust(ws.manager.workspace(), { name: 'constructor', trust: 'autonomous', stages: false }, 'k', 's', {})).toMatchObject({
      kind: 'run',
      source: 'action',
    });
    await ws.close();
  });
});

describe('two processes on one workspace', () => {
  it('catch up with each other: a command refused because the other wrote first is decided again on the new state', async () => {
    const dir = tempDir();
    const a = await createWorkspace({ dir });
    const b = await createWorkspace({ dir });
    const chat = await a.sessions.create({ label: 'from a' });
    // b has not seen a's session; its next command catches up instead of failing.
    const other = await b.sessions.create({ label: 'from b' });
    expect(
      b.sessions
        .list()
        .map((s) => s.label)
        .sort(),
    ).toEqual(['from a', 'from b']);
    const added = await b.manager.dispatch({
      type: 'turn:add',
      payload: { sessionId: chat.id, turn: { role: 'user', blocks: [{ type: 'text', text: 'hi' }] } },
    });
    expect(added.ok).toBe(true);
    expect(other.id).not.toBe(chat.id);
    // Reads catch up on request, without writing anything.
    await a.sessions.create({ label: 'later from a' });
    const seq = b.manager.workspace().lastSeq;
    expect(b.sessions.list().some((s) => s.label === 'later from a')).toBe(false);
    expect(await b.manager.refresh()).toBe(true);
    expect(b.sessions.list().some((s) => s.label === 'later from a')).toBe(true);
    expect(b.manager.workspace().lastSeq).toBe(seq + 1);
    expect(await b.manager.refresh()).toBe(false);
    await a.close();
    await b.close();
  });
});
