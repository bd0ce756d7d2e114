/**
 * Who a session belongs to (`owner:*`), for servers with users (golem/serve's
 * createGolemHandler with a `user` hook): a session a user created is theirs, and nobody
 * else's. The owner is claimed for the session's id before the session is made, so a
 * process that dies in between leaves an id reserved for its user, never a session
 * without an owner that another user could take. Workspace state like the rest: it
 * survives a restart, and processes sharing a store see one owner per session.
 */
import { z } from 'zod';
import { defineCommand, fail, Id, Timestamp, type CommandMapOf, type WorkspaceExtension, type WorkspaceView } from '../core/index.js';

/** A session's owner: the user (as the server's `user` hook names them) it belongs to. */
export const SessionOwner = z.strictObject({
  sessionId: Id,
  user: z.string().min(1).max(200),
  createdAt: Timestamp,
});
export type SessionOwner = z.infer<typeof SessionOwner>;

/** The user a session belongs to, or undefined when none claimed it (made without users: the terminal, MCP, an older server). */
export function sessionOwner(view: WorkspaceView, sessionId: string): string | undefined {
  return view.collection('session_owner').get(sessionId)?.user;
}

/**
 * Claims a session id for a user, before the session is created under it (or forked to
 * it). Claiming one's own again changes nothing. An id another user holds, or a session
 * that exists without an owner, is SESSION_NOT_FOUND: to that user it does not exist.
 */
export const ownerClaim = defineCommand({
  type: 'owner:claim',
  description: 'Claims a session id for a user (before the session is created under it).',
  payload: z.strictObject({ sessionId: Id, user: z.string().min(1).max(200) }),
  reduce(payload, ctx) {
    const earlier = ctx.index.collection('session_owner').get(payload.sessionId);
    if (earlier?.user === payload.user) return { writes: [], result: earlier };
    if (earlier !== undefined || ctx.index.sessions.has(payload.sessionId)) {
      throw fail('SESSION_NOT_FOUND', `no session with id "${payload.sessionId}"`, { sessionId: payload.sessionId });
    }
    const owner: SessionOwner = { sessionId: payload.sessionId, user: payload.user, createdAt: ctx.now };
    return { writes: [{ op: 'put', collection: 'session_owner', key: owner.sessionId, value: owner }], result: owner };
  },
});

/** Session owners as a workspace extension (`createWorkspace` registers it). */
export const sessionOwnersExtension: WorkspaceExtension = {
  name: 'session-owners',
  collections: { session_owner: SessionOwner },
  commands: [ownerClaim],
};

declare module '../core/manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends CommandMapOf<typeof ownerClaim> {}
}

declare module '../core/workspace-index.js' {
  interface CollectionMap {
    session_owner: SessionOwner;
  }
}
