/**
 * The capacity model's measured costs (`npm run bench:capacity`; issue 38, section 5;
 * docs/scaling.md). For these operations, on SQLite (durability 'full') and on PostgreSQL,
 * the CPU each one costs at steady state, after a warm-up:
 *
 * - an append: `session.addTurn` of a 130-character text turn; beside it, the store's floor
 *   (a bare single-row INSERT of the same JSON);
 * - a cold read: `manager.load` of a 1,000-turn session by a new handle that read a one-turn
 *   session first (its pool's connections made and warm, as a server's are);
 * - a run step: one model call of a 101-call run started by `ws.runs.start` (the scripted model
 *   from golem/test: streamed text and one autonomous tool call a call, then an answer; events
 *   kept), as bench/runs.bench.ts runs it; BENCH_CAPACITY_STEPS sets the calls;
 * - a run: the activity model's run (ACTIVITY.stepsPerRun model calls, the last the answer),
 *   whole, from its start to its release, the runs one after another on one session;
 * - a UI patch: `ws.ui.patch` setting a value and replacing a block of a ten-block form.
 *
 * Node CPU is `process.cpuUsage` (user + system; on SQLite it includes SQLite's own work and
 * its fsyncs). PostgreSQL CPU is the on-CPU time of the backends serving this process (found
 * in pg_stat_activity by an application_name of their own; /proc/<pid>/schedstat, in ns)
 * before and after; PostgreSQL's shared background processes (WAL writer, checkpointer,
 * background writer) are given apart, as they also serve whatever else uses the server.
 *
 * Each (store, operation) runs in a process of its own, BENCH_CAPACITY_ROUNDS (default 3)
 * times taking turns; the tables give the median of the rounds (each round's figure is itself
 * the median of its batches or samples). The capacity model (bench/capacity-model.ts) is
 * computed from those medians. `--write` also puts the output into docs/scaling.md between
 * its markers. BENCH_CAPACITY_ONLY=append,ui-patch picks operations.
 * A child: `capacity.bench.ts <store> <operation>`.
 */
import { execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client as PgClient } from 'pg';
import { z } from 'zod';
import { createWorkspace, defineAction, type Action, type PatchInput, type Session, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { ACTIVITY, capacityReport, OPERATIONS, STORES, type Cost, type Operation, type Store } from './capacity-model.js';
import { log, median } from './lib.js';

const ROUNDS = Number(process.env.BENCH_CAPACITY_ROUNDS ?? 3);
const PG_URL = process.env.GOLEM_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const APP = `golem_capacity_${process.pid}`;
const BACKGROUND = ['walwriter', 'checkpointer', 'background writer'];
const n = (x: number) => Math.round(x).toLocaleString('en');
const text = (i: number) => `${i} `.padEnd(130, 'x');

// --- CPU probes --------------------------------------------------------------------------

/** On-CPU nanoseconds of a process (schedstat's first field), 0 once it has gone. */
function cpuNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/** The CPU of this process's backends and of the server's background processes, read at one moment. */
async function serverCpu(monitor: PgClient | undefined): Promise<{ ours: Map<number, number>; background: number }> {
  const ours = new Map<number, number>();
  if (monitor === undefined) return { ours, background: 0 };
  const { rows } = await monitor.query<{ pid: number; mine: boolean }>(
    'SELECT pid, application_name = $1 AS mine FROM pg_stat_activity WHERE application_name = $1 OR backend_type = ANY($2)',
    [APP, BACKGROUND],
  );
  let background = 0;
  for (const { pid, mine } of rows) {
    if (mine) ours.set(pid, cpuNs(pid));
    else background += cpuNs(pid);
  }
  return { ours, background };
}

interface Sample {
  /** µs of Node CPU. */
  node: number;
  /** µs of CPU of this process's PostgreSQL backends. */
  backends: number;
  /** µs of CPU of PostgreSQL's background processes (shared with the server's other users). */
  background: number;
}

/** The CPU `fn` costs, divided by `per` (the operations it did). */
async function probe(monitor: PgClient | undefined, per: number, fn: () => Promise<unknown>): Promise<Sample> {
  const before = await serverCpu(monitor);
  const start = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(start);
  const after = await serverCpu(monitor);
  // A backend that started meanwhile counts from 0; one that ended took its CPU with it (the pool keeps them for longer than a probe).
  let backends = 0;
  for (const [pid, ns] of after.ours) backends += ns - (before.ours.get(pid) ?? 0);
  return { node: (used.user + used.system) / per, backends: backends / 1000 / per, background: (after.background - before.background) / 1000 / per };
}

const medianSample = (samples: Sample[]): Sample => ({
  node: median(samples.map((s) => s.node)),
  backends: median(samples.map((s) => s.backends)),
  background: median(samples.map((s) => s.background)),
});

/** The median of `batches` probes of `batch` calls of `op` one after another. */
async function batched(monitor: PgClient | undefined, batches: number, batch: number, op: () => Promise<unknown>): Promise<Sample> {
  const samples: Sample[] = [];
  for (let b = 0; b < batches; b++)
    samples.push(
      await probe(monitor, batch, async () => {
        for (let k = 0; k < batch; k++) await op();
      }),
    );
  return medianSample(samples);
}

// --- The operations ----------------------------------------------------------------------

interface Context {
  store: Store;
  /** The SQLite workspace's folder (a scratch folder of this process). */
  dir: string;
  /** The PostgreSQL workspace's schema. */
  schema: string;
  open: () => Promise<Workspace>;
  monitor: PgClient | undefined;
}

/** Appends of a text turn, one at a time: the median of the batches, after a warm-up; and the store's floor beside. */
async function appends(context: Context): Promise<Cost> {
  const { open, monitor } = context;
  const [warmup, batches, batch] = [3000, 10, 200];
  const ws = await open();
  let cost: Sample;
  try {
    const session = await ws.sessions.create({ label: 'capacity' });
    let i = 0;
    const add = () => session.addTurn({ role: 'user', blocks: [{ type: 'text', text: text(i++) }] });
    while (i < warmup) await add();
    cost = await batched(monitor, batches, batch, add);
  } finally {
    await ws.close();
  }
  const floor = await bareInserts(context, warmup, batches, batch);
  return { ...cost, floor, commands: 1, detail: `${batches} batches of ${batch} after ${warmup}` };
}

/** The floor beside an append: a bare single-row INSERT of the same JSON (SQLite in WAL with synchronous = FULL; PostgreSQL autocommitted). */
async function bareInserts({ store, dir, schema, monitor }: Context, warmup: number, batches: number, batch: number): Promise<Sample> {
  let i = 0;
  const json = () => JSON.stringify({ type: 'text', text: text(i++) });
  if (store === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(join(dir, 'bare.db'));
    try {
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, value TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO t (value) VALUES (?)');
      const add = () => Promise.resolve(insert.run(json()));
      while (i < warmup) await add();
      return await batched(monitor, batches, batch, add);
    } finally {
      db.close();
    }
  }
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: PG_URL, application_name: APP });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`CREATE TABLE "${schema}".bare (id BIGSERIAL PRIMARY KEY, value TEXT NOT NULL)`);
    const add = () => client.query({ name: 'bare', text: `INSERT INTO "${schema}".bare (value) VALUES ($1)`, values: [json()] });
    while (i < warmup) await add();
    return await batched(monitor, batches, batch, add);
  } finally {
    await client.end();
  }
}

async function coldReads({ open, monitor }: Context): Promise<Cost> {
  const [turns, warmup, reads] = [1000, 3, 15];
  const ws = await open();
  const small = await ws.sessions.create({ label: 'small' });
  await small.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'warm' }] });
  const big = await ws.sessions.create({ label: 'cold' });
  for (let i = 0; i < turns; i++) await big.addTurn({ role: i % 2 === 0 ? 'user' : 'assistant', blocks: [{ type: 'text', text: text(i) }] });
  await ws.close();
  const samples: Sample[] = [];
  let cache = '';
  for (let r = 0; r < warmup + reads; r++) {
    const reader = await open();
    try {
      await reader.manager.load([small.id]);
      const before = reader.manager.cacheStats().bytes;
      const sample = await probe(monitor, 1, () => reader.manager.load([big.id]));
      const after = reader.manager.cacheStats();
      cache = `; it takes ${((after.bytes - before) / 2 ** 20).toFixed(2)} MB of a process's session cache (by default at most ${after.maxSessions.toLocaleString('en')} sessions, ${(after.maxBytes / 2 ** 20).toFixed(0)} MB)`;
      if (r >= warmup) samples.push(sample);
    } finally {
      await reader.close();
    }
  }
  return { ...medianSample(samples), commands: 0, detail: `${reads} reads of ${turns} turns after ${warmup}${cache}` };
}

/** The tool the scripted model calls each step; it runs on its own (no approval). */
const publish = defineAction({
  name: 'publish',
  description: 'Publishes a page.',
  input: z.strictObject({ page: z.string() }),
  trust: 'autonomous',
  run: ({ page }) => `published ${page}`,
}) as Action;

/** `count` calls of text and a tool call, then an answer; each call lets the event loop turn, as a network reply does. */
function steps(count: number): ScriptStep[] {
  const later = (response: { text: string; toolCalls?: { name: string; input: { page: string } }[] }) => async () =>
    new Promise<typeof response>((resolve) => setImmediate(() => resolve(response)));
  return [
    ...Array.from({ length: count }, (_, i) =>
      later({ text: `Page ${i} reads well and its links resolve, so I am publishing it.`, toolCalls: [{ name: 'publish', input: { page: `p${i}` } }] }),
    ),
    later({ text: `The ${count} pages are published.` }),
  ];
}

/**
 * Runs of `calls` model calls (the last one the answer) started by `ws.runs.start`, `warmup`
 * then `runs` measured; the cost per model call (`perCall`) or per run. `oneSession`: every
 * run on the same session, one after another, as a conversation goes; else each on a new one.
 */
async function measuredRuns(
  { open, monitor }: Context,
  plan: { calls: number; warmup: number; runs: number; perCall: boolean; oneSession: boolean },
): Promise<Cost> {
  const { calls, warmup, runs, perCall, oneSession } = plan;
  const ws = await open();
  try {
    const conversation = await ws.sessions.create({});
    const run = async (session: Session) => {
      const started = await ws.runs.start({
        sessionId: session.id,
        input: `Publish the ${calls - 1} pages.`,
        agent: { model: scriptedModel(steps(calls - 1)), actions: [publish], maxSteps: calls },
      });
      const { outcome } = await started.done;
      if (outcome?.status !== 'done' || outcome.steps !== calls) throw new Error(`the run ended ${outcome?.status} after ${outcome?.steps} steps`);
    };
    const samples: Sample[] = [];
    const commands: number[] = [];
    const per = perCall ? calls : 1;
    for (let r = 0; r < warmup + runs; r++) {
      const session = oneSession ? conversation : await ws.sessions.create({});
      const seq = await ws.manager.store.lastSeq();
      const sample = await probe(monitor, per, () => run(session));
      commands.push(((await ws.manager.store.lastSeq()) - seq) / per);
      if (r >= warmup) samples.push(sample);
    }
    const where = oneSession ? 'one after another on one session' : 'each on a new session';
    return { ...medianSample(samples), commands: median(commands), detail: `${runs} runs of ${calls} model calls after ${warmup}, ${where}` };
  } finally {
    await ws.close();
  }
}

/** A ten-block form, then a value set and a block replaced per patch. */
async function uiPatches({ open, monitor }: Context): Promise<Cost> {
  const [warmup, batches, batch] = [500, 10, 200];
  const ws = await open();
  try {
    const made = await ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: 'survey', patches: [] });
    const block = (i: number, label: string) => ({
      id: `q${i}`,
      type: 'form',
      bind: 'state.params',
      props: { fields: [{ label, key: `q${i}`, type: 'text' }] },
    });
    const built =
      made.success &&
      (await ws.ui.patch({
        instanceId: 'survey',
        patches: [{ op: 'add', path: 'blocks+', items: Array.from({ length: 10 }, (_, i) => block(i, `Question ${i}`)) }],
      }));
    if (built === false || !built.success) throw new Error('the form was refused');
    let i = 0;
    const patch = async () => {
      const call: PatchInput = {
        instanceId: 'survey',
        patches: [
          { op: 'set', path: 'state.params.answered', value: i },
          { op: 'set', path: `blocks["q${i % 10}"]`, value: block(i % 10, `Question ${i % 10} (seen ${i})`) },
        ],
      };
      i++;
      const result = await ws.ui.patch(call);
      if (!result.success) throw new Error(`the patch was refused: ${JSON.stringify(result.errors[0])}`);
    };
    while (i < warmup) await patch();
    return { ...(await batched(monitor, batches, batch, patch)), commands: 1, detail: `${batches} batches of ${batch} after ${warmup}` };
  } finally {
    await ws.close();
  }
}

/**
 * What another process's append costs this one, which holds another session of the workspace:
 * it is told of each command (LISTEN/NOTIFY) and catches up from the log. An appender
 * (this script, `postgres appender <schema>`) appends `warmup` turns, then `count` measured.
 * `busy`: this process appends to its own session all along, so that it hears most commands
 * with its own appends' answers; the cost is then what its CPU per own append grows by while
 * the appender runs, per command heard.
 */
async function heardAppends({ open, monitor, schema }: Context, busy: boolean): Promise<Cost> {
  const [warmup, count] = [1000, 2000];
  const ws = await open();
  const own = await ws.sessions.create({ label: 'listener' });
  let j = 0;
  const addOwn = () => own.addTurn({ role: 'user', blocks: [{ type: 'text', text: text(j++) }] });
  await addOwn();
  const appender = fork(process.argv[1] as string, ['postgres', 'appender', schema, String(warmup), String(count)], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let finished = false;
  const said = (what: string) =>
    new Promise<void>((resolve, reject) => {
      appender.on('message', (message) => message === what && resolve());
      appender.once('exit', (code) => reject(new Error(`the appender exited with ${code} before "${what}"`)));
    });
  try {
    await said('ready');
    const detail = `${count} appends by another process after ${warmup}`;
    if (!busy) {
      const sample = await probe(monitor, count, async () => {
        const done = said('done');
        appender.send('go');
        await done;
        // Time to hear the last commands; an idle process spends next to nothing meanwhile.
        await new Promise((resolve) => setTimeout(resolve, 500));
      });
      return { ...sample, commands: 0, detail };
    }
    const alone = 1000;
    for (let k = 0; k < alone; k++) await addOwn();
    const base = await probe(monitor, alone, async () => {
      for (let k = 0; k < alone; k++) await addOwn();
    });
    const done = said('done').then(() => (finished = true));
    const seq = await ws.manager.store.lastSeq();
    const before = j;
    const both = await probe(monitor, 1, async () => {
      appender.send('go');
      while (!finished) await addOwn();
      await done;
    });
    const mine = j - before;
    const heard = (await ws.manager.store.lastSeq()) - seq - mine;
    const extra = (pick: (s: Sample) => number) => (pick(both) - mine * pick(base)) / heard;
    return {
      node: extra((x) => x.node),
      backends: extra((x) => x.backends),
      background: extra((x) => x.background),
      commands: 0,
      detail: `${detail}, while this one made ${mine} of its own (${n(base.node)} µs of Node CPU each alone)`,
    };
  } finally {
    appender.kill();
    await ws.close();
  }
}

/** The other side of `heardAppends`: appends when told, says when done. */
async function appender(schema: string, warmup: number, count: number): Promise<void> {
  // Its backends are not the listener's (which this process's environment, inherited, names).
  process.env.PGAPPNAME = `golem_capacity_appender_${process.pid}`;
  const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
  const session = await ws.sessions.create({ label: 'appender' });
  let i = 0;
  const add = () => session.addTurn({ role: 'user', blocks: [{ type: 'text', text: text(i++) }] });
  while (i < warmup) await add();
  const go = new Promise((resolve) => process.once('message', resolve));
  process.send?.('ready');
  await go;
  while (i < warmup + count) await add();
  process.send?.('done');
  await new Promise((resolve) => process.once('disconnect', resolve));
  await ws.close();
}

const MEASURE: Record<Operation, (context: Context) => Promise<Cost>> = {
  append: appends,
  'cold-read': coldReads,
  'run-step': (context) =>
    measuredRuns(context, { calls: Number(process.env.BENCH_CAPACITY_STEPS ?? 101), warmup: 2, runs: 6, perCall: true, oneSession: false }),
  heard: (context) => heardAppends(context, false),
  'heard-busy': (context) => heardAppends(context, true),
  run: (context) => measuredRuns(context, { calls: ACTIVITY.stepsPerRun, warmup: 5, runs: 30, perCall: false, oneSession: true }),
  'ui-patch': uiPatches,
};

async function child(store: Store, operation: Operation): Promise<Cost> {
  const dir = mkdtempSync(join(tmpdir(), 'golem-bench-capacity-'));
  const schema = `bench_capacity_${randomBytes(4).toString('hex')}`;
  const pg = (await import('pg')).default;
  let monitor: PgClient | undefined;
  if (store === 'postgres') {
    // node-postgres names its connections by PGAPPNAME: this process's backends are found by it.
    process.env.PGAPPNAME = APP;
    monitor = new pg.Client({ connectionString: PG_URL, application_name: `${APP}_monitor` });
    monitor.on('error', () => undefined);
    await monitor.connect();
  }
  const open = () => createWorkspace(store === 'sqlite' ? { dir, durability: 'full' } : { store: postgresStore(PG_URL, { schema }) });
  try {
    return await MEASURE[operation]({ store, dir, schema, open, monitor });
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (monitor !== undefined) {
      await monitor.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await monitor.end();
    }
  }
}

// --- The parent --------------------------------------------------------------------------

const [, script, childStore, childOperation] = process.argv;
if (childOperation === 'appender') {
  await appender(process.argv[4] as string, Number(process.argv[5]), Number(process.argv[6]));
} else if (childStore !== undefined && childStore !== '--write' && childOperation !== undefined) {
  console.log(JSON.stringify(await child(childStore as Store, childOperation as Operation)));
} else {
  const here = resolve(import.meta.dirname, '..');
  const only = process.env.BENCH_CAPACITY_ONLY?.split(',') ?? [...OPERATIONS];
  const results = new Map<string, Cost[]>();
  const began = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    for (const operation of OPERATIONS.filter((o) => only.includes(o))) {
      for (const store of STORES.filter((s) => !operation.startsWith('heard') || s === 'postgres')) {
        log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] round ${round + 1}/${ROUNDS}: ${operation} on ${store}`);
        const out = execFileSync(process.execPath, ['--import', 'tsx', script as string, store, operation], { cwd: here, encoding: 'utf8' });
        const key = `${store} ${operation}`;
        results.set(key, [...(results.get(key) ?? []), JSON.parse(out.trim().split('\n').at(-1) as string) as Cost]);
      }
    }
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: here, encoding: 'utf8' }).trim();
  const tree = `commit ${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--untracked-files=no', 'src') === '' ? '' : ' with uncommitted changes in src/'}`;
  const machine = `${tree}, ${availableParallelism()} cores (${cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, ${new Date().toISOString().slice(0, 16)}Z`;
  const report = capacityReport(results, { rounds: ROUNDS, machine });
  console.log(report);
  if (process.argv.includes('--write')) {
    const doc = join(here, 'docs/scaling.md');
    const [begin, end] = ['<!-- bench:capacity begin -->', '<!-- bench:capacity end -->'];
    const page = readFileSync(doc, 'utf8');
    const [from, to] = [page.indexOf(begin), page.indexOf(end)];
    if (from < 0 || to < from) throw new Error(`docs/scaling.md has no ${begin} … ${end} section`);
    writeFileSync(doc, `${page.slice(0, from + begin.length)}\n${report}\n${page.slice(to)}`);
    log('docs/scaling.md: the measured section is rewritten');
  }
}
