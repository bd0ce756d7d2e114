/**
 * Merging and cherry-picking branches (issue 37, "Merge" and "Cherry-pick"): a merge turn has
 * two parents, the session's head and another branch's turn; the prompt shows that branch's
 * turns since the common ancestor (or a summary of them) before it; `pick` copies one turn.
 * Through the public API on SQLite and PostgreSQL, read back after a reopen: lazy loading,
 * deletion, forks, edits, versions, doctor and every refusal.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, doctor, type CreateWorkspaceOptions, type Turn, type TurnRef, type Workspace } from '../src/index.js';
import { postgresBlobStorage, postgresStore } from '../src/store/postgres/index.js';
import { scriptedModel } from '../src/test/index.js';
import { codeOf, tempDir, text } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

type Kind = 'sqlite' | 'postgres';

const open: Workspace[] = [];
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.close();
});

/** Opens the same workspace each time it is called (a new handle: a reopen), and changes its stored records behind its back. */
function workspaceOn(kind: Kind) {
  const dir = tempDir();
  const schema = freshSchema('merge');
  const options = (): CreateWorkspaceOptions =>
    kind === 'sqlite' ? { dir } : { store: postgresStore(PG_URL, { schema }), blobStorage: postgresBlobStorage(PG_URL, { schema }) };
  const reopen = async () => {
    const ws = await createWorkspace(options());
    open.push(ws);
    return ws;
  };
  /** Rewrites one stored turn (the workspaces closed), as a bug or a hand on the database would. */
  const corrupt = async (key: string, change: (turn: Turn) => Turn) => {
    for (const ws of open.splice(0)) await ws.close();
    if (kind === 'sqlite') {
      const db = new Database(join(dir, 'workspace.db'));
      const row = db.prepare("SELECT value FROM records WHERE collection = 'turn' AND key = ?").get(key) as { value: string };
      db.prepare("UPDATE records SET value = ? WHERE collection = 'turn' AND key = ?").run(JSON.stringify(change(JSON.parse(row.value) as Turn)), key);
      db.close();
      return;
    }
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    const { rows } = await client.query<{ value: string }>(`SELECT value FROM "${schema}".records WHERE collection = 'turn' AND key = $1`, [key]);
    const value = JSON.stringify(change(JSON.parse((rows[0] as { value: string }).value) as Turn));
    await client.query(`UPDATE "${schema}".records SET value = $1 WHERE collection = 'turn' AND key = $2`, [value, key]);
    await client.end();
  };
  return { reopen, corrupt };
}

const ref = (t: Turn): TurnRef => ({ id: t.id, version: t.version });
const key = (t: TurnRef) => `${t.id}@${t.version}`;
const model = () => scriptedModel({ text: 'unused' });

/** main, and a what-if fork of it at its second turn that goes its own way while main goes on. */
async function whatIf(ws: Workspace) {
  const main = await ws.sessions.create({ label: 'main' });
  const asked = await main.addTurn({ role: 'user', blocks: [text('Plan a weekend trip for two.')] });
  const parted = await main.addTurn({ role: 'assistant', blocks: [text('Porto or Lisbon?')] });
  const branch = await ws.sessions.fork(main.id, undefined, { label: 'what-if Lisbon' });
  const wAsked = await branch.addTurn({ role: 'user', blocks: [text('What if we went to Lisbon?')] });
  const wAnswered = await branch.addTurn({ role: 'assistant', blocks: [text('Lisbon: three nights in Alfama, 410 euros.')] });
  const onMain = await main.addTurn({ role: 'user', blocks: [text('Porto, then.')] });
  const mainAnswer = await main.addTurn({ role: 'assistant', blocks: [text('Porto: two nights by the river.')] });
  return { main, branch, asked, parted, wAsked, wAnswered, onMain, mainAnswer };
}

/** The prompt's messages as one text per message, `role: text`, as the model reads them. */
async function promptLines(session: {
  buildPrompt(o: { model: ReturnType<typeof model> }): Promise<{ prompt: { messages: { role: string; content: unknown[] }[] } }>;
}) {
  const built = await session.buildPrompt({ model: model() });
  return built.prompt.messages.flatMap((m) =>
    m.content.flatMap((p) => ((p as { type: string }).type === 'text' ? [`${m.role}: ${(p as { text: string }).text}`] : [])),
  );
}

describe.each<Kind>(['sqlite', 'postgres'])('merging branches on %s', (kind) => {
  it("merges another session's head as turns: two parents, the branch's turns shown before the merge turn and recorded, after a reopen that loads only the merging session", async () => {
    const { reopen } = workspaceOn(kind);
    const ws = await reopen();
    const b = await whatIf(ws);
    const merge = await b.main.merge(b.branch.id, { as: 'turns' });
    expect(merge).toMatchObject({
      role: 'system',
      parent: ref(b.mainAnswer),
      merge: { from: ref(b.wAnswered), base: ref(b.parted), as: 'turns' },
      meta: { mergedBranch: { sessionId: b.branch.id, label: 'what-if Lisbon', turns: 2 } },
    });
    expect(merge.blocks).toEqual([text(`Merged 2 turns from the branch "what-if Lisbon" (session ${b.branch.id}) into this conversation.`)]);
    await ws.close();

    // A reopen that opens only main: the merged turns' session loads with it, so its history is whole.
    const again = await reopen();
    const main = (await again.sessions.open(b.main.id))!;
    expect(again.manager.workspace().isLoaded(b.branch.id)).toBe(true);
    expect((await main.transcript()).map((t) => t.id)).toEqual([b.asked.id, b.parted.id, b.onMain.id, b.mainAnswer.id, merge.id]);
    expect(main.turn(b.wAnswered.id)).toMatchObject({ blocks: [text('Lisbon: three nights in Alfama, 410 euros.')] });
    expect(await main.branchInfo(merge.id)).toMatchObject({ versions: [0], total: 1 });

    // The prompt as the model reads it: main's turns, a note naming the branch, its turns, the merge turn closing them.
    expect(await promptLines(main)).toEqual([
      'user: Plan a weekend trip for two.',
      'assistant: Porto or Lisbon?',
      'user: Porto, then.',
      'assistant: Porto: two nights by the river.',
      `user: [System note] The next 2 turns come from the branch "what-if Lisbon" (session ${b.branch.id}), which parted from this conversation earlier; they are merged into this conversation here.`,
      'user: What if we went to Lisbon?',
      'assistant: Lisbon: three nights in Alfama, 410 euros.',
      `user: [System note] Merged 2 turns from the branch "what-if Lisbon" (session ${b.branch.id}) into this conversation.`,
    ]);

    // An answer records which turns were merged in, kept after a reopen.
    const answer = await main.respond({ model: scriptedModel({ text: 'Both, then: Porto first, Lisbon after.' }) });
    const merged = [{ turn: ref(merge), from: ref(b.wAnswered), as: 'turns', turns: [ref(b.wAsked), ref(b.wAnswered)] }];
    expect(answer.meta.prompt).toMatchObject({ merged });
    await again.close();
    const third = await reopen();
    const read = (await third.sessions.open(b.main.id))!;
    expect(read.turn(answer.id)?.meta.prompt).toMatchObject({ merged });
    expect(await doctor(third.manager)).toMatchObject({ healthy: true, violations: [] });
  });

  it('forks a merged session in O(1), edits a merge turn keeping both parents, and merges a branch of its own tree', async () => {
    const { reopen } = workspaceOn(kind);
    const ws = await reopen();
    const b = await whatIf(ws);
    const merge = await b.main.merge(b.branch.id, { as: 'turns' });
    const turnsBefore = (await ws.manager.store.load()).filter((r) => r.collection === 'turn').length;
    const fork = await ws.sessions.fork(b.main.id, undefined, { label: 'after the merge' });
    expect((await ws.manager.store.load()).filter((r) => r.collection === 'turn').length).toBe(turnsBefore);

    const edited = await b.main.editTurn(merge.id, [text('Merged the Lisbon plan.')]);
    expect(edited).toMatchObject({ version: 1, parent: ref(b.mainAnswer), merge: { from: ref(b.wAnswered), base: ref(b.parted), as: 'turns' } });
    expect(await b.main.branchInfo(merge.id)).toMatchObject({ versions: [0, 1], currentIndex: 1, total: 2 });
    await ws.close();

    const again = await reopen();
    const main = (await again.sessions.open(b.main.id))!;
    expect((await promptLines(main)).slice(-3)).toEqual([
      'user: What if we went to Lisbon?',
      'assistant: Lisbon: three nights in Alfama, 410 euros.',
      'user: [System note] Merged the Lisbon plan.',
    ]);
    await main.switchVersionLeft(merge.id);
    expect(main.head()).toEqual(ref(merge));
    // The fork stands on the merge: it sees the merged branch and its prompt shows it.
    const forked = (await again.sessions.open(fork.id))!;
    expect(again.manager.workspace().isLoaded(b.branch.id)).toBe(true);
    expect(forked.turn(b.wAsked.id)).toBeDefined();
    expect(await promptLines(forked)).toContain('user: What if we went to Lisbon?');

    // A branch of main's own tree: a new turn under `parted`, then the old line merged back into it.
    const side = await main.branch({ parent: ref(b.parted), role: 'user', blocks: [text('Or stay home?')] });
    const back = await main.merge(ref(merge), { as: 'turns' });
    expect(back).toMatchObject({ parent: ref(side), merge: { from: ref(merge), base: ref(b.parted) } });
    expect(back.blocks[0]).toEqual(text('Merged 3 turns from another branch of this conversation into this conversation.'));
    const lines = await promptLines(main);
    // The merged line brings its own merge in with it: Porto's turns, then Lisbon's inside them.
    expect(lines.filter((l) => l.includes('Porto') || l.includes('Lisbon?'))).toEqual([
      'assistant: Porto or Lisbon?',
      'user: Porto, then.',
      'assistant: Porto: two nights by the river.',
      'user: What if we went to Lisbon?',
    ]);
    expect(await doctor(again.manager)).toMatchObject({ healthy: true, violations: [] });
  });

  it('merges as a summary written by the given model, which stands in for the branch in the prompt; refuses without a model', async () => {
    const { reopen } = workspaceOn(kind);
    const ws = await reopen();
    const b = await whatIf(ws);
    expect(await codeOf(b.main.merge(b.branch.id, { as: 'summary' }))).toBe('MODEL_REQUIRED');
    const summarizer = scriptedModel({ text: 'The user weighed Lisbon: three nights in Alfama for 410 euros.' });
    const merge = await b.main.merge(b.branch.id, { as: 'summary', model: summarizer });
    // The summarizer read the branch since the two parted, and nothing of main's own.
    const asked = JSON.stringify(summarizer.calls[0]?.messages);
    expect(asked).toContain('What if we went to Lisbon?');
    expect(asked).not.toContain('Porto, then.');
    expect(merge).toMatchObject({ merge: { from: ref(b.wAnswered), base: ref(b.parted), as: 'summary' } });
    await ws.close();

    const again = await reopen();
    const main = (await again.sessions.open(b.main.id))!;
    const lines = await promptLines(main);
    expect(lines.at(-1)).toBe(
      `user: [System note] Merged the branch "what-if Lisbon" (session ${b.branch.id}) into this conversation, as a summary of its 2 turns since the branches parted:\n\nThe user weighed Lisbon: three nights in Alfama for 410 euros.`,
    );
    expect(lines.join('\n')).not.toContain('What if we went to Lisbon?');
    const built = await main.buildPrompt({ model: model() });
    expect(built.record.merged).toEqual([{ turn: ref(merge), from: ref(b.wAnswered), as: 'summary', turns: [ref(b.wAsked), ref(b.wAnswered)] }]);
  });

  it("picks a turn of another branch onto the head with its origin, its blobs retained after the other session's deletion", async () => {
    const { reopen } = workspaceOn(kind);
    const ws = await reopen();
    const b = await whatIf(ws);
    const map = await ws.blobs.register(new TextEncoder().encode('a map of Alfama'), { mediaType: 'image/png' });
    const withMap = await b.branch.addTurn({
      role: 'user',
      blocks: [text('Here is the map.'), { type: 'image', blob: { sha256: map.sha256 }, mediaType: 'image/png' }] as never,
    });
    const picked = await b.main.pick(ref(withMap));
    expect(picked).toMatchObject({
      role: 'user',
      parent: ref(b.mainAnswer),
      sessionId: b.main.id,
      blocks: withMap.blocks,
      meta: { pickedFrom: { sessionId: b.branch.id, turn: ref(withMap) } },
    });
    expect(picked.merge).toBeUndefined();
    expect(ws.manager.workspace().blobs.get(map.sha256)?.refCount).toBe(2);
    await ws.sessions.delete(b.branch.id);
    await ws.close();

    const again = await reopen();
    const main = (await again.sessions.open(b.main.id))!;
    expect(main.turn(picked.id)).toMatchObject({ meta: { pickedFrom: { sessionId: b.branch.id, turn: ref(withMap) } } });
    expect(again.manager.workspace().blobs.get(map.sha256)?.refCount).toBe(1);
    expect(await again.manager.blobStorage.get(map.sha256)).not.toBeNull();
    expect(await doctor(again.manager)).toMatchObject({ healthy: true, violations: [] });
  });

  it('keeps the merged turns when the other session is deleted, refuses to delete one while a merge needs it, and lets them go with the merge', async () => {
    const { reopen } = workspaceOn(kind);
    const ws = await reopen();
    const b = await whatIf(ws);
    const merge = await b.main.merge(b.branch.id, { as: 'turns' });
    // A turn a merge turn stands on is shared: refused in the other session, with who needs it.
    const refused = await b.branch.deleteTurn(b.wAsked.id).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'TURN_SHARED', details: { sessionId: b.main.id } });
    await ws.sessions.delete(b.branch.id);
    await ws.close();

    const again = await reopen();
    const stored = async (w: Workspace) => new Set((await w.manager.store.load()).filter((r) => r.collection === 'turn').map((r) => r.key));
    expect(await stored(again)).toEqual(new Set([b.asked, b.parted, b.onMain, b.mainAnswer, merge, b.wAsked, b.wAnswered].map(key)));
    const main = (await again.sessions.open(b.main.id))!;
    expect(await promptLines(main)).toContain('assistant: Lisbon: three nights in Alfama, 410 euros.');
    expect(await doctor(again.manager)).toMatchObject({ healthy: true, violations: [] });

    // The merge turn deleted: what it alone kept goes with it.
    const result = await main.deleteTurn(merge.id);
    expect(new Set(result.deleted.map(key))).toEqual(new Set([merge, b.wAsked, b.wAnswered].map(key)));
    await again.close();
    const third = await reopen();
    expect(await stored(third)).toEqual(new Set([b.asked, b.parted, b.onMain, b.mainAnswer].map(key)));
    expect(await doctor(third.manager)).toMatchObject({ healthy: true, violations: [] });
  });

  it('refuses to delete a turn of its own tree that a merge turn merged from, until the merge turn goes', async () => {
    const { reopen } = workspaceOn(kind);
    const ws = await reopen();
    const s = await ws.sessions.create({ label: 'one tree' });
    const root = await s.addTurn({ role: 'user', blocks: [text('Name the project.')] });
    const first = await s.addTurn({ role: 'assistant', blocks: [text('Golem.')] });
    await s.branch({ parent: ref(root), role: 'assistant', blocks: [text('Homunculus.')] });
    const merge = await s.merge(ref(first), { as: 'turns' });
    expect(await codeOf(s.deleteTurn(first.id, 0))).toBe('TURN_SHARED');
    await s.deleteTurn(merge.id);
    await ws.close();
    const again = await reopen();
    const read = (await again.sessions.open(s.id))!;
    expect(read.turn(merge.id)).toBeUndefined();
    await read.deleteTurn(first.id, 0);
    expect(await doctor(again.manager)).toMatchObject({ healthy: true, violations: [] });
  });

  it('reports a merge turn whose merged turn is missing, or whose base is not a common ancestor', async () => {
    const { reopen, corrupt } = workspaceOn(kind);
    const ws = await reopen();
    const b = await whatIf(ws);
    const merge = await b.main.merge(b.branch.id, { as: 'turns' });
    expect(await doctor(ws.manager)).toMatchObject({ healthy: true, violations: [] });

    await corrupt(key(merge), (t) => ({ ...t, merge: { ...t.merge!, base: ref(b.onMain) } }));
    const codes = async () => (await doctor((await reopen()).manager)).violations.map((v) => v.code);
    expect(await codes()).toEqual(['MERGE_BASE']);
    await corrupt(key(merge), (t) => ({ ...t, merge: { ...t.merge!, from: { id: 'gone', version: 0 }, base: ref(b.parted) } }));
    expect(await codes()).toEqual(expect.arrayContaining(['MERGE_FROM_MISSING']));
    await corrupt(key(merge), (t) => ({ ...t, merge: { ...t.merge!, from: ref(b.wAnswered), base: null } }));
    expect(await codes()).toEqual(['MERGE_BASE']);
  });
});

describe('merge and pick refusals', () => {
  it('refuses each bad merge or pick with its code, and writes nothing', async () => {
    const ws = await createWorkspace({ dir: tempDir() });
    open.push(ws);
    const b = await whatIf(ws);
    const stranger = await ws.sessions.create({ label: 'unrelated' });
    const strangerTurn = await stranger.addTurn({ role: 'user', blocks: [text('Something else entirely.')] });
    const empty = await ws.sessions.create();
    const commands = async () => (await ws.manager.store.stats()).commands;
    const before = await commands();

    expect(await codeOf(b.main.merge(stranger.id, { as: 'turns' }))).toBe('MERGE_NOT_RELATED');
    expect(await codeOf(stranger.merge(b.main.id, { as: 'turns' }))).toBe('MERGE_NOT_RELATED');
    expect(await codeOf(empty.merge(b.main.id, { as: 'turns' }))).toBe('MERGE_NOT_RELATED');
    expect(await codeOf(b.main.merge(empty.id, { as: 'turns' }))).toBe('MERGE_NOTHING');
    expect(await codeOf(b.main.merge(ref(b.parted), { as: 'turns' }))).toBe('MERGE_NOTHING');
    expect(await codeOf(b.main.merge(ref(b.mainAnswer), { as: 'turns' }))).toBe('MERGE_NOTHING');
    // Not its head, and not a turn main sees: another session's private turn.
    expect(await codeOf(b.main.merge(ref(b.wAsked), { as: 'turns' }))).toBe('TURN_NOT_IN_SESSION');
    expect(await codeOf(b.main.merge({ id: 'nowhere', version: 0 }, { as: 'turns' }))).toBe('TURN_NOT_FOUND');
    expect(await codeOf(b.main.merge('no-such-session', { as: 'turns' }))).toBe('SESSION_NOT_FOUND');
    // The command itself: a summary merge needs its summary.
    const noSummary = await ws.manager.dispatch({ type: 'turn:merge', payload: { sessionId: b.main.id, from: ref(b.wAnswered), as: 'summary' } });
    expect(noSummary.ok ? 'no error' : noSummary.error.code).toBe('INVALID_PAYLOAD');
    // No model is paid for a merge the command would refuse.
    const summarizer = scriptedModel({ text: 'never' });
    expect(await codeOf(b.main.merge(ref(b.parted), { as: 'summary', model: summarizer }))).toBe('MERGE_NOTHING');
    expect(summarizer.calls).toHaveLength(0);

    expect(await codeOf(b.main.pick(ref(strangerTurn)))).toBe('TURN_NOT_IN_SESSION');
    expect(await codeOf(b.main.pick(ref(b.parted)))).toBe('MERGE_NOTHING');
    expect(await codeOf(b.main.pick({ id: 'nowhere', version: 0 }))).toBe('TURN_NOT_FOUND');
    expect(await commands()).toBe(before);

    const merge = await b.main.merge(b.branch.id, { as: 'turns' });
    expect(await codeOf(b.main.merge(b.branch.id, { as: 'turns' }))).toBe('MERGE_NOTHING');
    expect(await codeOf(b.main.pick(ref(b.wAsked)))).toBe('MERGE_NOTHING');
    const other = await ws.sessions.fork(b.main.id, b.parted.id);
    expect(await codeOf(other.pick(ref(merge)))).toBe('INVALID_ARGUMENT');
    expect(b.main.head()).toEqual(ref(merge));
  });
});
