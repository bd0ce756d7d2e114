/** Turn and DAG commands (seed 001 section 8.3). */
import { z } from 'zod';
import { ContentBlock } from '../../content/blocks.js';
import { fail } from '../../errors.js';
import type { Write } from '../../store/store.js';
import { defineCommand, type Effect, type ReducerContext } from '../extension.js';
import { Id, turnKey, TurnRef, TurnRole, type Session, type Turn } from '../records.js';
import { isVisible, latestLeaf, subtree, sweep, versionOnPath } from '../turn-tree.js';
import {
  applyBlobDelta,
  countRefs,
  makeTurn,
  putSession,
  putTurn,
  refOf,
  removeTurns,
  requireBlobs,
  requireNode,
  requireSession,
  requireTurn,
  sameRef,
  sweepBehindHead,
  TurnInput,
} from './kit.js';

/**
 * Writes a new turn version and moves the session head to it. When the head jumps
 * rather than grows (edit, branch), what it leaves behind is collected (see
 * `sweepBehindHead`), never the nodes in `keep`.
 */
function appendTurn(ctx: ReducerContext, session: Session, turn: Turn, jump?: { keep: string[] }) {
  requireBlobs(ctx.index, turn.blocks);
  const head = refOf(turn);
  const behind = jump === undefined ? new Set<string>() : sweepBehindHead(ctx.index, session, head, new Set(jump.keep));
  const delta = countRefs(new Map(), turn.blocks, 1);
  const removed = removeTurns(ctx.index, behind, delta);
  const blobs = applyBlobDelta(ctx, delta);
  const writes: Write[] = [putTurn(turn), putSession({ ...session, head, updatedAt: ctx.now }), ...removed.writes, ...blobs.writes];
  return { writes, result: turn, effects: blobs.effects };
}

function requireNewNodeId(ctx: ReducerContext, id: string | undefined): string {
  if (id === undefined) return ctx.newId();
  if (ctx.index.node(id) !== undefined) throw fail('DUPLICATE_ID', `a turn with id "${id}" already exists`, { turnId: id });
  return id;
}

function requireVisible(ctx: ReducerContext, session: Session, ref: TurnRef): Turn {
  const turn = requireTurn(ctx.index, ref);
  if (!isVisible(ctx.index, session, ref)) {
    throw fail('TURN_NOT_IN_SESSION', `turn "${ref.id}" version ${ref.version} is not part of session "${session.id}"`, {
      sessionId: session.id,
      turnId: ref.id,
      version: ref.version,
    });
  }
  return turn;
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
    const turn = makeTurn(ctx, { ...payload.turn, id, version: 0, parent: session.head, sessionId: session.id });
    return appendTurn(ctx, session, turn);
  },
});

export const turnEdit = defineCommand({
  type: 'turn:edit',
  description: 'Adds a new version of a turn (same parent, new blocks) and moves the head to it.',
  payload: z.strictObject({
    sessionId: Id,
    turnId: Id,
    blocks: z.array(ContentBlock),
    /** The speaker of the new version (default: the edited version's). */
    role: TurnRole.optional(),
    meta: z.record(z.string(), z.unknown()).optional(),
  }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    const node = requireNode(ctx.index, payload.turnId);
    const onPath = versionOnPath(ctx.index, session.head, node.id);
    const base = node.versions.find((t) => t.version === onPath) ?? (node.versions.at(-1) as Turn);
    requireVisible(ctx, session, refOf(base));
    const turn = makeTurn(ctx, {
      id: node.id,
      version: (node.versions.at(-1) as Turn).version + 1,
      parent: node.parent,
      sessionId: session.id,
      role: payload.role ?? base.role,
      blocks: payload.blocks,
      meta: payload.meta,
    });
    return appendTurn(ctx, session, turn, { keep: [node.id] });
  },
});

export const turnBranch = defineCommand({
  type: 'turn:branch',
  description: 'Starts a new turn under any turn of the session (or at the root) and moves the head to it.',
  payload: z.strictObject({ sessionId: Id, parent: TurnRef.nullable(), turn: TurnInput }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    if (payload.parent !== null) requireVisible(ctx, session, payload.parent);
    const id = requireNewNodeId(ctx, payload.turn.id);
    const turn = makeTurn(ctx, { ...payload.turn, id, version: 0, parent: payload.parent, sessionId: session.id });
    return appendTurn(ctx, session, turn, { keep: payload.parent === null ? [] : [payload.parent.id] });
  },
});

/** What a turn deletion removed. */
export interface TurnDeleteResult {
  /** Every turn version removed: the one named, all below it, and history nothing needs any more. */
  deleted: TurnRef[];
  /** The session's head afterwards. */
  head: TurnRef | null;
  /** Blobs whose bytes were freed. */
  releasedBlobs: string[];
}

export const turnDelete = defineCommand({
  type: 'turn:delete',
  description: 'Removes a turn version and everything below it, releasing their blobs; refused while another session needs them.',
  payload: z.strictObject({ sessionId: Id, turnId: Id, version: z.number().int().nonnegative() }),
  reduce(payload, ctx) {
    const { index } = ctx;
    const session = requireSession(index, payload.sessionId);
    const target = requireVisible(ctx, session, { id: payload.turnId, version: payload.version });
    const doomed = subtree(index, target);
    for (const turn of doomed) {
      const owner = index.sessions.get(turn.sessionId);
      const other = [...index.headsAt(turn)].find((id) => id !== session.id) ?? (owner !== undefined && owner.id !== session.id ? owner.id : undefined);
      if (other !== undefined) {
        throw fail('TURN_SHARED', `turn "${turn.id}" version ${turn.version} is in the history of session "${other}"; delete or move that session first`, {
          turnId: turn.id,
          version: turn.version,
          sessionId: other,
        });
      }
    }
    const deleted = new Set(doomed.map(turnKey));
    let head = session.head;
    if (head !== null && deleted.has(turnKey(head))) {
      const siblings = (index.node(target.id)?.versions ?? []).filter((t) => t.version !== target.version);
      const fallback = siblings.filter((t) => t.version < target.version).at(-1) ?? siblings[0];
      head = fallback !== undefined ? latestLeaf(index, refOf(fallback), session.id) : target.parent;
    }
    sweep(index, [target.id, ...(target.parent === null ? [] : [target.parent.id])], deleted, {
      isLive: (id) => index.sessions.has(id),
      isPinned: (ref) => sameRef(ref, head) || [...index.headsAt(ref)].some((id) => id !== session.id),
    });
    const extra = sameRef(head, session.head) ? [] : [putSession({ ...session, head, updatedAt: ctx.now })];
    return removal(ctx, deleted, extra, head);
  },
});

/** The change that removes a set of turns and releases their blobs. */
export function removal(
  ctx: ReducerContext,
  deleted: ReadonlySet<string>,
  extra: Write[],
  head: TurnRef | null,
): { writes: Write[]; result: TurnDeleteResult; effects: Effect[] } {
  const delta = new Map<string, number>();
  const removed = removeTurns(ctx.index, deleted, delta);
  const blobs = applyBlobDelta(ctx, delta);
  return {
    writes: [...extra, ...removed.writes, ...blobs.writes],
    result: { deleted: removed.refs, head, releasedBlobs: blobs.released },
    effects: blobs.effects,
  };
}
