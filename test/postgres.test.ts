/**
 * Golem on PostgreSQL: a workspace on the store, several processes on one workspace
 * (their commands serialized by the workspace's advisory lock, each index following the
 * others through LISTEN/NOTIFY), and racing appends that never make a phantom branch.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GolemError } from '../src/core/errors.js';
import type { CommandLogInput, StoredWrite } from '../src/core/store.js';
import { createWorkspace, type StoredRecord, type Workspace } from '../src/index.js';
import { POSTGRES_MIGRATIONS, PostgresStore, postgresStore } from '../src/store/postgres/index.js';
import { tempDir } from './helpers.js';

/** Records without the size a store may add (what `load()` returns has none). */
const plain = (records: StoredRecord[]) => records.map(({ collection, key, value }) => ({ collection, key, value }));
import { freshSchema, PG_URL, pgStore } from './pg-helpers.js';

const run = promisify(execFile);
const open: Workspace[] = [];
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.close();
});

async function workspace(schema: string): Promise<Workspace> {
  const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
  open.push(ws);
  return ws;
}

/** Polls until `check` holds (at most 5 s). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('Golem on PostgreSQL', () => {
  it('keeps a workspace: sessions, turns, edits and forks, across a reopen', async () => {
    const schema = freshSchema();
    const ws = await workspace(schema);
    const s = await ws.sessions.create({ label: 'pg' });
    const q = await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'How many chambers has the heart?' }] });
    await s.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'Four.' }] });
    await s.editTurn(q.id, [{ type: 'text', text: 'And a fish heart?' }]);
    const fork = await ws.sessions.fork(s.id, q.id);
    expect((await ws.summary()).store).toBe('postgres');
    await ws.close();
    open.splice(open.indexOf(ws), 1);

    const again = await workspace(schema);
    const back = again.sessions.get(s.id);
    expect((await back?.transcript())?.map((t) => t.blocks)).toEqual([[{ type: 'text', text: 'And a fish heart?' }]]);
    expect(await back?.branchInfo(q.id)).toMatchObject({ total: 2, currentIndex: 1 });
    // The fork was made at the question as the path had it then: its edited version.
    expect(again.sessions.get(fork.id)?.head()).toEqual({ id: q.id, version: 1 });
    const log = await again.manager.store.commandLog();
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
    expect(log.slice(-5).map((e) => e.type)).toEqual(['session:create', 'turn:add', 'turn:add', 'turn:edit', 'session:fork']);
  });

  it('keeps two workspaces on one database in step: a commit in one reaches the other by itself', async () => {
    const schema = freshSchema();
    const a = await workspace(schema);
    const b = await workspace(schema);
    const rebuilt: number[] = [];
    b.manager.events.on('index:rebuilt', (e) => rebuilt.push(e.lastSeq));
    const s = await a.sessions.create({ label: 'shared' });
    await a.ui.patch({ instanceId: '__CREATE__', newInstanceId: 'form', patches: [] });
    // No refresh: b hears of the commits (NOTIFY) and applies their writes.
    await until(() => b.sessions.get(s.id) !== undefined && b.ui.get('form') !== undefined);
    expect(rebuilt.at(-1)).toBe(a.manager.workspace().lastSeq);
    // b writes on what a wrote; a follows.
    await b.sessions.get(s.id)?.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'from b' }] });
    await until(async () => (await a.sessions.get(s.id)?.transcript())?.length === 1);
    expect(a.manager.workspace().lastSeq).toBe(b.manager.workspace().lastSeq);
  });

  it('takes GOLEM_DATABASE_URL: records and blobs in the database, seen by every process; refuses a pool too small to work', async () => {
    const schema = freshSchema();
    const env = { GOLEM_DATABASE_URL: PG_URL, GOLEM_DATABASE_SCHEMA: schema };
    const a = await createWorkspace({ env });
    open.push(a);
    const b = await createWorkspace({ env });
    open.push(b);
    expect((await a.summary()).store).toBe('postgres');
    const bytes = new TextEncoder().encode('shared bytes');
    const blob = await a.blobs.register(bytes, { mediaType: 'text/plain' });
    await b.manager.refresh();
    expect(new TextDecoder().decode(await b.blobs.read(blob.sha256))).toBe('shared bytes');
    expect(() => new PostgresStore({ url: PG_URL, poolSize: 2 })).toThrow(/at least 3/);
  });

  it('creates a new workspace once when several processes open it at the same moment', async () => {
    const script = join(import.meta.dirname, 'fixtures', 'pg-open.ts');
    for (let round = 0; round < 3; round++) {
      const schema = freshSchema();
      const outputs = await Promise.all(
        Array.from({ length: 4 }, () => run(process.execPath, ['--import', 'tsx', script, PG_URL, schema], { timeout: 60_000 })),
      );
      const ids = new Set(outputs.map(({ stdout }) => (JSON.parse(stdout) as { id: string }).id));
      expect(ids.size).toBe(1);
      const ws = await workspace(schema);
      expect((await ws.manager.store.commandLog()).filter((e) => e.type === 'workspace:create')).toHaveLength(1);
      expect(ids.has(ws.meta().id)).toBe(true);
    }
  }, 120_000);

  it('opens on a consistent view while another process commits, and follows a process with an extension it lacks', async () => {
    const schema = freshSchema();
    const writer = await workspace(schema);
    const session = await writer.sessions.create();
    let writing = true;
    const appends = (async () => {
      for (let i = 0; writing; i++) await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: `t${i}` }] });
    })();
    try {
      for (let i = 0; i < 25; i++) {
        const reader = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
        await reader.manager.load([session.id]); // its turns, read in one snapshot, then followed
        // Read together, before anything else can run (the reader follows the writer as soon as it may).
        const seq = reader.manager.workspace().lastSeq;
        const indexed = [...reader.manager.workspace().turns.values()].length;
        const logged = (await reader.manager.store.commandLog({ limit: seq })).filter((e) => e.type === 'turn:add').length;
        await reader.close();
        // The index holds exactly the turns the log had up to the seq it says it is at.
        expect(indexed).toBe(logged);
      }
    } finally {
      writing = false;
      await appends;
    }
    // A process with an extension (a collection) the other lacks: the other catches up and goes on working.
    const { z } = await import('zod');
    const { defineCommand } = await import('../src/core/plugin.js');
    const noteAdd = defineCommand({
      type: 'note:add',
      description: 'adds a note',
      payload: z.strictObject({ id: z.string(), text: z.string() }),
      reduce: (payload) => ({ writes: [{ op: 'put', collection: 'note', key: payload.id, value: payload }], result: payload }),
    });
    const withNotes = await createWorkspace({
      store: postgresStore(PG_URL, { schema }),
      extensions: [{ name: 'notes', collections: { note: z.strictObject({ id: z.string(), text: z.string() }) }, commands: [noteAdd] }],
    });
    open.push(withNotes);
    expect((await withNotes.manager.dispatch({ type: 'note:add', payload: { id: 'n1', text: 'hello' } })).ok).toBe(true);
    const other = await writer.sessions.create({ label: 'after the note' });
    expect(other.label).toBe('after the note');
    expect(writer.manager.workspace().collections.get('note')?.get('n1')).toEqual({ id: 'n1', text: 'hello' });
  });

  it('serializes racing appends from several processes: one linear history, no phantom branch, a totally ordered log', async () => {
    const schema = freshSchema();
    const ws = await workspace(schema);
    const session = await ws.sessions.create({ label: 'race' });
    const script = join(import.meta.dirname, 'fixtures', 'pg-racer.ts');
    const processes = 4;
    const each = 500;
    const outputs = await Promise.all(
      Array.from({ length: processes }, (_, i) =>
        run(process.execPath, ['--import', 'tsx', script, PG_URL, schema, session.id, `p${i}`, String(each)], { timeout: 120_000 }).then(
          ({ stdout }) => JSON.parse(stdout) as { name: string; failures: string[]; turns: number },
        ),
      ),
    );
    for (const out of outputs) expect(out.failures).toEqual([]);
    await ws.manager.refresh();
    const path = await session.transcript();
    expect(path).toHaveLength(processes * each);
    // Every turn of the session: each has at most one child (no two appends on one parent), and all are on the path.
    const turns = [...ws.manager.workspace().turns.values()].filter((t) => t.sessionId === session.id);
    expect(turns).toHaveLength(processes * each);
    const children = new Map<string, number>();
    for (const t of turns) if (t.parent !== null) children.set(t.parent.id, (children.get(t.parent.id) ?? 0) + 1);
    expect(Math.max(...children.values())).toBe(1);
    // Each process's own appends are all there; each saw at least its own when it finished.
    for (let i = 0; i < processes; i++) expect(path.filter((t) => t.blocks[0]?.type === 'text' && t.blocks[0].text.startsWith(`p${i} `))).toHaveLength(each);
    for (const out of outputs) expect(out.turns).toBeGreaterThanOrEqual(each);
    const log = await ws.manager.store.commandLog();
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
    expect(log).toHaveLength(ws.manager.workspace().lastSeq);
    expect(log.filter((e) => e.type === 'turn:add')).toHaveLength(processes * each);
  }, 180_000);
});

/** A log entry at `seq`. */
const entry = (seq: number, id = `cmd-${seq}-${Math.random()}`): CommandLogInput => ({
  seq,
  id,
  type: 'test:cmd',
  payload: {},
  timestamp: new Date(0).toISOString(),
  actor: null,
});
const put = (collection: string, key: string, value: unknown, owner?: string | null): StoredWrite => ({
  op: 'put',
  collection,
  key,
  json: JSON.stringify(value),
  ...(owner !== undefined && { owner }),
});
/** The GolemError a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<GolemError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!GolemError.isInstance(error)) throw new Error(`expected a GolemError, got ${String(error)}`);
  return error;
}

describe('the PostgreSQL store: owners, and the commit in one statement', () => {
  it("gives a workspace written by version 1 its turns' owners (migration 2): a session's turns load by owner", async () => {
    // The upgrade fixture: a pg_dump of what version 1 wrote, restored into a schema of its own.
    const schema = freshSchema('v1');
    const sql = join(tempDir(), 'dump.sql');
    writeFileSync(sql, readFileSync(join(import.meta.dirname, 'fixtures', 'workspace-v1', 'postgres.sql'), 'utf8').replaceAll('golem_fixture', schema));
    execFileSync('psql', [PG_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-f', sql], { stdio: ['ignore', 'ignore', 'pipe'] });
    const store = pgStore(schema);
    await store.open();
    try {
      expect((await store.stats()).schemaVersion).toBe(POSTGRES_MIGRATIONS.at(-1)?.version);
      const all = await store.load();
      const turns = all.filter((r) => r.collection === 'turn');
      const sessions = [...new Set(turns.map((r) => (r.value as { sessionId: string }).sessionId))];
      expect(sessions.length).toBeGreaterThan(1);
      for (const session of sessions) {
        const { records, lastSeq } = await store.loadRecords({ owners: [session] });
        expect(plain(records)).toEqual(turns.filter((r) => (r.value as { sessionId: string }).sessionId === session));
        expect(lastSeq).toBe(await store.lastSeq());
      }
      // Everything else belongs to the workspace.
      expect(plain((await store.loadRecords({ owners: [], shared: true })).records)).toEqual(all.filter((r) => r.collection !== 'turn'));
    } finally {
      await store.close();
    }
  });

  it('commits in one statement, its writes and log entry (with their owners) all there', async () => {
    const store = pgStore();
    await store.open();
    const pg = (await import('pg')).default;
    const query = vi.spyOn(pg.Client.prototype, 'query');
    try {
      const writes = [put('session', 's1', { id: 's1' }), put('turn', 't@0', { n: 1 }, 's1'), put('turn', 't@1', { n: 2 }, 's1')];
      await store.commit(entry(1), writes);
      const statements = query.mock.calls.map(([sql]) => (typeof sql === 'string' ? sql : (sql as { text: string }).text));
      expect(statements).toEqual([expect.stringMatching(/^SELECT seq, writes FROM "t_\w+"\.golem_append\(/)]);
    } finally {
      query.mockRestore();
    }
    expect(await store.lastSeq()).toBe(1);
    expect((await store.loadRecords({ owners: ['s1'] })).records.map((r) => r.key)).toEqual(['t@0', 't@1']);
    expect((await store.changes(0))[0]?.writes.map((w) => w.owner ?? null)).toEqual([null, 's1', 's1']);
    await store.close();
  });

  it('reports the true last seq in a STORE_CONFLICT, and names what is taken in a DUPLICATE_ID', async () => {
    const schema = freshSchema();
    const [a, b] = [pgStore(schema), pgStore(schema)];
    await a.open();
    await b.open();
    try {
      for (let seq = 1; seq <= 3; seq++) await a.commit(entry(seq), [put('turn', `t${seq}@0`, { seq }, 's1')]);
      // b is behind (it thinks the log is at 1), or ahead.
      for (const seq of [2, 9]) {
        const error = await refusal(b.commit(entry(seq), [put('c', 'x', 1)]));
        expect({ code: error.code, details: error.details }).toEqual({ code: 'STORE_CONFLICT', details: { seq, last: 3 } });
      }
      const stolen = await refusal(b.commit(entry(4), [put('c', 'x', 1), put('turn', 't2@0', { seq: 4 }, 's2')]));
      expect({ code: stolen.code, details: stolen.details }).toEqual({ code: 'DUPLICATE_ID', details: { collection: 'turn', key: 't2@0' } });
      const again = await refusal(b.commit(entry(4, (await a.commandLog())[0]?.id), []));
      expect(again.code).toBe('DUPLICATE_ID');
      expect(again.details).toEqual({ id: (await a.commandLog())[0]?.id });
      // Nothing of the refused commits was written.
      expect(await b.lastSeq()).toBe(3);
      expect(await b.get('c', 'x')).toBeUndefined();
      expect(await b.get('turn', 't2@0')).toEqual({ seq: 2 });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("applies a commit's writes in order, a key written twice in it too", async () => {
    const store = pgStore();
    await store.open();
    try {
      // Each key once (applied as a set), then a key put, deleted and put again for another owner (one write at a time).
      await store.commit(entry(1), [put('c', 'a', 1, 's1'), put('c', 'b', 2), put('c', 'z', 0)]);
      await store.commit(entry(2), [
        put('c', 'c', 3),
        { op: 'delete', collection: 'c', key: 'z' },
        put('c', 'a', 10, 's1'),
        { op: 'delete', collection: 'c', key: 'a' },
        put('c', 'a', 11, 's2'),
        put('c', 'c', 4),
      ]);
      expect((await store.load()).map((r) => [r.key, r.value])).toEqual([
        ['b', 2],
        ['c', 4],
        ['a', 11],
      ]);
      expect((await store.loadRecords({ owners: ['s2'] })).records.map((r) => r.key)).toEqual(['a']);
      expect((await store.loadRecords({ owners: ['s1'] })).records).toEqual([]);
      // Two owners for one new key in one commit, and an unknown op: refused whole.
      const twice = await refusal(store.commit(entry(3), [put('c', 'd', 1, 's1'), put('c', 'd', 2, 's2')]));
      expect(twice.code).toBe('DUPLICATE_ID');
      const unknown = await refusal(store.commit(entry(3), [put('c', 'e', 1), { op: 'move', collection: 'c', key: 'b' } as unknown as StoredWrite]));
      expect(unknown.code).toBe('STORE_ERROR');
      expect(await store.lastSeq()).toBe(2);
      expect((await store.load()).map((r) => r.key)).toEqual(['b', 'c', 'a']);
    } finally {
      await store.close();
    }
  });
});
