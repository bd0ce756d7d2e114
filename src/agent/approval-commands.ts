/**
 * Approvals (`approval:*`): a supervised call waits for the user's answer, bound to that
 * one call by a fingerprint of its action and input.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { defineCommand, fail, Id, JsonValue, requireSession, type WorkspaceView, type Write } from '../core/index.js';
import { canonicalJson } from '../action/action.js';
import { recordsOf, WorkerInfoSchema, type ApprovalRecord } from './agent-records.js';
import { grantWrite } from './trust-commands.js';

/** The fingerprint an approval is bound to. */
export function callFingerprint(action: string, input: unknown): string {
  return createHash('sha256').update(action).update('\0').update(canonicalJson(input)).digest('hex');
}

/** The approval asked for a call (of the answer `turnId` in the session), if any. */
export function findApproval(view: WorkspaceView, sessionId: string, turnId: string, callId: string): ApprovalRecord | undefined {
  return recordsOf(view, 'approval').find((a) => a.sessionId === sessionId && a.turnId === turnId && a.callId === callId);
}

/** Records a supervised call waiting for the user; asking again for the same call returns the same approval. */
export const approvalRequest = defineCommand({
  type: 'approval:request',
  description: 'Records a supervised call waiting for the user (one per call: asking again returns the same approval).',
  payload: z.strictObject({
    sessionId: Id,
    turnId: Id,
    callId: z.string(),
    action: z.string().min(1),
    input: JsonValue,
    grantKey: z.string(),
    type: z.enum(['tool_call', 'file_write', 'command', 'plan']),
    description: z.string(),
    details: JsonValue,
    risk: z.enum(['low', 'medium', 'high', 'unknown']),
    workerPath: z.array(WorkerInfoSchema).min(1),
  }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const fingerprint = callFingerprint(payload.action, payload.input);
    const existing = findApproval(ctx.index, payload.sessionId, payload.turnId, payload.callId);
    if (existing !== undefined) {
      if (existing.fingerprint !== fingerprint) {
        throw fail('APPROVAL_MISMATCH', `call "${payload.callId}" already waits for approval of a different action or input`, { approvalId: existing.id });
      }
      return { writes: [], result: existing };
    }
    const worker = ctx.index.collection('worker').get(payload.sessionId);
    const approval: ApprovalRecord = {
      id: ctx.newId(),
      sessionId: payload.sessionId,
      rootSessionId: worker?.rootSessionId ?? payload.sessionId,
      turnId: payload.turnId,
      callId: payload.callId,
      action: payload.action,
      input: payload.input,
      fingerprint,
      grantKey: payload.grantKey,
      type: payload.type,
      description: payload.description,
      details: payload.details,
      risk: payload.risk,
      workerPath: payload.workerPath,
      status: 'pending',
      answer: null,
      reason: null,
      createdAt: ctx.now,
      answeredAt: null,
    };
    return { writes: [{ op: 'put', collection: 'approval', key: approval.id, value: approval }], result: approval };
  },
});

/** Answers a pending approval; 'always' and 'session' also store a grant. */
export const approvalAnswer = defineCommand({
  type: 'approval:answer',
  description: "Answers a pending approval; 'always' and 'session' also store a grant. Bound to the call: a fingerprint that differs is refused.",
  payload: z.strictObject({
    id: Id,
    answer: z.enum(['yes', 'no', 'always', 'session']),
    reason: z.string().optional(),
    /** The fingerprint of the call the user saw; refused when it is not the pending call's. */
    fingerprint: z.string().optional(),
  }),
  reduce(payload, ctx) {
    const approval = ctx.index.collection('approval').get(payload.id);
    if (approval === undefined) throw fail('APPROVAL_NOT_FOUND', `no approval "${payload.id}"`, { approvalId: payload.id });
    if (approval.status !== 'pending') {
      throw fail('APPROVAL_ANSWERED', `approval "${approval.id}" was already answered (${approval.answer})`, {
        approvalId: approval.id,
        answer: approval.answer,
      });
    }
    if (payload.fingerprint !== undefined && payload.fingerprint !== approval.fingerprint) {
      throw fail('APPROVAL_MISMATCH', `the answer was given for a different call than ${approval.action} waiting in approval "${approval.id}"`, {
        approvalId: approval.id,
      });
    }
    const answered: ApprovalRecord = {
      ...approval,
      status: payload.answer === 'no' ? 'denied' : 'approved',
      answer: payload.answer,
      reason: payload.answer === 'no' ? (payload.reason ?? null) : null,
      answeredAt: ctx.now,
    };
    const writes: Write[] = [{ op: 'put', collection: 'approval', key: approval.id, value: answered }];
    if (payload.answer === 'always' || payload.answer === 'session') {
      const scope = payload.answer === 'always' ? 'workspace' : 'session';
      writes.push(
        grantWrite(ctx, {
          action: approval.action,
          key: approval.grantKey,
          scope,
          sessionId: scope === 'session' ? approval.rootSessionId : null,
          approvalId: approval.id,
        }).write,
      );
    }
    return { writes, result: answered };
  },
});
