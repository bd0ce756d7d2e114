/**
 * Tasks as the page reads them: the tasks of a conversation (its root session's and its
 * sub-workers') as `SessionDetail.tasks`, and the sessions a `task:*` command concerns (whose
 * pages read them again).
 */
import type { TaskRecord } from '../agent/task-records.js';
import type { WorkspaceView } from '../core/index.js';
import type { TaskView } from './api-types.js';

/** The conversation a task belongs to: its session's, or for a sub-worker's plan, its root session's. */
export function rootSessionOf(view: WorkspaceView, task: Pick<TaskRecord, 'sessionId'>): string {
  return view.collection('worker').get(task.sessionId)?.rootSessionId ?? task.sessionId;
}

/** The tasks of a conversation (its root session's and its sub-workers'), oldest first. */
export function sessionTasks(view: WorkspaceView, rootSessionId: string): TaskView[] {
  return [...view.collection('task').values()]
    .filter((t) => rootSessionOf(view, t) === rootSessionId)
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
    .map((t) => ({
      id: t.id,
      sessionId: t.sessionId,
      parentTask: t.parentTask,
      title: t.title,
      steps: t.steps,
      status: t.status,
      reason: t.reason,
      updatedAt: t.updatedAt,
    }));
}

/** The sessions whose pages show a task a `task:*` command changed (its own, and its conversation's). */
export function taskSessionIds(view: WorkspaceView, result: unknown): string[] {
  const sessionId = (result as { sessionId?: unknown } | null)?.sessionId;
  return typeof sessionId === 'string' ? [sessionId, rootSessionOf(view, { sessionId })] : [];
}
