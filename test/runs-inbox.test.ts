/**
 * Messages sent while a run holds a session (issue 36): `ws.runs.send` by policy, kept in the
 * store, listed and taken back, and delivered once, in order, as user turns: a steering one
 * before the worker's next model call (after the results of its calls), queued ones after the
 * run, by whichever process delivers them.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { z } from 'zod';
import { RunService } from '../src/agent/index.js';
import { defineAction, type Action, type Prompt, type Workspace } from '../src/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { codeOf, openClosed, tempDir } from './helpers.js';

const open = openClosed;

/** A promise and what settles it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

const text = (t: string) => ({ blocks: [{ type: 'text' as const, text: t }] });
const lastUserText = (prompt: Prompt) => {
  const last = prompt.messages.at(-1);
  return last?.role === 'user' ? last.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('') : `(${last?.role ?? 'none'})`;
};

/** An action whose call waits for `gate` (a long tool call), saying when it started. */
function slowAction(started: () => void, done: Promise<void>): Action {
  return defineAction({
    name: 'build',
    description: 'Builds the project.',
    input: z.strictObject({}),
    trust: 'autonomous',
    run: async () => {
      started();
      await done;
      return 'built';
    },
  }) as Action;
}

describe('ws.runs.send', () => {
  it('says idle when no run holds the session, refuses an unknown policy, and with reject refuses while one runs', async () => {
    const ws = await open();
    const session = await ws.sessions.create({});
    expect(await ws.runs.send(session.id, text('hi'))).toEqual({ status: 'idle' });
    expect(ws.runs.inbox(session.id)).toEqual([]);
    const claim = await ws.runs.claim(session.id);
    expect(await codeOf(ws.runs.send(session.id, text('hi'), { policy: 'later' as never }))).toBe('INVALID_ARGUMENT');
    expect(await codeOf(ws.runs.send(session.id, text('hi'), { policy: 'reject' }))).toBe('SESSION_BUSY');
    expect(ws.runs.inbox(session.id)).toEqual([]);
    await claim.drop();
    expect(() => new RunService(ws.manager, { inboxLimit: 0 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });

  it('queues messages in order, lists them, takes one back, refuses past the limit, and delivers each once as a user turn', async () => {
    const ws = await open();
    const runs = new RunService(ws.manager, { inboxLimit: 2 });
    onTestFinished(() => runs.dispose());
    const session = await ws.sessions.create({});
    const claim = await runs.claim(session.id);
    const first = await runs.send(session.id, { ...text('and also the README'), id: 'msg-1', meta: { user: 'ada' } }, { by: 'the page' });
    expect(first).toMatchObject({ status: 'queued', runId: claim.id, message: { id: 'msg-1', policy: 'enqueue', by: 'the page', order: 0 } });
    await runs.send(session.id, { ...text('and the tests'), id: 'msg-2' });
    expect(await codeOf(runs.send(session.id, text('one too many')))).toBe('INBOX_FULL');
    expect(runs.inbox(session.id).map((m) => m.id)).toEqual(['msg-1', 'msg-2']);
    await runs.unsend('msg-2');
    expect(await codeOf(runs.unsend('msg-2'))).toBe('MESSAGE_NOT_FOUND');
    await runs.send(session.id, { ...text('and the changelog'), id: 'msg-3' });
    await claim.run(async () => undefined).done;
    // The next run's holder delivers them, oldest first, each once.
    const turns = [await runs.deliver(session.id), await runs.deliver(session.id), await runs.deliver(session.id)];
    expect(turns.map((t) => t?.id ?? null)).toEqual(['msg-1', 'msg-3', null]);
    expect(turns[0]).toMatchObject({ role: 'user', meta: { user: 'ada', inbox: { policy: 'enqueue', by: 'the page' } } });
    expect((await session.transcript()).map((t) => t.id)).toEqual(['msg-1', 'msg-3']);
    expect(runs.inbox(session.id)).toEqual([]);
    // An id a turn has already is refused, as the same message sent twice.
    const again = await runs.claim(session.id);
    expect(await codeOf(runs.send(session.id, { ...text('again'), id: 'msg-1' }))).toBe('DUPLICATE_ID');
    await again.drop();
  });

  it('steer: the running worker reads the message before its next model call, after its call has its result', async () => {
    const ws = await open();
    const session = await ws.sessions.create({});
    const building = gate();
    const built = gate();
    const prompts: string[] = [];
    const model = scriptedModel([
      { toolCalls: [{ name: 'build', input: {} }] },
      (prompt) => (prompts.push(lastUserText(prompt)), { text: 'Built, and I will update the README too.' }),
    ] satisfies ScriptStep[]);
    const claim = await ws.runs.claim(session.id);
    const handle = claim.run(({ signal, steer }) =>
      ws.worker({ session, model, actions: [slowAction(building.open, built.wait)], steer }).run('build it', { signal }),
    );
    await building.wait;
    expect(await ws.runs.send(session.id, text('and update the README'), { policy: 'steer' })).toMatchObject({ status: 'queued' });
    built.open();
    expect((await handle.done).record?.status).toBe('succeeded');
    expect(prompts).toEqual(['and update the README']);
    const transcript = await session.transcript();
    expect(transcript.map((t) => t.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(transcript[3]?.meta).toMatchObject({ inbox: { policy: 'steer' } });
    expect(ws.runs.inbox(session.id)).toEqual([]);
  });

  it('interrupt: the run is cancelled at once, and the message waits for the next run', async () => {
    const ws = await open();
    const session = await ws.sessions.create({});
    const calling = gate();
    const model = scriptedModel([
      (_prompt, _call, options) =>
        new Promise((resolve) => {
          calling.open();
          options.signal?.addEventListener('abort', () => resolve({ text: 'never' }), { once: true });
        }),
    ]);
    const claim = await ws.runs.claim(session.id);
    const handle = claim.run(({ signal }) => ws.worker({ session, model }).run('a long essay', { signal }));
    await calling.wait;
    await ws.runs.send(session.id, { ...text('stop, write a haiku instead'), id: 'haiku' }, { policy: 'interrupt', by: 'ada' });
    const { record } = await handle.done;
    expect(record).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED' }, cancel: { by: 'ada' } });
    expect(ws.runs.inbox(session.id)).toEqual([expect.objectContaining({ id: 'haiku', policy: 'interrupt' })]);
  });

  it('two processes delivering at once deliver each message once, in order (SQLite)', async () => {
    const dir = tempDir();
    const [a, b] = [await open({ dir }), await open({ dir })];
    const session = await a.sessions.create({});
    const claim = await a.runs.claim(session.id);
    for (let i = 0; i < 6; i++) await b.runs.send(session.id, { ...text(`message ${i}`), id: `m-${i}` });
    await claim.run(async () => undefined).done;
    await b.manager.refresh();
    const drain = async (ws: Workspace) => {
      const got: string[] = [];
      for (let turn = await ws.runs.deliver(session.id); turn !== null; turn = await ws.runs.deliver(session.id)) got.push(turn.id);
      return got;
    };
    const [fromA, fromB] = await Promise.all([drain(a), drain(b)]);
    expect([...fromA, ...fromB].sort()).toEqual(['m-0', 'm-1', 'm-2', 'm-3', 'm-4', 'm-5']);
    const reopened = await open({ dir });
    const s = await reopened.sessions.open(session.id);
    expect((await s!.transcript()).map((t) => t.id)).toEqual(['m-0', 'm-1', 'm-2', 'm-3', 'm-4', 'm-5']);
    expect(reopened.runs.inbox(session.id)).toEqual([]);
  });
});
