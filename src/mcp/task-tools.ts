/**
 * The workspace's tasks and plans as MCP tools (list_tasks, update_task, close_task) and
 * resources (golem://tasks, golem://tasks/<id>): another agent sees what is planned and left,
 * and marks steps as it does them. Accepting or declining a proposed plan stays the user's.
 */
import { z } from 'zod';
import { defineAction, type Action } from '../action/action.js';
import { TASK_STATUSES, type TaskApi, type TaskRecord } from '../agent/index.js';
import { GolemError } from '../core/errors.js';

const TaskId = z.string().min(1).max(200).describe('A task id (list_tasks names them)');
const StepStatus = z.enum(['pending', 'in_progress', 'done', 'skipped']);

/** list_tasks, update_task and close_task over `ws.tasks`. */
export function taskTools(tasks: TaskApi): Action[] {
  return [
    defineAction({
      name: 'list_tasks',
      description:
        'The tasks (plans) of the workspace, oldest first: id, session, title, status (proposed, accepted, declined, done, cancelled), topics and steps (numbered from 1). Filter by session, topic or status.',
      input: z.strictObject({
        sessionId: z.string().min(1).max(200).optional(),
        topic: z.string().min(1).max(200).optional(),
        status: z.enum(TASK_STATUSES).optional(),
      }),
      repeatable: true,
      run: (filter) => tasks.list(filter).map(taskView),
    }),
    defineAction({
      name: 'update_task',
      description:
        'Marks the steps of an accepted task (numbered from 1, as list_tasks shows them), adds steps (at the end, or before step `before`), removes steps, or renames it. Once every step is done or skipped, the task is done.',
      input: z.strictObject({
        taskId: TaskId,
        set: z.array(z.strictObject({ step: z.number().int().positive(), status: StepStatus })).optional(),
        add: z.array(z.strictObject({ text: z.string().min(1).max(2000), before: z.number().int().positive().optional() })).optional(),
        remove: z.array(z.number().int().positive()).optional(),
        title: z.string().min(1).max(500).optional(),
      }),
      repeatable: true,
      run: async ({ taskId, set, add, remove, title }) => {
        const task = tasks.get(taskId);
        const past = [...(set ?? []).map((s) => s.step), ...(remove ?? []), ...(add ?? []).flatMap((a) => (a.before === undefined ? [] : [a.before]))].find(
          (n) => n > task.steps.length,
        );
        if (past !== undefined)
          throw new GolemError('INVALID_ARGUMENT', `task "${task.id}" has ${task.steps.length} steps: there is no step ${past}`, {
            details: { taskId, step: past },
          });
        return taskView(
          await tasks.update(taskId, {
            ...(set !== undefined && { set: set.map((s) => ({ step: s.step - 1, status: s.status })) }),
            ...(add !== undefined && { add: add.map((a) => ({ text: a.text, ...(a.before !== undefined && { at: a.before - 1 }) })) }),
            ...(remove !== undefined && { remove: remove.map((n) => n - 1) }),
            ...(title !== undefined && { title }),
          }),
        );
      },
    }),
    defineAction({
      name: 'close_task',
      description: 'Closes an accepted task as done, or a task as cancelled (with a reason).',
      input: z.strictObject({ taskId: TaskId, status: z.enum(['done', 'cancelled']), reason: z.string().max(2000).optional() }),
      run: async ({ taskId, status, reason }) => taskView(await tasks.close(taskId, status, reason)),
    }),
  ] as Action[];
}

/** A task as MCP clients read it: its steps numbered from 1. */
export function taskView(task: TaskRecord) {
  const { call: _call, steps, ...rest } = task;
  return { ...rest, steps: steps.map((s, i) => ({ step: i + 1, ...s })) };
}

/** The tasks as resources: the list, and each task. */
export function taskResources(tasks: TaskApi): { uri: string; name: string; description: string; mimeType: string }[] {
  return [
    { uri: 'golem://tasks', name: 'Tasks', description: 'Every task (plan) of the workspace, with its steps', mimeType: 'application/json' },
    ...tasks
      .list()
      .map((t) => ({ uri: `golem://tasks/${t.id}`, name: `Task ${t.title}`, description: `Task ${t.id} (${t.status})`, mimeType: 'application/json' })),
  ];
}

/** The text of a golem://tasks resource, or undefined when the uri is not one. TASK_NOT_FOUND for a task that is not there. */
export function readTaskResource(tasks: TaskApi, uri: string): string | undefined {
  if (uri === 'golem://tasks') return JSON.stringify(tasks.list().map(taskView), null, 2);
  const one = /^golem:\/\/tasks\/([^/]+)$/.exec(uri);
  return one === null ? undefined : JSON.stringify(taskView(tasks.get(decodeURIComponent(one[1] as string))), null, 2);
}
