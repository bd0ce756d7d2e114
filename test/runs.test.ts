/**
 * `ws.runs` (issue 36): a run is a record in the store, from its claim to its end, with what
 * its model calls used; it is listed a page at a time, cancelled from its own process or
 * another (on SQLite and PostgreSQL), cancelled at once when its process is gone, and a paused
 * run resumes under its own id.
 */
import { describe, expect, it } from 'vitest';
import { RunService } from '../src/agent/index.js';
import { createWorkspace, GolemError } from '../src/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { codeOf, deployAction, openClosed, steppingClock, tempDir } from './helpers.js';
import { freshSchema, pgStore } from './pg-helpers.js';

const open = openClosed;

/** A model step that waits for its call to be aborted (a long call in flight), saying when it started. */
function hanging(started: () => void): ScriptStep {
  return (_prompt, _call, options) =>
    new Promise((resolve) => {
      started();
      options.signal?.addEventListener('abort', () => resolve({ text: 'never seen' }), { once: true });
    });
}

describe('ws.runs', () => {
  it('records a run from its claim to its end, with its outcome and the usage of its model calls', async () => {
    const ws = await open();
    const session = await ws.sessions.create({ label: 'usage' });
    const { deploy } = deployAction();
    const model = scriptedModel([
      { toolCalls: [{ name: 'deploy', input: { target: 'staging' } }], usage: { inputTokens: 100, outputTokens: 20, cachedInputTokens: 60 } },
      { text: 'Deployed.', usage: { inputTokens: 130, outputTokens: 5 } },
    ]);
    const claim = await ws.runs.claim(session.id, { by: 'the test' });
    expect(ws.runs.get(claim.id)).toMatchObject({ id: claim.id, sessionId: session.id, status: 'running', by: 'the test', holder: ws.manager.instanceId });
    const handle = claim.run(({ signal }) => ws.worker({ session, model, actions: [{ ...deploy, trust: 'autonomous' }] }).run('deploy it', { signal }));
    const { record, outcome } = await handle.done;
    expect(outcome?.status).toBe('done');
    expect(record).toMatchObject({ status: 'succeeded', outcome: 'done', usage: { inputTokens: 230, outputTokens: 25, cachedInputTokens: 60, modelCalls: 2 } });
    expect(record?.endedAt).toBeDefined();
    // Read back from the store after a reopen, as any process reads it.
    expect(ws.manager.workspace().collection('run').get(session.id)).toBeUndefined();
  });

  it('starts a run in one call (ws.runs.start): the worker on the session, its events followed, SESSION_BUSY and SESSION_NOT_FOUND refused', async () => {
    const ws = await open();
    const session = await ws.sessions.create({});
    const { deploy, deploys } = deployAction();
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] }, { text: 'Deployed it.' }]);
    const seen: string[] = [];
    const run = await ws.runs.start({
      sessionId: session.id,
      input: 'deploy it',
      by: 'the test',
      agent: { model, actions: [{ ...deploy, trust: 'autonomous' }], onEvent: (event) => void seen.push(event.type) },
    });
    expect(await codeOf(ws.runs.start({ sessionId: session.id, input: 'again', agent: { model } }))).toBe('SESSION_BUSY');
    const events = [];
    for await (const event of run.events()) events.push(event);
    const { record, outcome } = await run.done;
    expect(outcome?.status).toBe('done');
    expect(record).toMatchObject({ status: 'succeeded', by: 'the test', usage: { modelCalls: 2 } });
    expect(deploys).toEqual(['staging']);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.entry.type === 'event').map((e) => (e.entry as { event: { type: string } }).event.type)).toEqual(seen);
    expect(events.at(-1)?.entry).toMatchObject({ type: 'end', end: { outcome: { status: 'done' } } });
    expect(await codeOf(ws.runs.start({ sessionId: 'no-such-session', agent: { model } }))).toBe('SESSION_NOT_FOUND');
  });

  it('lists runs newest first, a page at a time, by session and status; refuses a bad limit, status or cursor', async () => {
    // A clock a millisecond on at each reading: runs started in one millisecond are in no particular order.
    const ws = await open({ clock: steppingClock() });
    const [a, b] = [await ws.sessions.create({}), await ws.sessions.create({})];
    const ids: string[] = [];
    for (const [i, session] of [a, a, b, a, b].entries()) {
      const claim = await ws.runs.claim(session.id);
      ids.push(claim.id);
      await claim.run(async () => {
        if (i === 2) throw new GolemError('MODEL_ERROR', 'the model failed');
      }).done;
    }
    const first = ws.runs.list({ limit: 2 });
    expect(first.runs.map((r) => r.id)).toEqual([ids[4], ids[3]]);
    const second = ws.runs.list({ limit: 2, cursor: first.cursor! });
    expect(second.runs.map((r) => r.id)).toEqual([ids[2], ids[1]]);
    const third = ws.runs.list({ limit: 2, cursor: second.cursor! });
    expect(third).toEqual({ runs: [expect.objectContaining({ id: ids[0] })] });
    expect(ws.runs.list({ sessionId: b.id }).runs.map((r) => r.id)).toEqual([ids[4], ids[2]]);
    expect(ws.runs.list({ status: 'failed' }).runs).toEqual([
      expect.objectContaining({ id: ids[2], error: { code: 'MODEL_ERROR', message: 'the model failed' } }),
    ]);
    for (const bad of [{ limit: 0 }, { limit: 501 }, { status: 'done' as never }, { cursor: 'nonsense' }]) {
      expect(() => ws.runs.list(bad)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    }
  });

  it('cancels a run in its own process: the model call in flight is aborted and the run ends cancelled', async () => {
    const ws = await open();
    const session = await ws.sessions.create({});
    let started!: () => void;
    const calling = new Promise<void>((resolve) => (started = resolve));
    const claim = await ws.runs.claim(session.id);
    const handle = claim.run(({ signal }) => ws.worker({ session, model: scriptedModel([hanging(started)]) }).run('a long answer', { signal }));
    await calling;
    await handle.cancel();
    const { record } = await handle.done;
    expect(record).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED' }, cancel: { by: expect.any(String) } });
    expect(await codeOf(ws.runs.cancel('no-such-run'))).toBe('RUN_NOT_FOUND');
    // Cancelling an ended run changes nothing.
    expect(await ws.runs.cancel(claim.id)).toEqual(record);
  });

  it('a claim given up before it runs leaves no record, and frees the session', async () => {
    const ws = await open();
    const session = await ws.sessions.create({});
    const claim = await ws.runs.claim(session.id);
    expect(await codeOf(ws.runs.claim(session.id))).toBe('SESSION_BUSY');
    await claim.drop();
    expect(ws.runs.get(claim.id)).toBeUndefined();
    const again = await ws.runs.claim(session.id);
    await again.run(async () => undefined).done;
    expect(ws.runs.get(again.id)?.status).toBe('succeeded');
  });

  it('a run paused on an approval resumes under its own id', async () => {
    const ws = await open();
    const session = await ws.sessions.create({});
    const { deploy, deploys } = deployAction();
    const model = scriptedModel([{ toolCalls: [{ name: 'deploy', input: { target: 'prod' } }] }, { text: 'Done.' }]);
    const worker = () => ws.worker({ session, model, actions: [deploy], requestApproval: null });
    const first = await ws.runs.claim(session.id);
    const paused = await first.run(({ signal }) => worker().run('deploy to prod', { signal })).done;
    expect(paused.record).toMatchObject({ id: first.id, status: 'paused', outcome: 'paused' });
    await ws.approvals.answer(paused.outcome!.approval!.id, { approved: true });
    const resumed = await ws.runs.claim(session.id, { resume: true });
    expect(resumed.id).toBe(first.id);
    const { record } = await resumed.run(({ signal }) => worker().run(undefined, { signal })).done;
    expect(record).toMatchObject({ id: first.id, status: 'succeeded' });
    expect(deploys).toEqual(['prod']);
    expect(ws.runs.list({ sessionId: session.id }).runs).toHaveLength(1);
  });
});

describe('ws.runs across processes', () => {
  for (const kind of ['sqlite', 'postgres'] as const) {
    const where = () => {
      const [dir, schema] = [tempDir(), freshSchema('runs')];
      return () => (kind === 'sqlite' ? { dir } : { store: pgStore(schema) });
    };

    it(`cancels a run another process holds (${kind}): the holder stops, and the record says who cancelled it`, async () => {
      const options = where();
      const holder = await open(options());
      const other = await open(options());
      const session = await holder.sessions.create({});
      let started!: () => void;
      const calling = new Promise<void>((resolve) => (started = resolve));
      const claim = await holder.runs.claim(session.id);
      const handle = claim.run(({ signal }) => holder.worker({ session, model: scriptedModel([hanging(started)]) }).run('long', { signal }));
      await calling;
      await other.manager.refresh();
      expect(other.runs.get(claim.id)?.status).toBe('running');
      const asked = await other.runs.cancel(claim.id, { by: 'the other process' });
      expect(asked).toMatchObject({ status: 'running', cancel: { by: 'the other process' } });
      const { record } = await handle.done;
      expect(record).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED', message: expect.stringContaining('the other process') } });
      await other.manager.refresh();
      expect(other.runs.get(claim.id)?.status).toBe('cancelled');
    });
  }

  it('a run taken over from a process that died goes on under its id; one cancelled before it died stops as it is taken', async () => {
    const dir = tempDir();
    const dying = await open({ dir });
    const ws = await open({ dir });
    const [kept, cancelled] = [await dying.sessions.create({}), await dying.sessions.create({})];
    const lapsing = new RunService(dying.manager, { ttlMs: 100, process: { host: 'elsewhere', pid: 1 } });
    const first = await lapsing.claim(kept.id);
    const second = await lapsing.claim(cancelled.id);
    void first.run(() => new Promise(() => undefined));
    void second.run(() => new Promise(() => undefined));
    await ws.manager.refresh();
    await ws.runs.cancel(second.id, { by: 'a person' });
    // It dies: its leases are no longer renewed, and lapse.
    lapsing.dispose();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await ws.manager.refresh();
    expect(
      ws.runs
        .lapsed()
        .map((l) => l.runId)
        .sort(),
    ).toEqual([first.id, second.id].sort());
    const again = await ws.runs.claim(kept.id, { id: first.id });
    expect(ws.runs.get(first.id)).toMatchObject({ status: 'running', holder: ws.manager.instanceId, takeovers: 1 });
    expect((await again.run(async () => undefined).done).record).toMatchObject({ id: first.id, status: 'succeeded', takeovers: 1 });
    const stopped = await ws.runs.claim(cancelled.id, { id: second.id });
    expect(stopped.signal.aborted).toBe(true);
    const { record } = await stopped.run(({ signal }) => (signal.aborted ? Promise.resolve() : new Promise(() => undefined))).done;
    expect(record).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED', message: expect.stringContaining('a person') } });
  });

  it('cancels at once a run whose process is gone, and lets its lease go so nobody takes it over', async () => {
    const dir = tempDir();
    const gone = await createWorkspace({ dir });
    const session = await gone.sessions.create({});
    // A process that claimed a run and died: its lease (100 ms) lapses, never released.
    const lapsing = new RunService(gone.manager, { ttlMs: 100, process: { host: 'elsewhere', pid: 1 } });
    const claim = await lapsing.claim(session.id);
    lapsing.dispose();
    await gone.close();
    const ws = await open({ dir });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const record = await ws.runs.cancel(claim.id);
    expect(record).toMatchObject({ status: 'cancelled', error: { code: 'RUN_CANCELLED', message: 'cancelled: its process was gone' } });
    expect(ws.manager.workspace().collection('run').get(session.id)).toBeUndefined();
    expect(ws.runs.lapsed()).toEqual([]);
  });
});
