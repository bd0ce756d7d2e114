/**
 * Messages sent during runs, under each policy (issue 36, "How it is checked"): scripted runs
 * of several steps, with calls that take a while and supervised calls whose approvals are
 * asked and answered, and messages sent at moments drawn by fast-check: during a model call,
 * during a tool call, while an approval waits, and at a step boundary. Whatever the moments,
 * every accepted message is delivered exactly once as a user turn, in send order (a steering
 * one may pass queued ones), a steering one before the next model call and never between a
 * call and its result, a queued or interrupting one as the user turn that starts a later run;
 * a refused one (reject) is SESSION_BUSY and leaves nothing; and the history read after the
 * workspace is closed and opened again (its SQLite file) is the same.
 *
 * The runs are driven as `golem serve` drives them (src/serve/runs.ts): a run claims the
 * session (`ws.runs.claim`), its worker is given the claim's `steer`, and when it ends the
 * next run starts on the oldest message waiting (`ws.runs.deliver`), until none waits.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineAction, type Action, type Prompt, type Turn, type Workspace } from '../src/index.js';
import { scriptedModel, type ScriptedResponse } from '../src/test/index.js';
import { tempDir } from './helpers.js';

/** Scale the runs up for a long hunt: GOLEM_PROPERTY_SCALE=20. */
const SCALE = Number(process.env.GOLEM_PROPERTY_SCALE ?? 1);
const runs = (n: number) => ({ numRuns: Math.max(1, Math.round(n * SCALE)) });

type Policy = 'reject' | 'enqueue' | 'steer' | 'interrupt';
/** A call of a step: one that takes a while (the moment 'tool' falls in it), or a supervised one answered yes or no. */
type CallKind = 'slow' | 'approved' | 'denied';
/** A run's script: its model answers with these calls, one answer per step, then a last answer in text. */
type Plan = CallKind[][];
/** A message to send at the `at`th moment (counted over all the runs), with a policy. */
interface Send {
  at: number;
  policy: Policy;
}
/** Where a moment falls. */
type Moment = 'model' | 'tool' | 'approval' | 'boundary';

const callKind = fc.oneof({ weight: 2, arbitrary: fc.constant<CallKind>('slow') }, { weight: 1, arbitrary: fc.constantFrom<CallKind>('approved', 'denied') });
const plan: fc.Arbitrary<Plan> = fc.array(fc.array(callKind, { minLength: 1, maxLength: 2 }), { minLength: 0, maxLength: 3 });
const send: fc.Arbitrary<Send> = fc.record({ at: fc.nat({ max: 10 }), policy: fc.constantFrom<Policy>('reject', 'enqueue', 'steer', 'interrupt') });
const scenario = fc.record({ plans: fc.array(plan, { minLength: 1, maxLength: 4 }), sends: fc.array(send, { minLength: 1, maxLength: 8 }) });

/** What happened, in the order it happened. */
type Happening =
  | { type: 'sent'; id: string; text: string; policy: Policy; run: number; accepted: boolean; where: Moment }
  | { type: 'model'; run: number; said: string[] }
  | { type: 'run'; run: number; start: string | undefined; status: string | undefined };

const userTexts = (prompt: Prompt) => prompt.messages.flatMap((m) => (m.role === 'user' ? m.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])) : []));
const textOf = (turn: Turn) => turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');

/** The session's turns as the store holds them: every version, each with what is compared after a reopen. */
function turnsOf(ws: Workspace, sessionId: string) {
  return [...ws.manager.workspace().turns.values()]
    .filter((t) => t.sessionId === sessionId)
    .map((t) => ({ id: t.id, version: t.version, parent: t.parent, role: t.role, blocks: t.blocks }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.version - b.version));
}

/** Runs the scenario on a SQLite workspace in `dir`; what happened, and the session's id. */
async function drive(dir: string, plans: Plan[], sends: Send[]): Promise<{ happened: Happening[]; sessionId: string; ws: Workspace }> {
  const ws = await createWorkspace({ dir });
  const session = await ws.sessions.create({ label: 'policies' });
  const happened: Happening[] = [];
  /** The sends not made yet, by moment. */
  const waiting = [...sends].map((s, i) => ({ ...s, id: `msg-${i}`, text: `message ${i} (${s.policy})` })).sort((a, b) => a.at - b.at);
  let moments = 0;
  let run = 0;
  /** The run now going: its plan, and how many model calls it made. */
  let current = { plan: plans[0] ?? [], calls: 0 };

  /** A moment of the run: the messages due by now are sent (after an interrupt the worker does not wait for, the rest wait for the next moment). */
  const moment = async (where: Moment) => {
    const now = moments++;
    while (waiting[0] !== undefined && waiting[0].at <= now) {
      const next = waiting.shift()!;
      const message = { id: next.id, blocks: [{ type: 'text' as const, text: next.text }] };
      if (next.policy === 'reject') {
        const before = { inbox: ws.runs.inbox(session.id), turns: turnsOf(ws, session.id).length };
        await expect(ws.runs.send(session.id, message, { policy: 'reject' })).rejects.toMatchObject({ code: 'SESSION_BUSY' });
        expect({ inbox: ws.runs.inbox(session.id), turns: turnsOf(ws, session.id).length }).toEqual(before);
        happened.push({ type: 'sent', ...next, run, accepted: false, where });
        continue;
      }
      const result = await ws.runs.send(session.id, message, { policy: next.policy });
      // Every moment falls while a run holds the session: the message is kept.
      expect(result.status).toBe('queued');
      happened.push({ type: 'sent', ...next, run, accepted: true, where });
      // Cancelled during a model call or an approval, the worker goes on at once (the call or the wait is given up): what follows waits for a later moment.
      if (next.policy === 'interrupt' && (where === 'model' || where === 'approval')) break;
    }
  };

  const model = scriptedModel(async (prompt, _call, options): Promise<ScriptedResponse> => {
    // A call made once the run was stopped never answers (the model adapter refuses it).
    if (options.signal?.aborted === true) return { text: 'never read' };
    const step = current.calls++;
    happened.push({ type: 'model', run, said: userTexts(prompt) });
    await moment('model');
    const calls = current.plan[step];
    if (calls === undefined) return { text: `run ${run} is done` };
    return {
      toolCalls: calls.map((kind, i) => ({
        name: kind === 'slow' ? 'build' : 'deploy',
        input: kind === 'slow' ? {} : { target: kind },
        callId: `r${run}s${step}c${i}`,
      })),
    };
  });
  const build = defineAction({
    name: 'build',
    description: 'Builds the project (it takes a while).',
    input: z.strictObject({}),
    trust: 'autonomous',
    run: async () => {
      await moment('tool');
      return 'built';
    },
  }) as Action;
  const deploy = defineAction({
    name: 'deploy',
    description: 'Deploys the site.',
    input: z.strictObject({ target: z.string() }),
    trust: 'supervised',
    describe: ({ target }) => ({ type: 'command', description: `Deploy to ${target}`, details: { target }, risk: 'high' }),
    run: ({ target }) => `deployed (${target})`,
  }) as Action;

  let start: string | undefined = 'start';
  for (;;) {
    // Each run but the first starts on a message sent: more would be a message delivered twice.
    expect(run, 'runs started').toBeLessThanOrEqual(sends.length);
    const claim = await ws.runs.claim(session.id);
    let first: string | undefined;
    if (start === undefined) {
      // As golem serve does when a run ends: the next run starts on the oldest message waiting.
      const delivered = await ws.runs.deliver(session.id);
      if (delivered === null) {
        await claim.drop();
        break;
      }
      first = delivered.id;
    }
    current = { plan: plans[run] ?? [], calls: 0 };
    const input = start;
    const handle = claim.run(({ signal, steer }) =>
      ws
        .worker({
          session,
          model,
          actions: [build, deploy],
          requestApproval: async (request) => {
            await moment('approval');
            return { approved: (request.details as { target?: string }).target === 'approved' };
          },
          steer: async () => {
            await moment('boundary');
            return steer();
          },
        })
        .run(input, { signal }),
    );
    const { record } = await handle.done;
    happened.push({ type: 'run', run, start: first, status: record?.status });
    start = undefined;
    run++;
    if (ws.runs.inbox(session.id).length === 0) break;
  }
  return { happened, sessionId: session.id, ws };
}

/** Checks what happened against the policies' rules and the history kept. */
async function check(dir: string, happened: Happening[], sessionId: string, ws: Workspace): Promise<void> {
  const session = (await ws.sessions.open(sessionId))!;
  const transcript = await session.transcript();
  const turns = turnsOf(ws, sessionId);
  const sent = happened.flatMap((h) => (h.type === 'sent' ? [h] : []));
  const accepted = sent.filter((s) => s.accepted);

  // Each accepted message is one user turn (under its own id), and the inbox is empty; a refused one is nowhere.
  for (const s of sent) {
    const copies = turns.filter((t) => t.role === 'user' && t.blocks.some((b) => b.type === 'text' && b.text === s.text));
    expect(
      copies.map((t) => t.id),
      s.text,
    ).toEqual(s.accepted ? [s.id] : []);
  }
  expect(ws.runs.inbox(sessionId)).toEqual([]);

  // In send order: a steering message may pass queued ones sent before it, nothing else passes.
  const at = new Map(transcript.map((t, i) => [t.id, i]));
  for (const [i, a] of accepted.entries()) {
    expect(at.get(a.id), `${a.text} is on the session's path`).toBeDefined();
    for (const b of accepted.slice(i + 1)) {
      if (b.policy === 'steer' && a.policy !== 'steer') continue;
      expect(at.get(a.id)!, `${a.text} before ${b.text}`).toBeLessThan(at.get(b.id)!);
    }
  }

  // Never between a call and its result: an answer's calls are followed by their results alone, then by anything else.
  for (const [i, turn] of transcript.entries()) {
    const calls = turn.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.callId] : []));
    if (turn.role !== 'assistant' || calls.length === 0) continue;
    const answered = new Set<string>();
    for (let j = i + 1; j < transcript.length && answered.size < calls.length; j++) {
      const next = transcript[j]!;
      expect(next.role, `turn ${j} comes before every call of turn ${i} has its result`).toBe('tool');
      for (const b of next.blocks) if (b.type === 'tool_result') answered.add(b.callId);
    }
  }

  const runsStarted = happened.flatMap((h) => (h.type === 'run' ? [h] : []));
  for (const [p, h] of happened.entries()) {
    if (h.type !== 'sent' || !h.accepted) continue;
    const models = happened.slice(p + 1).flatMap((m) => (m.type === 'model' ? [m] : []));
    if (h.policy === 'steer') {
      // Read by the next model call, whichever run makes it: the running one's next step, or the next run's first.
      expect(models[0]?.said, `${h.text} is read by the next model call`).toContain(h.text);
    } else {
      // Not shown to the run it was sent during; the user turn that starts a later run.
      expect(
        models.filter((m) => m.run === h.run && m.said.includes(h.text)),
        `${h.text} is not read by run ${h.run}`,
      ).toEqual([]);
      const started = runsStarted.find((r) => r.start === h.id);
      expect(started?.run, `${h.text} starts a run after run ${h.run}`).toBeGreaterThan(h.run);
    }
    // An interrupt ends the run it was sent during cancelled.
    if (h.policy === 'interrupt') expect(runsStarted.find((r) => r.run === h.run)?.status).toBe('cancelled');
  }
  // The text of each delivered message is in its user turn, and the turn says how it came.
  for (const s of accepted) expect(transcript.find((t) => t.id === s.id)?.meta).toMatchObject({ inbox: { policy: s.policy } });

  // The same history after the workspace is closed and opened again.
  const path = transcript.map((t) => ({ id: t.id, role: t.role, text: textOf(t) }));
  await ws.close();
  const reopened = await createWorkspace({ dir });
  try {
    const again = (await reopened.sessions.open(sessionId))!;
    expect((await again.transcript()).map((t) => ({ id: t.id, role: t.role, text: textOf(t) }))).toEqual(path);
    expect(turnsOf(reopened, sessionId)).toEqual(turns);
    expect(reopened.runs.inbox(sessionId)).toEqual([]);
    expect(reopened.manager.workspace().collection('run').get(sessionId)).toBeUndefined();
  } finally {
    await reopened.close();
  }
}

describe('messages sent during runs, under each policy (property)', () => {
  it('each accepted message is delivered once, in order, by its policy; the history is the same after a reopen', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ({ plans, sends }) => {
        const dir = tempDir();
        const { happened, sessionId, ws } = await drive(dir, plans, sends);
        try {
          await check(dir, happened, sessionId, ws);
        } finally {
          if (!ws.manager.closed) await ws.close();
        }
      }),
      runs(40),
    );
  }, 120_000);

  it('a message sent from another process as the run ends is delivered by the next run, or the sender is told no run holds it', async () => {
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: 40 }),
        fc.nat({ max: 40 }),
        fc.constantFrom<Policy>('enqueue', 'steer', 'interrupt'),
        async (sendAfter, endAfter, policy) => {
          const dir = tempDir();
          const [holder, sender] = [await createWorkspace({ dir }), await createWorkspace({ dir })];
          try {
            const session = await holder.sessions.create({});
            const claim = await holder.runs.claim(session.id);
            let sent!: ReturnType<Workspace['runs']['send']>;
            const ticks = async (n: number) => {
              for (let i = 0; i < n; i++) await Promise.resolve();
            };
            const handle = claim.run(async () => {
              sent = ticks(sendAfter).then(() => sender.runs.send(session.id, { id: 'late', blocks: [{ type: 'text', text: 'one more thing' }] }, { policy }));
              await ticks(endAfter);
            });
            await handle.done;
            // What the holder sees once its run ended (golem serve starts the next run when a message waits).
            const waits = holder.runs.inbox(session.id).map((m) => m.id);
            const result = await sent;
            outcomes.add(result.status);
            expect(waits, `the message was ${result.status}`).toEqual(result.status === 'queued' ? ['late'] : []);
            await holder.manager.refresh();
            expect(holder.runs.inbox(session.id).map((m) => m.id)).toEqual(waits);
          } finally {
            await sender.close();
            await holder.close();
          }
        },
      ),
      runs(40),
    );
    // Both sides of the race were run.
    expect([...outcomes].sort()).toEqual(['idle', 'queued']);
  });
});
