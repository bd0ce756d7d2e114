/**
 * Clearance items (`clearance:*`): what a manual-mode worker staged, waiting for the
 * user to push, discard or defer it; the decision is told to the root session.
 */
import { z } from 'zod';
import { appendTurn, defineCommand, fail, Id, JsonObject, makeTurn, requireSession, type Write } from '../core/index.js';
import type { ClearanceRecord } from './agent-records.js';

/** Creates a clearance item, or records a new staged state of one still open. */
export const clearanceStage = defineCommand({
  type: 'clearance:stage',
  description: 'Creates a clearance item, or records a new staged state of one still open.',
  payload: z.strictObject({
    id: Id.optional(),
    type: z.enum(['staged_commit', 'pending_export', 'binary_output']),
    description: z.string().min(1),
    sessionId: Id,
    workerId: Id,
    metadata: JsonObject,
  }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const previous = payload.id === undefined ? undefined : ctx.index.collection('clearance').get(payload.id);
    if (previous !== undefined && (previous.status === 'pushed' || previous.status === 'discarded')) {
      throw fail('CLEARANCE_DECIDED', `clearance item "${previous.id}" was already ${previous.status}`, { clearanceId: previous.id, status: previous.status });
    }
    const item: ClearanceRecord = {
      id: previous?.id ?? payload.id ?? ctx.newId(),
      type: payload.type,
      description: payload.description,
      status: previous?.status ?? 'pending',
      sessionId: payload.sessionId,
      workerId: payload.workerId,
      metadata: payload.metadata,
      outcome: null,
      createdAt: previous?.createdAt ?? ctx.now,
      updatedAt: ctx.now,
    };
    return { writes: [{ op: 'put', collection: 'clearance', key: item.id, value: item }], result: item };
  },
});

/** Records the user's decision on a clearance item and tells the root session as a system message. */
export const clearanceDecide = defineCommand({
  type: 'clearance:decide',
  description: "Records the user's decision on a clearance item and tells the root session as a system message.",
  payload: z.strictObject({
    id: Id,
    decision: z.enum(['push', 'discard', 'defer']),
    /** What the decision did, as the root worker is told (e.g. 'wrote src/a.ts'). */
    outcome: z.string().optional(),
  }),
  // The root session it tells, whose turns (and length) the reducer reads.
  sessions: (payload, view) => {
    const item = view.collection('clearance').get(String((payload as { id?: unknown } | null)?.id));
    return item === undefined ? [] : [item.sessionId];
  },
  reduce(payload, ctx) {
    const item = ctx.index.collection('clearance').get(payload.id);
    if (item === undefined) throw fail('CLEARANCE_NOT_FOUND', `no clearance item "${payload.id}"`, { clearanceId: payload.id });
    if (item.status === 'pushed' || item.status === 'discarded') {
      throw fail('CLEARANCE_DECIDED', `clearance item "${item.id}" was already ${item.status}`, { clearanceId: item.id, status: item.status });
    }
    const status = payload.decision === 'push' ? 'pushed' : payload.decision === 'discard' ? 'discarded' : 'deferred';
    const next: ClearanceRecord = { ...item, status, outcome: payload.outcome ?? null, updatedAt: ctx.now };
    const writes: Write[] = [{ op: 'put', collection: 'clearance', key: item.id, value: next }];
    const session = ctx.index.sessions.get(item.sessionId);
    if (session !== undefined) {
      const verb = status === 'pushed' ? 'pushed' : status === 'discarded' ? 'discarded' : 'deferred (it stays staged)';
      const text = `[System: the user ${verb} clearance item ${item.id}: ${item.description}${payload.outcome === undefined ? '' : `. ${payload.outcome}`}]`;
      const turn = makeTurn(ctx, {
        id: ctx.newId(),
        version: 0,
        parent: session.head,
        sessionId: session.id,
        role: 'system',
        blocks: [{ type: 'text', text }],
        meta: { clearance: { id: item.id, decision: payload.decision } },
      });
      writes.push(...appendTurn(ctx, session, turn).writes);
    }
    return { writes, result: next };
  },
});
