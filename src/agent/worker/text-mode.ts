/** Text mode (seed 000): the calls are JSON instructions in the answer's text; one user turn reports all their results. */
import type { Turn } from '../../core/records.js';
import type { Session } from '../../prompt/session.js';
import { textInstruction } from '../../environment/environment.js';
import { extractInstructions } from '../text-instructions.js';
import { imagesOf, type ActionOutcome } from './call.js';
import type { ModeProtocol, Requests } from './mode.js';

/** The mode of a worker whose model writes its calls as instructions in its text. */
export function textMode(session: Session): ModeProtocol {
  return {
    results: 'together',
    // A step's results are recorded together, so it cannot pause mid-step without repeating calls on resume.
    pausable: false,
    offer: () => ({}),
    requests: textRequests,
    record: (results, errors) => recordTextResults(session, results, errors),
    howToCall: (name, params) => `write in your answer ${textInstruction(name, params)}`,
  };
}

/**
 * The instructions in an answer's text. `accepts`: only those naming an action it accepts,
 * and only the unreadable ones that mention such a name (tools mode reads text this way, where
 * a JSON object in prose is more often an example than an instruction).
 */
export function textRequests(turn: Turn, accepts?: (name: string) => boolean): Requests {
  const text = turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  const { requests, errors } = extractInstructions(text);
  const unread = accepts === undefined ? errors : errors.filter((e) => [...e.snippet.matchAll(/"([^"\\]+)"/g)].some((m) => accepts(m[1] as string)));
  // Each call's id is its place among all the instructions of the text, whichever are taken: it stays the same on resume.
  const calls = requests.flatMap((r, i) =>
    accepts === undefined || accepts(r.action)
      ? [{ turnId: turn.id, turnVersion: turn.version, callId: `${turn.id}#${i}`, name: r.action, input: r.params }]
      : [],
  );
  return {
    calls,
    errors: unread.map((e) => `${e.message}: ${e.snippet}`),
  };
}

/** One user turn reporting every result; `hint`, if given, ends it. */
export async function recordTextResults(session: Session, results: readonly ActionOutcome[], errors: readonly string[], hint?: string): Promise<void> {
  const lines = [
    ...results.map(
      (r) => `- ${r.name} ${JSON.stringify(r.input)} -> ${r.ok ? 'ok' : 'failed'}: ${typeof r.output === 'string' ? r.output : JSON.stringify(r.output)}`,
    ),
    ...errors.map((e) => `- could not read an instruction: ${e}`),
  ];
  await session.addTurn({
    role: 'user',
    blocks: [
      { type: 'text', text: `Results of your instructions:\n${lines.join('\n')}${hint === undefined ? '' : `\n\n${hint}`}` },
      ...results.flatMap(imagesOf),
      ...results.flatMap((r) => r.blocks ?? []),
    ],
    meta: { instructionResults: true },
  });
}
