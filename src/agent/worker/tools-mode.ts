/** Tools mode: the actions are the model's native tools; each call's result is a tool turn, recorded as it comes. */
import type { Turn } from '../../core/records.js';
import type { Session } from '../../prompt/session.js';
import type { ActionOutcome } from './call.js';
import type { ModeProtocol, Requests } from './mode.js';

/** The mode of a worker whose actions are native tool calls (the default). */
export function toolsMode(session: Session): ModeProtocol {
  return {
    results: 'each',
    pausable: true,
    offer: (actions) => (actions.size > 0 ? { tools: [...actions.values()].map((a) => a.toTool()) } : {}),
    requests: toolCalls,
    record: (callId, result) => recordResult(session, callId, result),
  };
}

function toolCalls(turn: Turn): Requests {
  return {
    calls: turn.blocks.flatMap((b) =>
      b.type === 'tool_use' ? [{ turnId: turn.id, turnVersion: turn.version, callId: b.callId, name: b.name, input: b.args }] : [],
    ),
    errors: [],
  };
}

/** Records one call's result as a tool turn (so a resumed run knows it was done). */
async function recordResult(session: Session, callId: string, result: ActionOutcome): Promise<void> {
  await session.addTurn({
    role: 'tool',
    blocks: [
      {
        type: 'tool_result',
        callId,
        content: [{ type: 'text', text: typeof result.output === 'string' ? result.output : JSON.stringify(result.output) }],
        ...(!result.ok && { isError: true }),
      },
    ],
  });
}
