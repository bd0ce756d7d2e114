/**
 * Runs benchmarks (issue 36; part of `npm run bench`): what `ws.runs` adds to a run.
 *
 * 1. Starting a run on SQLite, besides the model: claim → run → done with a body that returns
 *    at once, and a worker run with a scripted model answering at once, through `ws.runs` and
 *    without it (the difference is the run's cost).
 * 2. Following from another process on PostgreSQL (127.0.0.1:5432, or
 *    GOLEM_BENCH_DATABASE_URL; a schema of its own, dropped at the end): a child process
 *    (runs-child.ts) holds a run and pushes text deltas a few ms apart, each carrying the time
 *    it was pushed; this process follows the run and takes, for each, the time it arrived.
 * 3. A 100-step scripted run (streamed text and one autonomous tool call a step, then an
 *    answer): the bytes of its kept events (`run_event` records) and their share of the bytes
 *    of the turns it wrote.
 * 4. The time of a step of that run with its events kept and without (`keepEvents: false`,
 *    today's cost), and by the worker alone, without `ws.runs`.
 *
 * SQLite's rows are taken with its default durability (each commit fsynced) and with 'normal'.
 * Where two kinds of run are compared, they run back to back, and the figure is the median of
 * the pairs' differences or ratios: a slow spell of the machine falls on both of a pair.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { createWorkspace, defineAction, RunService, type Action, type Session, type WorkerOutcome, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { scriptedModel, type ScriptedResponse, type ScriptStep } from '../src/test/index.js';
import type { ChildMessage, HoldTask, ParentMessage } from './runs-child.js';
import { RUN_LOG_BATCH_MS } from '../src/agent/run-log.js';
import { fmt, log, median, printTable, timeEach, type Row } from './lib.js';

const url = process.env.GOLEM_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const rows: Row[] = [];
const notes: string[] = [];

/** An action the model calls on its own (no approval): it "deploys" and says so. */
const deploy = defineAction({
  name: 'deploy',
  description: 'Deploys the site to a target.',
  input: z.strictObject({ target: z.string() }),
  trust: 'autonomous',
  run: ({ target }) => `deployed to ${target}`,
}) as Action;

/** The q-th quantile of `values` (nearest rank). */
function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] as number;
}

/** A wall-clock time in milliseconds, finer than `Date.now()` (the child's clock is the same). */
const now = (): number => performance.timeOrigin + performance.now();

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

// --- 1. Starting a run on SQLite ---------------------------------------------------------

/** The medians of an empty run, a worker run through `ws.runs`, and the same worker run without it. */
async function startingARun(ws: Workspace): Promise<{ empty: number; through: number; alone: number; cost: number }> {
  const samples = 150;
  const model = scriptedModel({ text: 'Done.' });
  // A fresh session for each worker run, so that no run reads a longer history than another.
  const sessions = async (n: number) => Promise.all(Array.from({ length: n }, () => ws.sessions.create({})));
  const bare = await ws.sessions.create({});
  const emptyRun = async () => void (await (await ws.runs.claim(bare.id)).run(() => Promise.resolve()).done);
  const throughRuns = async (session: Session) => {
    const claim = await ws.runs.claim(session.id);
    const { outcome } = await claim.run(({ signal, log: runLog, steer }) =>
      ws.worker({ session, model, onEvent: (event) => runLog.push({ type: 'event', event }), steer }).run('hello', { signal }),
    ).done;
    if (outcome?.status !== 'done') throw new Error(`the run through ws.runs ended ${outcome?.status}`);
  };
  const alone = async (session: Session) => {
    const outcome = await ws.worker({ session, model }).run('hello');
    if (outcome.status !== 'done') throw new Error(`the run ended ${outcome.status}`);
  };
  // Warm up, then take the two worker runs in turn, so that drift (and other work on the machine) falls on both alike.
  for (const s of await sessions(20)) await throughRuns(s);
  for (const s of await sessions(20)) await alone(s);
  await timeEach(20, emptyRun);
  const empty = median(await timeEach(samples, emptyRun));
  const [withRuns, withoutRuns] = [await sessions(samples), await sessions(samples)];
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < samples; i++) {
    a.push(...(await timeEach(1, () => throughRuns(withRuns[i] as Session))));
    b.push(...(await timeEach(1, () => alone(withoutRuns[i] as Session))));
  }
  return { empty, through: median(a), alone: median(b), cost: median(a.map((x, i) => x - (b[i] as number))) };
}

async function startingRuns(full: Workspace, normal: Workspace): Promise<void> {
  log('starting a run (SQLite)...');
  const { empty, through, alone, cost } = await startingARun(full);
  rows.push({ measure: '1. claim → run → done, a body that returns at once (SQLite)', value: fmt(empty), target: '' });
  rows.push({ measure: '   a worker run through ws.runs (scripted model, at once)', value: fmt(through), target: '' });
  rows.push({ measure: '   the same worker run without ws.runs', value: fmt(alone), target: '' });
  rows.push({ measure: '   starting a run: the difference (median of the pairs)', value: fmt(cost), target: '≤ 1 ms', ok: cost <= 1 });
  const relaxed = await startingARun(normal);
  rows.push({
    measure: `   the same with durability 'normal' (${fmt(relaxed.through)} vs ${fmt(relaxed.alone)}; empty run ${fmt(relaxed.empty)})`,
    value: fmt(relaxed.cost),
    target: '≤ 1 ms',
    ok: relaxed.cost <= 1,
  });
}

// --- 2. Following from another process on PostgreSQL --------------------------------------

async function followingElsewhere(): Promise<void> {
  log('following from another process (PostgreSQL)...');
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const ws = await createWorkspace({ store: postgresStore(url, { schema }) });
  let proc: ChildProcess | undefined;
  try {
    const session = await ws.sessions.create({});
    const task: HoldTask = { url, schema, sessionId: session.id, count: 300, gapMs: 4 };
    const holder = fork(fileURLToPath(new URL('./runs-child.ts', import.meta.url)), [JSON.stringify(task)], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    proc = holder;
    const exited = new Promise<void>((resolve, reject) =>
      holder.on('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`the holder exited with ${code ?? signal}`)))),
    );
    exited.catch(() => undefined);
    // The child's messages, each taken once by the first `next` of its type (before or after it came).
    const received: ChildMessage[] = [];
    let heard: (() => void) | undefined;
    holder.on('message', (message: ChildMessage) => (received.push(message), heard?.()));
    const next = async <T extends ChildMessage['type']>(type: T): Promise<Extract<ChildMessage, { type: T }>> => {
      for (;;) {
        const at = received.findIndex((m) => m.type === type);
        if (at >= 0) return received.splice(at, 1)[0] as Extract<ChildMessage, { type: T }>;
        await Promise.race([
          new Promise<void>((resolve) => (heard = resolve)),
          exited.then(() => Promise.reject(new Error(`the holder exited before saying "${type}"`))),
        ]);
      }
    };
    const tell = (message: ParentMessage) => holder.send(message);

    const { runId } = await next('claimed');
    // How far the child's clock is ahead of this one's: from the ping with the shortest round trip.
    let offset = 0;
    let best = Infinity;
    for (let i = 0; i < 20; i++) {
      const sent = now();
      const answer = next('clock');
      tell({ type: 'clock' });
      const { at } = await answer;
      const back = now();
      if (back - sent < best) [best, offset] = [back - sent, at - (sent + back) / 2];
    }
    const latencies: number[] = [];
    for await (const { entry } of ws.runs.follow(runId)) {
      if (entry.type !== 'event') continue;
      if (entry.event.type === 'worker-start') tell({ type: 'go' });
      else if (entry.event.type === 'text-delta') latencies.push(now() - (Number(entry.event.text) - offset));
    }
    const { status } = await next('done');
    await exited;
    if (latencies.length !== task.count || status !== 'succeeded') throw new Error(`followed ${latencies.length} of ${task.count} events; the run ${status}`);
    const [p50, p99] = [quantile(latencies, 0.5), quantile(latencies, 0.99)];
    rows.push({
      measure: `2. another process's event to a follower (PostgreSQL), p50 of ${task.count}`,
      value: fmt(p50),
      target: '≤ 20 ms',
      ok: p50 <= 20,
    });
    rows.push({ measure: '   the same, p99', value: fmt(p99), target: '≤ 60 ms', ok: p99 <= 60 });
    notes.push(
      `Row 2: the holder and the follower are two processes on this ${availableParallelism()}-core machine, ` +
        `with the PostgreSQL server; events ${task.gapMs} ms apart, kept a batch every ${RUN_LOG_BATCH_MS} ms (RUN_LOG_BATCH_MS). Clocks compared over IPC (±${fmt(best / 2)}).`,
    );
  } finally {
    // A holder left waiting (this process failed first) would keep both alive.
    if (proc !== undefined && proc.exitCode === null && proc.signalCode === null) proc.kill();
    await ws.close();
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}

// --- 3 and 4. A 100-step run -------------------------------------------------------------

const STEPS = 100;

/**
 * `STEPS` model calls, each some streamed text and one deploy, then an answer. Each call
 * first lets the event loop turn once, as a model's reply over the network does: without it a
 * scripted run on SQLite (whose commits are synchronous) never reaches the timers, and its
 * events would be kept in one batch at its end instead of one every RUN_LOG_BATCH_MS.
 */
function script(): ScriptStep[] {
  const answer =
    (response: ScriptedResponse): ScriptStep =>
    async () => (await new Promise((resolve) => setImmediate(resolve)), response);
  const steps = Array.from({ length: STEPS }, (_, i) =>
    answer({
      text: `Step ${i}: the build for target t${i} passed its checks, so I am deploying it now.`,
      toolCalls: [{ name: 'deploy', input: { target: `t${i}` } }],
    }),
  );
  return [...steps, answer({ text: `All ${STEPS} targets are deployed.` })];
}

/**
 * A 100-step run on a fresh session, through `runs` (with the steer hook and its events
 * pushed to the run's log) or, with none, by the worker alone: its time per model call, and
 * its run id and session.
 */
async function longRun(ws: Workspace, runs: RunService | undefined): Promise<{ perStep: number; runId: string; session: Session }> {
  const session = await ws.sessions.create({});
  const model = scriptedModel(script());
  const options = { session, model, actions: [deploy], maxSteps: STEPS + 1 };
  const input = `Deploy the ${STEPS} targets.`;
  const start = performance.now();
  let runId = '';
  let outcome: WorkerOutcome | undefined;
  if (runs === undefined) outcome = await ws.worker(options).run(input);
  else {
    const claim = await runs.claim(session.id);
    runId = claim.id;
    ({ outcome } = await claim.run(({ signal, log: runLog, steer }) =>
      ws.worker({ ...options, onEvent: (event) => runLog.push({ type: 'event', event }), steer }).run(input, { signal }),
    ).done);
  }
  const ms = performance.now() - start;
  if (outcome?.status !== 'done' || outcome.steps !== STEPS + 1)
    throw new Error(`the ${STEPS}-step run ended ${outcome?.status} after ${outcome?.steps} steps`);
  return { perStep: ms / (STEPS + 1), runId, session };
}

interface StepTimes {
  /** Through ws.runs, its events kept. */
  kept: number[];
  /** Through ws.runs, its events not kept (`keepEvents: false`). */
  notKept: number[];
  /** By the worker alone (no lease, no steer hook, no run log), when asked for. */
  alone: number[];
  /** The last run whose events were kept. */
  last: { runId: string; session: Session };
}

/** Per-step times of `reps` runs each way, taken back to back (each rep in another order). */
async function stepTimes(ws: Workspace, reps: number, withAlone: boolean): Promise<StepTimes> {
  const keeping = new RunService(ws.manager, { keepEvents: true });
  const today = new RunService(ws.manager, { keepEvents: false });
  try {
    const times: StepTimes = { kept: [], notKept: [], alone: [], last: await longRun(ws, keeping) };
    await longRun(ws, today);
    if (withAlone) await longRun(ws, undefined);
    const kinds = [
      async () => {
        const run = await longRun(ws, keeping);
        times.kept.push(run.perStep);
        times.last = run;
      },
      async () => void times.notKept.push((await longRun(ws, today)).perStep),
      ...(withAlone ? [async () => void times.alone.push((await longRun(ws, undefined)).perStep)] : []),
    ];
    for (let i = 0; i < reps; i++) for (let k = 0; k < kinds.length; k++) await (kinds[(i + k) % kinds.length] as () => Promise<void>)();
    return times;
  } finally {
    keeping.dispose();
    today.dispose();
  }
}

/** The median of the pairs' ratios: each pair ran back to back, so a slow spell of the machine falls on both. */
const pairedRatio = (a: number[], b: number[]) => median(a.map((x, i) => x / (b[i] as number)));

async function longRuns(ws: Workspace, relaxed: Workspace): Promise<void> {
  log(`${STEPS}-step runs (SQLite)...`);
  const reps = 10;
  const { kept, notKept, alone, last } = await stepTimes(ws, reps, true);

  // 3. What the last kept run's events weigh, read back from the store, beside its session's turns.
  const records = await ws.manager.store.load();
  const events = records.filter((r) => r.collection === 'run_event' && (r.value as { runId: string }).runId === last.runId);
  const turns = records.filter((r) => r.collection === 'turn' && (r.value as { sessionId: string }).sessionId === last.session.id);
  const eventBytes = events.reduce((n, r) => n + bytesOf(r.value), 0);
  const turnBytes = turns.reduce((n, r) => n + bytesOf(r.value), 0);
  const entries = events.reduce((n, r) => n + (r.value as { count: number }).count, 0);
  rows.push({
    measure: `3. a ${STEPS}-step run's kept events: ${entries} entries in ${events.length} run_event records (JSON)`,
    value: `${eventBytes.toLocaleString('en')} B`,
    target: 'report',
  });
  rows.push({
    measure: `   their share of the bytes of its ${turns.length} turns (${turnBytes.toLocaleString('en')} B)`,
    value: `${((100 * eventBytes) / turnBytes).toFixed(1)} %`,
    target: 'report',
  });

  // 4. A step's time with its events kept, against today's.
  const ratio = pairedRatio(kept, notKept);
  rows.push({ measure: `4. a step of the ${STEPS}-step run, events kept (SQLite, ${reps} runs)`, value: fmt(median(kept)), target: '' });
  rows.push({ measure: '   the same, events not kept (keepEvents: false, today)', value: fmt(median(notKept)), target: '' });
  rows.push({ measure: '   ratio (median of the pairs run back to back)', value: `${ratio.toFixed(2)}×`, target: '≤ 1.2×', ok: ratio <= 1.2 });
  const aloneRatio = pairedRatio(kept, alone);
  rows.push({
    measure: `   a step by the worker alone, without ws.runs (${fmt(median(alone))}); kept ÷ alone`,
    value: `${aloneRatio.toFixed(2)}×`,
    target: '(≤ 1.2×)',
    ok: aloneRatio <= 1.2,
  });
  const normal = await stepTimes(relaxed, reps, false);
  const normalRatio = pairedRatio(normal.kept, normal.notKept);
  rows.push({
    measure: `   the same with durability 'normal' (${fmt(median(normal.kept))} / ${fmt(median(normal.notKept))})`,
    value: `${normalRatio.toFixed(2)}×`,
    target: '≤ 1.2×',
    ok: normalRatio <= 1.2,
  });
}

const dirs = [mkdtempSync(join(tmpdir(), 'golem-bench-runs-')), mkdtempSync(join(tmpdir(), 'golem-bench-runs-'))] as const;
try {
  const ws = await createWorkspace({ dir: dirs[0] });
  const relaxed = await createWorkspace({ dir: dirs[1], durability: 'normal' });
  try {
    await startingRuns(ws, relaxed);
    await followingElsewhere();
    await longRuns(ws, relaxed);
  } finally {
    await ws.close();
    await relaxed.close();
  }
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
notes.unshift(
  "Medians unless said; SQLite in a temp folder with its default durability ('full': each commit fsynced) unless said. " +
    'Rows 1 and 4 run the kinds they compare back to back, in one process, and take the median of the pairs; ' +
    "the 100-step runs' scripted model lets the event loop turn once a call, as a model's reply over the network does.",
);
printTable('Runs (ws.runs)', rows, notes);
