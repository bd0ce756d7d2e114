/**
 * A worker's side of the worker tree (seed 003): `spawn_worker` starts, resumes or reports
 * the sub-worker linked to its call, with the actions its parent gives it, and shows its
 * run on the parent's stream. The tree's actions and words are in ../worker-tree.ts.
 */
import type { ActionContext } from '../../action/action.js';
import { GolemError, unwrap } from '../../core/errors.js';
import type { Session } from '../../prompt/session.js';
import { recordsOf, type WorkerRecord } from '../agent-plugin.js';
import type { WorkerInfo } from '../ui-adapter.js';
import { askParentAction, taskMessage, type SpawnInput, type SubWorkerReport, type SubWorkerWaiting } from '../worker-tree.js';
import type { WorkerContext, WorkerInternals } from './context.js';
import type { WorkerOptions } from './options.js';
import { answerText, type WorkerOutcome } from './outcome.js';

/** A sub-worker, as its parent runs it. */
export interface ChildWorker {
  readonly session: Session;
  readonly info: WorkerInfo;
  run(input: string | undefined, options: { signal?: AbortSignal }): Promise<WorkerOutcome>;
}

/** Makes a sub-worker: the Worker's constructor, passed in so this module does not import it back. */
export type MakeWorker = (options: WorkerOptions, internals: WorkerInternals) => ChildWorker;

/** `spawn_worker`: starts (or resumes, or reports) the sub-worker linked to this call. */
export async function spawnSubWorker(
  ctx: WorkerContext,
  make: MakeWorker,
  input: SpawnInput,
  actionCtx: ActionContext,
): Promise<SubWorkerReport | SubWorkerWaiting> {
  const { manager, options } = ctx;
  const callId = actionCtx.callId ?? manager.newId();
  const view = manager.workspace();
  const workers = recordsOf(view, 'worker');
  let record = workers.find((w) => w.parentSessionId === ctx.session.id && w.parentCallId === callId);
  let prior: { worker: string; task: string; result: string }[] = [];
  if (record === undefined) {
    // Every sub-worker has an ask_parent of its own: it is not one to give.
    const names = input.actions ?? [...ctx.actions.keys()].filter((n) => n !== askParentAction.name);
    const unknown = names.filter((n) => !ctx.actions.has(n) || n === askParentAction.name);
    if (unknown.length > 0)
      throw new GolemError(
        'INVALID_ARGUMENT',
        `no action${unknown.length > 1 ? 's' : ''} named ${unknown.join(', ')} to give; yours are ${[...ctx.actions.keys()].join(', ')}`,
      );
    prior = priorResults(ctx, workers, input.include_results);
    record = unwrap(
      await manager.dispatch({
        type: 'worker:spawn',
        payload: {
          parentSessionId: ctx.session.id,
          parentCallId: callId,
          task: input.task,
          actions: names,
          reinvokes: input.reinvoke ?? null,
          maxDepth: ctx.maxDepth,
        },
      }),
    );
  } else if (record.status !== 'running') {
    return reportOf(record);
  }
  const child = childOf(ctx, make, record);
  // Shown as one of a batch only when they really run at once (a front end keeps their streams apart).
  const batch = ctx.concurrency > 1 ? ctx.batches.get(callId) : undefined;
  const progress = { id: record.id, description: record.task, depth: record.depth, status: 'running' as const };
  // The progress line first, then the worker's box (so the line stands outside it); side by side, the
  // worker is known first, so a front end showing the batch can tell its line apart.
  if (batch === undefined) options.ui?.showProgress(progress);
  ctx.emit({ type: 'worker-start', worker: child.info, parent: ctx.info(), ...(batch !== undefined && { batch }) });
  if (batch !== undefined) options.ui?.showProgress(progress);
  const empty = child.session.record().head === null;
  const outcome = await child.run(empty ? taskMessage(record.task, prior) : undefined, actionCtx.signal === undefined ? {} : { signal: actionCtx.signal });
  // Waiting for an approval: the record stays 'running' and the call gets no result, so a later run resumes it.
  if (outcome.status === 'paused' && outcome.approval !== undefined) {
    // Shown as stopped for now (a front end keeping it live would wait for ever); a later run starts it again.
    ctx.emit({ type: 'worker-end', worker: child.info, status: 'waiting', text: `waiting for approval ${outcome.approval.id}` });
    return { worker: record.id, status: 'waiting', approvalId: outcome.approval.id };
  }
  if (outcome.status === 'aborted') {
    await manager.dispatch({ type: 'worker:finish', payload: { id: record.id, status: 'failed', result: 'stopped by the user' } });
    ctx.emit({ type: 'worker-end', worker: child.info, status: 'failed', text: 'stopped by the user' });
    throw new GolemError('MODEL_ABORTED', 'the user stopped the sub-worker');
  }
  const finished =
    outcome.status === 'question'
      ? { status: 'question' as const, result: outcome.question ?? '' }
      : outcome.status === 'done'
        ? { status: 'done' as const, result: answerText(outcome) }
        : {
            status: 'failed' as const,
            result:
              outcome.status === 'step_limit'
                ? `it reached its step limit (${options.maxSteps ?? 12} model calls) before finishing`
                : (outcome.error?.message ?? outcome.decision?.message ?? 'it failed'),
          };
  record = unwrap(await manager.dispatch({ type: 'worker:finish', payload: { id: record.id, ...finished } }));
  ctx.emit({ type: 'worker-end', worker: child.info, status: finished.status, text: finished.result });
  options.ui?.showProgress({
    id: record.id,
    description: record.task,
    depth: record.depth,
    status: finished.status === 'done' ? 'complete' : finished.status === 'question' ? 'waiting' : 'failed',
  });
  return reportOf(record);
}

/** The results a new sub-worker gets: those asked for, else those of siblings finished since the parent's last user turn. */
function priorResults(
  ctx: WorkerContext,
  workers: readonly WorkerRecord[],
  ids: readonly string[] | undefined,
): { worker: string; task: string; result: string }[] {
  // Workers started by the same answer run side by side: none waits for another's result, whichever finishes first.
  const beside = (w: WorkerRecord) => ctx.batches.has(w.parentCallId);
  const siblings = workers.filter((w) => w.parentSessionId === ctx.session.id && w.status === 'done' && w.result !== null && !beside(w));
  let chosen: WorkerRecord[];
  if (ids !== undefined) {
    chosen = ids.map((id) => {
      const found = siblings.find((w) => w.id === id);
      if (found !== undefined) return found;
      if (workers.some((w) => w.id === id && w.parentSessionId === ctx.session.id && beside(w)))
        throw new GolemError(
          'INVALID_ARGUMENT',
          `worker "${id}" runs beside this one (started by the same answer): spawn the task that needs its result in a later answer`,
        );
      throw new GolemError('INVALID_ARGUMENT', `no finished worker "${id}" of yours to take results from`);
    });
  } else {
    const since = lastUserTurnAt(ctx);
    chosen = siblings.filter((w) => w.createdAt >= since);
  }
  return chosen.map((w) => ({ worker: w.id, task: w.task, result: w.result ?? '' }));
}

function lastUserTurnAt(ctx: WorkerContext): string {
  const view = ctx.manager.workspace();
  const head = ctx.session.record().head;
  for (let turn = head === null ? undefined : view.turn(head); turn !== undefined; turn = turn.parent === null ? undefined : view.turn(turn.parent)) {
    if (turn.role === 'user') return turn.createdAt;
  }
  return '';
}

/**
 * The worker of a sub-worker record, with what it was given: the parent's own actions of
 * those names, its environments with `update_editable_status`, and `spawn_worker` with the
 * depth limit (a worker makes its environments' and the tree's actions itself).
 */
function childOf(ctx: WorkerContext, make: MakeWorker, record: WorkerRecord): ChildWorker {
  const given = new Set(record.actions);
  const sessions = ctx.sessions;
  const session = sessions?.get(record.id);
  if (sessions === undefined || session === undefined) throw new GolemError('WORKER_NOT_FOUND', `the session of worker "${record.id}" is gone`);
  const { update, spawn } = ctx.own;
  const environments = update !== undefined && given.has(update.name) ? ctx.environments : [];
  const actions = (ctx.options.actions ?? []).filter((a) => given.has(a.name));
  const { instructions: _i, ...options } = ctx.options;
  return make(
    {
      ...options,
      session,
      environments: [...environments],
      actions,
      subWorkers: spawn !== undefined && given.has(spawn.name) ? { maxDepth: ctx.maxDepth, concurrency: ctx.concurrency } : false,
    },
    {
      sessions,
      position: {
        path: [...ctx.path(), { id: record.id, depth: record.depth, task: record.task }],
        rootSessionId: ctx.position.rootSessionId,
        shared: ctx.position.shared,
      },
    },
  );
}

/** How a sub-worker's record reads to its parent's model. */
function reportOf(record: WorkerRecord): SubWorkerReport {
  const text = record.result ?? '';
  if (record.status === 'question') {
    return {
      worker: record.id,
      status: 'question',
      question: text,
      next: `If you know the answer, call spawn_worker again with the clarified task and reinvoke: "${record.id}". Otherwise ask ${record.depth > 1 ? 'your parent (ask_parent)' : 'the user'}.`,
    };
  }
  if (record.status === 'done') return { worker: record.id, status: 'done', result: text };
  return { worker: record.id, status: 'failed', error: text };
}
