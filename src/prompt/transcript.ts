/**
 * Stage 1 of the prompt pipeline: the ancestry walk, with the turns merge turns bring in
 * and summaries standing in for the turns they summarise, grouped so a tool call is never
 * separated from its result.
 */
import type { SummaryBlock } from '../core/blocks.js';
import { branchName, type MergedBranch } from '../core/commands/index.js';
import { turnKey, type MergeMode, type Turn, type TurnRef } from '../core/records.js';
import { ancestry, pathTo } from '../core/turn-tree.js';
import type { WorkspaceView } from '../core/workspace-index.js';

/** A merge turn of the transcript and the turns it brings in (for `summary`, the turns its summary stands for). */
export interface TranscriptMerge {
  turn: TurnRef;
  from: TurnRef;
  as: MergeMode;
  turns: TurnRef[];
}

/** The transcript the prompt is built from. */
export interface TranscriptSnapshot {
  /**
   * Turns in order, root first, without the ones a summary replaces. Before a merge turn
   * merged `as: 'turns'` come a note naming the branch (a stand-in of the merge turn,
   * `meta.mergeNote`) and that branch's turns since the common ancestor, each marked
   * `meta.merged: { into, sessionId }`.
   */
  turns: Turn[];
  /** The summaries in force, oldest first. */
  summaries: { turn: TurnRef; text: string; summarizes: TurnRef[] }[];
  /** The merge turns of the transcript, oldest first, with what each brought in (absent: none). */
  merges?: TranscriptMerge[];
}

export function transcriptSnapshot(view: WorkspaceView, head: TurnRef | null): TranscriptSnapshot {
  const spine = pathTo(view, head);
  const merges: TranscriptMerge[] = [];
  const path = spine.some((t) => t.merge !== undefined) ? withMerged(view, spine, merges) : spine;
  const replaced = new Set<string>();
  const summaries: TranscriptSnapshot['summaries'] = [];
  let structural = false;
  for (const turn of path) {
    // The merged branch's own summaries covered history both branches share: they do not stand in here.
    if (turn.meta.merged !== undefined) continue;
    for (const block of turn.blocks) {
      if (block.type === 'role:transition') structural = true;
      if (block.type !== 'summary') continue;
      structural = true;
      summaries.push({ turn: { id: turn.id, version: turn.version }, text: (block as SummaryBlock).text, summarizes: block.summarizes });
      for (const ref of block.summarizes) replaced.add(turnKey(ref));
    }
  }
  if (!structural) return { turns: path, summaries, merges };
  const turns = path.filter((t) => !replaced.has(turnKey(t)) && !t.blocks.every((b) => b.type === 'summary' || b.type === 'role:transition'));
  // A later summary that covers an earlier one (a rolling summary) supersedes it.
  return { turns, summaries: summaries.filter((s) => !replaced.has(turnKey(s.turn))), merges };
}

/**
 * The spine with what its merge turns bring in: before a merge turn `as: 'turns'`, a note
 * naming the branch and that branch's turns since it parted (the first-parent run up from
 * `merge.from` to the first turn already shown or its base), marked as merged, merges
 * among them opened in turn. A merge `as: 'summary'` shows only itself (its summary).
 */
function withMerged(view: WorkspaceView, spine: readonly Turn[], merges: TranscriptMerge[]): Turn[] {
  const shown = new Set(spine.map(turnKey));
  const out: Turn[] = [];
  const expand = (turns: readonly Turn[], into: Turn | undefined) => {
    for (const turn of turns) {
      if (turn.merge !== undefined) {
        const { from, base } = turn.merge;
        const section: Turn[] = [];
        for (const t of ancestry(view, from)) {
          const key = turnKey(t);
          if (shown.has(key) || (base !== null && key === turnKey(base))) break;
          section.push(t);
        }
        section.reverse();
        for (const t of section) shown.add(turnKey(t));
        merges.push({ turn: { id: turn.id, version: turn.version }, from, as: turn.merge.as, turns: section.map((t) => ({ id: t.id, version: t.version })) });
        if (turn.merge.as === 'turns' && section.length > 0) {
          out.push(mergeNote(turn, section.length, view));
          expand(section, turn);
        }
      }
      out.push(into === undefined ? turn : mergedStandIn(turn, into));
    }
  };
  expand(spine, undefined);
  return out;
}

/** Stand-ins are made once per turn: token counts cached per turn object hold across prompts. */
const mergedStandIns = new WeakMap<Turn, Turn>();
const mergeNotes = new WeakMap<Turn, Turn>();

/** A turn of a merged branch as the transcript shows it: marked with the merge turn it came in by. */
function mergedStandIn(turn: Turn, into: Turn): Turn {
  let standIn = mergedStandIns.get(turn);
  if (standIn === undefined) {
    standIn = { ...turn, meta: { ...turn.meta, merged: { into: { id: into.id, version: into.version }, sessionId: turn.sessionId } } };
    mergedStandIns.set(turn, standIn);
  }
  return standIn;
}

/** The note before a merged branch's turns: a stand-in of the merge turn, naming the branch and how many turns follow. */
function mergeNote(merge: Turn, count: number, view: WorkspaceView): Turn {
  let note = mergeNotes.get(merge);
  if (note === undefined) {
    const name = branchName(mergedBranchOf(merge, view), merge.sessionId);
    const text =
      count === 1
        ? `The next turn comes from ${name}, which parted from this conversation earlier; it is merged into this conversation here.`
        : `The next ${count} turns come from ${name}, which parted from this conversation earlier; they are merged into this conversation here.`;
    note = { ...merge, blocks: [{ type: 'text', text }], meta: { mergeNote: true } };
    mergeNotes.set(merge, note);
  }
  return note;
}

/** The branch a merge turn names (`meta.mergedBranch`, written by turn:merge), else the session of the turn it merged. */
function mergedBranchOf(merge: Turn, view: WorkspaceView): MergedBranch {
  const kept = merge.meta.mergedBranch as { sessionId?: unknown; label?: unknown } | undefined;
  if (typeof kept?.sessionId === 'string') return { sessionId: kept.sessionId, label: typeof kept.label === 'string' ? kept.label : null };
  const sessionId = (merge.merge && view.turn(merge.merge.from)?.sessionId) ?? merge.sessionId;
  return { sessionId, label: view.sessions.get(sessionId)?.label ?? null };
}

/** The note an obsolete observation's block becomes in a prompt (short: it stays in every later prompt). */
export const SUPERSEDED_NOTE = '(left out: a newer observation follows)';

/**
 * Observations made obsolete: a turn whose `meta.observation` is `{ key, block, view? }` (a
 * page snapshot, recorded by the worker) has that block replaced by a short note when a later
 * turn holds an observation of the same key that shows the whole (no `view`) or the same view.
 * A view (a page of a snapshot, a query, the changes since an earlier one) makes obsolete only
 * older ones of its view: asking for page 2 leaves page 1 in the prompt. The turn itself stays
 * in the graph, whole.
 */
export function supersede(turns: Turn[]): { turns: Turn[]; superseded: number } {
  const whole = new Set<string>();
  const views = new Set<string>();
  let out: Turn[] | undefined;
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i] as Turn;
    const observation = observationOf(turn);
    if (observation === undefined) continue;
    const { key, view } = observation;
    const obsolete = whole.has(key) || (view !== undefined && views.has(`${key}\u0000${view}`));
    if (view === undefined) whole.add(key);
    else views.add(`${key}\u0000${view}`);
    if (!obsolete) continue;
    out ??= turns.slice();
    out[i] = withoutObservation(turn, observation.block);
  }
  return out === undefined ? { turns, superseded: 0 } : { turns: out, superseded: out.filter((t, i) => t !== turns[i]).length };
}

function observationOf(turn: Turn): { key: string; block: number; view?: string } | undefined {
  const o = turn.meta.observation as { key?: unknown; block?: unknown; view?: unknown } | undefined;
  if (o === undefined || o === null || typeof o.key !== 'string' || typeof o.block !== 'number') return undefined;
  if (turn.blocks[o.block]?.type !== 'text') return undefined;
  return { key: o.key, block: o.block, ...(typeof o.view === 'string' && { view: o.view }) };
}

/** Turns are immutable: each gets one stand-in, so token counts cached per turn object hold across prompts. */
const standIns = new WeakMap<Turn, Turn>();

function withoutObservation(turn: Turn, block: number): Turn {
  let standIn = standIns.get(turn);
  if (standIn === undefined) {
    standIn = { ...turn, blocks: turn.blocks.map((b, i) => (i === block ? { type: 'text' as const, text: SUPERSEDED_NOTE } : b)) };
    standIns.set(turn, standIn);
  }
  return standIn;
}

/**
 * Turns in units that are kept or dropped together: an assistant turn that calls tools
 * and the tool turns answering those calls.
 */
export function groupTurns(turns: readonly Turn[]): Turn[][] {
  const groups: Turn[][] = [];
  let open = new Set<string>();
  for (const turn of turns) {
    if (!turn.blocks.some((b) => b.type === 'tool_use' || b.type === 'tool_result')) {
      groups.push([turn]); // the common case, kept cheap
      open = new Set();
      continue;
    }
    // A call the provider ran itself is answered in the same turn: nothing waits for it.
    const calls = turn.blocks.flatMap((b) => (b.type === 'tool_use' && b.providerExecuted !== true ? [b.callId] : []));
    const answers = turn.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.callId] : []));
    const last = groups.at(-1);
    if (last !== undefined && answers.some((id) => open.has(id))) {
      last.push(turn);
      for (const id of answers) open.delete(id);
      for (const id of calls) open.add(id);
    } else {
      groups.push([turn]);
      open = new Set(calls);
    }
  }
  return groups;
}
