/** How a worker's run ended, as its caller (or its parent worker) reads it. */
import type { JsonValue } from '../../core/blocks.js';
import type { GolemError } from '../../core/errors.js';
import type { Turn } from '../../core/records.js';
import type { AIResponse } from '../../protocol/types.js';
import type { ApprovalRecord } from '../agent-records.js';

/** How a run ended. */
export interface WorkerOutcome {
  /**
   * 'error': the model call failed, or (envelope mode) kept answering outside the schema;
   * the error is here, and what was done before it stands. 'question': a sub-worker asked
   * its parent (`question`). 'paused': a supervised call waits for `approval` and there is
   * nobody to ask now. 'failed': (envelope mode) the model decided ABORT. 'aborted': the
   * caller's signal stopped the run.
   */
  status: 'done' | 'step_limit' | 'aborted' | 'error' | 'question' | 'paused' | 'failed';
  /** Envelope mode: the model's last decision (its message is the answer, or why it gave up). */
  decision?: AIResponse['decision'];
  error?: GolemError;
  question?: string;
  approval?: ApprovalRecord;
  /** Model calls made. */
  steps: number;
  /** Actions run (or refused), in order. */
  actions: { name: string; input: JsonValue; ok: boolean }[];
  /** The last assistant turn. */
  turn: Turn | undefined;
}

/** What a run answered: the envelope's final message, else the last answer's text. */
export function answerText(outcome: WorkerOutcome): string {
  return outcome.decision?.message ?? finalText(outcome.turn);
}

function finalText(turn: Turn | undefined): string {
  return (
    (turn?.blocks ?? [])
      .flatMap((b) => (b.type === 'text' ? [b.text] : []))
      .join('\n')
      .trim() || '(no answer text)'
  );
}
