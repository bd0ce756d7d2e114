/**
 * Tools mode: the actions are the model's native tools; each call's result is a tool turn,
 * recorded as it comes. An answer that calls no tool but writes instructions in its text
 * (seed 000's way, which an environment's own context may teach) is not dropped: the
 * instructions naming an action are performed, and their results go back together as the
 * next user turn, with a word on calling them as tools.
 */
import type { Turn } from '../../core/records.js';
import type { Session } from '../../prompt/session.js';
import { imagesOf, type ActionOutcome } from './call.js';
import type { ModeProtocol, Requests } from './mode.js';
import { inlineJson } from '../../environment/environment.js';
import { recordTextResults, textRequests } from './text-mode.js';

/** The mode of a worker whose actions are native tool calls (the default); `accepts` says which names an instruction in text may call. */
export function toolsMode(session: Session, accepts: (name: string) => boolean): ModeProtocol {
  // Turns never change: each answer is read once (the run asks again at every step).
  const read = new WeakMap<Turn, Requests>();
  const requests = (turn: Turn): Requests => {
    let found = read.get(turn);
    if (found === undefined) read.set(turn, (found = toolCalls(turn, accepts)));
    return found;
  };
  return {
    results: 'each',
    pausable: true,
    offer: (actions) => (actions.size > 0 ? { tools: [...actions.values()].map((a) => a.toTool()) } : {}),
    requests,
    record: (callId, result) => recordResult(session, callId, result),
    recordTogether: (results, errors) =>
      recordTextResults(
        session,
        results,
        errors,
        results.length === 0
          ? 'Nothing was run. Your actions are tools here: call them as tool calls.'
          : 'You wrote these as text; each line above says how it went. Your actions are tools here: call them as tool calls.',
      ),
    howToCall: (name, params) => `call the ${name} tool with ${inlineJson(params)}`,
  };
}

function toolCalls(turn: Turn, accepts: (name: string) => boolean): Requests {
  const calls = turn.blocks.flatMap((b) =>
    // A call the provider ran itself (a server tool) came with its result: it is not Golem's to run.
    b.type === 'tool_use' && b.providerExecuted !== true ? [{ turnId: turn.id, turnVersion: turn.version, callId: b.callId, name: b.name, input: b.args }] : [],
  );
  if (calls.length > 0) return { calls, errors: [] };
  const written = textRequests(turn, accepts);
  if (written.calls.length === 0 && written.errors.length === 0) return { calls: [], errors: [] };
  return { calls: written.calls.map((c) => ({ ...c, together: true })), errors: written.errors, together: true };
}

/** Records one call's result as a tool turn (so a resumed run knows it was done). */
async function recordResult(session: Session, callId: string, result: ActionOutcome): Promise<void> {
  await session.addTurn({
    role: 'tool',
    blocks: [
      {
        type: 'tool_result',
        callId,
        content: [{ type: 'text', text: typeof result.output === 'string' ? result.output : JSON.stringify(result.output) }, ...imagesOf(result)],
        ...(!result.ok && { isError: true }),
      },
      ...(result.blocks ?? []),
    ],
  });
}
