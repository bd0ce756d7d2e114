/**
 * Manual mode (seed 003): a call that changes only files runs on a staging view and its
 * changes wait for clearance; any other call waits as a whole for the user to run it.
 */
import type { Action } from '../../action/action.js';
import type { FileAccess } from '../../action/files.js';
import { unwrap } from '../../core/errors.js';
import { recordsOf } from '../agent-plugin.js';
import { clearanceItems, toClearanceItem } from '../clearance.js';
import type { ActionOutcome, Call } from './call.js';
import type { WorkerContext } from './context.js';

/** File changes: `run` runs the call on a staging view; its changes join the conversation's open staged commit. */
export async function stage(ctx: WorkerContext, call: Call, run: (view: FileAccess) => Promise<ActionOutcome>): Promise<ActionOutcome> {
  const project = ctx.project;
  if (project === undefined)
    return { name: call.name, input: call.input, ok: false, output: `${call.name} needs a project to stage its changes in, and this worker has none.` };
  return project.stage(call.name, run);
}

/** Other actions: the call itself waits for the user to run (push) or discard it. */
export async function defer(ctx: WorkerContext, action: Action, call: Call): Promise<ActionOutcome> {
  const { manager } = ctx;
  // Staged before the process ended, not yet answered: the same item, not a second one.
  const earlier = recordsOf(manager.workspace(), 'clearance').find(
    (c) =>
      c.type === 'pending_export' &&
      c.workerId === ctx.session.id &&
      c.metadata.turnId === call.turnId &&
      c.metadata.turnVersion === call.turnVersion &&
      c.metadata.callId === call.callId,
  );
  const item =
    earlier ??
    unwrap(
      await manager.dispatch({
        type: 'clearance:stage',
        payload: {
          type: 'pending_export',
          description: `Run ${action.name} ${JSON.stringify(call.input).slice(0, 200)}`,
          sessionId: ctx.position.rootSessionId,
          workerId: ctx.session.id,
          metadata: {
            action: action.name,
            input: call.input,
            turnId: call.turnId,
            turnVersion: call.turnVersion,
            callId: call.callId,
            ...(ctx.project !== undefined && { root: ctx.project.disk.root }),
          },
        },
      }),
    );
  return {
    name: call.name,
    input: call.input,
    ok: true,
    staged: true,
    output: {
      staged: true,
      clearanceId: item.id,
      note: `${action.name} is manual: only the user can run it. It waits as clearance item ${item.id}; you will be told what the user decides.`,
    },
  };
}

/** Shows the UI the conversation's clearance items, after a call staged one. */
export function notifyClearance(ctx: WorkerContext): void {
  const items = clearanceItems(ctx.manager.workspace(), { sessionId: ctx.position.rootSessionId });
  ctx.options.ui?.notifyClearancePending(items.map(toClearanceItem));
}
