/**
 * Type-level tests of the public API's generics. The assertions are checked by
 * `npm run typecheck` (tsc covers test/), and the file also runs as a plain test.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { createWorkspace, type BranchInfo, type Result, type Session, type Turn, type TurnDeleteResult, type TurnRef } from '../src/index.js';
import type { CommandMap } from '../src/index.js';

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

  it('types the Session facade', () => {
    expectTypeOf<Session['head']>().returns.toEqualTypeOf<TurnRef | null>();
    expectTypeOf<Session['branchInfo']>().returns.resolves.toEqualTypeOf<BranchInfo>();
    expectTypeOf<Session['deleteTurn']>().returns.resolves.toEqualTypeOf<TurnDeleteResult>();
    expectTypeOf<Session['addTurn']>().parameter(0).toHaveProperty('blocks');
  });
});
