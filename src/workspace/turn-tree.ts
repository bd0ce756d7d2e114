/**
 * Reads and plans over the turn DAG held by the index (the `TurnTree` of seed 001):
 * ancestry walks, version switching, visibility of a turn to a session, and which
 * turns a deletion removes.
 */
import { turnKey, type Session, type Turn, type TurnRef } from './records.js';
import type { WorkspaceView } from './workspace-index.js';

/** The turns from the root to `head`, root first (the transcript). */
export function pathTo(index: WorkspaceView, head: TurnRef | null): Turn[] {
  const path: Turn[] = [];
  for (const turn of ancestry(index, head)) path.push(turn);
  return path.reverse();
}

/** `ref` and its ancestors, nearest first. */
export function* ancestry(index: WorkspaceView, ref: TurnRef | null): Generator<Turn> {
  let at = ref;
  let steps = 0;
  while (at !== null) {
    const turn = index.turn(at);
    if (turn === undefined) return;
    yield turn;
    at = turn.parent;
    if (++steps > index.turns.size) return; // only a corrupt store could loop; the invariants report it
  }
}

/** The version of node `nodeId` on the path ending at `head`, or undefined when the node is not on it. */
export function versionOnPath(index: WorkspaceView, head: TurnRef | null, nodeId: string): number | undefined {
  for (const turn of ancestry(index, head)) if (turn.id === nodeId) return turn.version;
  return undefined;
}

/** Whether `target` is `from` or one of its ancestors. */
export function isAncestorOrSelf(index: WorkspaceView, target: TurnRef, from: TurnRef | null): boolean {
  const key = turnKey(target);
  for (const turn of ancestry(index, from)) if (turnKey(turn) === key) return true;
  return false;
}

/**
 * Whether a turn belongs to a session: it was created there, or lies in the history
 * the session stands on (an ancestor of its head or of any turn it created).
 */
export function isVisible(index: WorkspaceView, session: Session, ref: TurnRef): boolean {
  const turn = index.turn(ref);
  if (turn === undefined) return false;
  if (turn.sessionId === session.id) return true;
  if (isAncestorOrSelf(index, ref, session.head)) return true;
  for (const key of index.entriesOf(session.id)) {
    const entry = index.turns.get(key);
    if (entry?.parent != null && isAncestorOrSelf(index, ref, entry.parent)) return true;
  }
  return false;
}

/**
 * The leaf reached from `ref` by always stepping to the newest child version that
 * `sessionId` created: where a session's timeline continues below a version.
 */
export function latestLeaf(index: WorkspaceView, ref: TurnRef, sessionId: string): TurnRef {
  let at = ref;
  for (;;) {
    let next: Turn | undefined;
    for (const childId of index.childrenOf(at)) {
      for (const version of index.node(childId)?.versions ?? []) {
        if (version.sessionId === sessionId && (next === undefined || version.seq > next.seq)) next = version;
      }
    }
    if (next === undefined) return at;
    at = { id: next.id, version: next.version };
  }
}

/** `ref` and every turn version below it. */
export function subtree(index: WorkspaceView, ref: TurnRef): Turn[] {
  const root = index.turn(ref);
  if (root === undefined) return [];
  const out: Turn[] = [root];
  for (let i = 0; i < out.length; i++) {
    const at = out[i] as Turn;
    for (const childId of index.childrenOf(at)) out.push(...(index.node(childId)?.versions ?? []));
  }
  return out;
}

/** The seed's branch info for a node, as seen from a session's head. */
export interface BranchInfo {
  /** Every version number of the node, ascending. */
  versions: number[];
  /** Index in `versions` of the version on the session's path (the newest when the node is off the path). */
  currentIndex: number;
  total: number;
  hasPrev: boolean;
  hasNext: boolean;
}

export function branchInfo(index: WorkspaceView, head: TurnRef | null, nodeId: string): BranchInfo | undefined {
  const node = index.node(nodeId);
  if (node === undefined) return undefined;
  const versions = node.versions.map((t) => t.version);
  const current = versionOnPath(index, head, nodeId);
  const currentIndex = current === undefined ? versions.length - 1 : versions.indexOf(current);
  return {
    versions,
    currentIndex,
    total: versions.length,
    hasPrev: currentIndex > 0,
    hasNext: currentIndex < versions.length - 1,
  };
}

/** What decides whether history is still needed while a change is planned. */
export interface SweepRules {
  /** Whether the session is alive after the change. */
  isLive(sessionId: string): boolean;
  /** Whether a live session's head is at `ref` after the change. */
  isPinned(ref: TurnRef): boolean;
  /** Nodes the change itself keeps (the node it adds a version to, the parent it adds a child under). */
  keepNodes?: ReadonlySet<string>;
}

/**
 * Garbage collection of the DAG, node by node. Starting from the nodes in `start`, marks
 * in `deleted` every version of each node that nothing needs any more, then looks at the
 * parent node. A node is needed while one of its versions was created by a live session,
 * is a live head, or has a remaining child; all its versions stay then, so they can still
 * be switched to. Returns `deleted`.
 */
export function sweep(index: WorkspaceView, start: Iterable<string>, deleted: Set<string>, rules: SweepRules): Set<string> {
  const stack = [...start];
  const needs = (turn: Turn): boolean => {
    if (rules.isLive(turn.sessionId) || rules.isPinned(turn)) return true;
    for (const childId of index.childrenOf(turn)) {
      for (const version of index.node(childId)?.versions ?? []) if (!deleted.has(turnKey(version))) return true;
    }
    return false;
  };
  while (stack.length > 0) {
    const node = index.node(stack.pop() as string);
    if (node === undefined || rules.keepNodes?.has(node.id)) continue;
    const remaining = node.versions.filter((t) => !deleted.has(turnKey(t)));
    if (remaining.length === 0 || remaining.some(needs)) continue;
    for (const turn of remaining) deleted.add(turnKey(turn));
    if (node.parent !== null) stack.push(node.parent.id);
  }
  return deleted;
}
