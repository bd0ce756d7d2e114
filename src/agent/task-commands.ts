/**
 * The task commands (`task:*`): a plan is proposed, accepted (as it is or edited) or declined,
 * its steps marked as the work goes, and closed. Every refusal has its code: TASK_NOT_FOUND,
 * TASK_CLOSED (a closed task changes no more), TASK_DECIDED (accepting or declining an accepted
 * one), TASK_NOT_ACCEPTED (marking a proposal's steps), INVALID_ARGUMENT (a step that is not there).
 */
import { z } from 'zod';
import { defineCommand, fail, Id, requireSession, TaskStepStatus, Topic, type WorkspaceView } from '../core/index.js';
import { allStepsFinished, isClosed, taskOfCall, TaskRecord, TaskStep } from './task-records.js';

/** A step as a caller writes it: its text (pending), or its text and status. */
export const StepInput = z.union([TaskStep.shape.text, z.strictObject({ text: TaskStep.shape.text, status: TaskStepStatus.optional() })]);
export type StepInput = z.input<typeof StepInput>;

const Steps = z.array(StepInput).min(1).max(100);

function stepsOf(steps: readonly z.output<typeof StepInput>[]): TaskStep[] {
  return steps.map((s) => (typeof s === 'string' ? { text: s, status: 'pending' } : { text: s.text, status: s.status ?? 'pending' }));
}

/** The task of this id: TASK_NOT_FOUND when there is none. */
export function requireTask(view: WorkspaceView, id: string): TaskRecord {
  const task = view.collection('task').get(id);
  if (task === undefined) throw fail('TASK_NOT_FOUND', `no task with id "${id}"`, { taskId: id });
  return task;
}

function requireOpen(task: TaskRecord): void {
  if (isClosed(task))
    throw fail('TASK_CLOSED', `task "${task.id}" is ${task.status}: nothing in it changes any more`, { taskId: task.id, status: task.status });
}

function put(task: TaskRecord) {
  return { op: 'put' as const, collection: 'task', key: task.id, value: task };
}

/** An open task with its (new) title and steps: accepted, or done once every step is done or skipped. */
function opened(task: TaskRecord, title: string | undefined, steps: TaskStep[], now: string) {
  const next: TaskRecord = {
    ...task,
    ...(title !== undefined && { title }),
    steps,
    status: allStepsFinished(steps) ? 'done' : 'accepted',
    updatedAt: now,
  };
  return { writes: [put(next)], result: next };
}

/** Proposes a task (status 'proposed'); proposing again for the same call returns the task it proposed. */
export const taskPropose = defineCommand({
  type: 'task:propose',
  description: "Proposes a task with its steps (status 'proposed'), owned by a session; a call's proposal is made once.",
  payload: z.strictObject({
    id: Id.optional(),
    sessionId: Id,
    title: TaskRecord.shape.title,
    steps: Steps,
    /** Default: the parent task's topics for a nested plan, else the session's. */
    topics: z.array(Topic).optional(),
    runId: z.string().min(1).nullable().optional(),
    workerId: Id.nullable().optional(),
    parentTask: TaskRecord.shape.parentTask.optional(),
    call: TaskRecord.shape.call.optional(),
  }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    if (payload.call != null) {
      const earlier = taskOfCall(ctx.index, payload.sessionId, payload.call.callId);
      if (earlier !== undefined) return { writes: [], result: earlier };
    }
    const id = payload.id ?? ctx.newId();
    if (ctx.index.collection('task').has(id)) throw fail('DUPLICATE_ID', `a task with id "${id}" already exists`, { taskId: id });
    let topics = payload.topics;
    if (payload.parentTask != null) {
      const parent = requireTask(ctx.index, payload.parentTask.taskId);
      if (payload.parentTask.step >= parent.steps.length)
        throw fail('INVALID_ARGUMENT', `task "${parent.id}" has no step ${payload.parentTask.step + 1} (it has ${parent.steps.length})`, {
          taskId: parent.id,
          step: payload.parentTask.step,
          steps: parent.steps.length,
        });
      topics ??= parent.topics;
    }
    const task: TaskRecord = {
      id,
      sessionId: session.id,
      runId: payload.runId ?? null,
      workerId: payload.workerId ?? null,
      parentTask: payload.parentTask ?? null,
      title: payload.title,
      steps: stepsOf(payload.steps),
      status: 'proposed',
      topics: [...new Set(topics ?? session.topics)],
      call: payload.call ?? null,
      reason: null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    return { writes: [put(task)], result: task };
  },
});

/** Accepts a proposed task, with the title and steps the user edited, if they did. */
export const taskAccept = defineCommand({
  type: 'task:accept',
  description: 'Accepts a proposed task, as it is or with an edited title and steps.',
  payload: z.strictObject({ id: Id, title: TaskRecord.shape.title.optional(), steps: Steps.optional() }),
  reduce(payload, ctx) {
    const task = requireTask(ctx.index, payload.id);
    requireOpen(task);
    if (task.status !== 'proposed') throw fail('TASK_DECIDED', `task "${task.id}" was already accepted`, { taskId: task.id });
    const steps = payload.steps === undefined ? task.steps : stepsOf(payload.steps);
    return opened(task, payload.title, steps, ctx.now);
  },
});

/** What `task:update` changes: step numbers are places in the steps as they were before it (from 0). */
export const TaskChanges = z.strictObject({
  title: TaskRecord.shape.title.optional(),
  /** Steps whose status changes. */
  set: z.array(z.strictObject({ step: z.number().int().nonnegative(), status: TaskStepStatus })).optional(),
  /** New steps, each before the step `at` (default: at the end). */
  add: z.array(z.strictObject({ text: TaskStep.shape.text, status: TaskStepStatus.optional(), at: z.number().int().nonnegative().optional() })).optional(),
  /** Steps taken out. */
  remove: z.array(z.number().int().nonnegative()).optional(),
});
export type TaskChanges = z.input<typeof TaskChanges>;

/**
 * Marks steps, adds and removes them, or renames an accepted task. A task whose every step is
 * then done or skipped is done.
 */
export const taskUpdate = defineCommand({
  type: 'task:update',
  description: 'Marks the steps of an accepted task, adds or removes steps, or renames it; once every step is done or skipped, the task is done.',
  payload: TaskChanges.extend({ id: Id }),
  reduce(payload, ctx) {
    const task = requireTask(ctx.index, payload.id);
    requireOpen(task);
    if (task.status !== 'accepted') throw fail('TASK_NOT_ACCEPTED', `task "${task.id}" is still a proposal: accept it first`, { taskId: task.id });
    const { set = [], add = [], remove = [] } = payload;
    if (payload.title === undefined && set.length + add.length + remove.length === 0)
      throw fail('INVALID_ARGUMENT', 'the update changes nothing: give set, add, remove or title', { taskId: task.id });
    const count = task.steps.length;
    const inRange = (step: number, at: 'set' | 'remove' | 'add', limit = count - 1) => {
      if (step > limit)
        throw fail('INVALID_ARGUMENT', `task "${task.id}" has no step ${step + 1} (it has ${count}; steps count from 0 here)`, {
          taskId: task.id,
          step,
          steps: count,
          in: at,
        });
    };
    const twice = (list: readonly number[], at: string) => {
      const again = list.find((n, i) => list.indexOf(n) !== i);
      if (again !== undefined) throw fail('INVALID_ARGUMENT', `step ${again + 1} is in ${at} twice`, { taskId: task.id, step: again, in: at });
    };
    for (const s of set) inRange(s.step, 'set');
    for (const n of remove) inRange(n, 'remove');
    for (const a of add) if (a.at !== undefined) inRange(a.at, 'add', count);
    twice(
      set.map((s) => s.step),
      'set',
    );
    twice(remove, 'remove');
    const removed = new Set(remove);
    const marked = set.find((s) => removed.has(s.step));
    if (marked !== undefined) throw fail('INVALID_ARGUMENT', `step ${marked.step + 1} is both marked and removed`, { taskId: task.id, step: marked.step });
    const status = new Map(set.map((s) => [s.step, s.status]));
    const before = (at: number) => add.filter((a) => (a.at ?? count) === at).map((a): TaskStep => ({ text: a.text, status: a.status ?? 'pending' }));
    const steps: TaskStep[] = [];
    task.steps.forEach((step, i) => {
      steps.push(...before(i));
      if (!removed.has(i)) steps.push({ text: step.text, status: status.get(i) ?? step.status });
    });
    steps.push(...before(count));
    if (steps.length === 0) throw fail('INVALID_ARGUMENT', 'a task keeps at least one step: close it instead', { taskId: task.id });
    if (steps.length > 100) throw fail('INVALID_ARGUMENT', 'a task has at most 100 steps', { taskId: task.id });
    return opened(task, payload.title, steps, ctx.now);
  },
});

/** Closes a task: done (accepted ones), declined (proposals) or cancelled (either). */
export const taskClose = defineCommand({
  type: 'task:close',
  description: 'Closes a task: done (an accepted one), declined (a proposal) or cancelled (either), with a reason if given.',
  payload: z.strictObject({ id: Id, status: z.enum(['done', 'declined', 'cancelled']), reason: z.string().max(2000).optional() }),
  reduce(payload, ctx) {
    const task = requireTask(ctx.index, payload.id);
    requireOpen(task);
    if (payload.status === 'declined' && task.status !== 'proposed')
      throw fail('TASK_DECIDED', `task "${task.id}" was already accepted: cancel it instead`, { taskId: task.id });
    if (payload.status === 'done' && task.status !== 'accepted')
      throw fail('TASK_NOT_ACCEPTED', `task "${task.id}" is still a proposal: accept it, or decline it`, { taskId: task.id });
    const closed: TaskRecord = { ...task, status: payload.status, reason: payload.reason ?? null, updatedAt: ctx.now };
    return { writes: [put(closed)], result: closed };
  },
});
