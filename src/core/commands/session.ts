/** Session commands (seed 001 section 8.2). */
import { z } from 'zod';
import { fail } from '../errors.js';
import { defineCommand, type ReducerContext } from '../plugin.js';
import { Id, Topic, TurnRef, type Session, type Turn } from '../records.js';
import {
  collect,
  forkFamily,
  makeTurn,
  putSession,
  putTurn,
  refOf,
  requirePreferences,
  requireRole,
  requireSession,
  sameRef,
  unique,
  viewOf,
  withLength,
} from './kit.js';
import { pathLength } from '../turn-tree.js';
import type { WorkspaceView } from '../workspace-index.js';
import { removal } from './turn.js';

/** The id a caller chose for a new session, if any. */
function newSessionId(payload: unknown): string[] {
  const id = (payload as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? [id] : [];
}

function requireNewSessionId(ctx: ReducerContext, id: string | undefined): string {
  if (id === undefined) return ctx.newId();
  if (ctx.index.sessions.has(id)) throw fail('DUPLICATE_ID', `a session with id "${id}" already exists`, { sessionId: id });
  // The turns of a deleted session that forks still stand on keep its id: a new session under it would own them.
  if (ctx.index.createdIn(id).size > 0) {
    throw fail('DUPLICATE_ID', `the id "${id}" belonged to a deleted session whose history other sessions still keep; choose another`, { sessionId: id });
  }
  return id;
}

/**
 * What `session:create` returns: the new session's record, which also holds it as `session`
 * (seed 001's example reads `result.value.session`).
 */
export type SessionCreated = Session & { readonly session: Session };

export const sessionCreate = defineCommand({
  type: 'session:create',
  description: 'Creates an empty session.',
  payload: z.strictObject({
    id: Id.optional(),
    label: z.string().nullable().optional(),
    topics: z.array(Topic).optional(),
    role: z.string().nullable().optional(),
    preferences: z.array(Id).optional(),
  }),
  // A caller-chosen id may be a deleted session's whose turns live on in forks: they load, so the reducer sees them.
  sessions: (payload) => newSessionId(payload),
  reduce(payload, ctx) {
    const id = requireNewSessionId(ctx, payload.id);
    requireRole(ctx.index, payload.role);
    requirePreferences(ctx.index, payload.preferences);
    const session: Session = {
      id,
      label: payload.label ?? null,
      topics: unique(payload.topics ?? []),
      role: payload.role ?? null,
      preferences: unique(payload.preferences ?? []),
      head: null,
      forkedFrom: null,
      length: 0,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    const result: SessionCreated = { ...session, session };
    return { writes: [putSession(session)], result };
  },
});

export const sessionFork = defineCommand({
  type: 'session:fork',
  description: 'Creates a session whose head is a turn of another: the history is shared, no turn is copied.',
  payload: z
    .strictObject({
      sessionId: Id,
      /** The turn to fork at (default: the source's head). */
      turnId: Id.optional(),
      /** The version of that turn (default: the one on the source's path, else the newest). */
      version: z.number().int().nonnegative().optional(),
      id: Id.optional(),
      label: z.string().nullable().optional(),
    })
    .refine((p) => p.version === undefined || p.turnId !== undefined, 'a version needs a turnId'),
  // A caller-chosen id may be a deleted session's whose turns live on in forks: they load, so the reducer sees them.
  sessions: (payload) => newSessionId(payload),
  reduce(payload, ctx) {
    const source = requireSession(ctx.index, payload.sessionId);
    let head: TurnRef | null = source.head;
    if (payload.turnId !== undefined) {
      const view = viewOf(ctx.index, source);
      const version = payload.version ?? view.currentVersion(payload.turnId)?.version;
      head = { id: payload.turnId, version: version ?? 0 };
      view.require(head);
    }
    const id = requireNewSessionId(ctx, payload.id);
    const fork: Session = {
      ...source,
      id,
      label: payload.label !== undefined ? payload.label : source.label === null ? null : `${source.label} (fork)`,
      head,
      forkedFrom: head === null ? null : { sessionId: source.id, turn: head },
      // The source's count where it forks at its head; else its path counted (O(depth), no turn copied).
      length: sameRef(head, source.head) && source.length !== undefined ? source.length : pathLength(ctx.index, head),
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    return { writes: [putSession(fork)], result: fork };
  },
});

export const sessionUpdate = defineCommand({
  type: 'session:update',
  description: "Changes a session's label, topics, preferences or head.",
  payload: z.strictObject({
    sessionId: Id,
    updates: z
      .strictObject({
        label: z.string().nullable().optional(),
        topics: z.array(Topic).optional(),
        preferences: z.array(Id).optional(),
        /** Moves the head to any turn of the session (version switching uses this). */
        head: TurnRef.nullable().optional(),
      })
      .refine((u) => Object.keys(u).length > 0, 'give at least one field to update'),
  }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    const { label, topics, preferences, head } = payload.updates;
    requirePreferences(ctx.index, preferences);
    if (head != null) viewOf(ctx.index, session).require(head);
    const next: Session = withLength(ctx.index, {
      ...session,
      ...(label !== undefined && { label }),
      ...(topics !== undefined && { topics: unique(topics) }),
      ...(preferences !== undefined && { preferences: unique(preferences) }),
      ...(head !== undefined && { head }),
      updatedAt: ctx.now,
    });
    return { writes: [putSession(next)], result: next };
  },
});

export const sessionDelete = defineCommand({
  type: 'session:delete',
  description: 'Deletes a session and every turn no other session needs, releasing their blobs.',
  payload: z.strictObject({ sessionId: Id }),
  sessions: forkFamily,
  reduce: (payload, ctx) => deleteSession(ctx, requireSession(ctx.index, payload.sessionId)),
});

/**
 * The change that deletes a session and every turn no other session needs, releasing their
 * blobs (`session:delete`'s, which a retention sweep uses too). The reducer must hold the
 * session's fork family (`sessions: forkFamily`).
 */
export function deleteSession(ctx: ReducerContext, session: Session): ReturnType<typeof removal> {
  return removal(ctx, turnsDeletedWith(ctx.index, session), [{ op: 'delete', collection: 'session', key: session.id }]);
}

/** The keys of the turns that go when `session` is deleted: those no other session needs. */
export function turnsDeletedWith(index: WorkspaceView, session: Session): Set<string> {
  const start = [...index.createdIn(session.id)].map((key) => index.turns.get(key) as Turn);
  for (const ref of [session.head, session.forkedFrom?.turn ?? null]) {
    const turn = ref === null ? undefined : index.turn(ref);
    if (turn !== undefined) start.push(turn);
  }
  return collect(index, start, new Set(), { session, dying: session.id });
}

export const sessionRoleSwitch = defineCommand({
  type: 'session:role:switch',
  description: "Changes a session's role and records the change as a role:transition turn at its head.",
  payload: z.strictObject({ sessionId: Id, role: z.string().nullable(), turnId: Id.optional() }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    requireRole(ctx.index, payload.role);
    if (payload.role === session.role) return { writes: [], result: { session, turn: null } };
    if (payload.turnId !== undefined && ctx.index.node(payload.turnId) !== undefined) {
      throw fail('DUPLICATE_ID', `a turn with id "${payload.turnId}" already exists`, { turnId: payload.turnId });
    }
    const turn = makeTurn(ctx, {
      id: payload.turnId ?? ctx.newId(),
      version: 0,
      parent: session.head,
      sessionId: session.id,
      role: 'system',
      blocks: [{ type: 'role:transition', from: session.role, to: payload.role }],
    });
    const next: Session = withLength(ctx.index, { ...session, role: payload.role, head: refOf(turn), updatedAt: ctx.now }, turn);
    return { writes: [putTurn(turn), putSession(next)], result: { session: next, turn: turn as Turn | null } };
  },
});
