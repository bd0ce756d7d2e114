/**
 * The names of seed 001 a porting user meets (issue 37, section 5), through the public API:
 * `session.turns()`, `session.snapshot()`, `resolveSession`, `TurnBuilder`, the prompt's
 * `estimator`, a 5.0.0 preference with its `timestamp`, and `session:create`'s `{ session }`.
 * What is stored is read again after a reopen, on SQLite and PostgreSQL.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { countPrompt, SessionRecord, TurnBuilder, type BuiltTurn, type TurnRef, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { ScriptedModel } from '../src/test/index.js';
import { codeOf, openClosed, steppingClock, tempDir, text } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

type Kind = 'sqlite' | 'postgres';

/** Opens one workspace again each time it is called (a new handle: a reopen), closed after the test. */
function reopener(kind: Kind, clock = steppingClock()): () => Promise<Workspace> {
  const dir = tempDir();
  const schema = freshSchema('names');
  return () => openClosed({ clock, ...(kind === 'sqlite' ? { dir } : { store: postgresStore(PG_URL, { schema }) }) });
}

const ref = (t: { id: string; version: number }): TurnRef => ({ id: t.id, version: t.version });

describe.each<Kind>(['sqlite', 'postgres'])('seed 001 names on %s', (kind) => {
  it("session:create's result is the record and holds it as `session`; the stored record stays as it was", async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    const created = await ws.manager.dispatch({ type: 'session:create', payload: { id: 'chat', label: 'Weather', topics: ['weather'] } });
    if (!created.ok) throw created.error;
    // The spec's example reads result.value.session; today's callers read the record's fields.
    expect(created.value.session.id).toBe('chat');
    expect(created.value.id).toBe('chat');
    expect(created.value.session).toMatchObject({ id: 'chat', label: 'Weather', topics: ['weather'], head: null });
    expect({ ...created.value, session: undefined }).toEqual({ ...created.value.session, session: undefined });
    expect((await ws.sessions.create({ id: 'other' })).id).toBe('other');

    const again = await reopen();
    const stored = again.sessions.get('chat')?.record();
    expect(stored).toBeDefined();
    expect(stored).not.toHaveProperty('session');
    expect(SessionRecord.parse(stored)).toEqual(created.value.session);
  });

  it("keeps a 5.0.0 preference's timestamp as its createdAt, ranks it by that age, and refuses one from the future", async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    // The spec's 5.0.0 command: the timestamp in the payload (with an offset, kept as the same instant in UTC).
    const older = await ws.manager.dispatch({
      type: 'preference:add',
      payload: { id: 'metric', content: 'Always use metric units for measurements.', topics: ['weather', 'science'], timestamp: '2024-03-01T10:00:00+02:00' },
    });
    if (!older.ok) throw older.error;
    expect(older.value).toMatchObject({ createdAt: '2024-03-01T08:00:00.000Z', updatedAt: '2024-03-01T08:00:00.000Z' });
    const newer = await ws.preferences.add({ id: 'imperial', content: 'Use imperial units.', topics: ['weather'], timestamp: '2025-06-01T00:00:00Z' });
    expect(newer.createdAt).toBe('2025-06-01T00:00:00.000Z');
    const plain = await ws.preferences.add({ id: 'plain', content: 'Be brief.' });
    expect(plain.createdAt).toBe(plain.updatedAt);
    expect(Date.parse(plain.createdAt)).toBeGreaterThan(Date.parse('2025-06-01T00:00:00Z'));

    // Refused: after the command's own time (the clock is at 2026-01-01), and not a timestamp at all. Nothing is written.
    const future = await ws.manager.dispatch({ type: 'preference:add', payload: { id: 'future', content: 'x', timestamp: '2030-01-01T00:00:00Z' } });
    expect(future.error?.code).toBe('INVALID_ARGUMENT');
    const garbled = await ws.manager.dispatch({ type: 'preference:add', payload: { id: 'garbled', content: 'x', timestamp: 'last tuesday' } });
    expect(garbled.error?.code).toBe('INVALID_PAYLOAD');

    // Added last but stated first: the conflict rule lists the older one first (the later one wins).
    const session = await ws.sessions.create({ preferences: ['imperial', 'metric'] });
    expect((await ws.resolveSession(session.id)).preferences.map((p) => p.preference.id)).toEqual(['metric', 'imperial']);

    const again = await reopen();
    expect(again.preferences.get('metric')).toEqual(older.value);
    expect(again.preferences.get('future')).toBeUndefined();
    expect(again.preferences.get('garbled')).toBeUndefined();
    expect((await again.resolveSession(session.id)).preferences.map((p) => p.preference.id)).toEqual(['metric', 'imperial']);
  });

  it('resolveSession gives the role, constraints, preferences by tier, context and transcript, as the prompt uses them', async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    await ws.preferences.add({ id: 'cite', content: 'Cite your sources.' });
    await ws.preferences.add({ id: 'metric', content: 'Always use metric units for weather measurements.', topics: ['weather'] });
    await ws.preferences.add({ id: 'short', content: 'Answer in two sentences.' });
    await ws.preferences.add({ id: 'poems', content: 'Write answers as sonnets about gardening.', topics: ['poetry'] });
    await ws.roles.add({
      name: 'scientist',
      label: 'Science Assistant',
      persona: 'You are a helpful science expert.',
      constraints: { temperature: 0.3, contextWindow: 16000 },
      preferences: ['cite'],
    });
    await ws.context.add({ key: 'tokyo', content: 'Tokyo weather today: 18 degrees and light rain.', topics: ['weather'] });
    await ws.context.add({ key: 'tulips', content: 'Tulips are planted in autumn.', topics: ['gardening'] });
    const session = await ws.sessions.create({ role: 'scientist', topics: ['weather'], preferences: ['short'] });
    await session.addTurn(new TurnBuilder('user').addText('What is the weather like in Tokyo today?').build());

    const effective = await ws.resolveSession(session.id);
    expect(effective.session.id).toBe(session.id);
    expect(effective.role?.name).toBe('scientist');
    expect(effective.persona).toBe('You are a helpful science expert.');
    expect(effective.constraints).toEqual({ temperature: 0.3, contextWindow: 16000 });
    expect(effective.topics).toEqual(['weather']);
    expect(effective.preferences.map((p) => [p.tier, p.preference.id])).toEqual([
      ['role', 'cite'],
      ['topic', 'metric'],
      ['session', 'short'],
    ]);
    expect(effective.context.map((c) => c.entry.key)).toEqual(['tokyo']);
    expect(effective.transcript.turns.map((t) => t.blocks)).toEqual([[text('What is the weather like in Tokyo today?')]]);
    // The same stages as a prompt: with room for everything, the prompt's system instruction is this one.
    const built = await session.buildPrompt({ model: new ScriptedModel([]) });
    expect(built.prompt.system).toBe(effective.system);
    expect(built.prompt.temperature).toBe(0.3);
    expect(built.record.preferences).toEqual(effective.preferences.map((p) => ({ id: p.preference.id, tier: p.tier })));
    expect(effective.system).toContain('You are a helpful science expert.');
    expect(effective.system).toContain('1. Cite your sources.\n2. Always use metric units for weather measurements.\n3. Answer in two sentences.');

    expect(await ws.sessions.resolve(session.id)).toEqual(effective);
    expect(await codeOf(ws.resolveSession('nobody'))).toBe('SESSION_NOT_FOUND');

    const again = await reopen();
    const reread = await again.resolveSession(session.id);
    expect(reread.system).toBe(effective.system);
    expect(reread.preferences).toEqual(effective.preferences);
    expect(reread.transcript.turns).toEqual(effective.transcript.turns);
  });

  it('session.turns() lists the nodes a session sees at their current versions, or every version', async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    const main = await ws.sessions.create({ id: 'main' });
    const q = await main.addTurn({ blocks: [text('q')] });
    const a = await main.addTurn({ role: 'assistant', blocks: [text('a')] });
    const fork = await ws.sessions.fork(main.id, a.id, { id: 'fork' });
    const forkTurn = await fork.addTurn({ blocks: [text('only in the fork')] });
    const q2 = await main.editTurn(q.id, [text('q, edited')]);

    // Every node once, in the order they were started; q at the version main is on (its edit), a at the newest it sees.
    expect((await main.turns()).map(ref)).toEqual([ref(q2), ref(a)]);
    expect((await main.turns({ versions: 'all' })).map(ref)).toEqual([ref(q), ref(a), ref(q2)]);
    // The fork sees the history it was forked from and its own turn, not main's later edit.
    expect((await fork.turns({ versions: 'all' })).map(ref)).toEqual([ref(q), ref(a), ref(forkTurn)]);
    expect(await codeOf(main.turns({ versions: 'some' as 'all' }))).toBe('INVALID_ARGUMENT');

    const again = await reopen();
    expect((await again.sessions.get('main')?.turns())?.map(ref)).toEqual([ref(q2), ref(a)]);
    expect((await again.sessions.get('fork')?.turns())?.map(ref)).toEqual([ref(q), ref(a), ref(forkTurn)]);
  });

  it('session.snapshot() is the session at one moment, frozen: record, path, prompt stage 1 and branch info', async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    const session = await ws.sessions.create({ id: 's', label: 'snap' });
    const q = await session.addTurn({ blocks: [text('first try')] });
    const q2 = await session.editTurn(q.id, [text('second try')]);
    const a = await session.addTurn({ role: 'assistant', blocks: [text('answer')] });

    const snap = await session.snapshot();
    expect(snap.session).toEqual(session.record());
    expect(snap.head).toEqual(ref(a));
    expect(snap.path.map(ref)).toEqual([ref(q2), ref(a)]);
    expect(snap.transcript.turns.map(ref)).toEqual([ref(q2), ref(a)]);
    expect(snap.branches).toEqual({
      [q.id]: { versions: [0, 1], currentIndex: 1, total: 2, hasPrev: true, hasNext: false },
      [a.id]: { versions: [0], currentIndex: 0, total: 1, hasPrev: false, hasNext: false },
    });
    expect(Object.isFrozen(snap) && Object.isFrozen(snap.path) && Object.isFrozen(snap.branches)).toBe(true);
    expect(() => (snap.path as unknown[]).push(a)).toThrow(TypeError);

    // It does not follow later changes.
    await session.addTurn({ blocks: [text('later')] });
    await session.switchVersionLeft(q.id);
    expect(snap.path.map(ref)).toEqual([ref(q2), ref(a)]);
    expect(snap.branches[q.id]?.currentIndex).toBe(1);
    const now = await session.snapshot();
    expect(now.path.map(ref)).toEqual([ref(q)]);
    expect(now.branches[q.id]?.currentIndex).toBe(0);

    const again = await reopen();
    expect(await again.sessions.get('s')?.snapshot()).toEqual(now);
  });

  it("TurnBuilder builds what addTurn and branch take, as the spec's example writes it", async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    const session = await ws.sessions.create({ id: 'b' });
    const picture = await ws.blobs.register(new TextEncoder().encode('a picture'), { mediaType: 'image/png', filename: 'sky.png' });

    const userTurn = new TurnBuilder('user')
      .addText('What is the weather like today?')
      .addImage(picture, { alt: 'the sky' })
      .withMeta({ source: 'port' })
      .build();
    const added = await session.addTurn(userTurn);
    expect(added.id).toBe(userTurn.id);
    expect(added.blocks).toEqual([
      text('What is the weather like today?'),
      { type: 'image', blob: { sha256: picture.sha256 }, mediaType: 'image/png', filename: 'sky.png', alt: 'the sky' },
    ]);
    expect(added.meta).toEqual({ source: 'port' });
    // The turn's id is known before it is added: the spec edits it by that id.
    const edited = await session.editTurn(userTurn.id, [text('What is the weather like in Tokyo?')]);
    expect(edited).toMatchObject({ id: userTurn.id, version: 1 });
    expect(await codeOf(session.addTurn(userTurn))).toBe('DUPLICATE_ID');

    const call = new TurnBuilder('assistant')
      .addThinking('The user wants the weather.')
      .addToolCall({ callId: 'c1', name: 'weather', args: { city: 'Tokyo' } })
      .build();
    await session.addTurn(call);
    const result = new TurnBuilder('tool').addToolResult({ callId: 'c1', content: '18 degrees' }).build();
    await session.addTurn(result);

    const head = session.head();
    const branchTurn = new TurnBuilder('assistant').withParent(head).addText('Let me think differently...').build();
    expectTypeOf(branchTurn).toEqualTypeOf<BuiltTurn<true>>();
    expectTypeOf(branchTurn.parent).toEqualTypeOf<TurnRef | null>();
    const branched = await session.branch(branchTurn);
    expect(branched.parent).toEqual(head);

    // What is refused, before anything reaches the workspace.
    expect(() => new TurnBuilder('robot' as 'user')).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => new TurnBuilder().addImage({ sha256: picture.sha256 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    const noName = (() => {
      try {
        new TurnBuilder('assistant').addToolCall({ callId: 'c2', name: '' }).build();
        return undefined;
      } catch (error) {
        return error as { code: string; details: { issues: { path: string }[] } };
      }
    })();
    expect(noName?.code).toBe('INVALID_ARGUMENT');
    expect(noName?.details.issues.map((i) => i.path)).toEqual(['blocks.0.name']);
    expect(() => new TurnBuilder().withParent({ id: '', version: -1 }).build()).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));

    const again = await reopen();
    const stored = await again.sessions.get('b')?.transcript();
    expect(stored?.map((t) => t.blocks)).toEqual([
      [text('What is the weather like in Tokyo?')],
      call.blocks,
      [{ type: 'tool_result', callId: 'c1', content: [text('18 degrees')] }],
      [text('Let me think differently...')],
    ]);
  });
});

describe("the prompt's estimator", () => {
  it('counts every prompt in place of the model, so a smaller count keeps more history', async () => {
    const history = async (ws: Workspace) => {
      const session = await ws.sessions.create();
      for (let i = 0; i < 6; i++) await session.addTurn({ role: i % 2 === 0 ? 'user' : 'assistant', blocks: [text(`message ${i} `.repeat(80))] });
      return session;
    };
    const model = new ScriptedModel([{ text: 'ok' }]);
    const budget = { total: 800, reserve: 100 };

    const plain = await openClosed();
    const cut = await (await history(plain)).buildPrompt({ model, tokenBudget: budget });
    expect(cut.dropped.length).toBeGreaterThan(0);

    const counted: string[] = [];
    const estimator = (value: string) => {
      counted.push(value);
      return Math.ceil(value.length / 40);
    };
    const ws = await openClosed({ prompt: { estimator } });
    const session = await history(ws);
    const kept = await session.buildPrompt({ model, tokenBudget: budget });
    expect(kept.dropped).toEqual([]);
    expect(kept.sent).toHaveLength(6);
    expect(counted.length).toBeGreaterThan(0);
    expect(kept.record.tokens.total).toBe(countPrompt(kept.prompt, estimator));

    // session.respond counts with it too: what the answer's prompt record says is the estimator's count of what was sent.
    const answer = await session.respond({ model, tokenBudget: budget });
    const record = answer.meta?.prompt as { tokens: { total: number } };
    expect(record.tokens.total).toBe(countPrompt(model.calls[0] ?? { system: '', messages: [] }, estimator));
  });
});
