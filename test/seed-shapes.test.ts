/**
 * Seed 001 writes some calls in shapes Golem's API did not take (issue 19): each is either
 * accepted as the seed means it or refused with an error that says what to write instead,
 * never taken half-way.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineCommand, GolemError, type WorkspaceExtension } from '../src/index.js';

describe("seed 001's shapes", () => {
  it("addTurn({ blocks }) without a role (the seed's own test) adds a user turn", async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    await session.addTurn({ blocks: [{ type: 'text', text: 'Prompt 1' }] });
    const turn1Id = session.head()?.id as string;
    await session.editTurn(turn1Id, [{ type: 'text', text: 'Edited Prompt 1' }]);
    const transcript = await session.transcript();
    expect(transcript.map((t) => [t.role, t.version])).toEqual([['user', 1]]);
    expect(await session.branchInfo(turn1Id)).toMatchObject({ versions: [0, 1], currentIndex: 1 });
    await ws.close();
  });

  it('addTurn(blocks) (the API appendix) appends a user turn at the head; a role given is kept', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    const first = await session.addTurn([{ type: 'text', text: 'hello' }]);
    const second = await session.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'hi' }] });
    expect([first.role, second.role]).toEqual(['user', 'assistant']);
    expect(second.parent).toEqual({ id: first.id, version: 0 });
    await ws.close();
  });

  it('a turn that is not one is still refused with INVALID_PAYLOAD, and nothing is added', async () => {
    const ws = await createWorkspace();
    const session = await ws.sessions.create();
    for (const bad of [null, 'hello', { blocks: 'hello' }, { role: 'narrator', blocks: [] }]) {
      const error = await session.addTurn(bad as never).catch((e: unknown) => e);
      expect(GolemError.isInstance(error) && error.code, JSON.stringify(bad)).toBe('INVALID_PAYLOAD');
    }
    expect(session.head()).toBeNull();
    await ws.close();
  });

  it("an extension in the seed's shape ({ schemas, reducers }) is refused, saying what to write, and registers nothing", async () => {
    const ws = await createWorkspace();
    const seedShaped = { name: 'notes', schemas: [], reducers: { 'notes:add': () => ({}) } } as unknown as WorkspaceExtension;
    const error = (() => {
      try {
        ws.manager.extend(seedShaped);
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(GolemError.isInstance(error) && error.code).toBe('EXTENSION_INVALID');
    expect((error as Error).message).toContain('define each command with its payload schema and its reducer');
    expect((error as Error).message).toContain('`collections: { name: zodSchema }`');
    expect((error as GolemError).details).toEqual({ name: 'notes', fields: ['reducers', 'schemas'] });
    // Nothing was taken: the name is free, and the shape Golem takes registers under it.
    const add = defineCommand({
      type: 'notes:add',
      description: 'Adds a note.',
      payload: z.object({ text: z.string() }),
      reduce: ({ text }) => ({ writes: [{ op: 'put', collection: 'note', key: text, value: { text } }], result: text }),
    });
    ws.manager.extend({ name: 'notes', collections: { note: z.object({ text: z.string() }) }, commands: [add] });
    const added = await ws.manager.dispatch({ type: 'notes:add', payload: { text: 'milk' } } as never);
    expect(added).toMatchObject({ ok: true, value: 'milk' });
    // And one with no name at all is refused too.
    expect(() => ws.manager.extend({ commands: [] } as unknown as WorkspaceExtension)).toThrow(/every extension has a name/);
    await ws.close();
  });
});
