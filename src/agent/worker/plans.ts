/**
 * A worker's side of plans: `propose_plan` records the task (once per call) and, as the
 * action's mode says, accepts it at once (autonomous, or a standing grant) or asks the user
 * (supervised, manual) through the approval machinery, pausing the run when nobody can be
 * asked now; `update_plan` marks the steps. The actions and their words are in ../plan-actions.ts.
 */
import type { Action, ActionContext } from '../../action/action.js';
import { GolemError, unwrap } from '../../core/errors.js';
import { findApproval, requireTask, taskOfCall, type TaskRecord } from '../agent-plugin.js';
import type { PlanOutcome, PlanUpdate, ProposePlanInput, UpdatePlanInput } from '../plan-actions.js';
import { grantFor, trustModeOf } from '../trust.js';
import { approve } from './approvals.js';
import type { WorkerContext } from './context.js';

/** Records the plan as a task and gets it accepted or declined, as the mode says (or waits for the user). */
export async function proposePlan(ctx: WorkerContext, action: Action, input: ProposePlanInput, actionCtx: ActionContext): Promise<PlanOutcome> {
  const { manager } = ctx;
  const { callId, turn } = actionCtx;
  if (callId === undefined || turn === undefined) throw new GolemError('INVALID_ARGUMENT', 'propose_plan runs as a call of an answer');
  const view = manager.workspace();
  const root = ctx.position.rootSessionId;
  let task =
    taskOfCall(view, ctx.session.id, callId) ??
    unwrap(
      await manager.dispatch({
        type: 'task:propose',
        payload: {
          sessionId: ctx.session.id,
          title: input.title,
          steps: input.steps,
          runId: view.collection('run').get(root)?.runId ?? null,
          workerId: ctx.depth > 0 ? ctx.session.id : null,
          parentTask: parentTaskOf(ctx),
          call: { turnId: turn.id, callId },
        },
      }),
    );
  if (task.status !== 'proposed') return { status: 'decided', task, proposed: input, at: 'user' };
  const { mode } = trustModeOf(manager.workspace(), action, root, ctx.options.trust);
  if (mode === 'autonomous' || grantFor(manager.workspace(), action.name, action.grantKey(input), root) !== undefined) {
    task = unwrap(await manager.dispatch({ type: 'task:accept', payload: { id: task.id } }));
    return { status: 'decided', task, proposed: input, at: 'once' };
  }
  // Supervised and manual: the user reviews it, as they answer an approval (its details name the task).
  const asked: Action = { ...action, describe: (i) => ({ ...action.describe(i), details: { taskId: task.id, ...input } }) };
  const answer = await approve(ctx, asked, { turnId: turn.id, turnVersion: turn.version, callId, name: action.name, input }, input, actionCtx.signal);
  if (answer.kind === 'paused') return { status: 'waiting', taskId: task.id, approvalId: answer.approval.id };
  const approval = findApproval(manager.workspace(), ctx.session.id, turn.id, callId);
  // Nobody could be asked now, and the run cannot pause here: the plan stays proposed, its approval waiting.
  if (answer.kind === 'denied' && approval?.status !== 'denied') return { status: 'unanswered', taskId: task.id };
  // Accepted or declined through ws.tasks meanwhile (with the user's edits): that stands.
  task = requireTask(manager.workspace(), task.id);
  if (task.status === 'proposed') {
    const decided =
      answer.kind === 'approved'
        ? await manager.dispatch({ type: 'task:accept', payload: { id: task.id } })
        : await manager.dispatch({
            type: 'task:close',
            payload: { id: task.id, status: 'declined', ...(approval?.reason != null && { reason: approval.reason }) },
          });
    task = decided.ok ? decided.value : requireTask(manager.workspace(), task.id);
  }
  return { status: 'decided', task, proposed: input, at: 'user' };
}

/** A sub-worker's plan nests under its parent's open plan, at the step in progress (else the first not done). */
function parentTaskOf(ctx: WorkerContext): { taskId: string; step: number } | null {
  if (ctx.depth === 0) return null;
  const parent = ctx.position.path.at(-2);
  if (parent === undefined) return null;
  const task = currentPlan(ctx, parent.id);
  if (task === undefined) return null;
  const inProgress = task.steps.findIndex((s) => s.status === 'in_progress');
  const step = inProgress >= 0 ? inProgress : task.steps.findIndex((s) => s.status === 'pending');
  return step < 0 ? null : { taskId: task.id, step };
}

/** A session's current plan: its latest accepted task. */
function currentPlan(ctx: WorkerContext, sessionId: string): TaskRecord | undefined {
  let latest: TaskRecord | undefined;
  for (const task of ctx.manager.workspace().collection('task').values())
    if (task.sessionId === sessionId && task.status === 'accepted' && (latest === undefined || task.createdAt >= latest.createdAt)) latest = task;
  return latest;
}

/** Marks steps of the worker's plan (or of the open task named), numbered from 1 as the model reads them. */
export async function updatePlan(ctx: WorkerContext, input: UpdatePlanInput): Promise<PlanUpdate> {
  const marks = [...(input.steps ?? []), ...(input.step !== undefined && input.status !== undefined ? [{ step: input.step, status: input.status }] : [])];
  if ((input.step === undefined) !== (input.status === undefined)) return { ok: false, error: 'Give step and status together (or steps, for several).' };
  if (marks.length === 0 && (input.add ?? []).length === 0) return { ok: false, error: 'Nothing to update: give step and status, steps, or add.' };
  const task = input.task === undefined ? currentPlan(ctx, ctx.session.id) : ctx.manager.workspace().collection('task').get(input.task);
  if (task === undefined)
    return {
      ok: false,
      error: input.task === undefined ? 'You have no accepted plan in this conversation: propose one with propose_plan first.' : `No task "${input.task}".`,
    };
  if (task.status !== 'accepted') return { ok: false, error: `Task ${task.id} is ${task.status}: its steps are not marked any more.` };
  const missing = marks.find((m) => m.step > task.steps.length);
  if (missing !== undefined) return { ok: false, error: `The plan has ${task.steps.length} steps: there is no step ${missing.step}.` };
  const updated = await ctx.manager.dispatch({
    type: 'task:update',
    payload: {
      id: task.id,
      ...(marks.length > 0 && { set: marks.map((m) => ({ step: m.step - 1, status: m.status })) }),
      ...(input.add !== undefined && input.add.length > 0 && { add: input.add.map((text) => ({ text })) }),
    },
  });
  return updated.ok ? { ok: true, task: updated.value } : { ok: false, error: `${updated.error.code}: ${updated.error.message}` };
}
