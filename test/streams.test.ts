/**
 * The session as the unit of concurrency, on PostgreSQL: commands on different sessions
 * commit side by side (no workspace lock; the store checks each command's streams), each
 * session stays one ordered stream, and a command decided on a view another process has
 * changed is refused by the store and decided again. Two handles on one schema are two
 * processes as far as the store can tell: each has its own pool, its own listener and its
 * own index.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GolemError } from '../src/core/errors.js';
import { WORKSPACE_STREAM, type Appended, type CommandLogInput, type StoredWrite, type StreamCheck } from '../src/core/store.js';
import { createWorkspace, doctor, type Turn, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { stampSeq } from '../src/core/streams.js';
import fc from 'fast-check';
import { freshSchema, PG_URL, pgStore } from './pg-helpers.js';

const open: Workspace[] = [];
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.close();
});

async function workspace(schema: string, actor: string): Promise<Workspace> {
  const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }), actor });
  open.push(ws);
  return ws;
}

const text = (t: string) => [{ type: 'text' as const, text: t }];

/**
 * Records each append a handle's store makes: the seq the command was decided at, the seq it
 * got, or the error it met. `between` runs once, after the first command is decided and
 * before it reaches the store: what another process does meanwhile.
 */
function watchAppends(ws: Workspace, between?: () => Promise<unknown>): { decided: number; got?: number; error?: GolemError }[] {
  const store = ws.manager.store;
  const seen: { decided: number; got?: number; error?: GolemError }[] = [];
  const append = store.append?.bind(store) as (entry: CommandLogInput, writes: readonly StoredWrite[], check: StreamCheck) => Promise<Appended>;
  let meanwhile = between;
  vi.spyOn(store, 'append').mockImplementation(async (entry, writes, check) => {
    const run = meanwhile;
    meanwhile = undefined;
    await run?.();
    try {
      const appended = await append(entry, writes, check);
      seen.push({ decided: entry.seq, got: appended.seq });
      return appended;
    } catch (error) {
      seen.push({ decided: entry.seq, error: error as GolemError });
      throw error;
    }
  });
  return seen;
}

/** `ws` takes the workspace's lock (or those streams'), noting when in `order`, and holds it until `release`. */
async function holdLock(ws: Workspace, taken: string, given: string, streams?: string[]) {
  const order: string[] = [];
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const lockHeld = ws.manager.store.exclusive?.(async () => {
    order.push(taken);
    await held;
    order.push(given);
  }, streams);
  await vi.waitFor(() => expect(order).toEqual([taken]));
  return { order, release, lockHeld };
}

describe('per-session concurrency on PostgreSQL', () => {
  it('commits appends to different sessions side by side: no workspace lock, a gapless log, each turn carrying the seq its command got', async () => {
    const schema = freshSchema();
    const [a, b] = [await workspace(schema, 'a'), await workspace(schema, 'b')];
    const [sa, sb] = [await a.sessions.create({ label: 'a' }), await b.sessions.create({ label: 'b' })];
    const locks = [vi.spyOn(a.manager.store, 'exclusive'), vi.spyOn(b.manager.store, 'exclusive')];
    const appends = [watchAppends(a), watchAppends(b)];
    const each = 150;
    await Promise.all([
      (async () => {
        for (let i = 0; i < each; i++) await sa.addTurn({ role: 'user', blocks: text(`a${i}`) });
      })(),
      (async () => {
        for (let i = 0; i < each; i++) await sb.addTurn({ role: 'user', blocks: text(`b${i}`) });
      })(),
    ]);
    // Neither waited for the workspace lock, and neither was refused: different sessions never conflict.
    for (const lock of locks) expect(lock).not.toHaveBeenCalled();
    for (const seen of appends) expect(seen.filter((s) => s.error !== undefined)).toEqual([]);
    // They interleaved: some commands landed later than the seq they were decided at (the other's came between).
    const later = appends.flat().filter((s) => s.got !== undefined && s.got > s.decided);
    expect(later.length).toBeGreaterThan(0);

    const log = await a.manager.store.commandLog();
    expect(log.map((e) => e.seq)).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
    const adds = log.filter((e) => e.type === 'turn:add');
    expect(adds).toHaveLength(2 * each);
    const actors = adds.map((e) => e.actor).join('');
    expect(actors).toMatch(/ab|ba/); // interleaved in the log too
    // Each turn carries the seq of the command that made it, those that landed late included.
    const whole = await a.manager.wholeWorkspace();
    const bySeq = new Map(log.map((e) => [e.seq, e]));
    for (const turn of whole.turns.values()) {
      const made = bySeq.get(turn.seq);
      expect(made?.type).toBe('turn:add');
      expect((made?.payload as { turn: { blocks: { text: string }[] } }).turn.blocks[0]?.text).toBe((turn.blocks[0] as { text: string }).text);
    }
    for (const seq of later.map((s) => s.got)) expect([...whole.turns.values()].some((t: Turn) => t.seq === seq)).toBe(true);
    // Each handle's own session reads whole and in order, and each handle's index equals the store's.
    expect((await sa.transcript()).map((t) => (t.blocks[0] as { text: string }).text)).toEqual(Array.from({ length: each }, (_, i) => `a${i}`));
    expect((await sb.transcript()).map((t) => (t.blocks[0] as { text: string }).text)).toEqual(Array.from({ length: each }, (_, i) => `b${i}`));
    for (const ws of [a, b]) {
      await ws.manager.refresh();
      const report = await doctor(ws.manager);
      expect({ violations: report.violations, drift: report.indexDrift }).toEqual({ violations: [], drift: [] });
    }
  }, 60_000);

  it('refuses a fork decided on a view where its source still stood, once another process deleted it: decided again, SESSION_NOT_FOUND, nothing written', async () => {
    const schema = freshSchema();
    const [a, b] = [await workspace(schema, 'a'), await workspace(schema, 'b')];
    const source = await a.sessions.create({ label: 'source' });
    const q = await source.addTurn({ role: 'user', blocks: text('question') });
    await b.manager.refresh();
    await b.manager.load([source.id]);
    // b decides the fork on a view where the source stands; a deletes the source before b's commit reaches the store.
    const seen = watchAppends(b, () => a.sessions.delete(source.id));
    const fork = await b.manager.dispatch({ type: 'session:fork', payload: { sessionId: source.id, turnId: q.id, id: 'the-fork' } });
    expect(fork.ok ? 'committed' : fork.error.code).toBe('SESSION_NOT_FOUND');
    expect(seen[0]?.error?.code).toBe('STORE_CONFLICT');
    expect([source.id, WORKSPACE_STREAM]).toContain((seen[0]?.error?.details as { stream: string }).stream);
    expect(await a.manager.store.get('session', 'the-fork')).toBeUndefined();
    const report = await doctor(a.manager);
    expect(report.violations).toEqual([]);
  });

  it('decides again, once caught up, a command refused on a view that missed another process’s commit', async () => {
    const schema = freshSchema();
    const [a, b] = [await workspace(schema, 'a'), await workspace(schema, 'b')];
    await b.manager.refresh();
    const made = await a.sessions.create({ label: 'made by a' });
    // b has not heard of the session yet: its reducer refuses, b catches up, decides again, and the turn lands.
    const added = await b.manager.dispatch({ type: 'turn:add', payload: { sessionId: made.id, turn: { role: 'user', blocks: text('from b') } } });
    expect(added.ok ? added.value.sessionId : added.error.code).toBe(made.id);
    await a.manager.refresh();
    expect((await made.transcript()).map((t) => (t.blocks[0] as { text: string }).text)).toEqual(['from b']);
  });

  it('does not overtake for ever a command that waits for the workspace lock: commands without it yield to it', async () => {
    const schema = freshSchema();
    const [a, b] = [await workspace(schema, 'a'), await workspace(schema, 'b')];
    const sb = await b.sessions.create({ label: 'b' });
    const seen = watchAppends(b);
    const { order, release, lockHeld } = await holdLock(a, 'a holds the lock', 'a releases it');
    const append = sb.addTurn({ role: 'user', blocks: text('waits its turn') }).then(() => order.push('b appended'));
    // b's command, decided without the lock, is refused by the store while a holds it, and is then decided under it.
    await vi.waitFor(() => expect(seen[0]?.error?.code).toBe('STORE_CONFLICT'));
    expect(seen[0]?.error?.details).toEqual({ reason: 'lock awaited', lock: 'workspace' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(order).toEqual(['a holds the lock']);
    release();
    await Promise.all([lockHeld, append]);
    expect(order).toEqual(['a holds the lock', 'a releases it', 'b appended']);
    expect((await sb.transcript()).map((t) => (t.blocks[0] as { text: string }).text)).toEqual(['waits its turn']);
  });

  it("takes a session's own lock when it is fought over: commands on it wait their turn, other processes' commands on other sessions go on", async () => {
    const schema = freshSchema();
    const [a, b, c] = [await workspace(schema, 'a'), await workspace(schema, 'b'), await workspace(schema, 'c')];
    const [busy, free] = [await b.sessions.create({ label: 'busy' }), await c.sessions.create({ label: 'free' })];
    const seen = watchAppends(b);
    const { order, release, lockHeld } = await holdLock(a, 'a holds the busy session', 'a lets it go', [busy.id]);
    const waiting = busy.addTurn({ role: 'user', blocks: text('on the busy session') }).then(() => order.push('b appended to the busy session'));
    await vi.waitFor(() => expect(seen[0]?.error?.details).toEqual({ reason: 'lock awaited', lock: 'streams' }));
    // Another process's session is not held up by the busy one's lock (b's own commands wait behind its own: one
    // process runs one command at a time).
    await free.addTurn({ role: 'user', blocks: text('on the free session') });
    order.push('c appended to the free session');
    expect(order).toEqual(['a holds the busy session', 'c appended to the free session']);
    release();
    await Promise.all([lockHeld, waiting]);
    expect(order.slice(2)).toEqual(['a lets it go', 'b appended to the busy session']);
    expect((await busy.transcript()).map((t) => (t.blocks[0] as { text: string }).text)).toEqual(['on the busy session']);
  });

  // What a cold review found the stream check let through at first, each made to happen between a decision and its commit.

  it('does not delete a role another process gives a session meanwhile: a command that reads every session record has the workspace to itself', async () => {
    const schema = freshSchema();
    const [a, b] = [await workspace(schema, 'a'), await workspace(schema, 'b')];
    expect((await a.manager.dispatch({ type: 'role:add', payload: { name: 'critic', persona: 'You criticise.' } })).ok).toBe(true);
    expect((await a.manager.dispatch({ type: 'preference:add', payload: { id: 'terse', content: 'Be terse.' } })).ok).toBe(true);
    await b.manager.refresh();
    // While b's deletion is decided, a gives the role and the preference to a new session: one of the two must lose.
    let creating: Promise<unknown> = Promise.resolve();
    watchAppends(b, async () => {
      creating = a.sessions.create({ id: 'uses-both', role: 'critic', preferences: ['terse'] }).then(
        () => 'created',
        (e: unknown) => (e as GolemError).code,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
    });
    const deleted = await b.manager.dispatch({ type: 'role:delete', payload: { name: 'critic' } });
    const created = await creating;
    expect([deleted.ok ? 'deleted' : deleted.error.code, created]).toEqual(['deleted', 'ROLE_NOT_FOUND']);
    const dropped = await b.manager.dispatch({ type: 'preference:delete', payload: { id: 'terse' } });
    expect(dropped.ok).toBe(true);
    expect((await doctor(a.manager)).violations).toEqual([]);
  });

  it('refuses a sub-worker whose parent session another process deleted meanwhile', async () => {
    const schema = freshSchema();
    const [a, b] = [await workspace(schema, 'a'), await workspace(schema, 'b')];
    const parent = await a.sessions.create({ label: 'parent' });
    await b.manager.refresh();
    watchAppends(b, () => a.sessions.delete(parent.id));
    const spawned = await b.manager.dispatch({
      type: 'worker:spawn',
      payload: { id: 'orphan', parentSessionId: parent.id, parentCallId: 'call-1', task: 'look around', actions: [], maxDepth: 3 },
    });
    expect(spawned.ok ? 'spawned' : spawned.error.code).toBe('SESSION_NOT_FOUND');
    expect(await a.manager.store.get('worker', 'orphan')).toBeUndefined();
    expect(await a.manager.store.get('session', 'orphan')).toBeUndefined();
  });

  it("answers with the records as stored: a turn inside a command's result carries the seq it landed at", async () => {
    const schema = freshSchema();
    const [a, b] = [await workspace(schema, 'a'), await workspace(schema, 'b')];
    expect((await a.manager.dispatch({ type: 'role:add', payload: { name: 'critic', persona: 'You criticise.' } })).ok).toBe(true);
    const mine = await b.sessions.create({ label: 'mine' });
    const seen = watchAppends(b, () => a.sessions.create({ label: 'meanwhile' }));
    const switched = await b.manager.dispatch({ type: 'session:role:switch', payload: { sessionId: mine.id, role: 'critic' } });
    if (!switched.ok) throw switched.error;
    expect(seen[0]?.got).toBeGreaterThan(seen[0]?.decided ?? Infinity); // it landed after the other's
    const turn = switched.value.turn as Turn;
    expect(turn.seq).toBe(seen[0]?.got);
    expect(await a.manager.store.get('turn', `${turn.id}@0`)).toEqual(turn);
  });

  it('is not overtaken for ever by workspace-wide writes of other sessions: a command got in the way of under its session lock takes the workspace lock', async () => {
    const schema = freshSchema();
    const [a, b] = [await workspace(schema, 'a'), await workspace(schema, 'b')];
    const [theirs, mine] = [await a.sessions.create({ label: 'theirs' }), await b.sessions.create({ label: 'mine' })];
    // Before every attempt b makes, a writes a workspace-wide record (a session's trust mode) for its own session.
    const store = b.manager.store;
    const append = store.append?.bind(store) as NonNullable<typeof store.append>;
    const seen: string[] = [];
    let n = 0;
    vi.spyOn(store, 'append').mockImplementation(async (entry, writes, check) => {
      const other = a.manager.dispatch({ type: 'trust:set', payload: { sessionId: theirs.id, action: `act${n++}`, mode: 'manual' } });
      await Promise.race([other, new Promise((resolve) => setTimeout(resolve, 50))]);
      try {
        return await append(entry, writes, check);
      } catch (error) {
        seen.push(`${(error as GolemError).code} ${JSON.stringify((error as GolemError).details)}`);
        throw error;
      }
    });
    const added = await mine.addTurn({ role: 'user', blocks: text('gets through') });
    expect(added.seq).toBeGreaterThan(0);
    expect(seen.length).toBeGreaterThan(0); // it was got in the way of, and still went through
    expect((await mine.transcript()).map((t) => (t.blocks[0] as { text: string }).text)).toEqual(['gets through']);
  });

  it('counts a commit by a process of the version before (golem_commit, no streams) as a write to every stream', async () => {
    const schema = freshSchema();
    const a = await workspace(schema, 'a');
    const session = await a.sessions.create({ label: 'shared' });
    const store = a.manager.store;
    const last = await store.lastSeq();
    const pg = (await import('pg')).default;
    const old = new pg.Client({ connectionString: PG_URL });
    await old.connect();
    try {
      // What an older Golem, still running when the workspace was upgraded, does for a command.
      await old.query(`SELECT "${schema}".golem_commit($1, 'old-cmd', 'test:cmd', '{}', NULL, $2, '[]', $3, $4)`, [
        last + 1,
        new Date(0).toISOString(),
        `golem:${schema}:commit`,
        `golem_${schema}`,
      ]);
    } finally {
      await old.end();
    }
    const late = await store
      .append?.({ seq: last + 1, id: 'new-cmd', type: 'test:cmd', payload: {}, timestamp: new Date(0).toISOString(), actor: null }, [], {
        since: last,
        read: [session.id, WORKSPACE_STREAM],
        write: [session.id],
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(GolemError.isInstance(late) && late.code === 'STORE_CONFLICT' && late.details).toEqual({ stream: WORKSPACE_STREAM, version: last + 1, seen: last });
  });
});

describe('the stamp: a turn that lands later than decided carries the seq it got, set alike by the manager and by PostgreSQL', () => {
  it('rewrites the same number, in the same text, on any turn-shaped record and on texts with no such number', async () => {
    const schema = freshSchema();
    const store = pgStore(schema);
    await store.open();
    const pg = (await import('pg')).default;
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    try {
      const inPostgres = async (json: string, seq: number) =>
        (await client.query<{ out: string }>(`SELECT "${schema}".golem_stamp($1, $2) AS out`, [json, seq])).rows[0]?.out;
      const fixed = [
        '{"seq":5}',
        '{"a":"no number here"}',
        '{"seq":"not digits"}',
        '{"seq":}',
        `{"meta":{"big":"${'𝄞é"\\'.repeat(10)}${'x'.repeat(1_000_000)}","seq":3},"seq":12,"createdAt":"2026 \\"seq\\":9"}`,
      ];
      for (const json of fixed) expect(await inPostgres(json, 4242)).toBe(stampSeq(json, 4242));
      expect(stampSeq(fixed[4] as string, 4242).endsWith('"seq":4242,"createdAt":"2026 \\"seq\\":9"}')).toBe(true);
      // Turn-shaped records as the manager encodes them: whatever the blocks and meta hold, only the turn's own seq changes.
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), fc.string(), fc.integer({ min: 1, max: 1e9 }), fc.integer({ min: 1, max: 1e12 }), async (meta, text, seq, landed) => {
          const turn = {
            id: 't',
            version: 0,
            parent: null,
            sessionId: 's',
            role: 'user',
            blocks: [{ type: 'text', text }],
            meta: { meta },
            seq,
            createdAt: text,
          };
          const json = JSON.stringify(turn);
          const stamped = stampSeq(json, landed);
          expect(JSON.parse(stamped)).toEqual({ ...JSON.parse(json), seq: landed });
          expect(await inPostgres(json, landed)).toBe(stamped);
        }),
        { numRuns: 150 },
      );
    } finally {
      await client.end();
      await store.close();
    }
  });
});
