/**
 * What the agent keeps from a retention sweep: a session with a pending approval (its own and
 * its root's), a clearance item not yet decided (the root's and the worker's), or a run not
 * ended, running or paused (the session and so its history).
 */
import type { RetentionHold, WorkspaceView } from '../core/index.js';
import { isEnded } from './run-records.js';

/** The agent's holds, for `retentionExtension` and `RetentionApi`. */
export function agentRetentionHolds(view: WorkspaceView): RetentionHold[] {
  const holds: RetentionHold[] = [];
  for (const approval of view.collection('approval').values()) {
    if (approval.status !== 'pending') continue;
    const reason = `approval ${approval.id} is pending`;
    holds.push({ sessionId: approval.sessionId, reason }, { sessionId: approval.rootSessionId, reason });
  }
  for (const item of view.collection('clearance').values()) {
    if (item.status !== 'pending' && item.status !== 'deferred') continue;
    const reason = `clearance item ${item.id} is ${item.status}`;
    holds.push({ sessionId: item.sessionId, reason }, { sessionId: item.workerId, reason });
  }
  for (const run of view.collection('run_record').values()) {
    if (!isEnded(run)) holds.push({ sessionId: run.sessionId, reason: `run ${run.id} is ${run.status}` });
  }
  return holds;
}
