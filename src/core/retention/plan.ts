/**
 * What a retention sweep removes from one session, decided on the index: the same pure
 * plan serves a dry run and the command that removes it. It reuses the deletion rules of
 * `session:delete` and `turn:delete` (`collect`, `sweep`), so a turn a kept session sees (its
 * path, a fork's ancestry, a merge's other parent) is never planned away.
 */
import { blobRefsOf } from '../blocks.js';
import { fail } from '../errors.js';
import { turnKey, type Session, type Turn } from '../records.js';
import { historyStarts, subtree, sweep, walkAncestors } from '../turn-tree.js';
import type { WorkspaceView } from '../workspace-index.js';
import { pinnedByOthers } from '../commands/kit.js';
import { turnsDeletedWith } from '../commands/session.js';
import type { RetentionHold } from './holds.js';
import type { TurnRetention } from './policy.js';

/** What one session's plan removes, or why it leaves the session alone. */
export type SessionPlan = { type: 'remove'; turns: string[]; more: boolean } | { type: 'held'; reasons: string[] } | { type: 'active' } | { type: 'gone' };

/** The session-wide holds' reasons (empty: nothing holds the whole session). */
export function wholeHolds(holds: readonly RetentionHold[]): string[] {
  return holds.filter((h) => h.turn === undefined).map((h) => h.reason);
}

/**
 * Deleting an idle session: refused while anything holds it or a turn it created (a pin
 * from a fork included), else every turn `session:delete` would remove.
 */
export function planDrop(view: WorkspaceView, session: Session, holds: readonly RetentionHold[], pinnedTurns: ReadonlySet<string>): SessionPlan {
  const created = view.createdIn(session.id);
  const reasons = [...holds.map((h) => h.reason), ...[...pinnedTurns].filter((key) => created.has(key)).map((key) => `turn ${key} is pinned`)];
  if (reasons.length > 0) return { type: 'held', reasons: [...new Set(reasons)] };
  return { type: 'remove', turns: [...turnsDeletedWith(view, session)], more: false };
}

/**
 * Trimming a kept session: the turn versions it created that the policy does not keep and
 * nothing else needs, at most `limit` of them, children before parents (a prefix of the
 * sweep's order, so a batch never leaves a turn whose parent it removed).
 */
export function planTrim(
  view: WorkspaceView,
  session: Session,
  keep: TurnRetention,
  holds: readonly RetentionHold[],
  pinnedTurns: ReadonlySet<string>,
  limit: number,
): SessionPlan {
  const reasons = wholeHolds(holds);
  if (reasons.length > 0) return { type: 'held', reasons };
  const kept = new Set<string>(pinnedTurns);
  for (const hold of holds) if (hold.turn !== undefined) kept.add(turnKey(hold.turn));
  const missing = walkAncestors(view, [session.head, ...historyStarts(view, session)], (turn) => void kept.add(turnKey(turn)));
  if (missing !== undefined) {
    throw fail('INTERNAL', `session "${session.id}": its history is not all in memory (${missing.id}@${missing.version} is missing)`, {
      sessionId: session.id,
    });
  }
  if (keep.keep === 'last') {
    let at = session.head === null ? undefined : view.turn(session.head);
    for (let n = 0; n < keep.count && at !== undefined; n++) {
      for (const version of view.node(at.id)?.versions ?? []) for (const turn of subtree(view, version)) kept.add(turnKey(turn));
      at = at.parent === null ? undefined : view.turn(at.parent);
    }
  }
  const candidates = [...view.createdIn(session.id)].filter((key) => !kept.has(key)).map((key) => view.turns.get(key) as Turn);
  // Children are added before their parents: a prefix of the order is a batch that can go alone.
  const doomed = sweep(view, candidates, new Set(), {
    isLive: (id) => id !== session.id && view.sessions.has(id),
    isPinned: (ref) => kept.has(turnKey(ref)) || pinnedByOthers(view, ref, session.id),
  });
  const turns = [...doomed];
  return { type: 'remove', turns: turns.slice(0, limit), more: turns.length > limit };
}

/** The bytes of the turns' records (as JSON), and the blobs only they reference, with each one's bytes. */
export function measure(view: WorkspaceView, keys: readonly string[]): { turnBytes: number; blobs: Map<string, number> } {
  let turnBytes = 0;
  const refs = new Map<string, number>();
  for (const key of keys) {
    const turn = view.turns.get(key);
    if (turn === undefined) continue;
    turnBytes += Buffer.byteLength(JSON.stringify(turn));
    for (const sha256 of blobRefsOf(turn.blocks)) refs.set(sha256, (refs.get(sha256) ?? 0) + 1);
  }
  const blobs = new Map<string, number>();
  for (const [sha256, n] of refs) {
    const blob = view.blobs.get(sha256);
    if (blob !== undefined && blob.refCount === n) blobs.set(sha256, blob.size);
  }
  return { turnBytes, blobs };
}
