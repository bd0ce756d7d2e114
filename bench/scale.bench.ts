/**
 * The scale benchmark (`npm run bench:scale`, about 4 minutes): the figures issue 18 sets,
 * measured on today's engine. Big workspaces are stamped from a session made through the
 * API (bench/scale-fixture.ts), not appended one command at a time; every open and every
 * appender runs in a child process of its own (bench/scale-child.ts).
 *
 * BENCH_SCALE_TURNS picks the big size (default 1,000,000: 20,000 sessions of 50 turns, plus
 * one of 1,000 for the cold read); BENCH_SCALE_RUNS the opens per size (default 3);
 * BENCH_SCALE_SECONDS each appender's window (default 5); BENCH_SCALE_HEAP_MB the children's
 * --max-old-space-size (default: Node's own, unless the big workspace would not fit in it);
 * BENCH_SCALE_ONLY=open or =append one half of the benchmark alone.
 * PostgreSQL: 127.0.0.1:5432 or GOLEM_BENCH_DATABASE_URL, a schema per workspace, dropped at the end.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import pg from 'pg';
import { createWorkspace, doctor, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { buildPostgresFixture, buildSqliteFixture, captureTemplate, type BuiltFixture, type FixturePlan } from './scale-fixture.js';
import type { AppendMessage, ChildTask, OpenResult, StartLine, Where } from './scale-child.js';
import { fmt, log, median, printTable, type Row } from './lib.js';

const url = process.env.GOLEM_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PER_SESSION = 50;
const COLD_TURNS = 1_000;
const SMALL_TURNS = 1_000;
const TURNS = Number(process.env.BENCH_SCALE_TURNS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 5);
const SAMPLES = 500;
/** BENCH_SCALE_ONLY=open or =append measures that half alone (default: both). */
const PARTS = new Set(process.env.BENCH_SCALE_ONLY !== undefined ? process.env.BENCH_SCALE_ONLY.split(',') : ['open', 'append']);
// About 1.3 KB of heap per turn today; give the children room when the big workspace would not fit in Node's default heap.
const defaultHeapMb = Math.floor(getHeapStatistics().heap_size_limit / 2 ** 20);
const needHeapMb = Math.ceil((TURNS * 2_000) / 2 ** 20);
const HEAP_MB =
  process.env.BENCH_SCALE_HEAP_MB !== undefined ? Number(process.env.BENCH_SCALE_HEAP_MB) : needHeapMb > defaultHeapMb ? 2 * needHeapMb : undefined;

const began = performance.now();
const progress = (text: string) => log(`[${((performance.now() - began) / 1000).toFixed(0).padStart(4)} s] ${text}`);
const n = (x: number) => Math.round(x).toLocaleString('en');
const secs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : fmt(ms));
const mb = (bytes: number) => `${n(bytes / 2 ** 20)} MB`;
const turnText = (i: number) =>
  `Turn ${i}: a message of ordinary length, about two hundred bytes, the size of a typical chat turn in a working session with an agent.`;

const base = `scale_${randomBytes(4).toString('hex')}`;
const schemas = new Set<string>();
const dirs: string[] = [];
const admin = new pg.Client({ connectionString: url });
admin.on('error', () => undefined);

function schemaFor(name: string): Extract<Where, { store: 'postgres' }> {
  const schema = `${base}_${name}`;
  schemas.add(schema);
  return { store: 'postgres', url, schema };
}

async function drop(where: Extract<Where, { store: 'postgres' }>): Promise<void> {
  await admin.query(`DROP SCHEMA IF EXISTS "${where.schema}" CASCADE`);
  schemas.delete(where.schema);
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'golem-scale-'));
  dirs.push(dir);
  return dir;
}

function openWorkspace(where: Where): Promise<Workspace> {
  return where.store === 'sqlite' ? createWorkspace({ dir: where.dir }) : createWorkspace({ store: postgresStore(where.url, { schema: where.schema }) });
}

/** A child process running `task`, with an IPC channel; rejects if it exits badly. */
function child(task: ChildTask): { send(message: StartLine): void; messages: AsyncGenerator<OpenResult | AppendMessage, void>; exited: Promise<void> } {
  const execArgv = ['--expose-gc', '--import', 'tsx', ...(HEAP_MB === undefined ? [] : [`--max-old-space-size=${HEAP_MB}`])];
  const proc = fork(fileURLToPath(new URL('./scale-child.ts', import.meta.url)), [JSON.stringify(task)], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const queue: (OpenResult | AppendMessage)[] = [];
  let wake: (() => void) | undefined;
  proc.on('message', (m: OpenResult | AppendMessage) => {
    queue.push(m);
    wake?.();
  });
  const exited = new Promise<void>((resolve, reject) => {
    proc.on('exit', (code, signal) => {
      wake?.();
      if (code === 0) resolve();
      else reject(new Error(`the ${task.task} child exited with ${code ?? signal}`));
    });
  });
  exited.catch(() => undefined);
  async function* messages(): AsyncGenerator<OpenResult | AppendMessage, void> {
    for (;;) {
      const next = queue.shift();
      if (next !== undefined) yield next;
      else if (proc.exitCode !== null || proc.signalCode !== null) return await exited;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  }
  return { send: (message) => proc.send(message), messages: messages(), exited };
}

async function next<T>(messages: AsyncGenerator<T, void>): Promise<T> {
  const { value, done } = await messages.next();
  if (done === true) throw new Error('a child exited before it reported');
  return value;
}

async function measureOpen(where: Where, cold?: { sessionId: string; turns: number }): Promise<OpenResult> {
  const c = child({ task: 'open', where, ...(cold !== undefined && { cold }) });
  const result = (await next(c.messages)) as OpenResult;
  await c.exited;
  return result;
}

/** Appends per second of `wheres.length` processes, each on its own session of its workspace, started at one start line. */
async function appenders(wheres: Extract<Where, { store: 'postgres' }>[]): Promise<number> {
  const children = wheres.map((where) => child({ task: 'append', where, seconds: SECONDS }));
  for (const c of children) if ((await next(c.messages)).type !== 'ready') throw new Error('an appender did not get ready');
  const at = Date.now() + 300;
  for (const c of children) c.send({ type: 'go', at });
  let total = 0;
  for (const c of children) {
    const done = await next(c.messages);
    if (done.type !== 'appended') throw new Error('an appender did not report');
    total += done.count;
  }
  await Promise.all(children.map((c) => c.exited));
  return total / SECONDS;
}

/** Opens the build, runs doctor on it, and closes it: is it a workspace the engine takes as its own? */
async function sound(where: Where): Promise<boolean> {
  const ws = await openWorkspace(where);
  try {
    return (await doctor(ws.manager)).healthy;
  } finally {
    await ws.close();
  }
}

const rows: Row[] = [];
let heapBefore = 'not measured';
const notes: string[] = [];
const sessions = Math.round(TURNS / PER_SESSION);
await admin.connect();
try {
  if (PARTS.has('open')) {
    progress(`capturing the templates (a session of ${PER_SESSION} turns and one of ${n(COLD_TURNS)}, through the API)...`);
    const template = await captureTemplate(PER_SESSION, turnText);
    const coldTemplate = await captureTemplate(COLD_TURNS, turnText);
    const smallPlan: FixturePlan = { workspace: template.workspace, sessions: [{ part: template.session, copies: SMALL_TURNS / PER_SESSION }] };
    const bigPlan: FixturePlan = {
      workspace: template.workspace,
      sessions: [
        { part: template.session, copies: sessions },
        { part: coldTemplate.session, copies: 1 },
      ],
    };
    const bigLabel = `${n(TURNS)} turns (${n(sessions)} × ${PER_SESSION}, + one of ${n(COLD_TURNS)})`;

    progress(`building ${n(SMALL_TURNS)} turns on SQLite and on PostgreSQL, and running doctor on each...`);
    const smallSqlite: Where = { store: 'sqlite', dir: tempDir() };
    const smallSqliteBuilt = buildSqliteFixture(join(smallSqlite.dir, 'workspace.db'), smallPlan);
    const smallPg = schemaFor('small');
    const smallPgBuilt = await buildPostgresFixture(url, smallPg.schema, smallPlan);
    const soundSqlite = await sound(smallSqlite);
    const soundPg = await sound(smallPg);
    await drop(smallPg);
    rows.push(
      {
        measure: `build ${n(SMALL_TURNS)} turns (${SMALL_TURNS / PER_SESSION} × ${PER_SESSION}), SQLite / PostgreSQL`,
        value: `${secs(smallSqliteBuilt.ms)} / ${secs(smallPgBuilt.ms)}`,
        target: '',
      },
      {
        measure: `golem doctor on those two builds`,
        value: `${soundSqlite ? 'sound' : 'NOT SOUND'} / ${soundPg ? 'sound' : 'NOT SOUND'}`,
        target: 'sound',
        ok: soundSqlite && soundPg,
      },
    );

    progress(`building ${bigLabel} on SQLite...`);
    const bigSqlite: Where = { store: 'sqlite', dir: tempDir() };
    const bigSqliteBuilt = buildSqliteFixture(join(bigSqlite.dir, 'workspace.db'), bigPlan);
    const built = (b: BuiltFixture, bytes: number) => `${secs(b.ms)} (${n(b.turns / (b.ms / 1000))} turns/s), ${mb(bytes)}`;
    rows.push({
      measure: `build ${bigLabel}, SQLite, one transaction`,
      value: built(bigSqliteBuilt, statSync(join(bigSqlite.dir, 'workspace.db')).size),
      target: '',
    });
    const coldSqlite = { sessionId: bigSqliteBuilt.sessionIds[1]?.[0] as string, turns: COLD_TURNS };

    const smallOpens: OpenResult[] = [];
    const bigOpens: OpenResult[] = [];
    for (let run = 1; run <= RUNS; run++) {
      progress(`opening ${n(SMALL_TURNS)} and ${n(bigSqliteBuilt.turns)} turns on SQLite, each in a fresh process (run ${run} of ${RUNS})...`);
      smallOpens.push(await measureOpen(smallSqlite));
      bigOpens.push(await measureOpen(bigSqlite, coldSqlite));
    }
    rmSync(bigSqlite.dir, { recursive: true, force: true });

    progress(`building ${bigLabel} on PostgreSQL...`);
    const bigPg = schemaFor('big');
    const bigPgBuilt = await buildPostgresFixture(url, bigPg.schema, bigPlan);
    const pgBytes = Number(
      (
        await admin.query<{ bytes: string }>(
          `SELECT pg_total_relation_size('"${bigPg.schema}".records') + pg_total_relation_size('"${bigPg.schema}".command_log') AS bytes`,
        )
      ).rows[0]?.bytes,
    );
    rows.push({ measure: `build ${bigLabel}, PostgreSQL, one transaction`, value: built(bigPgBuilt, pgBytes), target: '' });
    const coldPg = { sessionId: bigPgBuilt.sessionIds[1]?.[0] as string, turns: COLD_TURNS };
    const pgOpens: OpenResult[] = [];
    for (let run = 1; run <= RUNS; run++) {
      progress(`opening ${n(bigPgBuilt.turns)} turns on PostgreSQL in a fresh process (run ${run} of ${RUNS})...`);
      pgOpens.push(await measureOpen(bigPg, coldPg));
    }
    await drop(bigPg);
    await admin.query('CHECKPOINT'); // the big build's WAL, flushed before the appends are timed

    const med = (results: OpenResult[], f: (r: OpenResult) => number | undefined) => median(results.map((r) => f(r) ?? Number.NaN));
    const smallOpen = med(smallOpens, (r) => r.openMs);
    const bigOpen = med(bigOpens, (r) => r.openMs);
    const bigHeap = med(bigOpens, (r) => r.heapAfter);
    heapBefore = mb(med(bigOpens, (r) => r.heapBefore));
    const coldSqliteMs = med(bigOpens, (r) => r.coldReadMs);
    const coldPgMs = med(pgOpens, (r) => r.coldReadMs);
    rows.push(
      {
        measure: `open ${n(SMALL_TURNS)} turns (SQLite): time, heap after`,
        value: `${secs(smallOpen)}, ${mb(med(smallOpens, (r) => r.heapAfter))}`,
        target: 'reference',
      },
      { measure: `open ${n(bigSqliteBuilt.turns)} turns (SQLite): time`, value: secs(bigOpen), target: '≤ 100 ms', ok: bigOpen <= 100 },
      { measure: `open ${n(bigSqliteBuilt.turns)} turns (SQLite): heap after`, value: mb(bigHeap), target: '≤ 64 MB', ok: bigHeap <= 64 * 2 ** 20 },
      {
        measure: `open ${n(bigSqliteBuilt.turns)} / ${n(SMALL_TURNS)} turns (SQLite), time`,
        value: `${(bigOpen / smallOpen).toFixed(0)}×`,
        target: '≤ 2×',
        ok: bigOpen <= 2 * smallOpen,
      },
      {
        measure: `open ${n(bigPgBuilt.turns)} turns (PostgreSQL): time, heap after`,
        value: `${secs(med(pgOpens, (r) => r.openMs))}, ${mb(med(pgOpens, (r) => r.heapAfter))}`,
        target: '',
      },
      { measure: `first read of a cold ${n(COLD_TURNS)}-turn session (SQLite)`, value: fmt(coldSqliteMs), target: '≤ 10 ms', ok: coldSqliteMs <= 10 },
      { measure: `first read of a cold ${n(COLD_TURNS)}-turn session (PostgreSQL)`, value: fmt(coldPgMs), target: '≤ 20 ms', ok: coldPgMs <= 20 },
      {
        measure: `open + that first read, a fresh process (SQLite / PostgreSQL)`,
        value: `${secs(med(bigOpens, (r) => r.openMs + (r.coldReadMs ?? 0)))} / ${secs(med(pgOpens, (r) => r.openMs + (r.coldReadMs ?? 0)))}`,
        target: '',
      },
    );
  }

  if (PARTS.has('append')) {
    progress('PostgreSQL: durable appends and the single-row floor, taking turns...');
    const appendWhere = schemaFor('append');
    const ws = await openWorkspace(appendWhere);
    const floorClient = new pg.Client({ connectionString: url });
    floorClient.on('error', () => undefined);
    await floorClient.connect();
    try {
      await floorClient.query(`CREATE TABLE "${appendWhere.schema}".floor (id BIGSERIAL PRIMARY KEY, v TEXT NOT NULL)`);
      const floorSql = `INSERT INTO "${appendWhere.schema}".floor (v) VALUES ($1)`;
      const session = await ws.sessions.create({ label: 'append' });
      const floorTimes: number[] = [];
      const appendTimes: number[] = [];
      const time = async (into: number[], fn: () => Promise<unknown>) => {
        const start = process.hrtime.bigint();
        await fn();
        into.push(Number(process.hrtime.bigint() - start) / 1e6);
      };
      for (let i = 0; i < 100 + SAMPLES; i++) {
        await time(floorTimes, () => floorClient.query(floorSql, [turnText(i)]));
        await time(appendTimes, () => session.addTurn({ role: 'user', blocks: [{ type: 'text', text: turnText(i) }] }));
      }
      const floor = median(floorTimes.slice(100));
      const append = median(appendTimes.slice(100));
      rows.push(
        { measure: 'PostgreSQL single-row floor (a bare INSERT, its own transaction)', value: fmt(floor), target: 'reference' },
        {
          measure: 'PostgreSQL durable append through the workspace',
          value: `${fmt(append)} (${(append / floor).toFixed(2)}× the floor)`,
          target: '≤ 1.5× floor',
          ok: append <= 1.5 * floor,
        },
      );
    } finally {
      await floorClient.end();
      await ws.close();
      await drop(appendWhere);
    }

    const perSecond: Record<'one' | 'separate', Record<number, number>> = { one: {}, separate: {} };
    for (const kind of ['one', 'separate'] as const) {
      for (const count of [1, 2, 4]) {
        progress(
          `PostgreSQL: ${count} process${count > 1 ? 'es' : ''} appending for ${SECONDS} s, ${kind === 'one' ? 'one workspace' : 'a workspace each'}...`,
        );
        const wheres = kind === 'one' ? [schemaFor(`one${count}`)] : Array.from({ length: count }, (_, i) => schemaFor(`sep${count}_${i}`));
        for (const where of wheres) await (await openWorkspace(where)).close(); // made before the start line
        perSecond[kind][count] = await appenders(kind === 'one' ? Array.from({ length: count }, () => wheres[0] as (typeof wheres)[number]) : wheres);
        for (const where of wheres) await drop(where);
      }
    }
    const ratio = (kind: 'one' | 'separate', count: number) => (perSecond[kind][count] ?? 0) / (perSecond[kind][1] ?? 1);
    const rate = (kind: 'one' | 'separate') => [1, 2, 4].map((c) => n(perSecond[kind][c] ?? 0)).join(' / ');
    rows.push(
      { measure: 'PostgreSQL, one workspace, a session per process: 1 / 2 / 4 processes, appends/s', value: rate('one'), target: '' },
      { measure: 'PostgreSQL, one workspace: 2 processes / 1', value: `${ratio('one', 2).toFixed(2)}×`, target: '≥ 1.7×', ok: ratio('one', 2) >= 1.7 },
      { measure: 'PostgreSQL, one workspace: 4 processes / 1', value: `${ratio('one', 4).toFixed(2)}×`, target: '≥ 1.7×', ok: ratio('one', 4) >= 1.7 },
      {
        measure: 'PostgreSQL, a workspace per process: 1 / 2 / 4 processes, appends/s',
        value: `${rate('separate')} (${ratio('separate', 2).toFixed(2)}×, ${ratio('separate', 4).toFixed(2)}×)`,
        target: 'comparison',
      },
    );
  }

  notes.push(
    `Medians of ${RUNS} opens per size, each in a fresh process (heap: \`heapUsed\` after \`gc()\`, ${heapBefore} before opening; ` +
      `${HEAP_MB === undefined ? `Node's default heap limit, ${n(defaultHeapMb)} MB` : `--max-old-space-size=${HEAP_MB}`}), ` +
      `${SAMPLES} appends and floors taking turns, and appenders running ${SECONDS} s from one start line. ` +
      `Opening reads the workspace-wide records only; the "cold" read loads the session's turns from the store (one query by owner) and validates them.`,
  );
} finally {
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
progress('done');
printTable(`Scale (issue 18's figures, today's engine; ${new Date().toISOString().slice(0, 10)})`, rows, notes);
