/**
 * Stage 1 of the prompt pipeline: the ancestry walk, with summaries standing in for the
 * turns they summarise, grouped so a tool call is never separated from its result.
 */
import type { SummaryBlock } from '../content/blocks.js';
import { turnKey, type Turn, type TurnRef } from '../workspace/records.js';
import { pathTo } from '../workspace/turn-tree.js';
import type { WorkspaceView } from '../workspace/workspace-index.js';

/** The transcript the prompt is built from. */
export interface Snapshot {
  /** Turns in order, root first, without the ones a summary replaces. */
  turns: Turn[];
  /** The summaries in force, oldest first. */
  summaries: { turn: TurnRef; text: string; summarizes: TurnRef[] }[];
}

export function snapshot(view: WorkspaceView, head: TurnRef | null): Snapshot {
  const path = pathTo(view, head);
  const replaced = new Set<string>();
  const summaries: Snapshot['summaries'] = [];
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
    const calls = turn.blocks.flatMap((b) => (b.type === 'tool_use' ? [b.callId] : []));
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
