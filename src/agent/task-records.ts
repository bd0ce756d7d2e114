/**
 * Tasks and plans (seed 001's "first-class task entities with steps, status, and topic
 * linking"): a plan an agent proposed (`propose_plan`) or a caller wrote, its steps as they
 * go, and the topics that link it to other sessions. A task is a workspace-wide record (like a
 * run's record): a new session on one of its topics sees it without loading the session that
 * made it. `task-commands.ts` changes it; `ws.tasks` reads it.
 */
import { z } from 'zod';
import { Id, TaskStepStatus, Timestamp, Topic, type WorkspaceView } from '../core/index.js';

export const TASK_STATUSES = ['proposed', 'accepted', 'declined', 'done', 'cancelled'] as const;
/** Where a task stands: proposed (waiting for the user), accepted (open), or closed (declined, done, cancelled). */
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** One step of a task: what to do, and how far it has come. */
export const TaskStep = z.strictObject({ text: z.string().min(1).max(2000), status: TaskStepStatus });
export type TaskStep = z.infer<typeof TaskStep>;

export const TaskRecord = z.strictObject({
  id: Id,
  /** The session that owns it: where it was proposed (a sub-worker's own session for a sub-worker's plan). */
  sessionId: Id,
  /** The run that proposed it, if a run did. */
  runId: z.string().min(1).nullable(),
  /** The sub-worker that proposed it (its session's id), null for a root worker's plan or a caller's. */
  workerId: Id.nullable(),
  /** A sub-worker's plan nests under its parent's task, at the step that was in progress when the sub-worker started. */
  parentTask: z.strictObject({ taskId: Id, step: z.number().int().nonnegative() }).nullable(),
  title: z.string().min(1).max(500),
  steps: z.array(TaskStep).min(1).max(100),
  status: z.enum(TASK_STATUSES),
  topics: z.array(Topic),
  /** The `propose_plan` call that proposed it (a resumed run finds its task again by it). */
  call: z.strictObject({ turnId: Id, callId: z.string().min(1) }).nullable(),
  /** Why it was declined or cancelled, when someone said. */
  reason: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type TaskRecord = z.infer<typeof TaskRecord>;

const CLOSED: ReadonlySet<TaskStatus> = new Set(['declined', 'done', 'cancelled']);

/** Whether a task is closed: declined, done or cancelled (nothing in it changes any more). */
export const isClosed = (task: Pick<TaskRecord, 'status'>): boolean => CLOSED.has(task.status);

/** Whether every step is done or skipped. */
export const allStepsFinished = (steps: readonly TaskStep[]): boolean => steps.every((s) => s.status === 'done' || s.status === 'skipped');

/** The task proposed by a session's call, if one was. */
export function taskOfCall(view: WorkspaceView, sessionId: string, callId: string): TaskRecord | undefined {
  for (const task of view.collection('task').values()) if (task.sessionId === sessionId && task.call?.callId === callId) return task;
  return undefined;
}

/** The tasks, oldest first (ties by id). */
export function tasksInOrder(tasks: Iterable<TaskRecord>): TaskRecord[] {
  return [...tasks].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** A step as a line a person or a model reads: `[x] 2. Write the tests`. */
export function stepLine(step: TaskStep, index: number): string {
  return `${STEP_MARK[step.status]} ${index + 1}. ${step.text}`;
}

const STEP_MARK: Record<TaskStep['status'], string> = { pending: '[ ]', in_progress: '[~]', done: '[x]', skipped: '[-]' };
