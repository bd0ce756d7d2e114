/**
 * Retention (issue 38, section 1): a sweep removes idle sessions and turns off the path,
 * compacts the log, and never what a kept session sees, a pin, a pending approval or a
 * paused run holds; read back after a reopen, on SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { createWorkspace, doctor, type CreateWorkspaceOptions, type SessionRecord, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { buildRetentionFixture, seenBy, storedTurns } from '../bench/retention-fixture.js';
import { codeOf, countingIds, tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const HOUR = 3_600_000;

/** A clock the test moves. */
function movableClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return { clock: () => new Date(now++), advance: (ms: number) => void (now += ms) };
}

type Kind = 'sqlite' | 'postgres';

function opener(kind: Kind, clock: () => Date): () => Promise<Workspace> {
  const dir = tempDir();
  const schema = freshSchema('retention');
  const base: CreateWorkspaceOptions = { dir, clock, newId: countingIds('r'), durability: 'normal' };
  return () => createWorkspace(kind === 'sqlite' ? base : { ...base, store: postgresStore(PG_URL, { schema }) });
}

describe.each(['sqlite', 'postgres'] as const)('retention on %s', (kind) => {
  it('keeps the path, forks, merges, pins and holds; removes the rest; reads back identical after a reopen', async () => {
    const time = movableClock();
    const open = opener(kind, time.clock);
    let ws = await open();
    const fixture = await buildRetentionFixture(ws, { turns: 600, forks: 20, imageBytes: 512, advance: time.advance });
    const before = await storedTurns(ws);
    const sessionsBefore = [...ws.manager.workspace().sessions.values()];
    time.advance(HOUR);
    const policy = { sessions: { idleFor: '3h' }, turns: { keep: 'path' as const }, batch: 50 };
    const dry = await ws.retention.apply(policy, { dryRun: true });
    expect(dry.commands).toBe(0);
    expect(await storedTurns(ws)).toEqual(before); // a dry run writes nothing
    const report = await ws.retention.apply(policy);
    await ws.close();

    ws = await open();
    const after = await storedTurns(ws);
    const sessionsAfter = new Map([...ws.manager.workspace().sessions.values()].map((s) => [s.id, s]));
    // What went: every idle session not held, and turns; the dry run said the same.
    expect(report.sessions.count).toBeGreaterThan(0);
    expect(report.turns.count).toBe(before.size - after.size);
    expect(dry.sessions.ids.sort()).toEqual(report.sessions.ids.sort());
    // A dry run plans each session on the state as it is: where idle sessions share history, the sweep frees a little more.
    expect(dry.turns.count).toBeLessThanOrEqual(report.turns.count);
    expect(dry.turns.count).toBeGreaterThan(report.turns.count * 0.8);
    expect(report.blobs.count).toBeGreaterThan(0);
    expect(report.turns.count).toBeGreaterThan(before.size / 4);
    // What stayed: every session not idle, and every turn a kept session sees, byte for byte.
    const kept: SessionRecord[] = sessionsBefore.filter((s) => sessionsAfter.has(s.id));
    for (const s of sessionsBefore) if (!fixture.idle.includes(s.id)) expect(sessionsAfter.has(s.id)).toBe(true);
    expect(report.sessions.ids.every((id) => fixture.idle.includes(id))).toBe(true);
    for (const s of kept) {
      expect(sessionsAfter.get(s.id)).toEqual(s);
      for (const key of seenBy(before, s)) expect(after.get(key), `${key}, seen by ${s.id}`).toBe(before.get(key));
    }
    for (const key of after.keys()) expect(after.get(key)).toBe(before.get(key));
    // Holds: the pinned turn (off the path) stays; held sessions keep every turn they created.
    expect(after.get(`${fixture.pinnedTurn.id}@${fixture.pinnedTurn.version}`)).toBe(before.get(`${fixture.pinnedTurn.id}@${fixture.pinnedTurn.version}`));
    for (const held of [fixture.approval, fixture.paused, fixture.pinnedSession]) {
      const created = [...before].filter(([, json]) => (JSON.parse(json) as { sessionId: string }).sessionId === held);
      for (const [key, json] of created) expect(after.get(key)).toBe(json);
      expect(report.kept.map((k) => k.sessionId)).toContain(held);
    }
    expect(report.kept.find((k) => k.sessionId === fixture.approval)?.reasons.join()).toMatch(/approval .* is pending/);
    expect(report.kept.find((k) => k.sessionId === fixture.paused)?.reasons.join()).toMatch(/run run-paused is paused/);
    // Sound, and a second run finds nothing more.
    const health = await doctor(ws.manager);
    expect(health.violations).toEqual([]);
    // A paused run's record drifts without any sweep (its text keeps claimedRecord's key order, a rebuild the schema's): left as found.
    expect(health.indexDrift.filter((d) => d !== 'run_record/run-paused')).toEqual([]);
    expect(health.orphanBlobs).toEqual([]);
    const again = await ws.retention.apply(policy);
    expect([again.sessions.count, again.turns.count, again.commands]).toEqual([0, 0, 0]);
    await ws.close();
  }, 120_000);

  it('refuses a malformed policy with INVALID_ARGUMENT, writing nothing', async () => {
    const time = movableClock();
    const ws = await opener(kind, time.clock)();
    const seq = ws.manager.workspace().lastSeq;
    for (const bad of [
      {},
      { sessions: { idleFor: '3 days' } },
      { turns: { keep: 'last' } },
      { turns: { keep: 'last', count: 0 } },
      { log: {} },
      { sessions: { idleFor: -1 } },
      { extra: 1 },
    ]) {
      expect(await codeOf(ws.retention.apply(bad as never)), JSON.stringify(bad)).toBe('INVALID_ARGUMENT');
    }
    expect(await codeOf(ws.retention.apply())).toBe('INVALID_ARGUMENT'); // no policy given, none by default
    expect(await codeOf(createWorkspace({ retention: { turns: { keep: 'all' } } as never }))).toBe('INVALID_ARGUMENT');
    expect(ws.manager.workspace().lastSeq).toBe(seq);
    await ws.close();
  });

  it('compacts the log: entries older than keepFor become one checkpoint, the seq stays, a reopen and doctor find it sound', async () => {
    const time = movableClock();
    const open = opener(kind, time.clock);
    let ws = await open();
    const session = await ws.sessions.create({ label: 'long' });
    for (let i = 0; i < 30; i++) await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: `old ${i}` }] });
    time.advance(48 * HOUR);
    for (let i = 0; i < 5; i++) await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: `new ${i}` }] });
    const lastSeq = ws.manager.workspace().lastSeq;
    const oldEntries = (await ws.manager.store.commandLog()).filter((e) => Date.parse(e.timestamp) < time.clock().getTime() - 24 * HOUR);

    const dry = await ws.retention.apply({ log: { keepFor: '1d' } }, { dryRun: true });
    expect((await ws.manager.store.commandLog()).length).toBe(lastSeq); // a dry run writes nothing
    const report = await ws.retention.apply({ log: { keepFor: '1d' } });
    expect(report.log).toMatchObject({ count: oldEntries.length, supported: true });
    expect(dry.log.count).toBe(report.log.count);
    expect(report.log.bytes).toBeGreaterThan(0);
    await ws.close();

    ws = await open();
    const log = await ws.manager.store.commandLog();
    expect(log[0]).toMatchObject({
      type: 'log:checkpoint',
      seq: oldEntries.at(-1)?.seq,
      payload: { from: 1, to: oldEntries.at(-1)?.seq, commands: oldEntries.length },
    });
    expect(log).toHaveLength(lastSeq - oldEntries.length + 1);
    expect(log.slice(1).every((e) => e.type !== 'log:checkpoint' && Date.parse(e.timestamp) >= Date.parse(oldEntries.at(-1)?.timestamp ?? ''))).toBe(true);
    expect(log.at(-1)?.seq).toBe(lastSeq);
    const reopened = await ws.sessions.open(session.id);
    expect(reopened?.record().length).toBe(35);
    expect((await doctor(ws.manager)).healthy).toBe(true);
    // Again: nothing more is old enough, and what a new command gets is the next seq.
    expect((await ws.retention.apply({ log: { keepFor: '1d' } })).log.count).toBe(0);
    await reopened?.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'after' }] });
    expect(ws.manager.workspace().lastSeq).toBe(lastSeq + 1);
    await ws.close();
  });
});
