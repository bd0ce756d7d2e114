/**
 * `ws.tasks`: the workspace's tasks and plans. A plan an agent proposed in supervised or manual
 * mode waits as an approval of type 'plan' (so a terminal's one key, a page's dialog and a run
 * paused in another process all take it as they take any approval); accepting or declining it
 * here answers that approval too, and the run waiting for it goes on with the plan as accepted.
 */
import { unwrap } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import { recordsOf, type ApprovalRecord } from './agent-records.js';
import { requireTask, type StepInput, type TaskChanges } from './task-commands.js';
import { tasksInOrder, type TaskRecord, type TaskStatus } from './task-records.js';

/** Which tasks `ws.tasks.list` gives. */
export interface TaskListOptions {
  /** The tasks of this session only. */
  sessionId?: string | undefined;
  /** The tasks linked to this topic. */
  topic?: string | undefined;
  /** The tasks in this status (or any of these). Default: every status. */
  status?: TaskStatus | readonly TaskStatus[] | undefined;
}

/** A user's edits to a proposed plan, given when accepting it. */
export interface TaskEdits {
  title?: string;
  steps?: StepInput[];
}

/** The pending approval a proposed plan waits on, if it waits on one. */
export function planApproval(manager: WorkspaceManager, taskId: string): ApprovalRecord | undefined {
  return recordsOf(manager.workspace(), 'approval').find((a) => a.type === 'plan' && a.status === 'pending' && taskIdOf(a.details) === taskId);
}

function taskIdOf(details: unknown): string | undefined {
  const id = typeof details === 'object' && details !== null ? (details as { taskId?: unknown }).taskId : undefined;
  return typeof id === 'string' ? id : undefined;
}

/**
 * The tasks of a workspace: list and read them, accept (as proposed or edited) or decline a
 * proposal, mark steps, close. Each change is a `task:*` command, so `ws.events.on('task:update', ...)`
 * (and 'task:propose', 'task:accept', 'task:close') follows them, from any process.
 *
 * @example
 * const open = ws.tasks.list({ topic: 'billing', status: 'accepted' });
 * await ws.tasks.accept(proposal.id, { steps: ['Read the invoice code', 'Fix the rounding'] });
 */
export class TaskApi {
  readonly #manager: WorkspaceManager;

  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
  }

  /** The tasks that match, oldest first. */
  list(options: TaskListOptions = {}): TaskRecord[] {
    const statuses = options.status === undefined ? undefined : new Set<TaskStatus>(typeof options.status === 'string' ? [options.status] : options.status);
    return tasksInOrder(
      recordsOf(this.#manager.workspace(), 'task').filter(
        (t) =>
          (options.sessionId === undefined || t.sessionId === options.sessionId) &&
          (options.topic === undefined || t.topics.includes(options.topic)) &&
          (statuses === undefined || statuses.has(t.status)),
      ),
    );
  }

  /** One task. Throws TASK_NOT_FOUND. */
  get(id: string): TaskRecord {
    return requireTask(this.#manager.workspace(), id);
  }

  /** Proposes a task for a session (its topics default to the parent task's, else the session's). */
  async propose(task: {
    sessionId: string;
    title: string;
    steps: StepInput[];
    topics?: string[];
    id?: string;
    /** Nests it under a step (from 0) of another task. */
    parentTask?: { taskId: string; step: number };
  }): Promise<TaskRecord> {
    return unwrap(await this.#manager.dispatch({ type: 'task:propose', payload: task }));
  }

  /**
   * Accepts a proposed task, with the user's edits if given; a plan a run waits on goes on
   * with it (its approval is answered yes). TASK_NOT_FOUND, TASK_CLOSED, TASK_DECIDED.
   */
  async accept(id: string, edits: TaskEdits = {}): Promise<TaskRecord> {
    const task = unwrap(await this.#manager.dispatch({ type: 'task:accept', payload: { id, ...edits } }));
    await this.#answer(id, { answer: 'yes' });
    return task;
  }

  /** Declines a proposed task; a run waiting on it is told so, with the reason. TASK_NOT_FOUND, TASK_CLOSED, TASK_DECIDED. */
  async decline(id: string, reason?: string): Promise<TaskRecord> {
    const task = unwrap(await this.#manager.dispatch({ type: 'task:close', payload: { id, status: 'declined', ...(reason !== undefined && { reason }) } }));
    await this.#answer(id, { answer: 'no', ...(reason !== undefined && { reason }) });
    return task;
  }

  /**
   * Marks steps, adds or removes them, or renames an accepted task (step numbers from 0, as
   * the steps were before the update). Once every step is done or skipped, it is done.
   * TASK_NOT_FOUND, TASK_CLOSED, TASK_NOT_ACCEPTED, INVALID_ARGUMENT (no such step).
   */
  async update(id: string, changes: TaskChanges): Promise<TaskRecord> {
    return unwrap(await this.#manager.dispatch({ type: 'task:update', payload: { id, ...changes } }));
  }

  /** Closes a task as done (accepted ones) or cancelled. TASK_NOT_FOUND, TASK_CLOSED, TASK_NOT_ACCEPTED. */
  async close(id: string, status: 'done' | 'cancelled', reason?: string): Promise<TaskRecord> {
    const task = unwrap(await this.#manager.dispatch({ type: 'task:close', payload: { id, status, ...(reason !== undefined && { reason }) } }));
    // A proposal cancelled while a run waits on it: the run is told no.
    if (status === 'cancelled') await this.#answer(id, { answer: 'no', reason: reason ?? 'the plan was cancelled' });
    return task;
  }

  /** Answers the approval a run waits on for this plan, if one waits (answered meanwhile elsewhere: nothing to do). */
  async #answer(taskId: string, answer: { answer: 'yes' | 'no'; reason?: string }): Promise<void> {
    const approval = planApproval(this.#manager, taskId);
    if (approval === undefined) return;
    const answered = await this.#manager.dispatch({ type: 'approval:answer', payload: { id: approval.id, ...answer, fingerprint: approval.fingerprint } });
    if (!answered.ok && answered.error.code !== 'APPROVAL_ANSWERED') throw answered.error;
  }
}
