/**
 * A part of a command line judged: its risk and why, and the judge the rules call back for what
 * a program runs in turn (a command line, words, variables set).
 */
import type { Risk } from '../action/approval.js';
import type { ShellWord } from './shell-words.js';

/** One part's risk and why; `tag` marks a download or an interpreter (together: code downloaded and run). */
export interface Verdict {
  risk: Risk;
  reason: string;
  tag?: 'download' | 'interpreter';
}

/** Judges what a program runs in turn, knowing what it reads on its input. */
export interface Judge {
  /** A command line (bash -c, eval, watch). */
  line(text: string): Verdict;
  /** A simple command's words, assignments first (find -exec, xargs, nice). */
  words(words: ShellWord[]): Verdict;
  /** The text the command reads on its standard input, when the line spells it (<<<, a heredoc, echo ... |). */
  readonly input: string | undefined;
}

const RANK: Record<Risk, number> = { low: 0, medium: 1, unknown: 2, high: 3 };

/** What only reads. */
export const READS: Verdict = { risk: 'low', reason: 'only reads' };

/** The riskiest of the verdicts, with the reasons of all at that level (low when there are none). */
export function worst(verdicts: Verdict[]): Verdict {
  let top: Verdict = READS;
  for (const v of verdicts) if (RANK[v.risk] > RANK[top.risk]) top = v;
  const reasons = [...new Set(verdicts.filter((v) => v.risk === top.risk).flatMap((v) => v.reason.split('; ')))];
  return { risk: top.risk, reason: reasons.length === 0 ? top.reason : reasons.join('; ') };
}

/** A verdict at that risk, with its reason. */
export const low = (reason: string): Verdict => ({ risk: 'low', reason });
/** A verdict at that risk, with its reason. */
export const medium = (reason: string): Verdict => ({ risk: 'medium', reason });
/** A verdict at that risk, with its reason. */
export const high = (reason: string): Verdict => ({ risk: 'high', reason });
/** A verdict at that risk, with its reason. */
export const unknown = (reason: string): Verdict => ({ risk: 'unknown', reason });
/** At least medium: the verdict of what it runs, raised to medium with this reason. */
export const atLeastMedium = (reason: string, inner: Verdict): Verdict => worst([medium(reason), inner]);
