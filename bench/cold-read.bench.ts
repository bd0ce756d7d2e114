/**
 * The first read of a cold session (`npm run bench:cold`; issue 38, section 3): a session of
 * BENCH_COLD_TURNS (default 1,000) turns of 130 characters, written and closed, then loaded
 * by a new handle (`manager.load`), on SQLite and PostgreSQL; the median of BENCH_COLD_RUNS
 * (default 15) opens; on PostgreSQL also by a handle that read another (one-turn) session first, so its
 * new connections have run the query once. Then, in the same run and on the same stored turns, the read step the
 * index used to take (each turn parsed by the turn schema) against the one it takes now
 * (`validatedPuts`: a check of the fields the index relies on; doctor validates them whole).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createWorkspace, type Workspace } from '../src/index.js';
import { validatedPuts } from '../src/core/index-tables.js';
import { CORE_COLLECTIONS } from '../src/core/records.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { fmt, log, median, printTable, type Row } from './lib.js';

const TURNS = Number(process.env.BENCH_COLD_TURNS ?? 1000);
const RUNS = Number(process.env.BENCH_COLD_RUNS ?? 15);
const PG_URL = process.env.GOLEM_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

type Open = () => Promise<Workspace>;

/** The big session's id, and a one-turn session's, read first where the connections are to be warm. */
async function written(open: Open): Promise<{ id: string; small: string }> {
  const ws = await open();
  const small = await ws.sessions.create({ label: 'small' });
  await small.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'warm' }] });
  const session = await ws.sessions.create({ label: 'cold' });
  for (let i = 0; i < TURNS; i++) {
    await session.addTurn({ role: i % 2 === 0 ? 'user' : 'assistant', blocks: [{ type: 'text', text: `${i} `.padEnd(130, 'x') }] });
  }
  await ws.close();
  return { id: session.id, small: small.id };
}

/** Each read by a new handle; `warm`: after it read another session, so its connections have run the query once. */
async function coldReads(open: Open, sessionId: string, warm?: string): Promise<number[]> {
  const times: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const ws = await open();
    if (warm !== undefined) await ws.manager.load([warm]);
    const t0 = performance.now();
    await ws.manager.load([sessionId]);
    times.push(performance.now() - t0);
    await ws.close();
  }
  return times;
}

const dir = mkdtempSync(join(tmpdir(), 'golem-bench-cold-'));
const schema = `bench_cold_${process.pid}`;
const sqlite: Open = () => createWorkspace({ dir, durability: 'normal' });
const postgres: Open = () => createWorkspace({ store: postgresStore(PG_URL, { schema }) });
const rows: Row[] = [];
try {
  log(`writing ${TURNS} turns on SQLite and PostgreSQL`);
  const onSqlite = await written(sqlite);
  const onPostgres = await written(postgres);
  const sqliteMs = median(await coldReads(sqlite, onSqlite.id));
  const postgresMs = median(await coldReads(postgres, onPostgres.id));
  const warmMs = median(await coldReads(postgres, onPostgres.id, onPostgres.small));
  rows.push({ measure: `cold read of ${TURNS} turns, SQLite`, value: fmt(sqliteMs), target: '≤ 10 ms', ok: sqliteMs <= 10 });
  rows.push({
    measure: `cold read of ${TURNS} turns, PostgreSQL, the handle's first query of a session`,
    value: fmt(postgresMs),
    target: '≤ 20 ms',
    ok: postgresMs <= 20,
  });
  rows.push({
    measure: `cold read of ${TURNS} turns, PostgreSQL, after the handle read another session`,
    value: fmt(warmMs),
    target: '≤ 20 ms',
    ok: warmMs <= 20,
  });

  // The read step alone, on the stored records of the SQLite session: before (schema) and now.
  const ws = await sqlite();
  const records = (await ws.manager.store.loadRecords?.({ owners: [onSqlite.id] }))?.records ?? [];
  await ws.close();
  const turns = records.filter((r) => r.collection === 'turn');
  const step = (fn: () => void) => {
    const times: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      const t0 = performance.now();
      fn();
      times.push(performance.now() - t0);
    }
    return median(times);
  };
  const parsed = step(() => {
    for (const t of turns) CORE_COLLECTIONS.turn.parse(t.value);
  });
  const checked = step(() => validatedPuts(turns, () => undefined));
  rows.push({ measure: `read step, ${turns.length} turns: schema parse (before)`, value: fmt(parsed), target: '' });
  rows.push({ measure: `read step, ${turns.length} turns: shape check (now)`, value: fmt(checked), target: '' });
  rows.push({ measure: 'now ÷ before, read step', value: `${(checked / parsed).toFixed(3)}×`, target: '' });
} finally {
  rmSync(dir, { recursive: true, force: true });
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
printTable('Cold read (issue 38)', rows, [`${RUNS} opens each, medians; this 2-core machine also runs PostgreSQL.`]);
