/**
 * The invariants a workspace keeps after every command. Tests check them after each
 * step of random command sequences; a `golem doctor` can check them on a real workspace.
 */
import { blobRefsOf } from './blocks.js';
import type { BlobStorage } from './blob-storage.js';
import { turnKey, type Turn } from './records.js';
import { allAncestors, pathLength, SessionView, walkAncestors } from './turn-tree.js';
import type { WorkspaceView } from './workspace-index.js';

export interface InvariantViolation {
  code:
    | 'HEAD_MISSING'
    | 'HEAD_NOT_VISIBLE'
    | 'SESSION_LENGTH'
    | 'FORK_POINT_MISSING'
    | 'PARENT_MISSING'
    | 'PARENT_ORDER'
    | 'NODE_PARENT_MISMATCH'
    | 'MERGE_FROM_MISSING'
    | 'MERGE_BASE'
    | 'TURN_UNREACHABLE'
    | 'BLOB_UNREGISTERED'
    | 'BLOB_COUNT'
    | 'BLOB_FILE_MISSING'
    | 'ROLE_MISSING'
    | 'PREFERENCE_MISSING'
    /** doctor only: a stored record that does not match its schema. */
    | 'CORRUPT_RECORD';
  message: string;
}

/** Every violated invariant (an empty list when the workspace is sound). Pass blob storage to check the files too. */
export async function checkInvariants(view: WorkspaceView, blobStorage?: BlobStorage): Promise<InvariantViolation[]> {
  const out: InvariantViolation[] = [];
  const report = (code: InvariantViolation['code'], message: string) => out.push({ code, message });

  for (const session of view.sessions.values()) {
    if (session.head !== null && view.turn(session.head) === undefined)
      report('HEAD_MISSING', `session ${session.id}: head ${turnKey(session.head)} does not exist`);
    else if (session.head !== null && !new SessionView(view, session).sees(session.head)) {
      report('HEAD_NOT_VISIBLE', `session ${session.id}: head ${turnKey(session.head)} is neither its own turn nor in the history it was forked from`);
    }
    const length = session.length === undefined ? undefined : pathLength(view, session.head);
    if (length !== session.length) report('SESSION_LENGTH', `session ${session.id}: length ${session.length}, but its path has ${length} turns`);
    if (session.forkedFrom !== null && view.turn(session.forkedFrom.turn) === undefined) {
      report('FORK_POINT_MISSING', `session ${session.id}: fork point ${turnKey(session.forkedFrom.turn)} does not exist`);
    }
    if (session.role !== null && !view.roles.has(session.role)) report('ROLE_MISSING', `session ${session.id}: role ${session.role} does not exist`);
    for (const id of session.preferences) if (!view.preferences.has(id)) report('PREFERENCE_MISSING', `session ${session.id}: preference ${id} does not exist`);
  }
  for (const role of view.roles.values()) {
    for (const id of role.preferences) if (!view.preferences.has(id)) report('PREFERENCE_MISSING', `role ${role.name}: preference ${id} does not exist`);
  }

  const references = new Map<string, number>();
  for (const turn of view.turns.values()) {
    if (turn.parent !== null) {
      const parent = view.turn(turn.parent);
      if (parent === undefined) report('PARENT_MISSING', `turn ${turnKey(turn)}: parent ${turnKey(turn.parent)} does not exist`);
      else if (parent.seq > turn.seq) report('PARENT_ORDER', `turn ${turnKey(turn)}: parent ${turnKey(parent)} is not older`);
    }
    if (turn.merge !== undefined) checkMerge(view, turn, turn.merge, report);
    const first = view.node(turn.id)?.versions[0];
    if (first !== undefined && !sameParent(first, turn)) report('NODE_PARENT_MISMATCH', `turn ${turnKey(turn)}: versions of one node disagree on the parent`);
    for (const sha256 of blobRefsOf(turn.blocks)) references.set(sha256, (references.get(sha256) ?? 0) + 1);
  }

  // Every turn must be seen by a live session: created there, or an ancestor (through either parent) of its head, its fork
  // point or a turn it created.
  const alive = new Set<string>();
  const markAncestry = (start: Turn | undefined) => {
    if (start === undefined) return;
    walkAncestors(view, [start], (turn) => {
      const key = turnKey(turn);
      if (alive.has(key)) return false; // marked, with its ancestors
      alive.add(key);
      return true;
    });
  };
  for (const session of view.sessions.values()) {
    for (const ref of [session.head, session.forkedFrom?.turn ?? null]) if (ref !== null) markAncestry(view.turn(ref));
    for (const key of view.createdIn(session.id)) markAncestry(view.turns.get(key));
  }
  for (const [key, turn] of view.turns) {
    if (!alive.has(key)) report('TURN_UNREACHABLE', `turn ${key} (created in session ${turn.sessionId}) is seen by no live session`);
  }

  for (const [sha256, count] of references) {
    if (!view.blobs.has(sha256)) report('BLOB_UNREGISTERED', `blob ${sha256} is referenced ${count} times but not registered`);
  }
  const stored = blobStorage === undefined ? undefined : new Set(await blobStorage.list());
  for (const blob of view.blobs.values()) {
    const expected = blob.holds + (references.get(blob.sha256) ?? 0);
    if (blob.refCount !== expected) report('BLOB_COUNT', `blob ${blob.sha256}: refCount ${blob.refCount}, but holds + references = ${expected}`);
    if (stored !== undefined && !stored.has(blob.sha256)) report('BLOB_FILE_MISSING', `blob ${blob.sha256} is registered but its bytes are missing`);
  }
  return out;
}

/**
 * A merge turn's second parent exists and is older (with the first parent's order, this
 * rules out cycles), and its `base` is an ancestor of both parents.
 */
function checkMerge(
  view: WorkspaceView,
  turn: Turn,
  merge: NonNullable<Turn['merge']>,
  report: (code: InvariantViolation['code'], message: string) => void,
): void {
  const from = view.turn(merge.from);
  if (from === undefined) return void report('MERGE_FROM_MISSING', `merge turn ${turnKey(turn)}: the turn it merged, ${turnKey(merge.from)}, does not exist`);
  if (from.seq >= turn.seq) report('PARENT_ORDER', `merge turn ${turnKey(turn)}: the turn it merged, ${turnKey(from)}, is not older`);
  const base = merge.base === null ? undefined : turnKey(merge.base);
  if (base === undefined || !allAncestors(view, turn.parent).has(base) || !allAncestors(view, merge.from).has(base)) {
    report('MERGE_BASE', `merge turn ${turnKey(turn)}: its base ${base ?? 'null'} is not an ancestor of both its parents`);
  }
}

function sameParent(a: Turn, b: Turn): boolean {
  if (a.parent === null || b.parent === null) return a.parent === b.parent;
  return turnKey(a.parent) === turnKey(b.parent);
}
