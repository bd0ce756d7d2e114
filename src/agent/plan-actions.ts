/**
 * Plans (issue 37, section 2): the agent proposes a plan with `propose_plan`, which becomes a
 * task, accepted at once in autonomous mode, or reviewed by the user (accepted, edited or
 * declined) in supervised and manual modes, as an approval of type 'plan'; then it marks the
 * steps with `update_plan` as it goes. These are the two actions and the words the model reads
 * about them; a worker runs them (worker/plans.ts).
 */
import { z } from 'zod';
import { defineAction, type Action, type ActionContext } from '../action/action.js';
import type { ContentBlock } from '../core/blocks.js';
import { stepLine, type TaskRecord } from './task-records.js';

export const ProposePlanInput = z.object({
  title: z.string().min(1).max(500).describe('What the plan achieves, in a few words.'),
  steps: z.array(z.string().min(1).max(2000)).min(1).max(100).describe('The steps, in the order you will do them, each one short and checkable.'),
});
export type ProposePlanInput = z.output<typeof ProposePlanInput>;

const StepStatus = z.enum(['in_progress', 'done', 'skipped', 'pending']);

export const UpdatePlanInput = z.object({
  step: z.number().int().positive().optional().describe('The number of the step to mark (1 for the first), with status.'),
  status: StepStatus.optional().describe('What the step is now: in_progress when you start it, done when it is done, skipped when it is not needed.'),
  steps: z
    .array(z.object({ step: z.number().int().positive(), status: StepStatus }))
    .optional()
    .describe('Several steps to mark at once, instead of step and status.'),
  add: z.array(z.string().min(1).max(2000)).optional().describe('New steps to add at the end of the plan.'),
  task: z.string().optional().describe('The id of the task to update (default: your plan in this conversation); an open task listed in your context.'),
});
export type UpdatePlanInput = z.output<typeof UpdatePlanInput>;

/** What became of a proposed plan: the task as it is now (accepted as proposed or edited, declined), or waiting for the user (the run pauses). */
export type PlanOutcome =
  | { status: 'waiting'; taskId: string; approvalId: string }
  /** Nobody could be asked now and the run could not pause: the plan stays proposed, its approval waiting. */
  | { status: 'unanswered'; taskId: string }
  | { status: 'decided'; task: TaskRecord; proposed: ProposePlanInput; at: 'once' | 'user' };

/** What an update of a plan did: the task as it is now, or why nothing changed. */
export type PlanUpdate = { ok: true; task: TaskRecord } | { ok: false; error: string };

/** `propose_plan`: the worker runs `propose` with the call's context (it records the task and asks the user, as the mode says). */
export function proposePlanAction(propose: (input: ProposePlanInput, ctx: ActionContext) => Promise<PlanOutcome>): Action {
  return defineAction({
    name: 'propose_plan',
    description:
      'Proposes your plan for a task of several steps: a title and the steps in order. Depending on the settings it is accepted at once, ' +
      'or the user reviews it first and may accept it, change it or decline it. The result says which, with the plan as accepted: follow that one.',
    input: ProposePlanInput,
    // In supervised and manual modes the user accepts or declines the plan: the run asks (a plan is an approval of type 'plan').
    trust: 'supervised',
    asksItself: true,
    // Its task is linked to the call: running it again finds that task, never a second one.
    repeatable: true,
    // An 'always' (or 'session') answer accepts every later plan at once.
    grantKey: () => 'plan',
    describe: (input) => ({
      type: 'plan',
      description: `Plan: ${input.title}\n${input.steps.map((s, i) => `${i + 1}. ${s}`).join('\n')}`,
      details: input,
      risk: 'low',
    }),
    run: propose,
    endsRun: (output) => (output.status === 'waiting' ? { type: 'paused', approvalId: output.approvalId } : undefined),
    failed: (output) =>
      output.status === 'unanswered' || (output.status === 'decided' && output.task.status !== 'accepted' && output.task.status !== 'done')
        ? 'the plan was not accepted'
        : undefined,
    render: renderPlanOutcome,
    blocks: (output): ContentBlock[] =>
      output.status === 'decided'
        ? [{ type: 'task:proposal', taskId: output.task.id, title: output.proposed.title, steps: proposedSteps(output.proposed) }]
        : [],
  }) as Action;
}

/** `update_plan`: the worker runs `update` (it marks the steps of the task). */
export function updatePlanAction(update: (input: UpdatePlanInput) => Promise<PlanUpdate>): Action {
  return defineAction({
    name: 'update_plan',
    description:
      'Marks the steps of your accepted plan as you go: give step (numbered from 1, as the plan lists them) and status, or steps for several at once; add appends new steps. ' +
      'Once every step is done or skipped, the plan is done.',
    input: UpdatePlanInput,
    // Sets statuses to the values given: doing it again changes nothing.
    repeatable: true,
    run: update,
    failed: (output) => (output.ok ? undefined : output.error),
    render: (output) =>
      output.ok
        ? `Updated. ${planText(output.task)}${output.task.status === 'done' ? '\nEvery step is done or skipped: the plan is done.' : ''}`
        : output.error,
  }) as Action;
}

function proposedSteps(input: ProposePlanInput) {
  return input.steps.map((text) => ({ text, status: 'pending' as const }));
}

/** A task as the model reads it: its title, id and steps, numbered from 1. */
export function planText(task: TaskRecord): string {
  return `Plan "${task.title}" (task ${task.id}, ${task.status}):\n${task.steps.map(stepLine).join('\n')}`;
}

function renderPlanOutcome(output: PlanOutcome): string {
  if (output.status === 'waiting') return 'Waiting for the user to review the plan.';
  if (output.status === 'unanswered')
    return `Your plan (task ${output.taskId}) waits for the user's review, and nobody can be asked now: it is not accepted. Do not follow it yet.`;
  const { task, proposed, at } = output;
  if (task.status === 'accepted' || task.status === 'done') {
    const changed = task.title !== proposed.title || task.steps.length !== proposed.steps.length || task.steps.some((s, i) => s.text !== proposed.steps[i]);
    const how =
      at === 'once' ? 'Your plan is accepted.' : changed ? 'The user accepted your plan with changes: follow it as it is now.' : 'The user accepted your plan.';
    return `${how} ${planText(task)}\nMark each step with update_plan as you go: in_progress when you start it, done when it is done.`;
  }
  const why = task.reason === null ? '' : `: ${task.reason}`;
  return `The user ${task.status === 'declined' ? 'declined' : 'cancelled'} your plan${why}. Do not follow it; ask the user what they want, or propose another plan.`;
}

/** What a worker offered the plan actions is told about them. */
export function planInstructions(): string {
  return [
    '## Plans',
    'For a task of several steps, first propose a plan with propose_plan. Skip it for a question or a one-step change.',
    'Once it is accepted, mark each step with update_plan as you go: in_progress when you start it, done when it is done, skipped when it turns out not to be needed. Add a step with update_plan when you find more to do.',
  ].join('\n');
}
