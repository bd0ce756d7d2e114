/**
 * The PostgreSQL commit on its own (the server on 127.0.0.1:5432, or
 * GOLEM_BENCH_DATABASE_URL): durable appends through the workspace, the store's own
 * `commit` inside each of them, a bare store's commit of a turn-sized command and of 50
 * writes, against the single-row floor (a bare INSERT, its own transaction), taking turns
 * so that the server's state is the same for each. BENCH_COMMIT_SAMPLES appends (default
 * 2,000) after 200 to warm up. Each run uses schemas of its own, dropped at the end.
 * Run: `node --import tsx bench/postgres-commit.bench.ts`.
 */
import { randomBytes } from 'node:crypto';
import { createWorkspace } from '../src/index.js';
import type { Store, StoredWrite } from '../src/core/store.js';
import { PostgresStore, postgresStore } from '../src/store/postgres/index.js';
import { fmt, log, median, printTable, type Row } from './lib.js';

const url = process.env.GOLEM_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const samples = Number(process.env.BENCH_COMMIT_SAMPLES ?? 2_000);
const warmUp = 200;
const tag = randomBytes(4).toString('hex');
const wsSchema = `bench_ws_${tag}`;
const storeSchema = `bench_store_${tag}`;
const text = (i: number) => `message ${i}: ${'x'.repeat(100)}`;

/** Wraps `store.commit` to record how long each took. */
function timeCommits(store: Store): number[] {
  const times: number[] = [];
  const commit = store.commit.bind(store);
  store.commit = async (entry, writes) => {
    const start = process.hrtime.bigint();
    await commit(entry, writes);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  };
  return times;
}

async function time(into: number[], fn: () => Promise<unknown>): Promise<void> {
  const start = process.hrtime.bigint();
  await fn();
  into.push(Number(process.hrtime.bigint() - start) / 1e6);
}

const pg = (await import('pg')).default;
const floorClient = new pg.Client({ connectionString: url });
floorClient.on('error', () => undefined);
await floorClient.connect();
const ws = await createWorkspace({ store: postgresStore(url, { schema: wsSchema }) });
const bare = new PostgresStore({ url, schema: storeSchema });
await bare.open();
const rows: Row[] = [];
try {
  await floorClient.query(`CREATE TABLE "${wsSchema}".floor (id BIGSERIAL PRIMARY KEY, v TEXT NOT NULL)`);
  const floorSql = `INSERT INTO "${wsSchema}".floor (v) VALUES ($1)`;
  const commits = timeCommits(ws.manager.store);
  const session = await ws.sessions.create({ label: 'bench' });
  const times = { floor: [] as number[], append: [] as number[], bare: [] as number[], wide: [] as number[] };
  let seq = 0;
  /** A bare commit of `writes` writes shaped like a turn:add's (a turn and its session). */
  const bareCommit = (i: number, writes: number) => {
    const list: StoredWrite[] = Array.from({ length: writes }, (_, w) => ({
      op: 'put',
      collection: w === 0 ? 'session' : 'turn',
      key: w === 0 ? 's1' : `t${i}-${w}@0`,
      json: JSON.stringify({ sessionId: 's1', text: text(i) }),
      ...(w > 0 && { owner: 's1' }),
    }));
    return bare.commit({ seq: ++seq, id: `c${seq}`, type: 'bench', payload: { i }, timestamp: new Date(0).toISOString(), actor: null }, list);
  };
  log(`${warmUp} + ${samples} appends, each after a floor INSERT and a bare commit...`);
  for (let i = 0; i < warmUp + samples; i++) {
    await time(times.floor, () => floorClient.query(floorSql, [text(i)]));
    await time(times.append, () => session.addTurn({ role: 'user', blocks: [{ type: 'text', text: text(i) }] }));
    await time(times.bare, () => bareCommit(i, 2));
    if (i % 10 === 0) await time(times.wide, () => bareCommit(i, 50));
  }
  const floor = median(times.floor.slice(warmUp));
  const ratio = (ms: number) => `${fmt(ms)} (${(ms / floor).toFixed(2)}× the floor)`;
  rows.push(
    { measure: 'single-row floor (a bare INSERT, its own transaction)', value: fmt(floor), target: 'reference' },
    { measure: 'durable append through the workspace', value: ratio(median(times.append.slice(warmUp))), target: '' },
    { measure: "the store's commit inside that append", value: ratio(median(commits.slice(warmUp + 1))), target: '' },
    { measure: 'a bare store commit of 2 writes', value: ratio(median(times.bare.slice(warmUp))), target: '' },
    { measure: 'a bare store commit of 50 writes', value: ratio(median(times.wide.slice(warmUp / 10))), target: '' },
  );
} finally {
  await ws.close();
  await bare.close();
  for (const schema of [wsSchema, storeSchema]) await floorClient.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await floorClient.end();
}
printTable('PostgreSQL commit (127.0.0.1, one database)', rows, [`Medians of ${samples} samples after ${warmUp} to warm up.`]);
