/** Text mode (seed 000): the calls are JSON instructions in the answer's text; one user turn reports all their results. */
import type { Turn } from '../../core/records.js';
import type { Session } from '../../prompt/session.js';
import { extractInstructions } from '../text-instructions.js';
import type { ActionOutcome } from './call.js';
import type { ModeProtocol, Requests } from './mode.js';

/** The mode of a worker whose model writes its calls as instructions in its text. */
export function textMode(session: Session): ModeProtocol {
  return {
    results: 'together',
    // A step's results are recorded together, so it cannot pause mid-step without repeating calls on resume.
    pausable: false,
    offer: () => ({}),
    requests: textRequests,
    record: (results, errors) => recordResults(session, results, errors),
  };
}

function textRequests(turn: Turn): Requests {
  const text = turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  const { requests, errors } = extractInstructions(text);
  return {
    calls: requests.map((r, i) => ({ turnId: turn.id, turnVersion: turn.version, callId: `${turn.id}#${i}`, name: r.action, input: r.params })),
    errors: errors.map((e) => `${e.message}: ${e.snippet}`),
  };
}

/** One user turn reporting every result. */
async function recordResults(session: Session, results: readonly ActionOutcome[], errors: readonly string[]): Promise<void> {
  const lines = [
    ...results.map(
      (r) => `- ${r.name} ${JSON.stringify(r.input)} -> ${r.ok ? 'ok' : 'failed'}: ${typeof r.output === 'string' ? r.output : JSON.stringify(r.output)}`,
    ),
    ...errors.map((e) => `- could not read an instruction: ${e}`),
  ];
  await session.addTurn({
    role: 'user',
    blocks: [{ type: 'text', text: `Results of your instructions:\n${lines.join('\n')}` }],
    meta: { instructionResults: true },
  });
}
