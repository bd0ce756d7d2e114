import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createWorkspace, ERROR_CODES, GolemError, SqliteStore, type CommandInput, type ErrorCode, type Workspace } from '../src/index.js';
import { indexSnapshot, openWorkspace, STORE_KINDS, tempDir, text } from './helpers.js';

/** Dispatches a command that must be refused with `code`, and checks that nothing changed anywhere. */
async function expectRefused(ws: Workspace, command: CommandInput, code: ErrorCode): Promise<GolemError> {
  const index = indexSnapshot(ws);
  const records = await ws.manager.store.load();
  const commands = (await ws.manager.store.stats()).commands;
  const blobs = await ws.manager.blobStorage.list();
  const result = await ws.manager.dispatch(command);
  expect(result.ok, `${command.type} should be refused`).toBe(false);
  const error = result.error as GolemError;
  expect(GolemError.isInstance(error)).toBe(true);
  expect({ code: error.code, message: error.message }).toMatchObject({ code, message: expect.any(String) });
  expect(error.message.length).toBeGreaterThan(10);
  expect(indexSnapshot(ws)).toEqual(index);
  expect(await ws.manager.store.load()).toEqual(records);
  expect((await ws.manager.store.stats()).commands).toBe(commands);
  expect(await ws.manager.blobStorage.list()).toEqual(blobs);
  return error;
}

async function fixture(kind: (typeof STORE_KINDS)[number]) {
  const ws = await openWorkspace(kind);
  await ws.roles.add({ name: 'r', persona: 'p' });
  const s = await ws.sessions.create({ role: 'r' });
  const other = await ws.sessions.create();
  const t1 = await s.addTurn({ role: 'user', blocks: [text('1')] });
  const t2 = await s.addTurn({ role: 'assistant', blocks: [text('2')] });
  const o1 = await other.addTurn({ role: 'user', blocks: [text('other')] });
  const blob = await ws.blobs.register(new Uint8Array([1]), { mediaType: 'image/png' });
  return { ws, s, other, t1, t2, o1, blob };
}

describe.each(STORE_KINDS)('bad input on the %s store: a typed error and nothing written', (kind) => {
  it('refuses malformed envelopes and unknown commands', async () => {
    const { ws } = await fixture(kind);
    await expectRefused(ws, { type: 'turn:explode', payload: {} }, 'UNKNOWN_COMMAND');
    await expectRefused(ws, { type: 7 } as unknown as CommandInput, 'INVALID_COMMAND');
    await expectRefused(ws, {} as CommandInput, 'INVALID_COMMAND');
    await expectRefused(ws, { type: 'session:create', payload: {}, extra: 1 } as unknown as CommandInput, 'INVALID_COMMAND');
    await expectRefused(ws, { type: 'session:create', payload: {}, timestamp: 'last tuesday' }, 'INVALID_COMMAND');
    await ws.close();
  });

  it('refuses payloads that do not match their schema, naming the path', async () => {
    const { ws, s } = await fixture(kind);
    const add = (blocks: unknown[]) => ({ type: 'turn:add', payload: { sessionId: s.id, turn: { role: 'user', blocks } } });
    const e1 = await expectRefused(ws, add([{ type: 'bogus' }]), 'INVALID_PAYLOAD');
    expect(e1.details.issues).toEqual([expect.objectContaining({ path: 'turn.blocks.0.type' })]);
    await expectRefused(ws, add([{ type: 'text' }]), 'INVALID_PAYLOAD');
    await expectRefused(ws, add([{ type: 'image', mediaType: 'image/png', blob: { sha256: 'abc' } }]), 'INVALID_PAYLOAD');
    await expectRefused(ws, add([{ type: 'image', mediaType: 'image/png', data: 'aGk=', blob: { sha256: '0'.repeat(64) } }]), 'INVALID_PAYLOAD');
    await expectRefused(ws, add([{ type: 'tool_use', callId: 'c', name: 'n', args: { x: Number.NaN } }]), 'INVALID_PAYLOAD');
    await expectRefused(ws, add([{ type: 'tool_result', callId: 'c', content: [{ type: 'tool_use', callId: 'd', name: 'n', args: {} }] }]), 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'turn:add', payload: { turn: { role: 'user', blocks: [] } } }, 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'turn:add', payload: { sessionId: s.id, turn: { role: 'robot', blocks: [] } } }, 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'turn:add', payload: 'a string' }, 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'session:update', payload: { sessionId: s.id, updates: {} } }, 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'role:add', payload: { name: 'x' } }, 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'turn:delete', payload: { sessionId: s.id, turnId: 'x', version: -1 } }, 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'session:fork', payload: { sessionId: s.id, version: 1 } }, 'INVALID_PAYLOAD');
    await expectRefused(
      ws,
      { type: 'turn:add', payload: { sessionId: s.id, turn: { role: 'user', blocks: [], meta: { score: Number.NaN } } } },
      'INVALID_PAYLOAD',
    );
    await expectRefused(
      ws,
      { type: 'turn:add', payload: { sessionId: s.id, turn: { role: 'user', blocks: [], meta: { when: new Date(0) } } } },
      'INVALID_PAYLOAD',
    );
    await expectRefused(ws, { type: 'role:add', payload: { name: 'x', persona: 'p', constraints: { gone: undefined } } }, 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'turn:switch', payload: { sessionId: s.id, turnId: 'x', direction: 'up' } }, 'INVALID_PAYLOAD');
    await ws.close();
  });

  it('answers missing or null arguments to the facades with typed errors', async () => {
    const { ws, s } = await fixture(kind);
    const nul = null as never;
    await expect(s.addTurn(nul)).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    await expect(s.addTurn({ role: 'user', blocks: [] }, nul)).resolves.toMatchObject({ role: 'user' });
    await expect(s.branch(nul)).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    await expect(s.editTurn('x', nul)).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    await expect(ws.sessions.create(nul)).resolves.toBeDefined();
    await expect(ws.sessions.fork(s.id, undefined, nul)).resolves.toBeDefined();
    await expect(ws.blobs.register(new Uint8Array([1]), nul)).rejects.toMatchObject({ code: 'INVALID_PAYLOAD' });
    await ws.close();
  });

  it('refuses unknown ids', async () => {
    const { ws, s } = await fixture(kind);
    await expectRefused(ws, { type: 'turn:add', payload: { sessionId: 'nope', turn: { role: 'user', blocks: [] } } }, 'SESSION_NOT_FOUND');
    await expectRefused(ws, { type: 'session:delete', payload: { sessionId: 'nope' } }, 'SESSION_NOT_FOUND');
    await expectRefused(ws, { type: 'turn:edit', payload: { sessionId: s.id, turnId: 'nope', blocks: [] } }, 'TURN_NOT_FOUND');
    await expectRefused(
      ws,
      { type: 'turn:branch', payload: { sessionId: s.id, parent: { id: 'nope', version: 0 }, turn: { role: 'user', blocks: [] } } },
      'TURN_NOT_FOUND',
    );
    await expectRefused(ws, { type: 'session:fork', payload: { sessionId: s.id, turnId: 'nope' } }, 'TURN_NOT_FOUND');
    await expectRefused(ws, { type: 'session:create', payload: { role: 'nope' } }, 'ROLE_NOT_FOUND');
    await expectRefused(ws, { type: 'session:role:switch', payload: { sessionId: s.id, role: 'nope' } }, 'ROLE_NOT_FOUND');
    await expectRefused(ws, { type: 'role:update', payload: { name: 'nope', updates: { persona: 'x' } } }, 'ROLE_NOT_FOUND');
    await expectRefused(ws, { type: 'role:add', payload: { name: 'x', persona: 'p', preferences: ['nope'] } }, 'PREFERENCE_NOT_FOUND');
    await expectRefused(ws, { type: 'preference:delete', payload: { id: 'nope' } }, 'PREFERENCE_NOT_FOUND');
    await expectRefused(ws, { type: 'context:update', payload: { key: 'nope', updates: { content: 'x' } } }, 'CONTEXT_NOT_FOUND');
    await expectRefused(ws, { type: 'blob:retain', payload: { sha256: 'f'.repeat(64) } }, 'BLOB_NOT_FOUND');
    await ws.close();
  });

  it('refuses a turn from another session, and a stale version', async () => {
    const { ws, s, other, t1, t2, o1 } = await fixture(kind);
    await expectRefused(ws, { type: 'session:fork', payload: { sessionId: s.id, turnId: o1.id } }, 'TURN_NOT_IN_SESSION');
    await expectRefused(ws, { type: 'turn:edit', payload: { sessionId: s.id, turnId: o1.id, blocks: [] } }, 'TURN_NOT_IN_SESSION');
    await expectRefused(
      ws,
      { type: 'turn:branch', payload: { sessionId: other.id, parent: { id: t1.id, version: 0 }, turn: { role: 'user', blocks: [] } } },
      'TURN_NOT_IN_SESSION',
    );
    await expectRefused(ws, { type: 'turn:delete', payload: { sessionId: other.id, turnId: t2.id, version: 0 } }, 'TURN_NOT_IN_SESSION');
    await expectRefused(ws, { type: 'session:update', payload: { sessionId: other.id, updates: { head: { id: t2.id, version: 0 } } } }, 'TURN_NOT_IN_SESSION');
    await expectRefused(ws, { type: 'turn:delete', payload: { sessionId: s.id, turnId: t1.id, version: 5 } }, 'TURN_NOT_FOUND');
    await expect(other.switchVersionLeft(t1.id)).rejects.toMatchObject({ code: 'TURN_NOT_ON_PATH' });
    await ws.close();
  });

  it('refuses to edit a deleted turn or use a deleted session', async () => {
    const { ws, s, t2 } = await fixture(kind);
    await s.deleteTurn(t2.id);
    await expectRefused(ws, { type: 'turn:edit', payload: { sessionId: s.id, turnId: t2.id, blocks: [text('x')] } }, 'TURN_NOT_FOUND');
    await ws.sessions.delete(s.id);
    await expect(s.addTurn({ role: 'user', blocks: [text('x')] })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect(() => s.head()).toThrow(expect.objectContaining({ code: 'SESSION_NOT_FOUND' }));
    await ws.close();
  });

  it('refuses duplicate ids', async () => {
    const { ws, s, t1 } = await fixture(kind);
    await expectRefused(ws, { type: 'turn:add', payload: { sessionId: s.id, turn: { id: t1.id, role: 'user', blocks: [] } } }, 'DUPLICATE_ID');
    await expectRefused(ws, { type: 'session:create', payload: { id: s.id } }, 'DUPLICATE_ID');
    await expectRefused(ws, { type: 'role:add', payload: { name: 'r', persona: 'again' } }, 'DUPLICATE_ID');
    await ws.context.add({ key: 'k', content: 'c' });
    await expectRefused(ws, { type: 'context:add', payload: { key: 'k', content: 'again' } }, 'DUPLICATE_ID');
    await expectRefused(ws, { type: 'workspace:create', payload: {} }, 'WORKSPACE_EXISTS');
    await ws.close();
  });

  it('refuses blob misuse', async () => {
    const { ws, s, blob } = await fixture(kind);
    const unregistered = 'a'.repeat(64);
    await expectRefused(
      ws,
      {
        type: 'turn:add',
        payload: { sessionId: s.id, turn: { role: 'user', blocks: [{ type: 'image', blob: { sha256: unregistered }, mediaType: 'image/png' }] } },
      },
      'BLOB_NOT_FOUND',
    );
    await expectRefused(ws, { type: 'blob:register', payload: { sha256: unregistered, size: 1, mediaType: 'image/png' } }, 'BLOB_NOT_STORED');
    await expectRefused(ws, { type: 'blob:release', payload: { sha256: blob.sha256 } }, 'BLOB_NOT_HELD');
    const stored = await ws.manager.blobStorage.put(new Uint8Array([7, 7]));
    await expectRefused(ws, { type: 'blob:register', payload: { sha256: stored, size: 999, mediaType: 'image/png' } }, 'INVALID_PAYLOAD');
    await expectRefused(ws, { type: 'blob:collect', payload: { before: 'yesterday' } }, 'INVALID_PAYLOAD');
    await expect(ws.blobs.register('text' as unknown as Uint8Array, { mediaType: 'text/plain' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(ws.blobs.read(unregistered)).rejects.toMatchObject({ code: 'BLOB_NOT_FOUND' });
    await ws.close();
  });
});

describe('a store that fails mid-command', () => {
  it('returns STORE_ERROR, leaves the index as it was, and recovers when the store does', async () => {
    const dir = tempDir();
    const path = join(dir, 'workspace.db');
    const ws = await createWorkspace({ store: new SqliteStore({ path, busyTimeoutMs: 20 }) });
    const s = await ws.sessions.create();
    await s.addTurn({ role: 'user', blocks: [text('before')] });
    const before = indexSnapshot(ws);

    // A second connection holds the write lock: the commit cannot get it.
    const blocker = new Database(path);
    blocker.exec('BEGIN IMMEDIATE');
    const result = await ws.manager.dispatch({ type: 'turn:add', payload: { sessionId: s.id, turn: { role: 'user', blocks: [text('blocked')] } } });
    expect(result.error?.code).toBe('STORE_ERROR');
    expect(indexSnapshot(ws)).toEqual(before);
    blocker.exec('ROLLBACK');
    blocker.close();

    await s.addTurn({ role: 'user', blocks: [text('after')] });
    expect((await s.transcript()).map((t) => t.blocks[0])).toEqual([text('before'), text('after')]);
    await ws.close();
  });
});

describe('GolemError', () => {
  it('has a stable code, an HTTP status from the one table, and JSON', () => {
    const error = new GolemError('TURN_NOT_FOUND', 'no turn', { details: { turnId: 't' } });
    expect(error.status).toBe(404);
    expect(JSON.parse(JSON.stringify(error))).toEqual({ code: 'TURN_NOT_FOUND', message: 'no turn', details: { turnId: 't' } });
    expect(Object.keys(ERROR_CODES)).toContain(error.code);
  });

  it('is recognised across copies of the package, and nothing else is', () => {
    const foreign = Object.assign(new Error('from another copy'), { [Symbol.for('golem.error')]: true });
    expect(GolemError.isInstance(foreign)).toBe(true);
    expect(GolemError.isInstance(new Error('plain'))).toBe(false);
    expect(GolemError.isInstance({ code: 'TURN_NOT_FOUND' })).toBe(false);
  });
});
