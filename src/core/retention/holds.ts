/**
 * What keeps a session from a retention sweep beyond the DAG's own rules (a turn a kept
 * session sees stays by those): pins, and what a part above the core still needs (the
 * agent's pending approvals, clearance items and unfinished runs), each declared by that
 * part as a `RetentionHolds` and given to `retentionExtension`.
 */
import type { TurnRef } from '../records.js';
import type { WorkspaceView } from '../workspace-index.js';

/**
 * A reason to keep something. Without `turn` the session stays whole (neither deleted nor
 * trimmed); with it the session is not deleted and that turn version stays in it.
 */
export interface RetentionHold {
  sessionId: string;
  turn?: TurnRef;
  /** What needs it, for people: "approval 0190... is pending". */
  reason: string;
}

/** A part's holds, read from the index when a sweep decides. */
export type RetentionHolds = (view: WorkspaceView) => Iterable<RetentionHold>;

/** The pins (`session:pin`, `turn:pin`) as holds. */
export function pinHolds(view: WorkspaceView): RetentionHold[] {
  return [...view.collection('pin').values()].map((pin) =>
    pin.turn === null
      ? { sessionId: pin.sessionId, reason: `session "${pin.sessionId}" is pinned` }
      : { sessionId: pin.sessionId, turn: pin.turn, reason: `turn ${pin.turn.id}@${pin.turn.version} is pinned` },
  );
}

/** Every hold of `sources` and the pins, by session. */
export function holdsBySession(view: WorkspaceView, sources: readonly RetentionHolds[]): Map<string, RetentionHold[]> {
  const bySession = new Map<string, RetentionHold[]>();
  for (const hold of [...pinHolds(view), ...sources.flatMap((source) => [...source(view)])]) {
    const list = bySession.get(hold.sessionId);
    if (list === undefined) bySession.set(hold.sessionId, [hold]);
    else list.push(hold);
  }
  return bySession;
}
