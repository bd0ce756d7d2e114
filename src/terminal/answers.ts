/**
 * The answers to the terminal's questions: the approval prompt (y/n/a/s) and the
 * clearance prompt (push/discard/later), read from the line the user typed.
 */
import type { ApprovalResult, ClearanceDecision } from '../agent/ui-adapter.js';

/** The question asked for an approval. */
export const APPROVAL_PROMPT = '[y]es / [n]o / [a]lways / [s]ession: ';
/** The answers to the approval prompt; the first letter of each answers it at once. */
export const APPROVAL_WORDS = ['yes', 'no', 'always', 'session'] as const;
/** The question asked for a clearance decision. */
export const CLEARANCE_PROMPT = '[p]ush / [d]iscard / [l]ater: ';

/**
 * Reads an answer to the approval prompt: a result, `'reason'` for a no (ask for the
 * reason next), or undefined when the answer is not one of y/n/a/s (ask again).
 */
export function parseApprovalAnswer(text: string): ApprovalResult | 'reason' | undefined {
  switch (text.trim().toLowerCase()) {
    case 'y':
    case 'yes':
      return { approved: true };
    case 'n':
    case 'no':
      return 'reason';
    case 'a':
    case 'always':
      return { approved: 'always' };
    case 's':
    case 'session':
      return { approved: 'session' };
    default:
      return undefined;
  }
}

/**
 * Reads an answer to the clearance prompt (`push`, `push <target>`, `discard`,
 * `later`/`defer`, or their first letters); undefined when it is none of them.
 */
export function parseClearanceAnswer(text: string): ClearanceDecision | undefined {
  const [word = '', ...rest] = text.trim().split(/\s+/);
  const target = rest.join(' ');
  switch (word.toLowerCase()) {
    case 'p':
    case 'push':
      return target === '' ? { action: 'push' } : { action: 'push', target };
    case 'd':
    case 'discard':
      return rest.length === 0 ? { action: 'discard' } : undefined;
    case 'l':
    case 'later':
    case 'defer':
      return rest.length === 0 ? { action: 'defer' } : undefined;
    default:
      return undefined;
  }
}
