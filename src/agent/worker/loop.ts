/**
 * The run loop (ARCHITECTURE.md, "The agent loop"): each step returns the next one as a
 * tagged value (openai-agents-js `runner/steps.ts`): the model answers, the calls of its
 * answer are performed, or the run pauses or ends. What comes next is read from the
 * session itself, so a run that was stopped resumes where it stood.
 */
import type { ContentBlock } from '../../core/blocks.js';
import { toGolemError, type GolemError } from '../../core/errors.js';
import type { Turn } from '../../core/records.js';
import type { AIResponse } from '../../protocol/types.js';
import type { ApprovalRecord } from '../agent-plugin.js';
import { nextAnswer } from './answer.js';
import type { Call } from './call.js';
import type { WorkerContext } from './context.js';
import type { WorkerOutcome } from './outcome.js';
import { performAll } from './perform.js';

/** The calls of the last answer still waiting for a result (and, where results go back together, the requests that could not be read). */
export interface PendingCalls {
  type: 'calls';
  turn: Turn;
  calls: Call[];
  errors: string[];
  /** Their results go back together (as the mode's results do, or because they were read from the answer's text). */
  together?: true;
}

/** Where the session stands: the model is next, its last answer asked for nothing more, or that answer's calls wait. */
export type Standing = { type: 'model' } | { type: 'answered'; turn: Turn } | PendingCalls;

/** What the run does next. */
export type NextStep =
  /** The model answers. */
  | { type: 'model' }
  /** The last answer's calls that have no result yet are performed. */
  | { type: 'actions'; pending: PendingCalls }
  /** A call waits for an approval nobody can answer now: the run pauses, and `run()` resumes it once it is answered. */
  | { type: 'paused'; approval: ApprovalRecord }
  /** The run ends: the model asked for nothing more (in envelope mode, with its decision), a sub-worker asked its parent, a limit, an error, or the caller's signal. */
  | { type: 'done'; status: 'done' }
  | { type: 'done'; status: 'done' | 'failed'; decision: AIResponse['decision'] }
  | { type: 'done'; status: 'question'; question: string }
  | { type: 'done'; status: 'error'; error: GolemError }
  | { type: 'done'; status: 'step_limit' | 'aborted' };

/** The run's state between steps. */
interface RunState {
  /** What the run did so far (its steps, actions and last answer). */
  readonly outcome: WorkerOutcome;
  readonly signal: AbortSignal | undefined;
  /** Answers in a row that asked for nothing readable (counted where the mode limits them). */
  invalid: number;
}

const MODEL: NextStep & Standing = { type: 'model' };

/** Runs the loop: adds `input` as a user turn (if given), then takes steps until the run pauses or ends. */
export async function runLoop(ctx: WorkerContext, input: string | ContentBlock[] | undefined, signal: AbortSignal | undefined): Promise<WorkerOutcome> {
  if (input !== undefined) {
    const blocks = typeof input === 'string' ? [{ type: 'text' as const, text: input }] : input;
    await ctx.session.addTurn({ role: 'user', blocks });
  }
  const state: RunState = { outcome: { status: 'done', steps: 0, actions: [], turn: undefined }, signal, invalid: 0 };
  let step = await nextStep(ctx, state);
  while (step.type === 'model' || step.type === 'actions') {
    step = step.type === 'model' ? await modelStep(ctx, state) : await actionsStep(ctx, state, step.pending);
  }
  if (step.type === 'paused') return { ...state.outcome, status: 'paused', approval: step.approval };
  const { type: _type, ...end } = step;
  return { ...state.outcome, ...end };
}

/** The step the session's state calls for (the signal read afresh: it changes while actions run). */
async function nextStep(ctx: WorkerContext, state: RunState): Promise<NextStep> {
  if (state.signal?.aborted === true) return stopped(ctx, state);
  await ctx.manager.load([ctx.session.id]); // its turns, read below, may have left memory since the last step
  const standing = standingOf(ctx);
  if (standing.type === 'answered') return finish(ctx, state, standing.turn);
  if (standing.type === 'calls') return { type: 'actions', pending: standing };
  if (state.outcome.steps >= (ctx.options.maxSteps ?? 12)) return { type: 'done', status: 'step_limit' };
  // Every call answered, the model next: what the user said meanwhile comes first (a user turn it reads).
  if (ctx.depth === 0) await ctx.options.steer?.();
  return MODEL;
}

/**
 * The run was stopped. Calls of the last answer still without a result (it stopped between
 * the answer and its calls, or a run cancelled before its process died is taken over) are
 * answered as not run, as `performAll` answers those it did not get to: the history stays
 * whole, and a message delivered next never lands between a call and its result. A run
 * taken over by another process writes nothing (its writes are refused): the new holder
 * performs them.
 */
async function stopped(ctx: WorkerContext, state: RunState): Promise<NextStep> {
  await ctx.manager.load([ctx.session.id]);
  const standing = standingOf(ctx);
  if (standing.type === 'calls') {
    try {
      await performAll(ctx, standing, state.outcome, state.signal);
    } catch (error) {
      const code = toGolemError(error).code;
      if (code !== 'LEASE_LOST' && code !== 'SESSION_BUSY') throw error;
    }
  }
  return { type: 'done', status: 'aborted' };
}

/** One model call; a failed one ends the run. */
async function modelStep(ctx: WorkerContext, state: RunState): Promise<NextStep> {
  const { outcome } = state;
  outcome.steps++;
  try {
    outcome.turn = await nextAnswer(ctx, state.signal);
  } catch (error) {
    const failure = toGolemError(error, 'MODEL_ERROR');
    if (failure.code === 'MODEL_ABORTED') return { type: 'done', status: 'aborted' };
    return { type: 'done', status: 'error', error: failure };
  }
  const requested = ctx.mode.requests(outcome.turn);
  ctx.emit({ type: 'step', worker: ctx.info(), step: outcome.steps, turn: outcome.turn, requested: requested.calls.length });
  return nextStep(ctx, state);
}

/** Performs the pending calls; a call may end the run (a question) or pause it (an approval). */
async function actionsStep(ctx: WorkerContext, state: RunState, pending: PendingCalls): Promise<NextStep> {
  state.outcome.turn ??= pending.turn;
  const { mode } = ctx;
  if (mode.tooManyInvalid !== undefined) {
    state.invalid = pending.calls.length === 0 ? state.invalid + 1 : 0;
    const error = mode.tooManyInvalid(state.invalid, pending.errors);
    if (error !== undefined) return { type: 'done', status: 'error', error };
  }
  const stop = await performAll(ctx, pending, state.outcome, state.signal);
  if (stop?.status === 'paused') return { type: 'paused', approval: stop.approval };
  if (stop?.status === 'question') return { type: 'done', status: 'question', question: stop.question };
  return nextStep(ctx, state);
}

/** The run's end once the model asks for nothing more: where the mode reads a decision (envelope), it says how. */
function finish(ctx: WorkerContext, state: RunState, turn: Turn): NextStep {
  const decision = ctx.mode.decision?.(turn);
  if (decision === undefined) return { type: 'done', status: 'done' };
  state.outcome.turn ??= turn;
  return { type: 'done', status: decision.action === 'ABORT' ? 'failed' : 'done', decision };
}

/**
 * Where the session stands: the calls of the last answer still waiting for a result;
 * 'answered' when that answer asked for nothing and is the head; else the model is next.
 */
export function standingOf(ctx: WorkerContext): Standing {
  const { mode } = ctx;
  const view = ctx.manager.workspace();
  const head = ctx.session.record().head;
  let turn = head === null ? undefined : view.turn(head);
  const answered = new Set<string>();
  // Results (and, where each result is a turn of its own, notes such as a clearance decision) may follow the answer.
  while (turn !== undefined && (turn.role === 'tool' || (turn.role === 'system' && mode.results === 'each'))) {
    for (const b of turn.blocks) if (b.type === 'tool_result') answered.add(b.callId);
    turn = turn.parent === null ? undefined : view.turn(turn.parent);
  }
  if (turn?.role !== 'assistant') return MODEL;
  const isHead = head !== null && head.id === turn.id && head.version === turn.version;
  const requested = mode.requests(turn);
  if (requested.calls.length === 0 && requested.errors.length === 0) return isHead ? { type: 'answered', turn } : MODEL;
  const calls = requested.calls.filter((c) => !answered.has(c.callId));
  if (mode.results === 'each' && requested.together !== true) return calls.length === 0 ? MODEL : { type: 'calls', turn, calls, errors: [] };
  // Results that go back together are one turn after the answer: while it is the head, none came yet.
  return isHead ? { type: 'calls', turn, calls, errors: requested.errors, ...(requested.together && { together: true }) } : MODEL;
}
