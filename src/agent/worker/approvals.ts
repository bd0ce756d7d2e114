/**
 * Supervised calls (seed 003): the approval is workspace state, bound to the call (action
 * and input): asked once, answered once, found again when a run resumes. With nobody to ask
 * now, the run pauses on it (where the mode allows) until it is answered.
 */
import type { Action } from '../../action/action.js';
import { unwrap } from '../../core/errors.js';
import { answerOf } from '../agent-api.js';
import { callFingerprint, findApproval, recordsOf, type ApprovalRecord } from '../agent-plugin.js';
import { toJson, type Call } from './call.js';
import type { WorkerContext } from './context.js';

/** What became of an approval: run the call, refuse it (with what the model is told), or pause the run on it. */
export type ApprovalAnswer = { kind: 'approved' } | { kind: 'denied'; message: string } | { kind: 'paused'; approval: ApprovalRecord };

/** Asks for approval of one supervised call (or finds the answer on record). */
export async function approve(ctx: WorkerContext, action: Action, call: Call, input: unknown, signal: AbortSignal | undefined): Promise<ApprovalAnswer> {
  const { manager, options } = ctx;
  const description = action.describe(input);
  let approval = unwrap(
    await manager.dispatch({
      type: 'approval:request',
      payload: {
        sessionId: ctx.session.id,
        turnId: call.turnId,
        callId: call.callId,
        action: action.name,
        input: call.input,
        grantKey: action.grantKey(input),
        type: description.type,
        description: description.description,
        details: toJson(description.details),
        risk: description.risk,
        workerPath: ctx.path(),
      },
    }),
  );
  if (approval.status === 'pending') {
    const ask = options.requestApproval === null ? undefined : (options.requestApproval ?? options.ui?.requestApproval.bind(options.ui));
    if (ask === undefined) {
      if (!ctx.mode.pausable || call.together === true)
        return { kind: 'denied', message: `Not run: ${action.name} needs the user's approval and nobody can be asked now (approval ${approval.id} waits).` };
      return { kind: 'paused', approval };
    }
    const request = {
      id: approval.id,
      type: approval.type,
      description: approval.description,
      details: approval.details,
      risk: approval.risk,
      workerPath: approval.workerPath,
    };
    // The whole tree waits while the user is asked (seed 003): sub-workers side by side stop at their next step.
    const result = await ctx.position.shared.gate.hold(() => untilAborted(ask(request), signal));
    const answer = result === undefined ? { answer: 'no' as const, reason: 'the user stopped the run' } : answerOf(result);
    const answered = await manager.dispatch({ type: 'approval:answer', payload: { id: approval.id, ...answer, fingerprint: approval.fingerprint } });
    if (answered.ok) approval = answered.value;
    else if (answered.error.code === 'APPROVAL_ANSWERED') approval = findApproval(manager.workspace(), ctx.session.id, call.turnId, call.callId) ?? approval;
    else throw answered.error;
  }
  if (approval.fingerprint !== callFingerprint(action.name, call.input)) {
    return { kind: 'denied', message: `Not run: the approval on record was given for a different call of ${action.name}.` };
  }
  if (approval.status === 'denied') {
    return { kind: 'denied', message: `The user declined ${action.name}${approval.reason === null ? '.' : `: ${approval.reason}`}` };
  }
  return { kind: 'approved' };
}

/** The approval of this id, as the workspace has it now (a sub-worker's call pauses its parent's run on it). */
export function approvalById(ctx: WorkerContext, id: string): ApprovalRecord | undefined {
  return recordsOf(ctx.manager.workspace(), 'approval').find((a) => a.id === id);
}

/** The promise's value, or undefined as soon as the signal aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
