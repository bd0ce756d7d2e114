/**
 * The trust policy (seed 003): which mode an action runs in for a session, and what a
 * worker does with a call in that mode. Pure functions of the workspace's state, so the
 * whole policy can be tested exhaustively.
 */
import type { WorkspaceView } from '../core/workspace-index.js';
import type { Trust } from '../action/action.js';
import { recordsOf, type Grant } from './agent-records.js';

/** Where a call's mode came from, most specific first. */
export type TrustSource = 'session' | 'workspace' | 'worker' | 'action';

/** What the worker does with a call. */
export type TrustDecision =
  /** Runs it now. */
  | { kind: 'run'; mode: Trust; source: TrustSource; grant?: Grant }
  /** Asks the user first (supervised, no grant covers it). */
  | { kind: 'ask'; mode: 'supervised'; source: TrustSource }
  /** Manual, and the action changes only files: runs on a staging view, its changes wait for clearance. */
  | { kind: 'stage'; mode: 'manual'; source: TrustSource }
  /** Manual: the call itself waits for the user to run it. */
  | { kind: 'defer'; mode: 'manual'; source: TrustSource };

/**
 * The mode of `action` in the conversation of `rootSessionId`: a session override, else
 * a workspace override, else the worker's own setting, else the action's default.
 */
export function trustModeOf(
  view: WorkspaceView,
  action: { name: string; trust: Trust },
  rootSessionId: string,
  workerModes: Readonly<Record<string, Trust>> = {},
): { mode: Trust; source: TrustSource } {
  const overrides = view.collection('trust');
  // Own properties only: an action named "constructor" must not find Object's.
  const own = (modes: Readonly<Record<string, Trust>> | undefined) =>
    modes !== undefined && Object.hasOwn(modes, action.name) ? modes[action.name] : undefined;
  const session = own(overrides.get(`session:${rootSessionId}`)?.modes);
  if (session !== undefined) return { mode: session, source: 'session' };
  const workspace = own(overrides.get('workspace')?.modes);
  if (workspace !== undefined) return { mode: workspace, source: 'workspace' };
  const worker = own(workerModes);
  if (worker !== undefined) return { mode: worker, source: 'worker' };
  return { mode: action.trust, source: 'action' };
}

/** The grant that lets this call run without asking, if one does: for the workspace, or for this conversation. */
export function grantFor(view: WorkspaceView, action: string, key: string, rootSessionId: string): Grant | undefined {
  return recordsOf(view, 'grant').find(
    (g) => g.action === action && g.key === key && (g.scope === 'workspace' || (g.scope === 'session' && g.sessionId === rootSessionId)),
  );
}

/** What to do with one call of `action` (whose grant key for this input is `key`). */
export function decideTrust(
  view: WorkspaceView,
  action: { name: string; trust: Trust; stages: boolean },
  key: string,
  rootSessionId: string,
  workerModes?: Readonly<Record<string, Trust>>,
): TrustDecision {
  const { mode, source } = trustModeOf(view, action, rootSessionId, workerModes);
  switch (mode) {
    case 'autonomous':
      return { kind: 'run', mode, source };
    case 'supervised': {
      const grant = grantFor(view, action.name, key, rootSessionId);
      return grant === undefined ? { kind: 'ask', mode, source } : { kind: 'run', mode, source, grant };
    }
    case 'manual':
      return action.stages ? { kind: 'stage', mode, source } : { kind: 'defer', mode, source };
  }
}
