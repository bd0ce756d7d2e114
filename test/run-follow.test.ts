/**
 * `ws.runs.follow` (issue 36): a run's events are kept in the store with a seq each, and any
 * process follows them: from the start or after a seq, live until the end, on SQLite (a
 * second handle catching up) and PostgreSQL (its notices). What a follower gets is what the
 * holder's own log told, entry for entry; streamed text is kept as one string a batch.
 */
import { describe, expect, it } from 'vitest';
import { RunService } from '../src/agent/index.js';
import { unwrap } from '../src/core/errors.js';
import type { RunLogEntry, SeqEntry } from '../src/agent/run-log.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { codeOf, deployAction, openClosed, tempDir } from './helpers.js';
import { freshSchema, pgStore } from './pg-helpers.js';

const open = openClosed;

async function collect(events: AsyncIterable<SeqEntry>): Promise<SeqEntry[]> {
  const out: SeqEntry[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** An entry as a follower compares it: a step's turn by its id and version (the object is the follower's own). */
function shape(entry: RunLogEntry): unknown {
  if (entry.type === 'event' && entry.event.type === 'step') return { ...entry.event, turn: `${entry.event.turn.id}@${entry.event.turn.version}` };
  if (entry.type === 'end') return { end: entry.end.outcome?.status ?? entry.end.error?.code, text: entry.end.outcome?.turn?.blocks };
  return entry.type === 'event' ? entry.event : entry;
}

/** A script of `steps` model calls, each a deploy and some streamed text, then an answer; `gate` holds the second call. */
function script(steps: number, gate?: Promise<void>): ScriptStep[] {
  const calls: ScriptStep[] = Array.from({ length: steps }, (_, i) => ({
    text: `Deploying number ${i} now, as you asked me to.`,
    toolCalls: [{ name: 'deploy', input: { target: `t${i}` } }],
  }));
  if (gate !== undefined) {
    const held = calls[1] as Exclude<ScriptStep, (...args: never[]) => unknown>;
    calls[1] = async () => (await gate, held);
  }
  return [...calls, { text: 'All deployed, every one of them.' }];
}

describe('ws.runs.follow', () => {
  it('tells a run from the start and after a seq, as its holder logged it, with its text kept one string a batch', async () => {
    const ws = await open({ dir: tempDir() });
    const session = await ws.sessions.create({});
    const { deploy } = deployAction();
    const claim = await ws.runs.claim(session.id);
    const followed = collect(ws.runs.follow(claim.id));
    const handle = claim.run(({ signal, log }) =>
      ws
        .worker({
          session,
          model: scriptedModel(script(3)),
          actions: [{ ...deploy, trust: 'autonomous' }],
          onEvent: (event) => log.push({ type: 'event', event }),
        })
        .run('deploy three', { signal }),
    );
    const { outcome } = await handle.done;
    expect(outcome?.status).toBe('done');
    const logged = claim.log.entries();
    const live = await followed;
    expect(live.map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
    expect(live.map((e) => shape(e.entry))).toEqual(logged.map(shape));
    expect(live.at(-1)?.entry).toMatchObject({
      type: 'end',
      end: { outcome: { status: 'done', turn: { blocks: [{ type: 'text', text: 'All deployed, every one of them.' }] } } },
    });
    // After the run, from after a seq: the rest, once.
    const rest = await collect(ws.runs.follow(claim.id, { after: 5 }));
    expect(rest.map((e) => e.seq)).toEqual(live.slice(5).map((e) => e.seq));
    // Streamed text is one item a batch, with its parts' lengths: fewer items than entries.
    const chunks = [...ws.manager.workspace().collection('run_event').values()].filter((c) => c.runId === claim.id);
    const items = chunks.flatMap((c) => c.items);
    expect(items.length).toBeLessThan(logged.length);
    expect(items.some((item) => Array.isArray(item.lengths))).toBe(true);
    expect(chunks.reduce((n, c) => n + c.count, 0)).toBe(logged.length);
  });

  for (const kind of ['sqlite', 'postgres'] as const) {
    it(`follows a run another process holds, live, to its end (${kind}); its events read the same after a reopen`, async () => {
      const [dir, schema] = [tempDir(), freshSchema('follow')];
      const where = () => (kind === 'sqlite' ? { dir } : { store: pgStore(schema) });
      const holder = await open(where());
      const other = await open(where());
      const session = await holder.sessions.create({});
      const { deploy } = deployAction();
      let open2!: () => void;
      const gate = new Promise<void>((resolve) => (open2 = resolve));
      const claim = await holder.runs.claim(session.id);
      const handle = claim.run(({ signal, log }) =>
        holder
          .worker({
            session,
            model: scriptedModel(script(2, gate)),
            actions: [{ ...deploy, trust: 'autonomous' }],
            onEvent: (event) => log.push({ type: 'event', event }),
          })
          .run('deploy two', { signal }),
      );
      // The other process follows while the run waits at its second call: it has the first step's events.
      const seen: SeqEntry[] = [];
      const following = (async () => {
        for await (const event of other.runs.follow(claim.id)) {
          seen.push(event);
          if (seen.length === 1) setTimeout(open2, 30);
        }
      })();
      await handle.done;
      await following;
      const logged = claim.log.entries();
      expect(seen.map((e) => e.seq)).toEqual(logged.map((_, i) => i + 1));
      expect(seen.map((e) => shape(e.entry))).toEqual(logged.map(shape));
      // Read back by a process opened after the run ended.
      const later = await open(where());
      expect((await collect(later.runs.follow(claim.id))).map((e) => shape(e.entry))).toEqual(logged.map(shape));
    });
  }

  it("ends a run whose process died, cancelled at once, with its record's error; refuses an unknown run and a bad seq", async () => {
    const dir = tempDir();
    const dying = await open({ dir });
    const ws = await open({ dir });
    const session = await dying.sessions.create({});
    const lapsing = new RunService(dying.manager, { ttlMs: 100, process: { host: 'elsewhere', pid: 1 } });
    const claim = await lapsing.claim(session.id);
    void claim.run(async ({ log }) => {
      log.push({ type: 'event', event: { type: 'worker-start', worker: { id: session.id, depth: 0, task: 'x' }, parent: null } });
      await log.flush();
      await new Promise(() => undefined);
    });
    await claim.log.flush();
    lapsing.dispose();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await ws.manager.refresh();
    expect((await ws.runs.cancelling(claim.id)).outcome).toBe('cancelled');
    const told = await collect(ws.runs.follow(claim.id));
    expect(told.map((e) => e.seq)).toEqual([1, 2]);
    expect(told[1]?.entry).toMatchObject({ type: 'end', end: { error: { code: 'RUN_CANCELLED' } } });
    expect(await codeOf(collect(ws.runs.follow('no-such-run')))).toBe('RUN_NOT_FOUND');
    expect(await codeOf(collect(ws.runs.follow(claim.id, { after: -1 })))).toBe('INVALID_ARGUMENT');
  });

  it('ends following a run whose process died when no other process may carry it on (golem ask, the terminal, MCP)', async () => {
    const dir = tempDir();
    const dying = await open({ dir });
    const ws = await open({ dir });
    const session = await dying.sessions.create({});
    const lapsing = new RunService(dying.manager, { ttlMs: 100, process: { host: 'elsewhere', pid: 1 } });
    const claim = await lapsing.claim(session.id, { resumable: false });
    void claim.run(() => new Promise(() => undefined));
    lapsing.dispose();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const told = await collect(ws.runs.follow(claim.id));
    expect(told.at(-1)?.entry).toMatchObject({
      type: 'end',
      end: { error: { code: 'RUN_ENDED', message: expect.stringContaining('no other can carry it on') } },
    });
  });

  it('keeps a chunk under the next free number when a holder counted too few (it took over before the last one reached it)', async () => {
    const ws = await open({ dir: tempDir() });
    const session = await ws.sessions.create({});
    const claim = await ws.runs.claim(session.id);
    const keep = async (first: number) =>
      unwrap(
        await ws.manager.dispatch({
          type: 'run:events',
          payload: {
            sessionId: session.id,
            runId: claim.id,
            holder: ws.manager.instanceId,
            events: { chunk: 0, first, count: 1, items: [{ type: 'approval', approvalId: `a${first}` }] },
          },
        }),
      ).chunk;
    expect([await keep(1), await keep(2)]).toEqual([0, 1]);
    await claim.run(async () => undefined).done;
    const told = await collect(ws.runs.follow(claim.id));
    expect(told.slice(0, 2).map((e) => e.entry)).toEqual([
      { type: 'approval', approvalId: 'a1' },
      { type: 'approval', approvalId: 'a2' },
    ]);
  });

  it("a run taken over goes on with the next seq; a follower from the start gets both holders' events once", async () => {
    const dir = tempDir();
    const dying = await open({ dir });
    const ws = await open({ dir });
    const session = await dying.sessions.create({});
    const lapsing = new RunService(dying.manager, { ttlMs: 100, process: { host: 'elsewhere', pid: 1 } });
    const first = await lapsing.claim(session.id);
    const worker = { id: session.id, depth: 0, task: 'x' };
    void first.run(async ({ log }) => {
      log.push({ type: 'event', event: { type: 'worker-start', worker, parent: null } });
      log.push({ type: 'event', event: { type: 'text-delta', worker, text: 'before ' } });
      await new Promise(() => undefined);
    });
    await first.log.flush();
    lapsing.dispose();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await ws.manager.refresh();
    const taken = await ws.runs.claim(session.id, { id: first.id });
    expect(taken.log.first).toBe(3);
    await taken.run(async ({ log }) => {
      log.push({ type: 'event', event: { type: 'text-delta', worker, text: 'after' } });
    }).done;
    const told = await collect(ws.runs.follow(first.id));
    expect(told.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(told.map((e) => (e.entry.type === 'event' && e.entry.event.type === 'text-delta' ? e.entry.event.text : e.entry.type))).toEqual([
      'event',
      'before ',
      'after',
      'end',
    ]);
  });
});
