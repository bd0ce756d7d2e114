/**
 * Sub-workers side by side (seed 003, issue 19): the spawn_worker calls of one answer run at
 * once (at most `concurrency`), each streaming its own events; results go back to the parent
 * in call order; an approval asked by one pauses the rest of the tree; a run stopped midway
 * resumes each unfinished sub-worker without repeating a started action.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createWorkspace,
  defineAction,
  projectActions,
  type ApprovalRequest,
  type Prompt,
  type Trust,
  type WorkerEvent,
  type WorkerRecord,
} from '../src/index.js';
import { scriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { parallelTreeModel, said } from './fixtures/parallel-tree.js';
import { tempDir } from './helpers.js';

const CHILD = join(import.meta.dirname, 'fixtures', 'parallel-child.ts');

const isSubWorker = (prompt: Prompt) => prompt.system.includes('You are a sub-worker');
const answered = (prompt: Prompt) => prompt.messages.at(-1)?.content.at(-1)?.type === 'tool-result';
/** The task a sub-worker was given (its first message: "Your task:\n<task>"). */
const taskOf = (prompt: Prompt) => /Your task:\n(.*)/.exec(said(prompt))?.[1] ?? '';
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An action that takes `ms` and records when it ran, by task. */
function timedAction(ms: number, trust?: Trust) {
  const spans: { task: string; start: number; end: number }[] = [];
  const action = defineAction({
    name: 'fetch_page',
    description: 'Fetches a page of the report.',
    input: z.object({ task: z.string() }),
    ...(trust !== undefined && { trust }),
    run: async ({ task }) => {
      const start = performance.now();
      await wait(ms);
      spans.push({ task, start, end: performance.now() });
      return `fetched for ${task}`;
    },
  });
  return { action, spans };
}

/** The root spawns one sub-worker per task in one answer; each sub-worker calls fetch_page once, then reports. */
function treeModel(tasks: readonly string[]) {
  return scriptedModel((prompt): ScriptedResponse => {
    if (isSubWorker(prompt)) {
      const task = taskOf(prompt);
      if (answered(prompt)) return { text: `report on ${task}` };
      return { toolCalls: [{ name: 'fetch_page', input: { task } }] };
    }
    if (answered(prompt)) return { text: 'All reports are in.' };
    return { toolCalls: tasks.map((task) => ({ name: 'spawn_worker', input: { task } })) };
  });
}

/** The most spans running at one moment. */
function mostAtOnce(spans: readonly { start: number; end: number }[]): number {
  const edges = spans.flatMap((s) => [
    { at: s.start, step: 1 },
    { at: s.end, step: -1 },
  ]);
  // At the same instant an end comes before a start.
  edges.sort((a, b) => a.at - b.at || a.step - b.step);
  let now = 0;
  let most = 0;
  for (const e of edges) most = Math.max(most, (now += e.step));
  return most;
}

const workersOf = (ws: Awaited<ReturnType<typeof createWorkspace>>) =>
  [...(ws.manager.workspace().collections.get('worker')?.values() ?? [])] as WorkerRecord[];

describe('sub-workers side by side', () => {
  it('runs two sub-workers at once: their actions overlap in time, and the results go back in call order', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const { action, spans } = timedAction(150);
    const events: WorkerEvent[] = [];
    const outcome = await ws
      .worker({ session: chat, model: treeModel(['north', 'south']), actions: [action], subWorkers: true, onEvent: (e) => events.push(e) })
      .run('Fetch both reports');
    expect(outcome.status).toBe('done');
    expect(spans.map((s) => s.task).sort()).toEqual(['north', 'south']);
    const [a, b] = spans as [(typeof spans)[0], (typeof spans)[0]];
    // Side by side: each started before the other ended.
    expect(a.start).toBeLessThan(b.end);
    expect(b.start).toBeLessThan(a.end);
    // The results, read back from the parent's session: one tool turn per call, in the order of the calls.
    const transcript = await chat.transcript();
    const calls = transcript.flatMap((t) => t.blocks.flatMap((x) => (x.type === 'tool_use' ? [x.callId] : [])));
    const results = transcript.flatMap((t) => t.blocks.flatMap((x) => (x.type === 'tool_result' ? [x.callId] : [])));
    expect(results).toEqual(calls);
    const texts = transcript.flatMap((t) => t.blocks.flatMap((x) => (x.type === 'tool_result' ? [JSON.stringify(x.content)] : [])));
    expect(texts[0]).toContain('report on north');
    expect(texts[1]).toContain('report on south');
    // Each streamed its own events, interleaved: both started before either ended.
    const lifecycle = events.filter((e) => (e.type === 'worker-start' || e.type === 'worker-end') && e.worker.depth === 1).map((e) => e.type);
    expect(lifecycle).toEqual(['worker-start', 'worker-start', 'worker-end', 'worker-end']);
    expect(workersOf(ws).map((w) => w.status)).toEqual(['done', 'done']);
    await ws.close();
  });

  it('runs at most `concurrency` at once', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const { action, spans } = timedAction(60);
    await ws
      .worker({ session: chat, model: treeModel(['a', 'b', 'c', 'd', 'e']), actions: [action], subWorkers: { concurrency: 2 } })
      .run('Fetch five reports');
    expect(spans).toHaveLength(5);
    // At no moment were more than two actions running, and at some moment two were.
    expect(mostAtOnce(spans)).toBe(2);
    // concurrency 1: one after another.
    const one = await ws.sessions.create();
    const serial = timedAction(30);
    await ws.worker({ session: one, model: treeModel(['x', 'y']), actions: [serial.action], subWorkers: { concurrency: 1 } }).run('Fetch two');
    const [x, y] = serial.spans as [(typeof spans)[0], (typeof spans)[0]];
    expect(x.end).toBeLessThanOrEqual(y.start);
    expect(() => ws.worker({ session: one, model: treeModel([]), subWorkers: { concurrency: 0 } })).toThrow(/concurrency must be a whole number of at least 1/);
    await ws.close();
  });

  it('an approval asked by one sub-worker pauses the others at their next step until it is answered', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const timeline: string[] = [];
    const deploy = defineAction({
      name: 'deploy',
      description: 'Deploys.',
      input: z.object({ task: z.string() }),
      trust: 'supervised',
      run: ({ task }) => (timeline.push(`deploy ${task}`), 'deployed'),
    });
    const { action: fetch } = timedAction(10);
    const model = scriptedModel((prompt): ScriptedResponse => {
      if (isSubWorker(prompt)) {
        const task = taskOf(prompt);
        timeline.push(`model ${task}`);
        const results = prompt.messages.flatMap((m) => m.content).filter((p) => p.type === 'tool-result').length;
        if (task === 'ship' && results === 0) return { toolCalls: [{ name: 'deploy', input: { task } }] };
        if (task === 'read' && results < 2) return { toolCalls: [{ name: 'fetch_page', input: { task } }] };
        return { text: `${task} done` };
      }
      if (answered(prompt)) return { text: 'ok' };
      return {
        toolCalls: [
          { name: 'spawn_worker', input: { task: 'ship' } },
          { name: 'spawn_worker', input: { task: 'read' } },
        ],
      };
    });
    const requestApproval = async (request: ApprovalRequest) => {
      timeline.push(`asked ${request.description}`);
      await wait(120); // the user takes a while; meanwhile the tree waits
      timeline.push('answered');
      return { approved: true as const };
    };
    const outcome = await ws.worker({ session: chat, model, actions: [deploy, fetch], subWorkers: true, requestApproval }).run('Ship and read');
    expect(outcome.status).toBe('done');
    const asked = timeline.findIndex((t) => t.startsWith('asked'));
    const answer = timeline.indexOf('answered');
    // Nothing of the other worker happened while the user was being asked.
    expect(timeline.slice(asked + 1, answer)).toEqual([]);
    expect(timeline).toContain('deploy ship');
    expect(timeline.filter((t) => t === 'model read').length).toBeGreaterThanOrEqual(2);
    await ws.close();
  });

  it('with nobody to ask, the run pauses: the finished sub-worker reports, and resuming finishes the waiting one without running anything twice', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const { action: fetch, spans } = timedAction(20);
    const deployed: string[] = [];
    const deploy = defineAction({
      name: 'deploy',
      description: 'Deploys.',
      input: z.object({ task: z.string() }),
      trust: 'supervised',
      run: ({ task }) => (deployed.push(task), 'deployed'),
    });
    const model = scriptedModel((prompt): ScriptedResponse => {
      if (isSubWorker(prompt)) {
        const task = taskOf(prompt);
        if (answered(prompt)) return { text: `${task} done` };
        return task === 'ship' ? { toolCalls: [{ name: 'deploy', input: { task } }] } : { toolCalls: [{ name: 'fetch_page', input: { task } }] };
      }
      if (answered(prompt) && !said(prompt).includes('waiting')) return { text: 'both done' };
      return {
        toolCalls: [
          { name: 'spawn_worker', input: { task: 'ship' }, callId: 'c-ship' },
          { name: 'spawn_worker', input: { task: 'read' }, callId: 'c-read' },
        ],
      };
    });
    const events: WorkerEvent[] = [];
    const worker = ws.worker({ session: chat, model, actions: [deploy, fetch], subWorkers: true, onEvent: (e) => events.push(e) });
    const paused = await worker.run('Ship and read');
    expect(paused.status).toBe('paused');
    // Each sub-worker is shown as ended, the waiting one as waiting (a front end keeping it live would wait for ever).
    expect(
      events
        .filter((e) => e.type === 'worker-end' && e.worker.depth === 1)
        .map((e) => [e.worker.task, (e as { status: string }).status])
        .sort(),
    ).toEqual([
      ['read', 'done'],
      ['ship', 'waiting'],
    ]);
    expect(
      workersOf(ws)
        .map((w) => [w.task, w.status])
        .sort(),
    ).toEqual([
      ['read', 'done'],
      ['ship', 'running'],
    ]);
    expect(spans.map((s) => s.task)).toEqual(['read']);
    expect(deployed).toEqual([]);
    await ws.approvals.answer(paused.approval?.id ?? '', { approved: true });
    const resumed = await worker.run();
    expect(resumed.status).toBe('done');
    expect(deployed).toEqual(['ship']);
    expect(spans.map((s) => s.task)).toEqual(['read']); // the finished one was not run again
    const results = (await chat.transcript()).flatMap((t) => t.blocks.flatMap((x) => (x.type === 'tool_result' ? [x.callId] : [])));
    expect(results).toEqual(['c-ship', 'c-read']);
    await ws.close();
  });

  it('killed while both sub-workers are mid-action, it resumes each one without running a started action again', async () => {
    const dir = tempDir();
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let sessionId = '';
    const started = new Set<string>();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString('utf8');
        for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
          const line = JSON.parse(buffered.slice(0, end)) as { step: string; id?: string; task?: string };
          buffered = buffered.slice(end + 1);
          if (line.step === 'session') sessionId = line.id ?? '';
          if (line.step === 'started') started.add(line.task ?? '');
          // Both actions are running at once: the process dies now.
          if (started.size === 2) child.kill('SIGKILL');
        }
      });
      child.on('exit', () => (started.size === 2 ? resolve() : reject(new Error(`the child exited first: ${stderr}`))));
    });
    const ws = await createWorkspace({ dir });
    const session = ws.sessions.get(sessionId);
    if (session === undefined) throw new Error('no session');
    await session.load();
    const again: string[] = [];
    const fetchPage = defineAction({
      name: 'fetch_page',
      description: 'Fetches a page of the report.',
      input: z.object({ task: z.string() }),
      run: ({ task }) => (again.push(task), 'fetched'),
    });
    const worker = ws.worker({ session, model: parallelTreeModel(), actions: [fetchPage], subWorkers: true });
    expect(worker.interrupted()).toBe(true);
    const outcome = await worker.run();
    expect(outcome.status).toBe('done');
    expect(again).toEqual([]); // neither started action ran a second time
    expect(readFileSync(join(dir, 'effects.log'), 'utf8').split('\n').filter(Boolean).sort()).toEqual(['start north', 'start south']);
    expect(
      workersOf(ws)
        .map((w) => [w.task, w.status])
        .sort(),
    ).toEqual([
      ['north', 'done'],
      ['south', 'done'],
    ]);
    // Each sub-worker was told its action's effect is unknown, and the parent got both reports in call order.
    for (const w of workersOf(ws)) expect(JSON.stringify(await ws.sessions.get(w.id)?.transcript())).toContain('whether it took effect is unknown');
    const results = (await session.transcript()).flatMap((t) => t.blocks.flatMap((x) => (x.type === 'tool_result' ? [x.callId] : [])));
    expect(results).toEqual(['spawn-north', 'spawn-south']);
    await ws.close();
  });

  it('in manual mode, file writes of sub-workers side by side join the one staged commit, neither lost', async () => {
    const root = tempDir();
    const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(root, 'README.md'), 'hello\n');
    git('add', '.');
    git('commit', '-qm', 'init');
    const ws = await createWorkspace({ dir: join(root, '.golem') });
    writeFileSync(join(root, '.golem', '.gitignore'), '*\n');
    const chat = await ws.sessions.create();
    const model = scriptedModel((prompt): ScriptedResponse => {
      if (isSubWorker(prompt)) {
        const task = taskOf(prompt);
        if (answered(prompt)) return { text: `wrote ${task}` };
        return { toolCalls: [{ name: 'write_file', input: { path: `docs/${task}.md`, content: `# ${task}\n` } }] };
      }
      if (answered(prompt)) return { text: 'Both are staged.' };
      return { toolCalls: ['north', 'south', 'east'].map((task) => ({ name: 'spawn_worker', input: { task } })) };
    });
    const outcome = await ws.worker({ session: chat, model, actions: projectActions(), project: { root }, subWorkers: true }).run('Write the three pages');
    expect(outcome.status).toBe('done');
    expect(git('status', '--porcelain')).toBe(''); // nothing written to the project
    const items = ws.clearance.list();
    expect(items).toHaveLength(1);
    expect([...(items[0]?.metadata as { files: string[] }).files].sort()).toEqual(['docs/east.md', 'docs/north.md', 'docs/south.md']);
    await ws.clearance.push(items[0]?.id ?? '');
    for (const task of ['north', 'south', 'east']) expect(readFileSync(join(root, 'docs', `${task}.md`), 'utf8')).toBe(`# ${task}\n`);
    await ws.close();
  });

  it("workers started by the same answer do not get each other's results, whichever finishes first; a later answer's do", async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const { action } = timedAction(5);
    const firstMessages: Record<string, string> = {};
    const model = scriptedModel((prompt): ScriptedResponse => {
      if (isSubWorker(prompt)) {
        const task = taskOf(prompt);
        firstMessages[task] ??= said(prompt);
        if (answered(prompt)) return { text: `report on ${task}` };
        return { toolCalls: [{ name: 'fetch_page', input: { task } }] };
      }
      const results = prompt.messages.flatMap((m) => m.content).filter((p) => p.type === 'tool-result').length;
      if (results === 0) return { toolCalls: ['a', 'b', 'c'].map((task) => ({ name: 'spawn_worker', input: { task } })) };
      if (results === 3) return { toolCalls: [{ name: 'spawn_worker', input: { task: 'summary' } }] };
      return { text: 'done' };
    });
    // One at a time: a finishes before c starts, and still c is not given a's result.
    await ws.worker({ session: chat, model, actions: [action], subWorkers: { concurrency: 1 } }).run('Three, then a summary');
    for (const task of ['a', 'b', 'c']) expect(firstMessages[task], task).not.toContain('Results of earlier workers');
    expect(firstMessages.summary).toContain('Results of earlier workers');
    for (const task of ['a', 'b', 'c']) expect(firstMessages.summary).toContain(`report on ${task}`);
    // The model is told how they run.
    expect(model.calls[0]?.system).toContain('The spawn_worker calls of one answer run one at a time, in order.');
    await ws.close();
  });

  it('asks one approval at a time, even when two workers side by side both need one', async () => {
    const ws = await createWorkspace();
    const chat = await ws.sessions.create();
    const deploy = defineAction({
      name: 'deploy',
      description: 'Deploys.',
      input: z.object({ task: z.string() }),
      trust: 'supervised',
      run: () => 'deployed',
    });
    const model = scriptedModel((prompt): ScriptedResponse => {
      if (isSubWorker(prompt)) {
        const task = taskOf(prompt);
        if (answered(prompt)) return { text: `${task} shipped` };
        return { toolCalls: [{ name: 'deploy', input: { task } }] };
      }
      if (answered(prompt)) return { text: 'ok' };
      return { toolCalls: ['eu', 'us'].map((task) => ({ name: 'spawn_worker', input: { task } })) };
    });
    let open = 0;
    let most = 0;
    const requestApproval = async () => {
      most = Math.max(most, ++open);
      await wait(40);
      open--;
      return { approved: true as const };
    };
    const outcome = await ws.worker({ session: chat, model, actions: [deploy], subWorkers: true, requestApproval }).run('Ship both');
    expect(outcome.status).toBe('done');
    expect(most).toBe(1);
    await ws.close();
  });
});
