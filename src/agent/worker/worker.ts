/**
 * The Worker: the agent loop on a session (ARCHITECTURE.md, "The agent loop"). Each step
 * builds the prompt (with every mounted environment's context), streams the model,
 * records its answer, and for each action it asked for: validates the input, applies the
 * trust policy (run, ask the user, or stage for clearance; seed 003), runs it, and
 * records the result at once. It goes on until the model stops asking, a step limit, a
 * question (sub-workers), a pause for an approval nobody can answer now, or cancellation.
 *
 * Everything a run needs to go on is in the workspace: `run()` without input resumes an
 * interrupted run, performing only the calls that have no result yet (a pending approval
 * is asked again, a sub-worker is resumed, not restarted).
 *
 * This class puts a worker's parts together; the run itself is a pipeline of steps, one
 * module each: loop.ts (what comes next), answer.ts (a model call), perform.ts (a call),
 * approvals.ts, staging.ts, sub-workers.ts, and a module per action mode.
 */
import type { Action } from '../../action/action.js';
import type { ContentBlock } from '../../core/blocks.js';
import { GolemError } from '../../core/errors.js';
import { requireLoaded } from '../../core/commands/kit.js';
import type { WorkspaceManager } from '../../core/manager.js';
import type { Session } from '../../prompt/session.js';
import { StagedProject } from '../staged-project.js';
import type { WorkerEvent, WorkerInfo } from '../ui-adapter.js';
import { askParentAction, spawnWorkerAction } from '../worker-tree.js';
import { proposePlanAction, updatePlanAction } from '../plan-actions.js';
import { proposePlan, updatePlan } from './plans.js';
import type { TreePosition, WorkerContext, WorkerInternals } from './context.js';
import { envelopeMode } from './envelope-mode.js';
import { environmentActions } from './environment-actions.js';
import { runLoop, standingOf } from './loop.js';
import type { ModeProtocol } from './mode.js';
import type { WorkerOptions } from './options.js';
import { answerText, type WorkerOutcome } from './outcome.js';
import { spawnSubWorker } from './sub-workers.js';
import { textMode } from './text-mode.js';
import { TreeGate } from './tree-gate.js';
import { toolsMode } from './tools-mode.js';

/** The agent loop on a session, with its actions, trust policy and place in the worker tree (`ws.worker(options)`). */
export class Worker {
  /** The session the worker converses in (a sub-worker's own session). */
  readonly session: Session;
  readonly #ctx: WorkerContext;
  #mounted: Promise<void> | undefined;

  /** Use `ws.worker(options)`; `sessions` lets it open its sub-workers' sessions. */
  constructor(manager: WorkspaceManager, options: WorkerOptions, internals: WorkerInternals = {}) {
    const { sessions } = internals;
    const session = options.session;
    this.session = session;
    const environments = options.environments ?? [];
    const position: TreePosition = internals.position ?? {
      path: [{ id: session.id, depth: 0, task: session.label ?? 'chat' }],
      rootSessionId: session.id,
      shared: { gate: new TreeGate() },
    };
    const depth = position.path.length - 1;
    const sub = options.subWorkers;
    const maxDepth = sub === undefined || sub === false ? 0 : sub === true ? 4 : (sub.maxDepth ?? 4);
    const concurrency = typeof sub === 'object' ? (sub.concurrency ?? 4) : 4;
    if (!Number.isInteger(concurrency) || concurrency < 1)
      throw new GolemError('INVALID_ARGUMENT', `subWorkers.concurrency must be a whole number of at least 1, not ${String(concurrency)}`);
    const project =
      options.project === undefined
        ? undefined
        : new StagedProject(manager, options.project, { rootSessionId: position.rootSessionId, workerId: session.id, shared: position.shared });
    const ids = environments.map((e) => e.info.id);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined)
      throw new GolemError('INVALID_ARGUMENT', `two environments have the id "${twice}"; give each its own (their values are kept under it)`);
    if (maxDepth > 0 && sessions === undefined)
      throw new GolemError('INVALID_ARGUMENT', 'sub-workers need the workspace: create the worker with ws.worker(options)');
    const fromEnvironments = environmentActions(environments);
    // At the depth limit a sub-worker could start nothing: it is neither offered spawn_worker nor told of it.
    const spawn =
      maxDepth > depth ? spawnWorkerAction((input, actionCtx) => spawnSubWorker(this.#ctx, (o, i) => new Worker(manager, o, i), input, actionCtx)) : undefined;
    const plan: Action | undefined =
      options.plans === true ? proposePlanAction((input, actionCtx) => proposePlan(this.#ctx, plan as Action, input, actionCtx)) : undefined;
    const actions = new Map<string, Action>();
    for (const action of [
      ...fromEnvironments.all,
      ...(options.actions ?? []),
      ...(spawn === undefined ? [] : [spawn]),
      ...(plan === undefined ? [] : [plan, updatePlanAction((input) => updatePlan(this.#ctx, input))]),
      ...(depth > 0 ? [askParentAction] : []),
    ]) {
      if (actions.has(action.name)) throw new GolemError('INVALID_ARGUMENT', `two actions are named "${action.name}"`);
      actions.set(action.name, action);
    }
    const mode: ModeProtocol =
      options.mode === 'envelope'
        ? envelopeMode(session, [...actions.values()], options.envelope)
        : options.mode === 'text'
          ? textMode(session)
          : toolsMode(session, (name) => actions.has(name) || fromEnvironments.routesByName);
    const path = (): WorkerInfo[] => {
      const [root, ...rest] = position.path as [WorkerInfo, ...WorkerInfo[]];
      if (depth > 0) return position.path;
      return [{ ...root, task: session.record().label ?? 'chat' }, ...rest];
    };
    this.#ctx = {
      manager,
      session,
      options,
      actions,
      environments,
      own: { update: fromEnvironments.update, execute: fromEnvironments.execute, routesByName: fromEnvironments.routesByName, spawn, plan },
      mode,
      position,
      depth,
      maxDepth,
      concurrency,
      batches: new Map(),
      project,
      sessions,
      path,
      info: () => path().at(-1) as WorkerInfo,
      emit: (event: WorkerEvent) => {
        const listener = options.onEvent ?? options.ui?.onEvent?.bind(options.ui);
        try {
          listener?.(event);
        } catch (error) {
          manager.events.emit('listener:error', { type: `worker:${event.type}`, error });
        }
      },
    };
  }

  /** 0 for the root worker, the number of ancestors for a sub-worker. */
  get depth(): number {
    return this.#ctx.depth;
  }

  /** This worker as the user is shown it. */
  get info(): WorkerInfo {
    return this.#ctx.info();
  }

  /** The actions the model is offered. */
  get actions(): Action[] {
    return [...this.#ctx.actions.values()];
  }

  /**
   * Replaces the actions given in `options.actions` (an MCP server's tool list changed, say);
   * the environments' actions, spawn_worker, ask_parent and the plan actions stay. The next answer is offered
   * the new list (envelope mode keeps the list its schema was made with). INVALID_ARGUMENT
   * when two would share a name; nothing changes then.
   */
  setActions(actions: readonly Action[]): void {
    const given = new Set((this.#ctx.options.actions ?? []).map((a) => a.name));
    const next = new Map([...this.#ctx.actions].filter(([name]) => !given.has(name)));
    for (const action of actions) {
      if (next.has(action.name)) throw new GolemError('INVALID_ARGUMENT', `two actions are named "${action.name}"`);
      next.set(action.name, action);
    }
    this.#ctx.actions.clear();
    for (const [name, action] of next) this.#ctx.actions.set(name, action);
    this.#ctx.options = { ...this.#ctx.options, actions: [...actions] };
  }

  /**
   * True when the last answer's calls did not all get a result (the run was stopped):
   * `run()` without input resumes it. Reads memory: throws SESSION_NOT_LOADED while the
   * session's turns are not loaded (open it with `ws.sessions.open(id)` or `session.load()`).
   */
  interrupted(): boolean {
    requireLoaded(this.#ctx.manager.workspace(), this.#ctx.session.id);
    return standingOf(this.#ctx).type === 'calls';
  }

  /** Mounts the environments on the workspace (once; `run` does it first): their stored values load, their changes persist. */
  mount(): Promise<void> {
    this.#mounted ??= this.#mount();
    return this.#mounted;
  }

  async #mount(): Promise<void> {
    for (const environment of this.#ctx.environments) await environment.mount?.(this.#ctx.manager);
  }

  /**
   * Runs the loop: adds `input` as a user turn (if given), then steps until the model
   * asks for nothing more, `maxSteps` model calls, a question, a pause, or `signal`
   * aborts. Without input it resumes: calls of the last answer that have no result yet
   * are performed first.
   */
  async run(input?: string | ContentBlock[], options: { signal?: AbortSignal } = {}): Promise<WorkerOutcome> {
    const ctx = this.#ctx;
    if (ctx.depth > 0) return this.#run(input, options.signal);
    // The root's run is shown as a whole too (a sub-worker's start and end are shown by its parent).
    ctx.emit({ type: 'worker-start', worker: ctx.info(), parent: null });
    const outcome = await this.#run(input, options.signal);
    const status = outcome.status === 'error' || outcome.status === 'aborted' || outcome.status === 'failed' ? 'failed' : 'done';
    ctx.emit({ type: 'worker-end', worker: ctx.info(), status, text: outcome.status === 'done' || outcome.status === 'failed' ? answerText(outcome) : '' });
    return outcome;
  }

  async #run(input: string | ContentBlock[] | undefined, signal: AbortSignal | undefined): Promise<WorkerOutcome> {
    await this.mount();
    return runLoop(this.#ctx, input, signal);
  }
}
