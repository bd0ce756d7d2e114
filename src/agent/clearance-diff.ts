/**
 * The clearance layer of `ws.sessions.diff`: the items waiting for the user's decision on each
 * side (pending and deferred), which each session keeps apart.
 */
import type { SessionDiffLayer } from '../prompt/session-diff.js';
import type { ClearanceRecord } from './agent-records.js';
import { clearanceItems } from './clearance.js';

/** Each side's clearance items waiting for a decision, oldest first. */
export interface ClearanceDifference {
  a: ClearanceRecord[];
  b: ClearanceRecord[];
}

/** The clearance layer: what each session has staged and the user has not pushed or discarded. */
export const clearanceDiffLayer: SessionDiffLayer<'clearance'> = {
  name: 'clearance',
  diff: (ctx) => ({ a: clearanceItems(ctx.view, { sessionId: ctx.a.session.id }), b: clearanceItems(ctx.view, { sessionId: ctx.b.session.id }) }),
};

declare module '../prompt/session-diff.js' {
  interface SessionDiffLayers {
    /** The clearance items waiting on each side. */
    clearance: ClearanceDifference;
  }
}
