/**
 * `ws.sessions.diff(a, b)`: two branches compared layer by layer (issue 37, "Compare"): the
 * common ancestor and each side's turns since it, environment values and UI instances as each
 * side last saw them (the UI as RFC 6902 from a's to b's), and the clearance items waiting on
 * each side. On SQLite and PostgreSQL, read again after a reopen.
 */
import { applyPatch, type Operation } from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, type CreateWorkspaceOptions, type GolemError, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { whatIfBranches as branches } from './fixtures/session-branches.js';
import { tempDir, text } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

type Kind = 'sqlite' | 'postgres';

const open: Workspace[] = [];
afterEach(async () => {
  for (const ws of open.splice(0)) await ws.close();
});

/** Opens the same workspace each time it is called (a new handle: a reopen). */
function workspaceOn(kind: Kind): () => Promise<Workspace> {
  const options: () => CreateWorkspaceOptions =
    kind === 'sqlite' ? ((dir) => () => ({ dir }))(tempDir()) : ((schema) => () => ({ store: postgresStore(PG_URL, { schema }) }))(freshSchema('diff'));
  return async () => {
    const ws = await createWorkspace(options());
    open.push(ws);
    return ws;
  };
}

describe.each<Kind>(['sqlite', 'postgres'])('ws.sessions.diff on %s', (kind) => {
  it('gives the common ancestor, each side since it, and the environment, UI and clearance differences, the same after a reopen', async () => {
    const reopen = workspaceOn(kind);
    const ws = await reopen();
    const b = await branches(ws);

    const check = async (w: Workspace) => {
      const d = await w.sessions.diff(b.main, b.whatIf);
      expect(d.a).toBe(b.main);
      expect(d.b).toBe(b.whatIf);
      expect(d.turns.base).toEqual({ id: b.parted.id, version: b.parted.version });
      expect(d.turns.a.map((t) => t.id)).toEqual([b.onMain.id]);
      expect(d.turns.b.map((t) => t.id)).toEqual([b.asked.id, b.answered.id]);
      // The reader's page as each side last saw it; the book, set before they parted, is the same on both.
      expect(d.environment).toEqual([{ environment: 'reader', field: 'current_page', a: '1', b: '300' }]);
      // The chart only b saw; the trip form as RFC 6902 from a's to b's.
      expect(d.ui.map((u) => [u.instanceId, u.change])).toEqual([
        ['chart', 'added'],
        ['trip', 'changed'],
      ]);
      const trip = d.ui.find((u) => u.instanceId === 'trip');
      expect(trip?.patch).toEqual(
        expect.arrayContaining([
          { op: 'replace', path: '/state/params/city', value: 'Lisbon' },
          { op: 'replace', path: '/state/params/nights', value: 3 },
        ]),
      );
      expect(applyPatch(structuredClone(b.tripOnMain), (trip?.patch ?? []) as Operation[], true, false).newDocument).toEqual(b.tripOnWhatIf);
      expect(d.clearance.a).toEqual([]);
      expect(d.clearance.b.map((c) => [c.id, c.description, c.status])).toEqual([[b.item, 'book the Lisbon hotel', 'pending']]);

      // The other way round: the same turns swapped, the values swapped, the chart removed.
      const back = await w.sessions.diff(b.whatIf, b.main);
      expect(back.turns).toEqual({ base: d.turns.base, a: d.turns.b, b: d.turns.a });
      expect(back.environment).toEqual([{ environment: 'reader', field: 'current_page', a: '300', b: '1' }]);
      expect(back.ui.find((u) => u.instanceId === 'chart')).toEqual({ instanceId: 'chart', change: 'removed', patch: [{ op: 'remove', path: '' }] });
      expect(
        applyPatch(structuredClone(b.tripOnWhatIf), (back.ui.find((u) => u.instanceId === 'trip')?.patch ?? []) as Operation[], true, false).newDocument,
      ).toEqual(b.tripOnMain);
      return d;
    };
    const before = await check(ws);
    await ws.close();
    open.splice(open.indexOf(ws), 1);
    const again = await reopen();
    expect(await check(again)).toEqual(before);
  });

  it('compares a session with itself as no difference, unrelated sessions with no base, and refuses an unknown one', async () => {
    const ws = await workspaceOn(kind)();
    const b = await branches(ws);
    const same = await ws.sessions.diff(b.whatIf, b.whatIf);
    expect(same.turns).toEqual({ base: { id: b.answered.id, version: b.answered.version }, a: [], b: [] });
    expect([same.environment, same.ui]).toEqual([[], []]);
    expect(same.clearance.a).toEqual(same.clearance.b);

    const other = await ws.sessions.create({ label: 'unrelated' });
    const hello = await other.addTurn({ role: 'user', blocks: [text('hello')] });
    const apart = await ws.sessions.diff(b.main, other.id);
    expect(apart.turns.base).toBeNull();
    expect(apart.turns.a.map((t) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(apart.turns.b.map((t) => t.id)).toEqual([hello.id]);

    const empty = await ws.sessions.create({ label: 'empty' });
    const none = await ws.sessions.diff(empty.id, b.main);
    expect(none.turns.base).toBeNull();
    expect(none.turns.a).toEqual([]);
    // Empty: it has seen no environment value and no instance yet.
    expect(none.environment.map((e) => [e.field, e.a])).toEqual([
      ['current_page', null],
      ['selected_book_name', null],
    ]);

    for (const [x, y] of [
      ['nope', b.main],
      [b.main, 'nope'],
    ] as const) {
      const error = await ws.sessions.diff(x, y).then(
        () => undefined,
        (e: GolemError) => e,
      );
      expect(error?.code).toBe('SESSION_NOT_FOUND');
      expect(error?.details).toEqual({ sessionId: 'nope' });
    }
  });
});
