/** Turn and DAG commands (seed 001 section 8.3), and version switching. */
import { z } from 'zod';
import { ContentBlock, JsonObject } from '../blocks.js';
import { fail } from '../errors.js';
import type { Write } from '../store.js';
import { defineCommand, type Effect, type ReducerContext } from '../plugin.js';
import { Id, turnKey, TurnRef, TurnRole, type Session, type Turn } from '../records.js';
import { subtree, versionOnPath } from '../turn-tree.js';
import {
  applyBlobDelta,
  collect,
  countRefs,
  makeTurn,
  putSession,
  putTurn,
  refOf,
  removeTurns,
  requireBlobs,
  requireNode,
  requireSession,
  sameRef,
  TurnInput,
  viewOf,
  withLength,
  forkFamily,
} from './kit.js';

/**
 * The writes that add a new turn version (from `makeTurn`) at the session's head and move
 * the head to it, retaining its blobs; the result is the turn. Part of the plugin API: an
 * extension whose command adds a turn (e.g. a system message telling of a decision) uses it.
 * Throws `BLOB_NOT_FOUND` for a blob the turn references that is not registered.
 */
export function appendTurn(ctx: ReducerContext, session: Session, turn: Turn): { writes: Write[]; result: Turn } {
  requireBlobs(ctx.index, turn.blocks);
  const blobs = applyBlobDelta(ctx, countRefs(new Map(), turn.blocks, 1));
  const writes: Write[] = [putTurn(turn), putSession(withLength(ctx.index, { ...session, head: refOf(turn), updatedAt: ctx.now }, turn)), ...blobs.writes];
  return { writes, result: turn };
}

/** A new turn node's id: the one the caller chose (DUPLICATE_ID when a node has it), else a fresh one. */
export function requireNewNodeId(ctx: ReducerContext, id: string | undefined): string {
  if (id === undefined) return ctx.newId();
  if (ctx.index.node(id) !== undefined) throw fail('DUPLICATE_ID', `a turn with id "${id}" already exists`, { turnId: id });
  return id;
}

export const turnAdd = defineCommand({
  type: 'turn:add',
  description: "Appends a turn at the session's head and moves the head to it; retains its blobs.",
  payload: z.strictObject({
    sessionId: Id,
    turn: TurnInput,
    /** When given, the command is refused unless the head is still there (optimistic concurrency). */
    expectedHead: TurnRef.nullable().optional(),
  }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    if (payload.expectedHead !== undefined && !sameRef(payload.expectedHead, session.head)) {
      throw fail('HEAD_CONFLICT', `the head of session "${session.id}" moved; read it again and retry`, {
        sessionId: session.id,
        expected: payload.expectedHead,
        actual: session.head,
      });
    }
    const id = requireNewNodeId(ctx, payload.turn.id);
    return appendTurn(ctx, session, makeTurn(ctx, { ...payload.turn, id, version: 0, parent: session.head, sessionId: session.id }));
  },
});

export const turnEdit = defineCommand({
  type: 'turn:edit',
  description: 'Adds a new version of a turn (same parent, and for a merge turn the same merged turn; new blocks) and moves the head to it.',
  payload: z.strictObject({
    sessionId: Id,
    turnId: Id,
    blocks: z.array(ContentBlock),
    /** The speaker of the new version (default: the edited version's). */
    role: TurnRole.optional(),
    meta: JsonObject.optional(),
  }),
  // The new version is numbered after every other, which sessions of the family may hold.
  sessions: forkFamily,
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    const node = requireNode(ctx.index, payload.turnId);
    const base = viewOf(ctx.index, session).currentVersion(node.id);
    if (base === undefined) {
      throw fail('TURN_NOT_IN_SESSION', `turn "${node.id}" is not part of session "${session.id}"`, { sessionId: session.id, turnId: node.id });
    }
    const turn = makeTurn(ctx, {
      id: node.id,
      version: (node.versions.at(-1) as Turn).version + 1,
      parent: node.parent,
      sessionId: session.id,
      role: payload.role ?? base.role,
      blocks: payload.blocks,
      meta: payload.meta,
    });
    // A merge turn's new version merges the same turn: both parents stay, only what it says changes.
    return appendTurn(ctx, session, base.merge === undefined ? turn : { ...turn, merge: base.merge });
  },
});

export const turnBranch = defineCommand({
  type: 'turn:branch',
  description: 'Starts a new turn under any turn of the session (or at the root) and moves the head to it.',
  payload: z.strictObject({ sessionId: Id, parent: TurnRef.nullable(), turn: TurnInput }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    if (payload.parent !== null) viewOf(ctx.index, session).require(payload.parent);
    const id = requireNewNodeId(ctx, payload.turn.id);
    return appendTurn(ctx, session, makeTurn(ctx, { ...payload.turn, id, version: 0, parent: payload.parent, sessionId: session.id }));
  },
});

export const turnSwitch = defineCommand({
  type: 'turn:switch',
  description: "Moves to the previous or next version of a turn on the session's path, continuing to that version's latest leaf.",
  payload: z.strictObject({ sessionId: Id, turnId: Id, direction: z.enum(['left', 'right']) }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    requireNode(ctx.index, payload.turnId);
    const current = versionOnPath(ctx.index, session.head, payload.turnId);
    if (current === undefined) {
      throw fail('TURN_NOT_ON_PATH', `turn "${payload.turnId}" is not on the current path of session "${session.id}"`, {
        sessionId: session.id,
        turnId: payload.turnId,
      });
    }
    const view = viewOf(ctx.index, session);
    const versions = view.versions(payload.turnId);
    const target = versions[versions.findIndex((t) => t.version === current) + (payload.direction === 'left' ? -1 : 1)];
    if (target === undefined) {
      const details = { turnId: payload.turnId, version: current };
      throw payload.direction === 'left'
        ? fail('NO_PREVIOUS_VERSION', `turn "${payload.turnId}" has no version before ${current} in this session`, details)
        : fail('NO_NEXT_VERSION', `turn "${payload.turnId}" has no version after ${current} in this session`, details);
    }
    const next: Session = withLength(ctx.index, { ...session, head: view.latestLeaf(refOf(target)), updatedAt: ctx.now });
    return { writes: [putSession(next)], result: next };
  },
});

/** What a deletion removed. */
export interface RemovalResult {
  /** Every turn version removed: the one named, all below it, and history no session can see any more. */
  deleted: TurnRef[];
  /** Blobs whose bytes were freed. */
  releasedBlobs: string[];
}

/** What a turn deletion removed, and where the head is now. */
export interface TurnDeleteResult extends RemovalResult {
  head: TurnRef | null;
}

export const turnDelete = defineCommand({
  type: 'turn:delete',
  description: 'Removes a turn version and everything below it, releasing their blobs; refused while another session needs them.',
  payload: z.strictObject({
    sessionId: Id,
    turnId: Id,
    /** Default: the version on the session's path, else the newest it can see. */
    version: z.number().int().nonnegative().optional(),
  }),
  sessions: forkFamily,
  reduce(payload, ctx) {
    const { index } = ctx;
    const session = requireSession(index, payload.sessionId);
    const view = viewOf(index, session);
    const version = payload.version ?? view.currentVersion(payload.turnId)?.version ?? requireNode(index, payload.turnId).versions[0]?.version ?? 0;
    const target = view.require({ id: payload.turnId, version });
    const doomed = subtree(index, target);
    const deleted = new Set(doomed.map(turnKey));
    for (const turn of doomed) {
      // A merge turn that stays merged from this one: its second parent must stay (delete the merge turn first).
      const merge = [...index.mergedInto(turn)].find((key) => !deleted.has(key));
      if (merge !== undefined) {
        const by = (index.turns.get(merge) as Turn).sessionId;
        throw fail('TURN_SHARED', `turn "${turn.id}" version ${turn.version} is merged into turn ${merge} of session "${by}"; delete that merge turn first`, {
          turnId: turn.id,
          version: turn.version,
          sessionId: by,
        });
      }
      const owner = index.sessions.get(turn.sessionId);
      const other =
        [...index.headsAt(turn), ...index.forksAt(turn)].find((id) => id !== session.id) ??
        (owner !== undefined && owner.id !== session.id ? owner.id : undefined);
      if (other !== undefined) {
        throw fail('TURN_SHARED', `turn "${turn.id}" version ${turn.version} is in the history of session "${other}"; delete or move that session first`, {
          turnId: turn.id,
          version: turn.version,
          sessionId: other,
        });
      }
      if (sameRef(turn, session.forkedFrom?.turn)) {
        throw fail(
          'TURN_SHARED',
          `turn "${turn.id}" version ${turn.version} is the point session "${session.id}" was forked at; it stays while the session does`,
          {
            turnId: turn.id,
            version: turn.version,
            sessionId: session.id,
          },
        );
      }
    }
    let head = session.head;
    if (head !== null && deleted.has(turnKey(head))) {
      const siblings = view.versions(target.id).filter((t) => t.version !== target.version);
      const fallback = siblings.filter((t) => t.version < target.version).at(-1) ?? siblings[0];
      head = fallback !== undefined ? view.latestLeaf(refOf(fallback)) : target.parent;
    }
    const next: Session = withLength(index, { ...session, head, updatedAt: ctx.now });
    // Up from the target's parent, and from what each merge turn removed merged from (kept for it alone, it may go too).
    const above = [target.parent, ...doomed.map((t) => t.merge?.from ?? null)].flatMap((ref) => (ref === null ? [] : (index.turn(ref) ?? [])));
    collect(index, above, deleted, { session: next });
    const { writes, result, effects } = removal(ctx, deleted, sameRef(head, session.head) ? [] : [putSession(next)]);
    return { writes, effects, result: { ...result, head } as TurnDeleteResult };
  },
});

/** The change that removes a set of turns and releases their blobs. */
export function removal(ctx: ReducerContext, deleted: ReadonlySet<string>, extra: Write[]): { writes: Write[]; result: RemovalResult; effects: Effect[] } {
  const delta = new Map<string, number>();
  const removed = removeTurns(ctx.index, deleted, delta);
  const blobs = applyBlobDelta(ctx, delta);
  return {
    writes: [...extra, ...removed.writes, ...blobs.writes],
    result: { deleted: removed.refs, releasedBlobs: blobs.released },
    effects: blobs.effects,
  };
}
