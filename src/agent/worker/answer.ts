/**
 * One model call: the prompt's system sections (the worker's instructions, its place in the
 * tree, the mode's protocol, every mounted environment's context), the actions as the mode
 * offers them, and the answer's text streamed to the run's events as it comes.
 */
import type { Turn } from '../../core/records.js';
import { BaseEnvironment } from '../../environment/base-environment.js';
import { renderFields, renderHowTo, type Environment, type RenderContextOptions } from '../../environment/environment.js';
import { clearanceItems } from '../clearance.js';
import { takesActionsByName } from './environment-actions.js';
import { rootInstructions, subWorkerInstructions } from '../worker-tree.js';
import { planInstructions } from '../plan-actions.js';
import { openTasksSection } from '../task-context.js';
import type { WorkerContext } from './context.js';

/** Asks the model for the worker's next answer, recorded as the session's head. */
export async function nextAnswer(ctx: WorkerContext, signal: AbortSignal | undefined): Promise<Turn> {
  const {
    session: _s,
    environments: _e,
    actions: _a,
    mode: _m,
    maxSteps: _x,
    instructions,
    ui: _u,
    requestApproval: _r,
    onEvent: _o,
    project: _p,
    trust: _t,
    subWorkers: _w,
    envelope: _v,
    plans: _pl,
    ...respondOptions
  } = ctx.options;
  const { mode } = ctx;
  const tree =
    ctx.depth > 0
      ? [subWorkerInstructions(ctx.position.path, ctx.own.spawn !== undefined, ctx.concurrency)]
      : ctx.maxDepth > 0
        ? [rootInstructions(ctx.maxDepth, ctx.concurrency)]
        : [];
  // While an approval is being asked anywhere in the tree, the tree waits here.
  await ctx.position.shared.gate.passed(signal);
  const turn = await ctx.session.respond({
    ...respondOptions,
    ...mode.offer(ctx.actions, respondOptions.providerOptions),
    systemSections: [
      ...(instructions === undefined ? [] : [instructions]),
      ...tree,
      ...(ctx.own.plan === undefined ? [] : [planInstructions()]),
      ...(mode.instructions === undefined ? [] : [mode.instructions()]),
      ...pendingClearance(ctx),
      ...openTasksSection(ctx.manager.workspace(), ctx.session.id, ctx.own.plan !== undefined),
      ...ctx.environments.map((e) => environmentContext(ctx, e)),
    ],
    ...(signal !== undefined && { signal }),
    onPart: (part) => {
      if (part.type === 'text-delta') ctx.emit({ type: 'text-delta', worker: ctx.info(), text: part.text });
      // The caller's own listener too (a throw is reported as listener:error by respond).
      respondOptions.onPart?.(part);
    },
  });
  ctx.emit({ type: 'answer', worker: ctx.info(), turnId: turn.id, version: turn.version });
  return turn;
}

/**
 * An environment's context as the model reads it, saying how to call its actions the way
 * this worker's mode runs them. An environment that does not build on BaseEnvironment writes
 * its context its own way: its fields' schema and how to change them in this mode follow it.
 */
function environmentContext(ctx: WorkerContext, environment: Environment): string {
  const options: RenderContextOptions = {
    howToCall: (name, params) => ctx.mode.howToCall(name, params),
    ...(ctx.environments.length > 1 && { environmentParam: { name: 'environment', value: environment.info.id } }),
  };
  const own = environment.renderContext(options);
  if (environment instanceof BaseEnvironment) return own;
  return [
    own,
    '',
    `## How to act on ${environment.info.name}`,
    'Editable fields:',
    renderFields(environment.getEditableStatusSchema()),
    '',
    renderHowTo(options, executeHowTo(ctx, environment)),
  ].join('\n');
}

/**
 * The root's view of the system's state (seed 003: root context holds "pending clearance"):
 * what waits for the user's clearance in this conversation, so the model does not tell the
 * user a staged change is in the files.
 */
function pendingClearance(ctx: WorkerContext): string[] {
  if (ctx.depth > 0) return [];
  const items = clearanceItems(ctx.manager.workspace(), { sessionId: ctx.position.rootSessionId });
  if (items.length === 0) return [];
  return [
    [
      "## Waiting for the user's clearance",
      `These are staged, not yet in the files: the user pushes (applies), discards or defers each.${items.some((i) => i.type === 'staged_commit') ? ' Your next file edits join the open staged commit.' : ''} When you report your work, say these wait for the user's review.`,
      ...items.map((i) => `- ${i.id} (${i.type.replace(/_/g, ' ')}, ${i.status}): ${i.description}`),
    ].join('\n'),
  ];
}

/** How execute_action is offered for this environment: not at all, or with the parameter naming it where several take actions by name. */
function executeHowTo(ctx: WorkerContext, environment: Environment): false | { environmentParam?: { name: string; value: string } } {
  if (!takesActionsByName(environment)) return false;
  const several = ctx.environments.filter(takesActionsByName).length > 1;
  return several ? { environmentParam: { name: 'environment', value: environment.info.id } } : {};
}
