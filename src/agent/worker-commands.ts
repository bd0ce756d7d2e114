/** The worker tree's commands (`worker:*`): a sub-worker starts as a session of its own, linked to its parent's call, and ends with a result or a question. */
import { z } from 'zod';
import { defineCommand, fail, Id, putSession, requireSession, type SessionRecord as Session } from '../core/index.js';
import type { WorkerRecord } from './agent-records.js';

/** Starts a sub-worker: creates its session and its worker record, refused past the tree's depth limit. */
export const workerSpawn = defineCommand({
  type: 'worker:spawn',
  description: "Starts a sub-worker: creates its session and links it to the parent's tool call.",
  payload: z.strictObject({
    id: Id.optional(),
    parentSessionId: Id,
    parentCallId: z.string(),
    task: z.string().min(1),
    actions: z.array(z.string()),
    reinvokes: Id.nullable().optional(),
    /** The depth limit of the tree (the worker's depth must not pass it). */
    maxDepth: z.number().int().positive(),
  }),
  // The parent: it must stand when the worker is made (a deletion of it in another process is a conflict).
  sessions: (payload) => {
    const parent = (payload as { parentSessionId?: unknown } | null)?.parentSessionId;
    return typeof parent === 'string' ? [parent] : [];
  },
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.parentSessionId);
    const workers = ctx.index.collection('worker');
    const parent = workers.get(payload.parentSessionId);
    const depth = (parent?.depth ?? 0) + 1;
    if (depth > payload.maxDepth) {
      throw fail(
        'WORKER_DEPTH_EXCEEDED',
        `a sub-worker at depth ${depth} would pass the depth limit of ${payload.maxDepth}; do this task yourself or split it differently`,
        {
          depth,
          maxDepth: payload.maxDepth,
        },
      );
    }
    if (payload.reinvokes != null && workers.get(payload.reinvokes) === undefined) {
      throw fail('WORKER_NOT_FOUND', `no worker "${payload.reinvokes}" to re-invoke`, { workerId: payload.reinvokes });
    }
    const id = payload.id ?? ctx.newId();
    if (ctx.index.sessions.has(id)) throw fail('DUPLICATE_ID', `a session with id "${id}" already exists`, { sessionId: id });
    const session: Session = {
      id,
      label: `worker: ${payload.task.slice(0, 60)}`,
      topics: [],
      role: null,
      preferences: [],
      head: null,
      forkedFrom: null,
      length: 0,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    const worker: WorkerRecord = {
      id,
      parentSessionId: payload.parentSessionId,
      parentCallId: payload.parentCallId,
      rootSessionId: parent?.rootSessionId ?? payload.parentSessionId,
      depth,
      task: payload.task,
      actions: payload.actions,
      reinvokes: payload.reinvokes ?? null,
      status: 'running',
      result: null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    return { writes: [putSession(session), { op: 'put', collection: 'worker', key: id, value: worker }], result: worker };
  },
});

/** Records how a sub-worker ended. */
export const workerFinish = defineCommand({
  type: 'worker:finish',
  description: 'Records how a sub-worker ended: its result, or the question it could not answer.',
  payload: z.strictObject({ id: Id, status: z.enum(['done', 'question', 'failed']), result: z.string() }),
  reduce(payload, ctx) {
    const worker = ctx.index.collection('worker').get(payload.id);
    if (worker === undefined) throw fail('WORKER_NOT_FOUND', `no worker "${payload.id}"`, { workerId: payload.id });
    const next: WorkerRecord = { ...worker, status: payload.status, result: payload.result, updatedAt: ctx.now };
    return { writes: [{ op: 'put', collection: 'worker', key: worker.id, value: next }], result: next };
  },
});
