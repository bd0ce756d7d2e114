/**
 * Plans (issue 37, section 2): the scripted model proposes a plan with propose_plan in each
 * trust mode (autonomous: accepted at once; supervised and manual: the user accepts, edits or
 * declines it as an approval of type 'plan', or the run pauses until they do, from another
 * handle), marks its steps with update_plan, nests a sub-worker's plan under its step, and a
 * new session on the topic reads the open task in its prompt. On SQLite and PostgreSQL, read
 * back after a reopen.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, ContentBlock, Prompt, Trust, Workspace } from '../src/index.js';
import { ScriptedModel } from '../src/test/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { openClosed, tempDir } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

type Kind = 'sqlite' | 'postgres';

function reopener(kind: Kind): () => Promise<Workspace> {
  const dir = tempDir();
  const schema = freshSchema('plans');
  return () => openClosed(kind === 'sqlite' ? { dir } : { store: postgresStore(PG_URL, { schema }) });
}

const PLAN = { title: 'Fix invoice rounding', steps: ['Find the rounding code', 'Fix it', 'Run the tests'] };

/** The blocks of every turn on a session's path, oldest first. */
async function blocksOf(ws: Workspace, sessionId: string): Promise<ContentBlock[][]> {
  const session = await ws.sessions.open(sessionId);
  return ((await session?.transcript()) ?? []).map((t) => t.blocks);
}

/** The text of the results the model was sent in its last prompt. */
function results(prompt: Prompt | undefined): string[] {
  return (prompt?.messages ?? []).flatMap((m) =>
    m.role === 'tool' ? m.content.flatMap((p) => (p.type === 'tool-result' && p.output.type === 'text' ? [p.output.text] : [])) : [],
  );
}

describe.each<Kind>(['sqlite', 'postgres'])('plans on %s', (kind) => {
  it('autonomous: the plan is accepted at once, its block written, its steps marked to done; a new session on the topic sees what is left', async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    await ws.trust.set('propose_plan', 'autonomous');
    const chat = await ws.sessions.create({ topics: ['billing'] });
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'propose_plan', input: PLAN }] },
      { toolCalls: [{ name: 'update_plan', input: { step: 1, status: 'done' } }] },
      { toolCalls: [{ name: 'update_plan', input: { steps: [{ step: 2, status: 'in_progress' }], add: ['Tell the user'] } }] },
      { toolCalls: [{ name: 'update_plan', input: { step: 9, status: 'done' } }] },
      { text: 'Stopping here for today.' },
    ]);
    const asked: ApprovalRequest[] = [];
    const outcome = await ws
      .worker({ session: chat, model, plans: true, requestApproval: async (r) => (asked.push(r), { approved: true }) })
      .run('Fix the rounding of invoices');
    expect(outcome.status).toBe('done');
    expect(asked).toEqual([]);

    const [task] = ws.tasks.list({ sessionId: chat.id });
    expect(task).toMatchObject({ status: 'accepted', title: PLAN.title, topics: ['billing'], workerId: null, parentTask: null });
    expect(task?.steps.map((s) => s.status)).toEqual(['done', 'in_progress', 'pending', 'pending']);
    // What the model read: the instructions, the plan accepted at once, the steps as marked, and a step that is not there.
    expect(model.calls[0]?.system).toContain('## Plans');
    expect(results(model.calls[1])[0]).toContain(`Your plan is accepted. Plan "${PLAN.title}" (task ${task?.id}, accepted):\n[ ] 1. Find the rounding code`);
    expect(results(model.calls[2])[1]).toContain('[x] 1. Find the rounding code\n[ ] 2. Fix it');
    expect(results(model.calls[4])[3]).toBe('The plan has 4 steps: there is no step 9.');
    expect(model.calls[4]?.system).toContain(`Task ${task?.id} "${PLAN.title}" (this conversation):\n[x] 1. Find the rounding code\n[~] 2. Fix it`);

    const check = async (w: Workspace) => {
      expect(w.tasks.get(task?.id ?? '')).toEqual(task);
      const proposal = (await blocksOf(w, chat.id)).flat().find((b) => b.type === 'task:proposal');
      expect(proposal).toEqual({ type: 'task:proposal', taskId: task?.id, title: PLAN.title, steps: PLAN.steps.map((text) => ({ text, status: 'pending' })) });
    };
    await check(ws);
    const again = await reopen();
    await check(again);

    // A new session on the topic is told what is left; one on another topic is not.
    const next = await again.sessions.create({ topics: ['billing'] });
    const elsewhere = await again.sessions.create({ topics: ['search'] });
    const reader = new ScriptedModel([{ text: 'I see the open task.' }, { text: 'Nothing open.' }]);
    await again.worker({ session: next, model: reader }).run('What is left?');
    await again.worker({ session: elsewhere, model: reader }).run('What is left?');
    const system = reader.calls[0]?.system ?? '';
    expect(system).toContain("## Open tasks\nAccepted plans not yet done: those of other sessions on this conversation's topics (billing)");
    expect(system).toContain(`Task ${task?.id} "${PLAN.title}" (session ${chat.id}, topics: billing):\n[x] 1. Find the rounding code\n[~] 2. Fix it`);
    // Without update_plan, the prompt does not tell the model to use it.
    expect(system).not.toContain('update_plan');
    expect(reader.calls[1]?.system).not.toContain('Open tasks');
  });

  it.each<Trust>(['supervised', 'manual'])('%s: the user is asked; yes accepts, an edit stands, no declines with the reason', async (mode) => {
    const reopen = reopener(kind);
    const ws = await reopen();
    await ws.trust.set('propose_plan', mode);
    const run = async (answer: (request: ApprovalRequest) => Promise<{ approved: true } | { approved: false; reason: string }>) => {
      const chat = await ws.sessions.create({ topics: ['billing'] });
      const model = new ScriptedModel([{ toolCalls: [{ name: 'propose_plan', input: PLAN }] }, { text: 'ok' }]);
      const asked: ApprovalRequest[] = [];
      await ws.worker({ session: chat, model, plans: true, requestApproval: (r) => (asked.push(r), answer(r)) }).run('Fix the rounding');
      const [task] = ws.tasks.list({ sessionId: chat.id });
      return { asked, task, result: results(model.calls[1])[0] ?? '', model };
    };

    const yes = await run(async () => ({ approved: true }));
    expect(yes.asked).toHaveLength(1);
    expect(yes.asked[0]).toMatchObject({ type: 'plan', risk: 'low', details: { taskId: yes.task?.id, ...PLAN } });
    expect(yes.asked[0]?.description).toBe(`Plan: ${PLAN.title}\n1. Find the rounding code\n2. Fix it\n3. Run the tests`);
    expect(yes.task?.status).toBe('accepted');
    expect(yes.result).toContain('The user accepted your plan. Plan');

    // The page or the terminal edits the plan through ws.tasks, then says yes.
    const edited = await run(async (r) => {
      await ws.tasks.accept((r.details as { taskId: string }).taskId, { steps: ['Fix it', 'Run the tests'] });
      return { approved: true };
    });
    expect(edited.task).toMatchObject({ status: 'accepted', steps: [{ text: 'Fix it' }, { text: 'Run the tests' }] });
    expect(edited.result).toContain('The user accepted your plan with changes: follow it as it is now.');
    expect(edited.result).toContain('[ ] 1. Fix it\n[ ] 2. Run the tests');

    const no = await run(async () => ({ approved: false, reason: 'too many steps' }));
    expect(no.task).toMatchObject({ status: 'declined', reason: 'too many steps' });
    expect(no.result).toBe('The user declined your plan: too many steps. Do not follow it; ask the user what they want, or propose another plan.');
    // Nothing waits for clearance: a manual plan is asked, not deferred.
    expect(ws.clearance.list()).toEqual([]);
    expect(ws.approvals.pending()).toEqual([]);
    expect((await reopen()).tasks.list().map((t) => t.status)).toEqual(['accepted', 'accepted', 'declined']);
  });

  it('supervised with nobody to ask: the run pauses, the plan is accepted with edits from another handle, and the run resumed follows it', async () => {
    const reopen = reopener(kind);
    const ws = await reopen();
    const chat = await ws.sessions.create();
    const script = [
      { toolCalls: [{ name: 'propose_plan', input: PLAN, callId: 'plan-1' }] },
      { toolCalls: [{ name: 'update_plan', input: { step: 1, status: 'done' } }] },
      { text: 'Done with the first step.' },
    ];
    const first = new ScriptedModel(script);
    const paused = await ws.worker({ session: chat, model: first, plans: true, requestApproval: null }).run('Fix the rounding');
    expect(paused.status).toBe('paused');
    const [task] = ws.tasks.list();
    expect(task?.status).toBe('proposed');
    expect(ws.approvals.pending()).toMatchObject([{ type: 'plan', action: 'propose_plan', details: { taskId: task?.id } }]);

    // Another process (a page on golem serve) accepts it with an edit.
    const other = await reopen();
    await other.tasks.accept(task?.id ?? '', { title: 'Fix rounding', steps: ['Fix it', 'Run the tests'] });
    expect(other.approvals.pending()).toEqual([]);

    const resumed = await reopen();
    const second = new ScriptedModel(script.slice(1));
    const session = await resumed.sessions.open(chat.id);
    if (session === undefined) throw new Error('the session is gone after a reopen');
    const outcome = await resumed.worker({ session, model: second, plans: true, requestApproval: null }).run();
    expect(outcome.status).toBe('done');
    expect(results(second.calls[0])[0]).toContain('The user accepted your plan with changes: follow it as it is now. Plan "Fix rounding"');
    expect((await reopen()).tasks.get(task?.id ?? '').steps).toEqual([
      { text: 'Fix it', status: 'done' },
      { text: 'Run the tests', status: 'pending' },
    ]);
  });

  it("a sub-worker's plan nests under its parent's step in progress; an 'always' answer accepts later plans at once", async () => {
    const ws = await reopener(kind)();
    const chat = await ws.sessions.create({ topics: ['billing'] });
    const sub = { title: 'Find it', steps: ['grep for round(', 'read the callers'] };
    const model = new ScriptedModel([
      { toolCalls: [{ name: 'propose_plan', input: PLAN }] },
      { toolCalls: [{ name: 'update_plan', input: { step: 1, status: 'in_progress' } }] },
      { toolCalls: [{ name: 'spawn_worker', input: { task: 'Find the rounding code' } }] },
      // The sub-worker
      { toolCalls: [{ name: 'propose_plan', input: sub }] },
      { text: 'It is in invoice.ts.' },
      // The root again
      { text: 'Found it.' },
    ]);
    const asked: ApprovalRequest[] = [];
    await ws
      .worker({ session: chat, model, plans: true, subWorkers: true, requestApproval: async (r) => (asked.push(r), { approved: 'always' }) })
      .run('Fix the rounding');
    // Asked once: the 'always' answer granted plans, so the sub-worker's was accepted at once.
    expect(asked.map((r) => r.type)).toEqual(['plan']);
    const [parent, child] = ws.tasks.list();
    expect(child).toMatchObject({ status: 'accepted', title: 'Find it', parentTask: { taskId: parent?.id, step: 0 }, topics: ['billing'] });
    expect(child?.workerId).toBe(child?.sessionId);
    expect(child?.sessionId).not.toBe(chat.id);
    expect(ws.trust.grants()).toMatchObject([{ action: 'propose_plan', key: 'plan', scope: 'workspace' }]);
  });
});
