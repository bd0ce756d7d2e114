/**
 * Performing the calls of one answer (ARCHITECTURE.md, "The agent loop"): each is
 * validated, put to the trust policy (run, ask the user, or stage for clearance), marked
 * started when running it twice could do harm, run, and its result recorded in the mode's
 * way. Every failure becomes a result the model reads.
 */
import { failureText, type Action, type ActionContext } from '../../action/action.js';
import type { FileAccess } from '../../action/files.js';
import { unwrap } from '../../core/errors.js';
import { startedCall } from '../agent-plugin.js';
import { decideTrust } from '../trust.js';
import { approvalById, approve } from './approvals.js';
import { toJson, type ActionOutcome, type Call, type CallStop } from './call.js';
import type { WorkerContext } from './context.js';
import type { WorkerOutcome } from './outcome.js';
import { defer, notifyClearance, stage } from './staging.js';
import { inParallel } from './tree-gate.js';

/**
 * Performs the pending calls in order, each result recorded as the mode says; how the run
 * ends, if a call ends it. Consecutive spawn_worker calls run side by side (at most
 * `ctx.concurrency` at once), their results recorded in call order.
 */
export async function performAll(
  ctx: WorkerContext,
  pending: { calls: readonly Call[]; errors: readonly string[]; together?: true },
  outcome: WorkerOutcome,
  signal: AbortSignal | undefined,
): Promise<CallStop | undefined> {
  const { mode } = ctx;
  const results: ActionOutcome[] = [];
  const state: BatchState = { stop: undefined, seen: new Set<string>() };
  for (let at = 0; at < pending.calls.length;) {
    const batch = batchAt(ctx, pending.calls, at);
    at += batch.length;
    // The spawn_worker calls of one answer: none takes another's result, and (side by side) each is shown as one of them.
    const side = batch.length > 1;
    if (side) batch.forEach((call, index) => ctx.batches.set(call.callId, { index, size: batch.length }));
    let done: Awaited<ReturnType<typeof performOne>>[];
    try {
      done = await inParallel(
        batch.map((call) => () => performOne(ctx, call, state, signal)),
        ctx.concurrency,
      );
    } finally {
      if (side) for (const call of batch) ctx.batches.delete(call.callId);
    }
    for (const result of done) {
      // No result yet: the call waits for its approval (the ones after it are performed again when the run resumes).
      if (result.stop?.status === 'paused') return result.stop;
      if (result.ran === true) {
        state.stop ??= result.stop;
        outcome.actions.push({ name: result.name, input: result.input, ok: result.ok });
        ctx.emit({ type: 'action', worker: ctx.info(), callId: result.callId, name: result.name, input: result.input, ok: result.ok, output: result.output });
        if (result.staged === true) notifyClearance(ctx);
      }
      if (mode.results === 'each' && pending.together !== true) await mode.record(result.callId, result);
      else results.push(result);
    }
  }
  if (mode.results === 'together') await mode.record(results, pending.errors);
  else if (pending.together === true) await mode.recordTogether(results, pending.errors);
  return state.stop;
}

/** What the calls of one answer share while they are performed. */
interface BatchState {
  /** How the run ends, once a call has ended it. */
  stop: CallStop | undefined;
  /** The call ids performed so far. */
  seen: Set<string>;
}

/** The calls from `at` that run together: a run of spawn_worker calls (with distinct ids), or the one call there. */
function batchAt(ctx: WorkerContext, calls: readonly Call[], at: number): Call[] {
  const spawn = ctx.own.spawn?.name;
  const ids = new Set<string>();
  const batch: Call[] = [];
  for (let i = at; i < calls.length; i++) {
    const call = calls[i] as Call;
    if (batch.length > 0 && (call.name !== spawn || batch[0]?.name !== spawn || ids.has(call.callId))) break;
    batch.push(call);
    ids.add(call.callId);
  }
  return batch;
}

/** One call's result; `ran`: it was performed (not answered as a copy, cancelled, or cut short by a question). */
async function performOne(
  ctx: WorkerContext,
  call: Call,
  state: BatchState,
  signal: AbortSignal | undefined,
): Promise<ActionOutcome & { callId: string; ran?: true }> {
  const { name, input, callId } = call;
  if (state.seen.has(callId)) {
    // One id, one call: a copy is not run (one approval must not run a call once per copy).
    return {
      callId,
      name,
      input,
      ok: false,
      output: `Not run: an earlier call of your answer has the same id (${callId}), so this one was taken for a copy of it; call it again if you meant it to run twice.`,
    };
  }
  state.seen.add(callId);
  // While an approval is being asked anywhere in the tree, the tree waits here.
  await ctx.position.shared.gate.passed(signal);
  // Cancelled: the calls not yet run are answered as such, so the history stays whole.
  // One that started before its process ended is told as that, not as never run: the model must not run it again blind.
  if (signal?.aborted === true) return { callId, name, input, ok: false, output: startedUnknown(ctx, call) ?? 'Not run: the user stopped the run.' };
  if (state.stop !== undefined) return { callId, name, input, ok: false, output: 'Not run: your run ended with your question.' };
  return { ...(await perform(ctx, call, signal)), callId, ran: true };
}

/** What the model is told of a call started before its run's process ended and never answered (undefined: not so, or repeatable). */
function startedUnknown(ctx: WorkerContext, asked: Call): string | undefined {
  const call = routed(ctx, asked);
  const action = ctx.actions.get(call.name);
  if (
    action === undefined ||
    action.repeatable ||
    startedCall(ctx.manager.workspace(), { id: call.turnId, version: call.turnVersion }, call.callId) === undefined
  )
    return undefined;
  return `${call.name} was started, but the run stopped (its process ended) before its result was recorded, so whether it took effect is unknown. It was not run again: check its effect before you call it again.`;
}

/** Validates one call, applies the trust policy and runs it. Nothing throws. */
async function perform(ctx: WorkerContext, asked: Call, signal: AbortSignal | undefined): Promise<ActionOutcome> {
  const call = routed(ctx, asked);
  const { name, input } = call;
  const action = ctx.actions.get(name);
  if (action === undefined) {
    return { name, input, ok: false, output: `Unknown action "${name}". The actions are: ${[...ctx.actions.keys()].join(', ') || '(none)'}` };
  }
  const valid = action.validate(input);
  if (!valid.ok) return { name, input, ok: false, output: valid.error.message };
  try {
    // Started before the process ended, never answered: whether it took effect is unknown, and running it again could do it twice.
    const started = startedUnknown(ctx, asked);
    if (started !== undefined) return { name, input, ok: false, output: started };
    // What the decision reads, read again now (an MCP tool the server changed is decided on as it is now).
    await action.recheck?.(signal);
    // An action that asks the user itself (a plan) is run at once: its run reads its mode.
    const decision =
      action.asksItself === true
        ? ({ kind: 'run' } as const)
        : decideTrust(ctx.manager.workspace(), action, action.grantKey(valid.value), ctx.position.rootSessionId, ctx.options.trust);
    switch (decision.kind) {
      case 'run':
        return await execute(ctx, action, call, valid.value, signal, true);
      case 'ask': {
        const answer = await approve(ctx, action, call, valid.value, signal);
        if (answer.kind === 'paused') return { name, input, ok: false, output: 'Waiting for approval.', stop: { status: 'paused', approval: answer.approval } };
        if (answer.kind === 'denied') return { name, input, ok: false, output: answer.message };
        return await execute(ctx, action, call, valid.value, signal, true);
      }
      case 'stage':
        return await stage(ctx, call, (view) => execute(ctx, action, call, valid.value, signal, false, view));
      case 'defer':
        return await defer(ctx, action, call);
    }
  } catch (error) {
    return { name, input, ok: false, output: `${name} failed: ${failureText(error)}` };
  }
}

/**
 * A call of a name no action has, where one environment takes actions by name (the seed's
 * `executeAction`): that environment's `execute_action` with the name and the params.
 */
function routed(ctx: WorkerContext, call: Call): Call {
  const { execute, routesByName } = ctx.own;
  if (!routesByName || execute === undefined || ctx.actions.has(call.name)) return call;
  const params = typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input) ? call.input : {};
  return { ...call, name: execute.name, input: { actionName: call.name, params } };
}

/** Runs a call; `direct`: its effects are real (not on a staging view), so a call that is not repeatable is marked started first. */
async function execute(
  ctx: WorkerContext,
  action: Action,
  call: Call,
  input: unknown,
  signal: AbortSignal | undefined,
  direct: boolean,
  files: FileAccess | undefined = ctx.project?.files(),
): Promise<ActionOutcome> {
  const actionCtx: ActionContext = {
    callId: call.callId,
    turn: { id: call.turnId, version: call.turnVersion },
    sessionId: ctx.session.id,
    ...(signal !== undefined && { signal }),
    ...(files !== undefined && { files }),
  };
  try {
    if (direct && !action.repeatable) {
      unwrap(
        await ctx.manager.dispatch({
          type: 'call:start',
          payload: { sessionId: ctx.session.id, turn: { id: call.turnId, version: call.turnVersion }, callId: call.callId, action: action.name },
        }),
      );
    }
    const output = await action.run(input, actionCtx);
    const end = action.endsRun?.(output);
    if (end?.type === 'paused') {
      const approval = approvalById(ctx, end.approvalId);
      if (approval === undefined)
        return { name: call.name, input: call.input, ok: false, output: `${call.name} failed: no approval "${end.approvalId}" to wait for` };
      return { name: call.name, input: call.input, ok: false, output: 'Waiting for approval.', stop: { status: 'paused', approval } };
    }
    const stop = end !== undefined && { stop: { status: 'question' as const, question: end.question } };
    const failed =
      action.failed !== undefined
        ? action.failed(output) !== undefined
        : typeof output === 'object' && output !== null && 'success' in output && (output as { success: unknown }).success === false;
    const rendered = action.render === undefined ? toJson(output) : action.render(output);
    const seen = action.observe?.(output);
    const shown = action.media?.(output) ?? [];
    const forPeople = action.blocks?.(output) ?? [];
    const media = { ...(shown.length > 0 && { media: shown }), ...(forPeople.length > 0 && { blocks: forPeople }) };
    if (seen === undefined || typeof rendered !== 'string') return { name: call.name, input: call.input, ok: !failed, output: rendered, ...stop, ...media };
    return {
      name: call.name,
      input: call.input,
      ok: !failed,
      output: `${rendered}\n${seen.text}`,
      observation: { ...seen, summary: rendered },
      ...stop,
      ...media,
    };
  } catch (error) {
    return { name: call.name, input: call.input, ok: false, output: `${call.name} failed: ${failureText(error)}` };
  }
}
