/**
 * A run as a record in the store (issue 36): what a session's agent did on one request, from
 * its claim to its end, whichever process held it. `run:claim` writes it (and a take-over
 * claims the same run again), `run:release` ends it with its outcome and usage, and
 * `run:cancel`, from any process, asks its holder to stop (or ends it at once when its holder
 * is gone). The lease (`run`, keyed by session) says who runs a session now; this record,
 * keyed by run, stays after the run ends, for `ws.runs.get`, `list` and what a run cost.
 */
import { z } from 'zod';
import { defineCommand, fail, Id, Timestamp, type ReducerContext, type Write } from '../core/index.js';
import type { RunLease } from './agent-records.js';
import { GolemError } from '../core/errors.js';
import type { Turn } from '../core/records.js';
import type { WorkerOutcome } from './worker/outcome.js';

export const RUN_STATUSES = ['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** What a run's model calls used, summed over its sub-workers; `cost` in US dollars, null where a price is not known. */
export const RunUsage = z.strictObject({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cachedInputTokens: z.number().int().nonnegative(),
  cost: z.number().nonnegative().nullable(),
  /** How many model calls (assistant turns) it made. */
  modelCalls: z.number().int().nonnegative(),
});
export type RunUsage = z.infer<typeof RunUsage>;

export const NO_USAGE: RunUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cost: 0, modelCalls: 0 };

export const RunRecord = z.strictObject({
  id: z.string().min(1),
  sessionId: Id,
  status: z.enum(RUN_STATUSES),
  /** Who runs (or ran) it, for people: "golem serve, pid 4711 on build-2". */
  by: z.string(),
  /** The holding handle's `WorkspaceManager.instanceId` (the last one, once ended). */
  holder: z.string(),
  createdAt: Timestamp,
  /** When it (last) started running: its claim, or its take-over. */
  startedAt: Timestamp,
  endedAt: Timestamp.optional(),
  /** How the worker's run ended (its outcome's status: done, paused, step_limit...), once it did. */
  outcome: z.string().optional(),
  /** Why it failed or was cancelled: a stable code and a message. */
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  usage: RunUsage,
  /** Asked to stop (`ws.runs.cancel`), and by whom: the holder stops at its next step boundary. */
  cancel: z.strictObject({ at: Timestamp, by: z.string() }).optional(),
  /** How many times another process took it over. */
  takeovers: z.number().int().nonnegative(),
});
export type RunRecord = z.infer<typeof RunRecord>;

const ENDED: ReadonlySet<RunStatus> = new Set(['succeeded', 'failed', 'cancelled']);
export const isEnded = (record: Pick<RunRecord, 'status'>) => ENDED.has(record.status);

/** How a run ended, as `run:release` records it ('dropped': its claim was given up before it ran). */
export const RunEnd = z.strictObject({
  status: z.enum(['paused', 'succeeded', 'failed', 'cancelled', 'dropped']),
  outcome: z.string().optional(),
  error: z.strictObject({ code: z.string(), message: z.string() }).optional(),
  usage: RunUsage.optional(),
});
export type RunEnd = z.infer<typeof RunEnd>;

/** The record a claim writes: a new run, the same run again (its holder's own claim, a take-over, a paused run resumed). */
export function claimedRecord(ctx: ReducerContext, lease: RunLease): Write {
  const earlier = ctx.index.collection('run_record').get(lease.runId);
  if (earlier !== undefined && earlier.sessionId !== lease.sessionId)
    throw fail('INVALID_ARGUMENT', `run ${lease.runId} is session "${earlier.sessionId}"'s, not "${lease.sessionId}"'s`, { runId: lease.runId });
  if (earlier !== undefined && isEnded(earlier))
    throw fail('RUN_ENDED', `run ${lease.runId} ended (${earlier.status}); start a new run`, { runId: lease.runId });
  const took = earlier !== undefined && earlier.holder !== lease.holder && earlier.status === 'running';
  const record: RunRecord = {
    ...(earlier ?? { id: lease.runId, sessionId: lease.sessionId, createdAt: ctx.now, usage: NO_USAGE, takeovers: 0 }),
    status: 'running',
    by: lease.by,
    holder: lease.holder,
    startedAt: ctx.now,
    takeovers: (earlier?.takeovers ?? 0) + (took ? 1 : 0),
  };
  return { op: 'put', collection: 'run_record', key: record.id, value: record };
}

/** The record `run:release` writes: the run ended (or paused), with what it used added. */
export function endedRecord(ctx: ReducerContext, runId: string, end: RunEnd | undefined): Write[] {
  const record = ctx.index.collection('run_record').get(runId);
  if (record === undefined || isEnded(record)) return [];
  // A claim given up before it ran: a new run leaves no record; one resumed waits again.
  if (end?.status === 'dropped') {
    const fresh = record.takeovers === 0 && record.usage.modelCalls === 0 && record.createdAt === record.startedAt;
    return [
      fresh
        ? { op: 'delete', collection: 'run_record', key: runId }
        : { op: 'put', collection: 'run_record', key: runId, value: { ...record, status: 'paused' } },
    ];
  }
  // Released without saying how it ended (an older caller): it ended, and nothing more is known.
  const status = end?.status ?? 'succeeded';
  const usage = end?.usage === undefined ? record.usage : addUsage(record.usage, end.usage);
  const ended: RunRecord = {
    ...record,
    status,
    ...(status !== 'paused' && { endedAt: ctx.now }),
    ...(end?.outcome !== undefined && { outcome: end.outcome }),
    ...(end?.error !== undefined && { error: end.error }),
    usage,
  };
  return [{ op: 'put', collection: 'run_record', key: runId, value: ended }];
}

export function addUsage(a: RunUsage, b: RunUsage): RunUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    cost: a.cost === null || b.cost === null ? null : a.cost + b.cost,
    modelCalls: a.modelCalls + b.modelCalls,
  };
}

/**
 * What a cancel did: `stopping`, a live process holds the run and was asked to stop (it stops
 * at its next step boundary); `cancelled`, no live process held it (its process is gone, or it
 * was paused) and it was cancelled at once; `ended`, it had ended before, and nothing changed.
 */
export type RunCancelOutcome = 'stopping' | 'cancelled' | 'ended';

/**
 * Asks a run to stop. A running run whose lease is live gets `cancel` set: its holder sees it
 * (at once in its process, on its next catch-up or lease renewal in another) and stops at its
 * next step boundary. A run no live lease holds (its process is gone, or it is paused), or
 * whose holder the canceller found gone (`holderGone`), is cancelled at once, and its lease let
 * go, so nobody takes it over. RUN_NOT_FOUND for no such run; an ended run is answered as it is.
 */
export const runCancel = defineCommand({
  type: 'run:cancel',
  description: 'Asks a run to stop (its holder stops at its next step boundary), or cancels at once a run no live process holds.',
  payload: z.strictObject({
    runId: z.string().min(1),
    by: z.string().default(''),
    /** The holder the canceller found gone (its process, on the same machine, is no more): its lease, though live, holds nothing. */
    holderGone: z.string().min(1).optional(),
  }),
  reduce(payload, ctx) {
    const record = ctx.index.collection('run_record').get(payload.runId);
    if (record === undefined) throw fail('RUN_NOT_FOUND', `no run with id "${payload.runId}"`, { runId: payload.runId });
    if (isEnded(record)) return { writes: [], result: { run: record, outcome: 'ended' as RunCancelOutcome } };
    if (record.cancel !== undefined) return { writes: [], result: { run: record, outcome: 'stopping' as RunCancelOutcome } };
    const lease = ctx.index.collection('run').get(record.sessionId);
    const held = lease !== undefined && lease.runId === record.id && Date.parse(lease.expiresAt) > Date.parse(ctx.now) && lease.holder !== payload.holderGone;
    const cancel = { at: ctx.now, by: payload.by };
    if (record.status === 'running' && held) {
      const asked: RunRecord = { ...record, cancel };
      return {
        writes: [{ op: 'put', collection: 'run_record', key: record.id, value: asked }],
        result: { run: asked, outcome: 'stopping' as RunCancelOutcome },
      };
    }
    const message = record.status === 'paused' ? 'cancelled while paused' : 'cancelled: its process was gone';
    const cancelled: RunRecord = { ...record, status: 'cancelled', cancel, endedAt: ctx.now, error: { code: 'RUN_CANCELLED', message } };
    const writes: Write[] = [{ op: 'put', collection: 'run_record', key: record.id, value: cancelled }];
    if (lease?.runId === record.id) writes.push({ op: 'delete', collection: 'run', key: record.sessionId });
    return { writes, result: { run: cancelled, outcome: 'cancelled' as RunCancelOutcome } };
  },
});

/** How a run ended, for its record: from the worker's outcome, or the error, or why it was stopped. */
export function endOf(outcome: WorkerOutcome | undefined, error: GolemError | undefined, stoppedBy: GolemError | undefined): RunEnd {
  const failure = (e: GolemError) => ({ code: e.code, message: e.message });
  if (stoppedBy?.code === 'RUN_CANCELLED') return { status: 'cancelled', ...(outcome !== undefined && { outcome: outcome.status }), error: failure(stoppedBy) };
  if (error !== undefined) return { status: 'failed', error: failure(error) };
  if (outcome === undefined) return { status: 'succeeded' };
  switch (outcome.status) {
    case 'done':
    case 'question':
      return { status: 'succeeded', outcome: outcome.status };
    case 'paused':
      return { status: 'paused', outcome: outcome.status };
    case 'aborted':
      return { status: 'cancelled', outcome: outcome.status, error: failure(stoppedBy ?? new GolemError('ABORTED', 'the run was stopped')) };
    case 'step_limit':
      return {
        status: 'failed',
        outcome: outcome.status,
        error: { code: 'STEP_LIMIT', message: `stopped after ${outcome.steps} model calls (the step limit)` },
      };
    default:
      return { status: 'failed', outcome: outcome.status, error: failure(outcome.error ?? new GolemError('INTERNAL', `the run ended: ${outcome.status}`)) };
  }
}

/** What an assistant turn's model call used, as its meta says (`usage`, `cost`): unknown prices make the cost null. */
export function usageOf(turn: Turn): RunUsage {
  const usage = turn.meta.usage as { inputTokens?: unknown; outputTokens?: unknown; cachedInputTokens?: unknown } | undefined;
  const count = (n: unknown) => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : 0);
  const cost = turn.meta.cost;
  return {
    inputTokens: count(usage?.inputTokens),
    outputTokens: count(usage?.outputTokens),
    cachedInputTokens: count(usage?.cachedInputTokens),
    cost: typeof cost === 'number' && Number.isFinite(cost) ? cost : usage === undefined ? 0 : null,
    modelCalls: 1,
  };
}
