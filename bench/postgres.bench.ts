/**
 * PostgreSQL benchmarks (part of `npm run bench`; the server on 127.0.0.1:5432, or
 * GOLEM_BENCH_DATABASE_URL): a durable append through the workspace, the time for a
 * commit in one process to reach another's index (NOTIFY, then its writes), and appends
 * per second with two workspaces racing on one session. Each run uses a schema of its own,
 * dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { createWorkspace, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { fmt, log, median, printTable, timeEach, type Row } from './lib.js';

const url = process.env.GOLEM_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `bench_${randomBytes(4).toString('hex')}`;
const text = (i: number) => [{ type: 'text' as const, text: `message ${i}: ${'x'.repeat(100)}` }];

async function open(): Promise<Workspace> {
  return createWorkspace({ store: postgresStore(url, { schema }) });
}

const rows: Row[] = [];
const a = await open();
const b = await open();
try {
  log('appends...');
  const session = await a.sessions.create({ label: 'bench' });
  for (let i = 0; i < 200; i++) await session.addTurn({ role: 'user', blocks: text(i) }); // warm up
  const append = median(await timeEach(500, (i) => session.addTurn({ role: 'user', blocks: text(i) })));
  rows.push({
    measure: 'durable append through the workspace (one process)',
    value: fmt(append),
    target: `${Math.round(1000 / append).toLocaleString('en')} per second`,
  });

  log('one process to another...');
  await b.manager.refresh();
  const follow = await timeEach(200, async (i) => {
    const seen = new Promise<void>((resolve) => {
      const off = b.manager.events.on('index:rebuilt', () => {
        off();
        resolve();
      });
    });
    await session.addTurn({ role: 'assistant', blocks: text(i) });
    await seen;
  });
  rows.push({ measure: "a commit in one process to the other's index (NOTIFY, then its writes)", value: fmt(median(follow)), target: '' });

  log('two processes racing...');
  const other = b.sessions.get(session.id);
  if (other === undefined) throw new Error('the other workspace does not see the session');
  const started = performance.now();
  const racing = 500;
  await Promise.all([
    Promise.all(Array.from({ length: racing }, (_, i) => session.addTurn({ role: 'user', blocks: text(i) }))),
    Promise.all(Array.from({ length: racing }, (_, i) => other.addTurn({ role: 'user', blocks: text(i) }))),
  ]);
  const seconds = (performance.now() - started) / 1000;
  rows.push({
    measure: `two workspaces racing ${2 * racing} appends on one session`,
    value: `${Math.round((2 * racing) / seconds).toLocaleString('en')} per second`,
    target: 'no phantom branch',
  });
  const stats = await a.manager.store.stats();
  rows.push({
    measure: 'bytes per turn (records and log, indexes included)',
    value: `~${Math.round(stats.bytes / (stats.records.turn ?? 1)).toLocaleString('en')}`,
    target: '',
  });
} finally {
  await a.close();
  await b.close();
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}
printTable('PostgreSQL (127.0.0.1, one database)', rows, ['Medians; each append is one statement (golem_append), committed before it returns.']);
