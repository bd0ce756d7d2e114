/**
 * Stage 1 of the prompt pipeline: the ancestry walk, with summaries standing in for the
 * turns they summarise, grouped so a tool call is never separated from its result.
 */
import type { SummaryBlock } from '../core/blocks.js';
import { turnKey, type Turn, type TurnRef } from '../core/records.js';
import { pathTo } from '../core/turn-tree.js';
import type { WorkspaceView } from '../core/workspace-index.js';

/** The transcript the prompt is built from. */
export interface TranscriptSnapshot {
  /** Turns in order, root first, without the ones a summary replaces. */
  turns: Turn[];
  /** The summaries in force, oldest first. */
  summaries: { turn: TurnRef; text: string; summarizes: TurnRef[] }[];
}

export function transcriptSnapshot(view: WorkspaceView, head: TurnRef | null): TranscriptSnapshot {
  const path = pathTo(view, head);
  const replaced = new Set<string>();
  const summaries: TranscriptSnapshot['summaries'] = [];
  let structural = false;
  for (const turn of path) {
    for (const block of turn.blocks) {
      if (block.type === 'role:transition') structural = true;
      if (block.type !== 'summary') continue;
      structural = true;
      summaries.push({ turn: { id: turn.id, version: turn.version }, text: (block as SummaryBlock).text, summarizes: block.summarizes });
      for (const ref of block.summarizes) replaced.add(turnKey(ref));
    }
  }
  if (!structural) return { turns: path, summaries };
  const turns = path.filter((t) => !replaced.has(turnKey(t)) && !t.blocks.every((b) => b.type === 'summary' || b.type === 'role:transition'));
  // A later summary that covers an earlier one (a rolling summary) supersedes it.
  return { turns, summaries: summaries.filter((s) => !replaced.has(turnKey(s.turn))) };
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
