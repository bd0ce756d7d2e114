/**
 * What a session's prompt says of open tasks (issue 37, "Linked by topic"): the accepted plans
 * not yet done, its own and those of other sessions on its topics (its own and its role's), so
 * a new session on a topic sees what is left. The worker puts it among its system sections.
 */
import type { WorkspaceView } from '../core/index.js';
import { stepLine, tasksInOrder, type TaskRecord } from './task-records.js';

/** At most this many tasks are listed (the session's own first, then the oldest). */
export const OPEN_TASKS_SHOWN = 10;

/** The open tasks a session's prompt lists: its own accepted ones, then those on its topics. */
export function openTasksOf(view: WorkspaceView, sessionId: string): { own: TaskRecord[]; linked: TaskRecord[]; topics: string[] } {
  const session = view.sessions.get(sessionId);
  const role = session?.role == null ? undefined : view.roles.get(session.role);
  const topics = [...new Set([...(session?.topics ?? []), ...(role?.topics ?? [])])];
  const open = tasksInOrder([...view.collection('task').values()].filter((t) => t.status === 'accepted'));
  return {
    own: open.filter((t) => t.sessionId === sessionId),
    linked: open.filter((t) => t.sessionId !== sessionId && t.topics.some((topic) => topics.includes(topic))),
    topics,
  };
}

/** The section, or nothing when no task is open; `canUpdate`: the model is offered update_plan. */
export function openTasksSection(view: WorkspaceView, sessionId: string, canUpdate: boolean): string[] {
  const { own, linked, topics } = openTasksOf(view, sessionId);
  const all = [...own, ...linked];
  if (all.length === 0) return [];
  const shown = all.slice(0, OPEN_TASKS_SHOWN);
  const whose = [
    ...(own.length > 0 ? ['yours, from this conversation'] : []),
    ...(linked.length > 0 ? [`those of other sessions on this conversation's topics (${topics.join(', ')}), which may be left for you to finish`] : []),
  ];
  return [
    [
      '## Open tasks',
      `Accepted plans not yet done: ${whose.join('; and ')}.`,
      ...(canUpdate ? ['Mark their steps with update_plan as you work on them (give the task id for a task that is not your current plan).'] : []),
      ...shown.map((t) => taskLines(t, sessionId)),
      ...(all.length > shown.length ? [`(${all.length - shown.length} more open tasks are not shown.)`] : []),
    ].join('\n'),
  ];
}

function taskLines(task: TaskRecord, sessionId: string): string {
  const where = task.sessionId === sessionId ? 'this conversation' : `session ${task.sessionId}, topics: ${task.topics.join(', ')}`;
  return `\nTask ${task.id} "${task.title}" (${where}):\n${task.steps.map(stepLine).join('\n')}`;
}
