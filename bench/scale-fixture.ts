/**
 * Big workspaces in seconds, for the scale benchmark (`npm run bench:scale`) and its test.
 *
 * One session is made through the real API on a memory store that records every commit.
 * What it leaves (its records, and its command-log entries with their writes) becomes a
 * stamp: the JSON text cut at every id and every seq. The stamp is then printed as many
 * times as asked, each copy with fresh UUID v7 ids (one new id per old one, so records,
 * keys, heads, parents, payloads and writes stay consistent) and its seqs moved to its
 * place in the log, straight into a new SQLite file (one transaction) or a new PostgreSQL
 * schema (multi-row INSERTs from arrays, one transaction). Nothing goes through the engine
 * on the way in: what comes out is what the engine would have written, byte for byte.
 */
import Database from 'better-sqlite3';
import { createWorkspace } from '../src/index.js';
import { uuidv7 } from '../src/core/ids.js';
import { encode, MemoryStore } from '../src/core/memory-store.js';
import type { Appended, CommandLogInput, StoredWrite, StreamCheck } from '../src/core/store.js';
import type { Turn } from '../src/core/records.js';
import { ownerOf } from '../src/core/workspace-index.js';
import { SQLITE_MIGRATIONS } from '../src/store/sqlite-migrations.js';
import { migrate } from '../src/store/sqlite-store.js';
import { PostgresStore } from '../src/store/postgres/index.js';

/** A memory store that keeps each commit as the store received it. */
class RecordingStore extends MemoryStore {
  readonly commits: { entry: CommandLogInput; writes: readonly StoredWrite[] }[] = [];

  override async commit(entry: CommandLogInput, writes: readonly StoredWrite[]): Promise<void> {
    await super.commit(entry, writes);
    this.commits.push({ entry: structuredClone(entry), writes: [...writes] });
  }

  override async append(entry: CommandLogInput, writes: readonly StoredWrite[], check: StreamCheck): Promise<Appended> {
    const appended = await super.append(entry, writes, check);
    // One process: every command lands at the seq it was decided at, so its writes are as given.
    this.commits.push({ entry: { ...structuredClone(entry), seq: appended.seq }, writes: [...writes] });
    return appended;
  }
}

/** A text cut at its ids and seqs: `literals[0] slot[0] literals[1] ... slot[n-1] literals[n]`. */
interface Pattern {
  literals: string[];
  /** An id (its index in the part's ids) or a seq (its offset from the part's first seq). */
  slots: ({ id: number } | { seq: number })[];
}

/** What one part of a workspace (its meta, or one session) left in the store, as patterns. */
export interface Part {
  records: { collection: string; key: Pattern; json: Pattern; owner: Pattern | null }[];
  log: { seq: number; id: Pattern; type: string; payload: Pattern; actor: string | null; timestamp: string; writes: Pattern }[];
  /** How many distinct ids a copy needs. */
  ids: number;
  turns: number;
}

/** A captured session: the workspace around it and the session, ready to stamp. */
export interface Template {
  workspace: Part;
  session: Part;
  /** The template session's id and transcript, to compare a copy with. */
  sessionId: string;
  transcript: Turn[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** An id, or the number after `"seq":` (also as it appears inside a write's JSON text, `\"seq\":`). */
const TOKEN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?<=\\?"seq\\?":)\d+/g;

/** Makes a session of `turns` turns through the API (user and assistant taking turns, `text(i)` each) and captures it. */
export async function captureTemplate(turns: number, text: (i: number) => string): Promise<Template> {
  const store = new RecordingStore();
  const ws = await createWorkspace({ store });
  const session = await ws.sessions.create({ label: `template of ${turns} turns` });
  for (let i = 0; i < turns; i++) await session.addTurn({ role: i % 2 === 0 ? 'user' : 'assistant', blocks: [{ type: 'text', text: text(i) }] });
  const transcript = await session.transcript();
  const records = await store.load();
  await ws.close();

  const [created, ...rest] = store.commits;
  if (created?.entry.type !== 'workspace:create' || created.entry.seq !== 1) throw new Error('the template does not start with workspace:create');
  const workspace = toPart(
    records.filter((r) => r.collection === 'workspace'),
    [created],
  );
  const sessionRecords = records.filter((r) => r.collection !== 'workspace');
  // A copy gets fresh ids for everything its part names: it must name nothing of the workspace part's.
  const outside = new Set(JSON.stringify([records.filter((r) => r.collection === 'workspace'), created]).match(UUID));
  if ((JSON.stringify([sessionRecords, rest]).match(UUID) ?? []).some((id) => outside.has(id)))
    throw new Error('the template session names an id of the workspace');
  const session_ = toPart(sessionRecords, rest);
  return { workspace, session: session_, sessionId: session.id, transcript };
}

function toPart(records: { collection: string; key: string; value: unknown }[], commits: { entry: CommandLogInput; writes: readonly StoredWrite[] }[]): Part {
  const texts: string[] = [];
  for (const r of records) texts.push(r.key, encode(r.value));
  for (const c of commits) texts.push(c.entry.id, encode(c.entry.payload), JSON.stringify(c.writes));
  // Old ids in creation order (UUID v7 sorts by time), so the new ones keep their relative order.
  const ids = [...new Set(texts.flatMap((t) => t.match(UUID) ?? []))].sort();
  const index = new Map(ids.map((id, i) => [id, i]));
  const firstSeq = commits[0]?.entry.seq ?? 1;
  const cut = (text: string): Pattern => {
    const literals: string[] = [];
    const slots: Pattern['slots'] = [];
    let at = 0;
    for (const match of text.matchAll(TOKEN)) {
      literals.push(text.slice(at, match.index));
      const id = index.get(match[0]);
      slots.push(id !== undefined ? { id } : { seq: Number(match[0]) - firstSeq });
      at = match.index + match[0].length;
    }
    literals.push(text.slice(at));
    return { literals, slots };
  };
  return {
    records: records.map((r) => {
      const owner = ownerOf(r.collection, r.value);
      return { collection: r.collection, key: cut(r.key), json: cut(encode(r.value)), owner: owner === null ? null : cut(owner) };
    }),
    log: commits.map((c) => ({
      seq: c.entry.seq - firstSeq,
      id: cut(c.entry.id),
      type: c.entry.type,
      payload: cut(encode(c.entry.payload)),
      actor: c.entry.actor,
      timestamp: c.entry.timestamp,
      writes: cut(JSON.stringify(c.writes)),
    })),
    ids: ids.length,
    turns: records.filter((r) => r.collection === 'turn').length,
  };
}

function render(pattern: Pattern, ids: readonly string[], firstSeq: number): string {
  let out = pattern.literals[0] as string;
  for (let i = 0; i < pattern.slots.length; i++) {
    const slot = pattern.slots[i] as Pattern['slots'][number];
    out += ('id' in slot ? ids[slot.id] : String(firstSeq + slot.seq)) + (pattern.literals[i + 1] as string);
  }
  return out;
}

/** One row of the `records` table. */
export type RecordRow = [collection: string, key: string, value: string, owner: string | null];
/** One row of the `command_log` table (`writes` only PostgreSQL keeps). */
export type LogRow = [seq: number, id: string, type: string, payload: string, actor: string | null, timestamp: string, writes: string];

/** One copy of `part` with fresh ids, its log starting at `firstSeq`. */
function stamp(part: Part, firstSeq: number): { records: RecordRow[]; log: LogRow[]; sessionId: string | undefined } {
  const ids = Array.from({ length: part.ids }, () => uuidv7());
  const records = part.records.map((r): RecordRow => [
    r.collection,
    render(r.key, ids, firstSeq),
    render(r.json, ids, firstSeq),
    r.owner === null ? null : render(r.owner, ids, firstSeq),
  ]);
  const log = part.log.map((e): LogRow => [
    firstSeq + e.seq,
    render(e.id, ids, firstSeq),
    e.type,
    render(e.payload, ids, firstSeq),
    e.actor,
    e.timestamp,
    render(e.writes, ids, firstSeq),
  ]);
  return { records, log, sessionId: records.find((r) => r[0] === 'session')?.[1] };
}

/** What to build: the workspace part once, then `copies` of each session template, in order. */
export interface FixturePlan {
  workspace: Part;
  sessions: readonly { part: Part; copies: number }[];
}

/** What was built. */
export interface BuiltFixture {
  /** The new sessions' ids, one list per entry of the plan's `sessions`. */
  sessionIds: string[][];
  sessions: number;
  turns: number;
  commands: number;
  records: number;
  /** Wall time of the build. */
  ms: number;
}

/** Every copy the plan asks for, in log order, one at a time (nothing big is held). */
function* copies(plan: FixturePlan): Generator<{ records: RecordRow[]; log: LogRow[]; sessionId: string | undefined; entry: number }> {
  let seq = 1;
  const first = stamp(plan.workspace, seq);
  seq += plan.workspace.log.length;
  yield { ...first, entry: -1 };
  for (const [entry, { part, copies: n }] of plan.sessions.entries()) {
    for (let c = 0; c < n; c++) {
      yield { ...stamp(part, seq), entry };
      seq += part.log.length;
    }
  }
}

function tally(plan: FixturePlan, start: number, sessionIds: string[][]): BuiltFixture {
  const sum = (f: (p: Part) => number) => f(plan.workspace) + plan.sessions.reduce((n, s) => n + s.copies * f(s.part), 0);
  return {
    sessionIds,
    sessions: plan.sessions.reduce((n, s) => n + s.copies, 0),
    turns: sum((p) => p.turns),
    commands: sum((p) => p.log.length),
    records: sum((p) => p.records.length),
    ms: performance.now() - start,
  };
}

/** Writes the plan into a new SQLite database at `path` (the schema `SqliteStore` makes), in one transaction. */
export function buildSqliteFixture(path: string, plan: FixturePlan): BuiltFixture {
  const start = performance.now();
  const db = new Database(path);
  const sessionIds: string[][] = plan.sessions.map(() => []);
  try {
    if (db.prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()?.n !== 0)
      throw new Error(`${path} is not a new database`);
    // No fsync while building; the store turns WAL on when it opens the file.
    db.pragma('synchronous = OFF');
    migrate(db, SQLITE_MIGRATIONS);
    const putRecord = db.prepare<RecordRow>('INSERT INTO records (collection, key, value, owner) VALUES (?, ?, ?, ?)');
    const putLog = db.prepare<[number, string, string, string, string | null, string]>(
      'INSERT INTO command_log (seq, id, type, payload, actor, timestamp) VALUES (?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (const copy of copies(plan)) {
        for (const e of copy.log) putLog.run(e[0], e[1], e[2], e[3], e[4], e[5]);
        for (const r of copy.records) putRecord.run(...r);
        if (copy.entry >= 0 && copy.sessionId !== undefined) sessionIds[copy.entry]?.push(copy.sessionId);
      }
    })();
    db.pragma('journal_mode = WAL');
  } finally {
    db.close();
  }
  return tally(plan, start, sessionIds);
}

/** How many rows one INSERT carries to PostgreSQL. */
const PG_BATCH = 5_000;

/** Writes the plan into a new PostgreSQL schema (the tables `PostgresStore` makes), in one transaction. */
export async function buildPostgresFixture(url: string, schema: string, plan: FixturePlan): Promise<BuiltFixture> {
  const start = performance.now();
  const store = new PostgresStore({ url, schema });
  await store.open(); // the tables, by the store's own migrations
  const empty = (await store.lastSeq()) === 0;
  await store.close();
  if (!empty) throw new Error(`schema ${schema} already holds a workspace`);
  const pg = (await import('pg')).default;
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  const sessionIds: string[][] = plan.sessions.map(() => []);
  const s = `"${schema}"`;
  // A batch goes as two JSON texts (JSON.stringify is native, where pg's array literals escape every value in JavaScript);
  // the server unpacks them with jsonb_array_elements. The next batch is made while the server stores this one.
  const insert = async (log: LogRow[], records: RecordRow[]) => {
    await client.query(
      `INSERT INTO ${s}.command_log (seq, id, type, payload, actor, timestamp, writes)
       SELECT (r->>0)::bigint, r->>1, r->>2, r->>3, r->>4, r->>5, r->>6 FROM jsonb_array_elements($1::jsonb) AS r`,
      [JSON.stringify(log)],
    );
    // The store reads records back in `id` (BIGSERIAL) order: they are inserted in the batch's order.
    await client.query(
      `INSERT INTO ${s}.records (collection, key, value, owner)
       SELECT r->>0, r->>1, r->>2, r->>3 FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e (r, n) ORDER BY n`,
      [JSON.stringify(records)],
    );
  };
  let inFlight: Promise<void> = Promise.resolve();
  let log: LogRow[] = [];
  let records: RecordRow[] = [];
  const flush = async () => {
    await inFlight;
    inFlight = insert(log, records);
    inFlight.catch(() => undefined); // awaited at the next flush or the end
    log = [];
    records = [];
  };
  try {
    await client.query('BEGIN');
    for (const copy of copies(plan)) {
      log.push(...copy.log);
      records.push(...copy.records);
      if (copy.entry >= 0 && copy.sessionId !== undefined) sessionIds[copy.entry]?.push(copy.sessionId);
      if (log.length + records.length >= PG_BATCH) await flush();
    }
    await flush();
    await inFlight;
    await client.query('COMMIT');
    await client.query(`ANALYZE ${s}.records, ${s}.command_log`);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
  return tally(plan, start, sessionIds);
}
