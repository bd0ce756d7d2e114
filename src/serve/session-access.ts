/**
 * Which sessions a request's user may see and change (createGolemHandler's `user` hook):
 * with a user, the sessions they created or forked (their sub-workers' sessions with them),
 * owned in the workspace (agent/session-owners.ts); without one (null: `golem serve`, a
 * server with no users), every session. A session the user may not see is
 * SESSION_NOT_FOUND, worded as for one that does not exist, so its id tells them nothing.
 */
import { recordsOf, type ApprovalRecord, type ClearanceRecord } from '../agent/agent-plugin.js';
import { sessionOwner } from '../agent/session-owners.js';
import { GolemError, unwrap } from '../core/errors.js';
import type { Workspace } from '../create-workspace.js';
import type { Session } from '../prompt/session.js';

export class SessionAccess {
  readonly #ws: Workspace;

  constructor(ws: Workspace) {
    this.#ws = ws;
  }

  /** Whether `user` may see the session (a sub-worker's session: whether they may see its root). */
  sees(user: string | null, sessionId: string): boolean {
    return user === null || sessionOwner(this.#ws.manager.workspace(), this.rootOf(sessionId)) === user;
  }

  /** The user a session (its worker tree's root) belongs to; undefined without users, or for a session made without one. */
  ownerOf(sessionId: string): string | undefined {
    return sessionOwner(this.#ws.manager.workspace(), this.rootOf(sessionId));
  }

  /** The session, when it exists and `user` may see it; SESSION_NOT_FOUND otherwise. */
  session(user: string | null, sessionId: string): Session {
    const session = this.sees(user, sessionId) ? this.#ws.sessions.get(sessionId) : undefined;
    if (session === undefined) throw notFound(sessionId);
    return session;
  }

  /** A new session, `user`'s (its id claimed for them first: SESSION_NOT_FOUND when another user holds it). */
  async create(user: string | null, options: { id?: string; label?: string | null } = {}): Promise<Session> {
    if (user === null) return this.#ws.sessions.create(options);
    const id = options.id ?? this.#ws.manager.newId();
    await this.#claim(user, id);
    return this.#ws.sessions.create({ ...options, id });
  }

  /** A fork of a session `user` may see, theirs too. */
  async fork(user: string | null, sessionId: string, at: string | undefined, options: { label?: string | null } = {}): Promise<Session> {
    const source = this.session(user, sessionId);
    if (user === null) return this.#ws.sessions.fork(source.id, at, options);
    const id = this.#ws.manager.newId();
    await this.#claim(user, id);
    return this.#ws.sessions.fork(source.id, at, { ...options, id });
  }

  /**
   * An approval asked in a session `user` may see, by its id (or, without users, a unique
   * start or end of it, as `ws.approvals.get` takes): APPROVAL_NOT_FOUND otherwise.
   */
  approval(user: string | null, approvalId: string): ApprovalRecord {
    if (user === null) return this.#ws.approvals.get(approvalId);
    const approval = recordsOf(this.#ws.manager.workspace(), 'approval').find((a) => a.id === approvalId);
    if (approval === undefined || !this.sees(user, approval.rootSessionId)) throw new GolemError('APPROVAL_NOT_FOUND', `no approval "${approvalId}"`);
    return approval;
  }

  /** A clearance item of a session `user` may see, by its id (or, without users, a unique part of it): CLEARANCE_NOT_FOUND otherwise. */
  clearanceItem(user: string | null, itemId: string): ClearanceRecord {
    if (user === null) return this.#ws.clearance.get(itemId);
    const item = recordsOf(this.#ws.manager.workspace(), 'clearance').find((c) => c.id === itemId);
    if (item === undefined || !this.sees(user, item.sessionId)) throw new GolemError('CLEARANCE_NOT_FOUND', `no clearance item "${itemId}"`);
    return item;
  }

  /** The root of a sub-worker's session (its worker tree's), or the session itself. */
  rootOf(sessionId: string): string {
    return this.#ws.manager.workspace().collection('worker').get(sessionId)?.rootSessionId ?? sessionId;
  }

  async #claim(user: string, sessionId: string): Promise<void> {
    unwrap(await this.#ws.manager.dispatch({ type: 'owner:claim', payload: { sessionId, user } }));
  }
}

function notFound(sessionId: string): GolemError {
  return new GolemError('SESSION_NOT_FOUND', `no session with id "${sessionId}"`);
}
