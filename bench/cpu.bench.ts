/**
 * Node CPU per append at steady state (`npm run bench:cpu`; issue 38, section 3): `process.cpuUsage`
 * (user + system) over BENCH_CPU_SAMPLES (default 2,000) appends of a 130-character text turn, after
 * BENCH_CPU_WARMUP (default 3,000) to warm up, in memory, on SQLite (durability 'full') and on
 * PostgreSQL, next to the same probe for a bare single-row insert of the same JSON (SQLite in WAL
 * with synchronous = FULL, better-sqlite3; PostgreSQL through node-postgres). Each measure runs in a
 * process of its own, BENCH_CPU_ROUNDS (default 3) times taking turns; the table gives medians.
 *
 * BENCH_CPU_BASELINE=<a checkout of another commit, node_modules linked> measures that engine too,
 * in the same run and taking turns with this one, and gives the ratio (this ÷ baseline).
 * BENCH_CPU_ONLY=memory,sqlite,... picks measures. A child: `cpu.bench.ts <root> <measure>`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { log, median, printTable, type Row } from './lib.js';
import type * as Root from '../src/index.js';
import type * as Memory from '../src/core/memory-store.js';
import type * as Postgres from '../src/store/postgres/index.js';

const SAMPLES = Number(process.env.BENCH_CPU_SAMPLES ?? 2000);
const WARMUP = Number(process.env.BENCH_CPU_WARMUP ?? 3000);
const ROUNDS = Number(process.env.BENCH_CPU_ROUNDS ?? 3);
const PG_URL = process.env.GOLEM_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const MEASURES = ['memory', 'sqlite', 'postgres', 'bare-sqlite', 'bare-postgres'] as const;
type Measure = (typeof MEASURES)[number];
const text = (i: number) => `${i} `.padEnd(130, 'x');

/** Runs `append` WARMUP times, then SAMPLES times under process.cpuUsage: µs of CPU per call. */
async function cpuPerCall(append: (i: number) => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await append(i);
  const start = process.cpuUsage();
  for (let i = 0; i < SAMPLES; i++) await append(WARMUP + i);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / SAMPLES;
}

async function child(root: string, measure: Measure): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'golem-bench-cpu-'));
  const schema = `bench_cpu_${randomBytes(4).toString('hex')}`;
  try {
    if (measure === 'bare-sqlite') {
      const Database = (await import('better-sqlite3')).default;
      const db = new Database(join(dir, 'bare.db'));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, value TEXT NOT NULL)');
      const insert = db.prepare('INSERT INTO t (value) VALUES (?)');
      const result = await cpuPerCall(async (i) => insert.run(JSON.stringify({ type: 'text', text: text(i) })));
      db.close();
      return result;
    }
    if (measure === 'bare-postgres') {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        await client.query(`CREATE SCHEMA "${schema}"`);
        await client.query(`CREATE TABLE "${schema}".t (id BIGSERIAL PRIMARY KEY, value TEXT NOT NULL)`);
        const q = { name: 'bare-insert', text: `INSERT INTO "${schema}".t (value) VALUES ($1)` };
        return await cpuPerCall((i) => client.query({ ...q, values: [JSON.stringify({ type: 'text', text: text(i) })] }));
      } finally {
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    }
    const { createWorkspace } = (await import(pathToFileURL(join(root, 'src/index.ts')).href)) as typeof Root;
    const { MemoryStore } = (await import(pathToFileURL(join(root, 'src/core/memory-store.ts')).href)) as typeof Memory;
    const { postgresStore } = (await import(pathToFileURL(join(root, 'src/store/postgres/index.ts')).href)) as typeof Postgres;
    const ws = await createWorkspace(
      measure === 'memory' ? { store: new MemoryStore() } : measure === 'sqlite' ? { dir, durability: 'full' } : { store: postgresStore(PG_URL, { schema }) },
    );
    try {
      const session = await ws.sessions.create({ label: 'cpu' });
      return await cpuPerCall((i) => session.addTurn({ role: 'user', blocks: [{ type: 'text', text: text(i) }] }));
    } finally {
      await ws.close();
      if (measure === 'postgres') {
        const pg = (await import('pg')).default;
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await client.end();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const [, script, childRoot, childMeasure] = process.argv;
if (childRoot !== undefined && childMeasure !== undefined) {
  console.log(JSON.stringify({ us: await child(childRoot, childMeasure as Measure) }));
} else {
  const here = resolve(import.meta.dirname, '..');
  const baseline = process.env.BENCH_CPU_BASELINE;
  const only = process.env.BENCH_CPU_ONLY?.split(',') ?? [...MEASURES];
  const engines: [string, string][] = [['this', here], ...(baseline !== undefined ? [['baseline', resolve(baseline)] as [string, string]] : [])];
  const results = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const measure of MEASURES.filter((m) => only.includes(m))) {
      for (const [name, root] of measure.startsWith('bare') ? engines.slice(0, 1) : engines) {
        log(`round ${round + 1}/${ROUNDS}: ${measure} (${name})`);
        const out = execFileSync(process.execPath, ['--import', 'tsx', script as string, root, measure], { cwd: here, encoding: 'utf8' });
        const { us } = JSON.parse(out.trim().split('\n').at(-1) as string) as { us: number };
        const key = measure.startsWith('bare') ? measure : `${measure} (${name})`;
        results.set(key, [...(results.get(key) ?? []), us]);
      }
    }
  }
  const rows: Row[] = [];
  const at = (key: string) => median(results.get(key) ?? [NaN]);
  for (const [key, values] of results) {
    rows.push({ measure: key, value: `${at(key).toFixed(0)} µs`, target: values.map((v) => v.toFixed(0)).join(' / ') });
  }
  if (baseline !== undefined) {
    for (const m of ['memory', 'sqlite', 'postgres']) {
      if (!results.has(`${m} (this)`)) continue;
      const ratio = at(`${m} (this)`) / at(`${m} (baseline)`);
      rows.push({
        measure: `${m}: this ÷ baseline`,
        value: `${ratio.toFixed(2)}×`,
        target: m === 'memory' ? '≤ 1×' : '≤ 0.5×',
        ok: m === 'memory' ? ratio <= 1.05 : ratio <= 0.5,
      });
    }
  }
  for (const [m, bare] of [
    ['sqlite', 'bare-sqlite'],
    ['postgres', 'bare-postgres'],
  ] as const) {
    if (results.has(`${m} (this)`) && results.has(bare))
      rows.push({ measure: `${m} (this) ÷ ${bare}`, value: `${(at(`${m} (this)`) / at(bare)).toFixed(2)}×`, target: '' });
  }
  printTable(
    'Node CPU per append (issue 38)',
    rows,
    [
      `user + system CPU of the process over ${SAMPLES} appends after ${WARMUP} to warm up; each measure a process of its own, ${ROUNDS} rounds taking turns (medians; every round in the third column). This 2-core machine also runs PostgreSQL.`,
    ],
    ['measure', 'CPU per append', 'rounds'],
  );
}
