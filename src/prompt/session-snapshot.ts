/**
 * Seed 001's read names for a session: `session.turns()` (the turn nodes it sees, to find
 * an id and version to edit) and `session.snapshot()` (its record, path, stage 1 of the
 * prompt pipeline and the branch info of the path, read at one moment).
 */
import { fail } from '../core/errors.js';
import type { Session as SessionRecord, Turn, TurnRef } from '../core/records.js';
import { historyStarts, SessionView, walkAncestors, type BranchInfo } from '../core/turn-tree.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import type { TranscriptSnapshot } from './transcript.js';

/** What `session.turns()` lists. */
export interface TurnsOptions {
  /**
   * `'current'` (default): each turn node the session sees once, at the version it is on
   * (the one on its path, else the newest it sees). `'all'`: every version it sees.
   */
  versions?: 'current' | 'all';
}

/** A session read at one moment: nothing in it changes afterwards (it is frozen). */
export interface SessionSnapshot {
  /** The session's record. */
  readonly session: SessionRecord;
  /** The current leaf of its timeline, or null while it is empty. */
  readonly head: TurnRef | null;
  /** The turns from the root to the head (what `session.transcript()` returns). */
  readonly path: readonly Turn[];
  /**
   * Stage 1 of the prompt pipeline (seed 001 section 6.1, the workspace's own snapshot stage):
   * the turns a prompt is made of, summaries standing in for what they replace, merged branches shown.
   */
  readonly transcript: TranscriptSnapshot;
  /** The branch info of every turn on the path, by turn id: the versions the session sees and which one it is on. */
  readonly branches: Readonly<Record<string, BranchInfo>>;
}

/** The turn nodes a session sees (its own, its fork history, what its merges brought in), oldest first. */
export function sessionTurns(view: WorkspaceView, session: SessionRecord, options: TurnsOptions = {}): Turn[] {
  const versions = options?.versions ?? 'current';
  if (versions !== 'current' && versions !== 'all') {
    throw fail('INVALID_ARGUMENT', `versions is 'current' or 'all', not ${JSON.stringify(versions)}`, { versions: String(versions) });
  }
  const nodeIds = new Set<string>();
  for (const key of view.createdIn(session.id)) {
    const turn = view.turns.get(key);
    if (turn !== undefined) nodeIds.add(turn.id);
  }
  walkAncestors(view, historyStarts(view, session), (turn) => void nodeIds.add(turn.id));
  const seen = new SessionView(view, session);
  if (versions === 'all') return [...nodeIds].flatMap((id) => seen.versions(id)).sort(bySeq);
  // Nodes in the order they were started (their first version's place), each at its current version.
  const nodes = [...nodeIds].flatMap((id) => {
    const all = seen.versions(id);
    const current = seen.currentVersion(id);
    return all[0] === undefined || current === undefined ? [] : [{ first: all[0], current }];
  });
  return nodes.sort((a, b) => bySeq(a.first, b.first)).map((n) => n.current);
}

function bySeq(a: Turn, b: Turn): number {
  return a.seq - b.seq || a.id.localeCompare(b.id) || a.version - b.version;
}

/** The session's snapshot, from its record, its path and its transcript snapshot, frozen. */
export function sessionSnapshot(view: WorkspaceView, session: SessionRecord, path: Turn[], transcript: TranscriptSnapshot): SessionSnapshot {
  const seen = new SessionView(view, session);
  const branches: Record<string, BranchInfo> = {};
  for (const turn of path) {
    const info = seen.branchInfo(turn.id);
    if (info !== undefined) branches[turn.id] = Object.freeze({ ...info, versions: Object.freeze(info.versions) as number[] });
  }
  return Object.freeze({
    session,
    head: session.head,
    path: Object.freeze(path),
    transcript: Object.freeze({ ...transcript, turns: Object.freeze(transcript.turns) as Turn[] }),
    branches: Object.freeze(branches),
  });
}
