/**
 * Who may see a UI instance, and which conversation it is part of (issue 36): one rule that the
 * reads and writes of every part take (the agent's UI tools, the page's session view and its
 * routes, the AG-UI state), instead of one written in each.
 *
 * - Without users (`user` null: `golem serve`, an app with no user hook) every instance is
 *   seen. With users, one their agent built (its session's owner is the user); one no agent
 *   built (the app's, or kept from before builders were recorded) may be another user's, and
 *   is seen by nobody's agent or page.
 * - A conversation's instances are those its worker tree built, and those no agent built.
 */
import type { WorkspaceView } from '../core/workspace-index.js';
import type { UIInstanceRecord } from './ui-plugin.js';

/** The user a session belongs to (undefined: no users, or a session made without one). */
export type SessionOwnerOf = (sessionId: string) => string | undefined;

/** Whether `user` (null: no users) may see the instance. */
export function uiVisibleTo(record: Pick<UIInstanceRecord, 'builtBy'>, user: string | null, ownerOf: SessionOwnerOf): boolean {
  if (user === null) return true;
  return record.builtBy !== undefined && ownerOf(record.builtBy) === user;
}

/** Whether the instance is conversation `rootSessionId`'s: its worker tree built it, or no agent did. */
export function inConversation(view: WorkspaceView, record: Pick<UIInstanceRecord, 'builtBy'>, rootSessionId: string): boolean {
  return record.builtBy === undefined || rootOf(view, record.builtBy) === rootSessionId;
}

/** The root session of the worker tree a session is in (itself, unless it is a sub-worker's). */
export function rootOf(view: WorkspaceView, sessionId: string): string {
  return view.collection('worker').get(sessionId)?.rootSessionId ?? sessionId;
}
