/** The record of how a prompt was built, kept on the assistant turn as `meta.prompt`. */
import type { MergeMode, Turn, TurnRef } from '../core/records.js';
import type { PreferenceTier } from './instructions.js';

/** How a prompt was built: kept on the assistant turn as `meta.prompt`. */
export interface PromptRecord {
  /** The turns sent: a run of the transcript ending at the head. */
  turns: TurnRange;
  /** Turns left out to fit the budget: the run before them. */
  dropped: TurnRange;
  /** Turns a summary stands in for. */
  summarized: TurnRef[];
  /**
   * The merge turns sent, each with the turn it merged (`from`), how (`as`) and the turns
   * of the other branch it brought in: sent before it (`turns`), or stood for by its summary.
   */
  merged?: { turn: TurnRef; from: TurnRef; as: MergeMode; turns: TurnRef[] }[];
  /** A turn whose text was cut from the front to fit. */
  truncated: TurnRef | null;
  /** Observations (page snapshots) replaced by a note because a newer one of the same thing follows. */
  superseded?: number;
  context: { key: string; score: number; tokens: number }[];
  preferences: { id: string; tier: PreferenceTier }[];
  /** Preferences left out because the system instruction did not fit the budget with them (the weakest first). */
  preferencesLeftOut?: { id: string; tier: PreferenceTier }[];
  role: string | null;
  blobs: { sha256: string; as: 'inline' | 'fileId' }[];
  retriever: string;
  tokens: { system: number; tools: number; context: number; history: number; total: number; budget: number; reserve: number };
}

/** A run of consecutive transcript turns (kept compact: a long history is one range, not a list). */
export interface TurnRange {
  count: number;
  first: TurnRef | null;
  last: TurnRef | null;
}

/** The range of a run of turns: how many, the first and the last. */
export function rangeOf(turns: readonly Turn[]): TurnRange {
  const ref = (t: Turn | undefined) => (t === undefined ? null : { id: t.id, version: t.version });
  return { count: turns.length, first: ref(turns[0]), last: ref(turns.at(-1)) };
}
