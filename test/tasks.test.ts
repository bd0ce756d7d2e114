/**
 * Tasks and plans (issue 37, section 2) through the public API: the task record and its
 * commands (`ws.tasks`), every refusal by its code, the committed-command events a front end
 * follows, on SQLite and PostgreSQL, read again after a reopen.
 */
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { codeOf, openClosed, tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

type Kind = 'sqlite' | 'postgres';

/** Opens one workspace again each time it is called (a new handle: a reopen), closed after the test. */
function reopener(kind: Kind): () => Promise<Workspace> {
  const dir = tempDir();
  const schema = freshSchema('tasks');
  return () => openClosed(kind === 'sqlite' ? { dir } : { store: postgresStore(PG_URL, { schema }) });
}

describe.each<Kind>(['sqlite', 'postgres'])('ws.tasks on %s', (kind) => {
  it('proposes, accepts with edits, marks steps and closes a task, followed by events, the same after a reopen', async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    const session = await ws.sessions.create({ topics: ['billing'] });
    const other = await ws.sessions.create({ topics: ['search'] });
    const seen: string[] = [];
    ws.events.on('command', (event) => {
      if (event.command.type.startsWith('task:')) seen.push(event.command.type);
    });

    const proposed = await ws.tasks.propose({ sessionId: session.id, title: 'Fix rounding', steps: ['Find the code', 'Fix it', 'Test it'] });
    expect(proposed).toMatchObject({
      status: 'proposed',
      topics: ['billing'],
      sessionId: session.id,
      runId: null,
      workerId: null,
      parentTask: null,
      steps: [
        { text: 'Find the code', status: 'pending' },
        { text: 'Fix it', status: 'pending' },
        { text: 'Test it', status: 'pending' },
      ],
    });
    const accepted = await ws.tasks.accept(proposed.id, { title: 'Fix invoice rounding', steps: ['Find the code', 'Fix it', 'Test it', 'Ship it'] });
    expect(accepted.status).toBe('accepted');
    expect(accepted.title).toBe('Fix invoice rounding');
    expect(accepted.steps).toHaveLength(4);

    const updated = await ws.tasks.update(proposed.id, {
      set: [
        { step: 0, status: 'done' },
        { step: 1, status: 'in_progress' },
      ],
      remove: [3],
      add: [{ text: 'Review it', at: 2 }],
    });
    expect(updated.steps).toEqual([
      { text: 'Find the code', status: 'done' },
      { text: 'Fix it', status: 'in_progress' },
      { text: 'Review it', status: 'pending' },
      { text: 'Test it', status: 'pending' },
    ]);
    const searchTask = await ws.tasks.propose({ sessionId: other.id, title: 'Index the docs', steps: ['Crawl'], topics: ['search', 'docs'] });
    const declined = await ws.tasks.decline(searchTask.id, 'not now');
    expect(declined).toMatchObject({ status: 'declined', reason: 'not now' });

    const check = (w: Workspace) => {
      expect(w.tasks.get(proposed.id)).toEqual(updated);
      expect(w.tasks.list({ topic: 'billing' }).map((t) => t.id)).toEqual([proposed.id]);
      expect(w.tasks.list({ topic: 'docs' }).map((t) => t.id)).toEqual([searchTask.id]);
      expect(w.tasks.list({ status: 'accepted' }).map((t) => t.id)).toEqual([proposed.id]);
      expect(w.tasks.list({ status: ['accepted', 'declined'] })).toHaveLength(2);
      expect(w.tasks.list({ sessionId: other.id, status: 'declined' }).map((t) => t.reason)).toEqual(['not now']);
    };
    check(ws);
    check(await reopen());

    // The last steps done: the task is done.
    const done = await ws.tasks.update(proposed.id, {
      set: [
        { step: 1, status: 'done' },
        { step: 2, status: 'skipped' },
        { step: 3, status: 'done' },
      ],
    });
    expect(done.status).toBe('done');
    expect(seen).toEqual(['task:propose', 'task:accept', 'task:update', 'task:propose', 'task:close', 'task:update']);
    expect((await reopen()).tasks.get(proposed.id).status).toBe('done');
  });

  it('refuses every bad change with its code, and writes nothing', async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    const session = await ws.sessions.create();
    expect(await codeOf(ws.tasks.propose({ sessionId: 'nobody', title: 'x', steps: ['a'] }))).toBe('SESSION_NOT_FOUND');
    expect(await codeOf(ws.tasks.propose({ sessionId: session.id, title: 'x', steps: [] }))).toBe('INVALID_PAYLOAD');
    expect(await codeOf(ws.tasks.propose({ sessionId: session.id, title: '', steps: ['a'] }))).toBe('INVALID_PAYLOAD');
    expect(await codeOf(ws.tasks.accept('nope'))).toBe('TASK_NOT_FOUND');
    expect(() => ws.tasks.get('nope')).toThrow(expect.objectContaining({ code: 'TASK_NOT_FOUND' }));

    const task = await ws.tasks.propose({ sessionId: session.id, title: 'Two steps', steps: ['one', 'two'] });
    expect(await codeOf(ws.tasks.propose({ id: task.id, sessionId: session.id, title: 'again', steps: ['a'] }))).toBe('DUPLICATE_ID');
    // A proposal's steps are not marked, nor is it done.
    expect(await codeOf(ws.tasks.update(task.id, { set: [{ step: 0, status: 'done' }] }))).toBe('TASK_NOT_ACCEPTED');
    expect(await codeOf(ws.tasks.close(task.id, 'done'))).toBe('TASK_NOT_ACCEPTED');
    await ws.tasks.accept(task.id);
    expect(await codeOf(ws.tasks.accept(task.id))).toBe('TASK_DECIDED');
    expect(await codeOf(ws.tasks.decline(task.id))).toBe('TASK_DECIDED');
    // Steps that are not there.
    expect(await codeOf(ws.tasks.update(task.id, { set: [{ step: 2, status: 'done' }] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(ws.tasks.update(task.id, { remove: [5] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(ws.tasks.update(task.id, { add: [{ text: 'late', at: 3 }] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(ws.tasks.update(task.id, { remove: [0, 0] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(ws.tasks.update(task.id, { remove: [0], set: [{ step: 0, status: 'done' }] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(ws.tasks.update(task.id, { remove: [0, 1] }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(ws.tasks.update(task.id, {}))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(ws.tasks.propose({ sessionId: session.id, title: 'sub', steps: ['a'], parentTask: { taskId: task.id, step: 2 } }))).toBe(
      'INVALID_ARGUMENT',
    );
    expect(await codeOf(ws.tasks.propose({ sessionId: session.id, title: 'sub', steps: ['a'], parentTask: { taskId: 'nope', step: 0 } }))).toBe(
      'TASK_NOT_FOUND',
    );
    expect(ws.tasks.get(task.id).steps).toEqual([
      { text: 'one', status: 'pending' },
      { text: 'two', status: 'pending' },
    ]);
    await ws.tasks.close(task.id, 'cancelled', 'changed my mind');
    expect(await codeOf(ws.tasks.update(task.id, { set: [{ step: 0, status: 'done' }] }))).toBe('TASK_CLOSED');
    expect(await codeOf(ws.tasks.close(task.id, 'done'))).toBe('TASK_CLOSED');
    expect(await codeOf(ws.tasks.accept(task.id))).toBe('TASK_CLOSED');

    const again = await reopen();
    expect(again.tasks.get(task.id)).toMatchObject({ status: 'cancelled', reason: 'changed my mind', steps: [{ status: 'pending' }, { status: 'pending' }] });
    expect(again.tasks.list()).toHaveLength(1);
  });
});
