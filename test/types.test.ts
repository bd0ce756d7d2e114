/**
 * Type-level tests of the public API's generics. The assertions are checked by
 * `npm run typecheck` (tsc covers test/), and the file also runs as a plain test.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  createWorkspace,
  defineCommand,
  Id,
  requireSession,
  stored,
  Timestamp,
  type BranchInfo,
  type CommandMapOf,
  type Result,
  type Session,
  type Turn,
  type TurnDeleteResult,
  type TurnRef,
  type WorkspaceExtension,
  type WorkspaceView,
} from '../src/index.js';
import type { CommandMap, ContentBlock, NewTurn } from '../src/index.js';
import type { ApprovalRecord, WorkerRecord } from '../src/index.js';

// A user's extension, written as its README would show it: a record, a command, and both declared by declaration merging.
const Bookmark = z.strictObject({ id: Id, sessionId: Id, url: z.string(), createdAt: Timestamp });
type Bookmark = z.infer<typeof Bookmark>;

const bookmarkAdd = defineCommand({
  type: 'bookmark:add',
  description: 'Bookmarks a page for a session.',
  payload: z.strictObject({ sessionId: Id, url: z.string() }),
  reduce: (payload, ctx) => {
    requireSession(ctx.index, payload.sessionId);
    const id = ctx.newId();
    return stored('bookmark', id, { id, sessionId: payload.sessionId, url: payload.url, createdAt: ctx.now });
  },
});

declare module '../src/index.js' {
  interface CollectionMap {
    bookmark: Bookmark;
  }
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends CommandMapOf<typeof bookmarkAdd> {}
}

const bookmarks: WorkspaceExtension = { name: 'bookmarks', collections: { bookmark: Bookmark }, commands: [bookmarkAdd] };

describe('public API types', () => {
  it('types dispatch by command type', async () => {
    const ws = await createWorkspace();
    const created = await ws.manager.dispatch({ type: 'session:create', payload: { label: 'x' } });
    expectTypeOf(created).toEqualTypeOf<Result<CommandMap['session:create']['result']>>();
    if (!created.ok) throw created.error;
    const added = await ws.manager.dispatch({ type: 'turn:add', payload: { sessionId: created.value.id, turn: { role: 'user', blocks: [] } } });
    expectTypeOf(added).toEqualTypeOf<Result<Turn>>();
    // @ts-expect-error: a turn:add payload needs a sessionId
    await ws.manager.dispatch({ type: 'turn:add', payload: { turn: { role: 'user', blocks: [] } } });
    // Unknown command types are allowed (extensions) and come back untyped.
    expectTypeOf(await ws.manager.dispatch({ type: 'plugin:thing', payload: {} })).toEqualTypeOf<Result<unknown>>();
    await ws.close();
  });

  it("types a user's collections and commands declared by declaration merging", async () => {
    const ws = await createWorkspace({ extensions: [bookmarks] });
    const session = await ws.sessions.create();
    const added = await ws.manager.dispatch({ type: 'bookmark:add', payload: { sessionId: session.id, url: 'https://example.com' } });
    expectTypeOf(added).toEqualTypeOf<Result<Bookmark>>();
    // @ts-expect-error: a bookmark:add payload needs a url
    await ws.manager.dispatch({ type: 'bookmark:add', payload: { sessionId: session.id } });
    if (!added.ok) throw added.error;
    const view = ws.manager.workspace();
    expectTypeOf(view.collection('bookmark')).toEqualTypeOf<ReadonlyMap<string, Bookmark>>();
    expectTypeOf(view.collection('bookmark').get(added.value.id)).toEqualTypeOf<Bookmark | undefined>();
    // @ts-expect-error: only declared collections are read typed (the rest through view.collections)
    view.collection('bookmarx');
    await ws.close();
  });

  it("types Golem's own collections the same way", () => {
    expectTypeOf<WorkspaceView['collection']>().toBeCallableWith('worker');
    const read = (view: WorkspaceView) => ({ worker: view.collection('worker').get('w'), approval: view.collection('approval').get('a') });
    expectTypeOf(read).returns.toEqualTypeOf<{ worker: WorkerRecord | undefined; approval: ApprovalRecord | undefined }>();
  });

  it("refuses a schema that is not the declared record's, and a record that is not the collection's", () => {
    // @ts-expect-error: the schema of 'bookmark' must give a Bookmark
    const wrong: WorkspaceExtension = { name: 'wrong', collections: { bookmark: z.strictObject({ id: Id }) } };
    // @ts-expect-error: a bookmark record needs a url
    const bad = () => stored('bookmark', 'b', { id: 'b', sessionId: 's', createdAt: 't' });
    // Collections nobody declared stay open, untyped.
    const open: WorkspaceExtension = { name: 'open', collections: { scratch: z.string() } };
    expectTypeOf(stored('scratch', 'k', 'v').result).toEqualTypeOf<string>();
    void [wrong, bad, open];
  });

  it('types the Session facade', () => {
    expectTypeOf<Session['head']>().returns.toEqualTypeOf<TurnRef | null>();
    expectTypeOf<Session['branchInfo']>().returns.resolves.toEqualTypeOf<BranchInfo>();
    expectTypeOf<Session['deleteTurn']>().returns.resolves.toEqualTypeOf<TurnDeleteResult>();
    expectTypeOf<Session['addTurn']>().parameter(0).toEqualTypeOf<NewTurn | ContentBlock[]>();
  });
});
