/**
 * The session as the unit of concurrency, on PostgreSQL: commands on different sessions
 * commit side by side (no workspace lock; the store checks each command's streams), each
 * session stays one ordered stream, and a command decided on a view another process has
 * changed is refused by the store and decided again. Two handles on one schema are two
 * processes as far as the store can tell: each has its own pool, its own listener and its
 * own index.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { GolemError } from '../src/core/errors.js';
import { WORKSPACE_STREAM, type Appended, type CommandLogInput, type StoredWrite, type StreamCheck } from '../src/core/store.js';
import { createWorkspace, doctor, type Turn, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

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
    const order: string[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const lockHeld = a.manager.store.exclusive?.(async () => {
      order.push('a holds the lock');
      await held;
      order.push('a releases it');
    });
    await vi.waitFor(() => expect(order).toEqual(['a holds the lock']));
    const append = sb.addTurn({ role: 'user', blocks: text('waits its turn') }).then(() => order.push('b appended'));
    // b's command, decided without the lock, is refused by the store while a holds it, and is then decided under it.
    await vi.waitFor(() => expect(seen[0]?.error?.code).toBe('STORE_CONFLICT'));
    expect(seen[0]?.error?.details).toEqual({ reason: 'lock awaited' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(order).toEqual(['a holds the lock']);
    release();
    await Promise.all([lockHeld, append]);
    expect(order).toEqual(['a holds the lock', 'a releases it', 'b appended']);
    expect((await sb.transcript()).map((t) => (t.blocks[0] as { text: string }).text)).toEqual(['waits its turn']);
  });
});
