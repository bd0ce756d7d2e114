/**
 * `ws.runs.cancel` with what it did, for the people asking (`golem runs cancel`, the HTTP
 * API's `POST /api/runs/:id/cancel`): the run's record as the cancel left it, and whether its
 * holder was asked to stop, it was cancelled at once, or it had ended already.
 */
import { isEnded, type RunRecord } from './run-records.js';
import type { RunService } from './run-service.js';

/**
 * What a cancel did: `stopping`, a live process holds the run and was asked to stop (it stops
 * at its next step boundary); `cancelled`, no live process held it (its process is gone, or it
 * was paused) and it was cancelled at once; `ended`, it had ended before, and nothing changed.
 */
export type RunCancelOutcome = 'stopping' | 'cancelled' | 'ended';

export interface RunCancelResult {
  run: RunRecord;
  outcome: RunCancelOutcome;
}

/** Cancels the run (as `runs.cancel`, RUN_NOT_FOUND for no such run) and says what that did. */
export async function cancelRun(runs: RunService, id: string, options: { by?: string } = {}): Promise<RunCancelResult> {
  const before = runs.get(id);
  const run = await runs.cancel(id, options);
  return { run, outcome: cancelOutcome(before, run) };
}

/** What a cancel did, from the run's record before it (undefined: not seen here yet) and the one it answered. */
function cancelOutcome(before: RunRecord | undefined, after: RunRecord): RunCancelOutcome {
  if (!isEnded(after)) return 'stopping';
  const cancelledNow = after.status === 'cancelled' && (before === undefined || !isEnded(before));
  return cancelledNow ? 'cancelled' : 'ended';
}
