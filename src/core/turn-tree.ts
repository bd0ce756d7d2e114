/**
 * Reads and plans over the turn DAG held by the index (the `TurnTree` of seed 001):
 * ancestry walks, what a session can see, version switching, and which turns a
 * deletion removes.
 *
 * What a session sees: the turns it created, the history it was forked from (the fork
 * point and its ancestors), and the history its merge turns brought in (each `merge.from`
 * and its ancestors); ancestors through both parents of every merge turn on the way.
 * Nothing else: another session's later turns and versions stay private to it. Every
 * head move keeps the head inside that view, so the view is closed under ancestry.
 *
 * The transcript's spine (`pathTo`, `ancestry`) follows first parents only: a merge turn
 * stands on it, and the prompt shows what it merged (prompt/transcript.ts).
 */
import { turnKey, type Session, type Turn, type TurnRef } from './records.js';
import type { WorkspaceView } from './workspace-index.js';

/** The turns from the root to `head`, root first (the transcript). */
export function pathTo(index: WorkspaceView, head: TurnRef | null): Turn[] {
  // A plain loop (no generator): this walk is on the prompt's hot path.
  const path: Turn[] = [];
  const limit = index.turns.size;
  for (let at = head === null ? undefined : index.turn(head); at !== undefined && path.length <= limit; at = index.parentOf(at)) {
    path.push(at);
  }
  return path.reverse();
}

/** How many turns the path from the root to `head` has (what `pathTo(...).length` says, without building the path). */
export function pathLength(index: WorkspaceView, head: TurnRef | null): number {
  let n = 0;
  const limit = index.turns.size;
  for (let at = head === null ? undefined : index.turn(head); at !== undefined && n <= limit; at = index.parentOf(at)) n++;
  return n;
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

/**
 * The parents of a turn: its first parent (`parent`, the transcript's spine) and, for a
 * merge turn, the turn it merged from. Empty for a root.
 */
export function parentsOf(turn: Turn): TurnRef[] {
  const parents: TurnRef[] = [];
  if (turn.parent !== null) parents.push(turn.parent);
  if (turn.merge !== undefined) parents.push(turn.merge.from);
  return parents;
}

/**
 * `ref` and every turn it descends from through either parent (a merge turn's two), each
 * once, as far as the index holds them; keyed by `id@version`.
 */
export function allAncestors(index: WorkspaceView, ref: TurnRef | null): Map<string, Turn> {
  const found = new Map<string, Turn>();
  walkAncestors(index, [ref], (turn) => void found.set(turnKey(turn), turn));
  return found;
}

/**
 * Walks `starts` and every turn they descend from, through both parents, each turn once.
 * `visit` sees each turn found; returning false stops the walk going above it. Returns
 * the first turn the index lacks (its history is not all in memory), else undefined.
 */
export function walkAncestors(index: WorkspaceView, starts: Iterable<TurnRef | null>, visit?: (turn: Turn) => boolean | void): TurnRef | undefined {
  const seen = new Set<string>();
  const stack = [...starts].filter((ref) => ref !== null);
  while (stack.length > 0) {
    const at = stack.pop() as TurnRef;
    const key = turnKey(at);
    if (seen.has(key)) continue;
    seen.add(key);
    const turn = index.turn(at);
    if (turn === undefined) return at;
    if (visit?.(turn) !== false) stack.push(...parentsOf(turn));
  }
  return undefined;
}

/**
 * Where a session's history reaches beyond the turns it created: its fork point, and the
 * turn each of its merge turns merged from.
 */
export function historyStarts(index: WorkspaceView, session: Session): TurnRef[] {
  const starts: TurnRef[] = session.forkedFrom === null ? [] : [session.forkedFrom.turn];
  for (const key of index.mergesIn(session.id)) {
    const from = index.turns.get(key)?.merge?.from;
    if (from !== undefined) starts.push(from);
  }
  return starts;
}

/**
 * The nearest common ancestor of two turns, following both parents of merge turns: of the
 * turns both descend from (each counts as its own ancestor), the newest (highest seq; no
 * other common ancestor descends from it). Null when either is null or they share none.
 */
export function commonAncestor(index: WorkspaceView, a: TurnRef | null, b: TurnRef | null): TurnRef | null {
  if (a === null || b === null) return null;
  const ofA = allAncestors(index, a);
  let best: Turn | undefined;
  for (const [key, turn] of allAncestors(index, b)) {
    if (ofA.has(key) && (best === undefined || turn.seq > best.seq)) best = turn;
  }
  return best === undefined ? null : { id: best.id, version: best.version };
}

/** The version of node `nodeId` on the path ending at `head`, or undefined when the node is not on it. */
export function versionOnPath(index: WorkspaceView, head: TurnRef | null, nodeId: string): number | undefined {
  for (const turn of ancestry(index, head)) if (turn.id === nodeId) return turn.version;
  return undefined;
}

/** What one session can see of the DAG. Build one per command: it caches the fork ancestry. */
export class SessionView {
  readonly session: Session;
  readonly #index: WorkspaceView;
  #inherited: Set<string> | undefined;

  constructor(index: WorkspaceView, session: Session) {
    this.#index = index;
    this.session = session;
  }

  /** Whether the session can see (and so edit, branch from, fork at, move its head to) this turn. */
  sees(ref: TurnRef): boolean {
    const turn = this.#index.turn(ref);
    if (turn === undefined) return false;
    if (turn.sessionId === this.session.id) return true;
    this.#inherited ??= this.#inheritedKeys();
    return this.#inherited.has(turnKey(ref));
  }

  /** The keys of the turns the session sees without having created them: its fork ancestry and what its merges brought in. */
  #inheritedKeys(): Set<string> {
    const index = this.#index;
    const forkPoint = this.session.forkedFrom?.turn ?? null;
    const merges = index.mergesIn(this.session.id);
    // The common case, no merge anywhere: the fork point's first-parent ancestry.
    const spine = [...ancestry(index, forkPoint)];
    if (merges.size === 0 && spine.every((t) => t.merge === undefined)) return new Set(spine.map(turnKey));
    const keys = new Set<string>();
    walkAncestors(index, historyStarts(index, this.session), (turn) => void keys.add(turnKey(turn)));
    return keys;
  }

  /** The versions of a node the session can see, ascending. */
  versions(nodeId: string): Turn[] {
    return (this.#index.node(nodeId)?.versions ?? []).filter((t) => this.sees(t));
  }

  /** The version of a node the session is on (on its path), else the newest it can see. */
  currentVersion(nodeId: string): Turn | undefined {
    const onPath = versionOnPath(this.#index, this.session.head, nodeId);
    const versions = this.versions(nodeId);
    return versions.find((t) => t.version === onPath) ?? versions.at(-1);
  }

  /**
   * Where the session's timeline continues below `ref`: always stepping to the newest
   * child version it can see.
   */
  latestLeaf(ref: TurnRef): TurnRef {
    let at = ref;
    for (;;) {
      let next: Turn | undefined;
      for (const childId of this.#index.childrenOf(at)) {
        for (const version of this.#index.node(childId)?.versions ?? []) {
          if ((next === undefined || version.seq > next.seq) && this.sees(version)) next = version;
        }
      }
      if (next === undefined) return at;
      at = { id: next.id, version: next.version };
    }
  }

  /** The seed's branch info for a node, as this session sees it. */
  branchInfo(nodeId: string): BranchInfo | undefined {
    const versions = this.versions(nodeId).map((t) => t.version);
    if (versions.length === 0) return undefined;
    const current = this.currentVersion(nodeId)?.version;
    const currentIndex = current === undefined ? versions.length - 1 : versions.indexOf(current);
    return { versions, currentIndex, total: versions.length, hasPrev: currentIndex > 0, hasNext: currentIndex < versions.length - 1 };
  }
}

/** The seed's branch info: the versions of a turn a session can see and which one it is on. */
export interface BranchInfo {
  /** Every version number the session can see, ascending. */
  versions: number[];
  /** Index in `versions` of the version on the session's path (the newest when the node is off the path). */
  currentIndex: number;
  total: number;
  hasPrev: boolean;
  hasNext: boolean;
}

/** `ref` and every turn version below it. */
export function subtree(index: WorkspaceView, ref: TurnRef): Turn[] {
  const root = index.turn(ref);
  if (root === undefined) return [];
  const out: Turn[] = [root];
  for (let i = 0; i < out.length; i++) {
    for (const childId of index.childrenOf(out[i] as Turn)) out.push(...(index.node(childId)?.versions ?? []));
  }
  return out;
}

/** What decides whether a turn is still needed while a deletion is planned. */
export interface SweepRules {
  /** Whether the session is alive after the change. */
  isLive(sessionId: string): boolean;
  /** Whether a live session's head or fork point is at `ref` after the change. */
  isPinned(ref: TurnRef): boolean;
}

/**
 * Garbage collection of the DAG. Starting from `start`, marks in `deleted` every turn
 * version that no live session can see any more (not created by a live session, not a
 * live head or fork point, no remaining child, no remaining merge turn that merged from
 * it), walking up to both parents as children go. Returns `deleted`.
 */
export function sweep(index: WorkspaceView, start: Iterable<Turn>, deleted: Set<string>, rules: SweepRules): Set<string> {
  const stack = [...start];
  const needed = (turn: Turn): boolean => {
    if (rules.isLive(turn.sessionId) || rules.isPinned(turn)) return true;
    for (const childId of index.childrenOf(turn)) {
      for (const version of index.node(childId)?.versions ?? []) if (!deleted.has(turnKey(version))) return true;
    }
    for (const key of index.mergedInto(turn)) if (!deleted.has(key)) return true;
    return false;
  };
  while (stack.length > 0) {
    const turn = stack.pop() as Turn;
    const key = turnKey(turn);
    if (deleted.has(key) || needed(turn)) continue;
    deleted.add(key);
    for (const ref of parentsOf(turn)) {
      const parent = index.turn(ref);
      if (parent !== undefined) stack.push(parent);
    }
  }
  return deleted;
}
