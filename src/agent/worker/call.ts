/** One call the model asked for, and what came of it as it goes back to the model. */
import type { ContentBlock, JsonValue } from '../../core/blocks.js';
import type { Media, Observation } from '../../action/action.js';
import type { ApprovalRecord } from '../agent-plugin.js';

/** One call of an answer. */
export interface Call {
  /** The answer (turn version) that made the call. */
  turnId: string;
  turnVersion: number;
  callId: string;
  name: string;
  input: JsonValue;
  /**
   * The call was written in the answer's text in a mode whose results otherwise go back each
   * as it comes: its result goes back with the answer's others, so the run cannot pause on it.
   */
  together?: true;
}

/** The run ends after a call: with a question for the parent worker, or paused for an approval (the call has no result yet). */
export type CallStop = { status: 'question'; question: string } | { status: 'paused'; approval: ApprovalRecord };

/** One result of one requested action, as it goes back to the model. */
export interface ActionOutcome {
  name: string;
  input: JsonValue;
  ok: boolean;
  output: JsonValue;
  /** The part of the output a newer observation supersedes (it ends `output` too); `summary` is the rest. */
  observation?: Observation & { summary: string };
  /** It made or changed a clearance item. */
  staged?: boolean;
  /** The run ends after this call. */
  stop?: CallStop;
  /** Images the output carries (blobs), sent back to the model with the result. */
  media?: Media[];
  /** Blocks the result turn carries for people (a plan's `task:proposal`), not sent to the model. */
  blocks?: ContentBlock[];
}

/** The images a result carries, as blocks (their blobs are the workspace's). */
export function imagesOf(result: ActionOutcome): { type: 'image'; blob: { sha256: string }; mediaType: string }[] {
  return (result.media ?? []).map((m) => ({ type: 'image' as const, blob: { sha256: m.sha256 }, mediaType: m.mediaType }));
}

/** A value as JSON (an action's output, an approval's details); what is not JSON becomes a note saying so. */
export function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return typeof value === 'string' ? value : `(${typeof value} result that is not JSON)`;
  }
}
