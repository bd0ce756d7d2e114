/**
 * Envelope mode (seed 002): each answer is one structured response whose command is the
 * call; its result (or why the answer is invalid) is the next user turn, and an answer
 * without a command ends the task with its decision.
 */
import type { Action } from '../../action/action.js';
import { GolemError } from '../../core/errors.js';
import type { Turn } from '../../core/records.js';
import type { Session } from '../../prompt/session.js';
import { Envelope, invalidResponseMessage, type EnvelopeOptions } from '../envelope.js';
import { imagesOf, type ActionOutcome } from './call.js';
import type { ModeProtocol, Requests } from './mode.js';
import { inlineJson } from '../../environment/environment.js';

/** The mode of a worker whose model answers each step with an envelope offering exactly `actions`. */
export function envelopeMode(session: Session, actions: readonly Action[], options: EnvelopeOptions | undefined): ModeProtocol {
  const envelope = new Envelope(actions, options);
  return {
    results: 'together',
    pausable: true,
    offer: (_actions, providerOptions) => {
      const format = envelope.responseFormat();
      if (format === undefined) return {};
      return {
        responseFormat: format,
        // The envelope has optional fields, which OpenAI's strict mode does not take: its schema guides, validation decides.
        providerOptions: { ...providerOptions, openai: { strictJsonSchema: false, ...providerOptions?.openai } },
      };
    },
    instructions: () => envelope.instructions(),
    requests: (turn) => requests(envelope, turn),
    // An answer outside the schema goes back with its errors, a few times in a row at most.
    tooManyInvalid: (inARow, errors) =>
      inARow > envelope.maxInvalidResponses
        ? new GolemError(
            'PROTOCOL_INVALID_RESPONSE',
            `the model answered ${inARow} times in a row with responses that do not follow the response schema:\n${errors.join('\n')}`,
            {
              details: { errors },
            },
          )
        : undefined,
    decision: (turn) => {
      const reading = envelope.read(turn);
      return reading.kind === 'final' ? reading.response.decision : undefined;
    },
    record: (results, errors) => recordResult(session, results[0], errors),
    howToCall: (name, params) => `answer with the command ${inlineJson({ action: name, parameters: params })}`,
  };
}

/** The envelope's command (with the reasons an envelope is invalid). */
function requests(envelope: Envelope, turn: Turn): Requests {
  const reading = envelope.read(turn);
  if (reading.kind === 'invalid') return { calls: [], errors: [invalidResponseMessage(reading.errors)] };
  if (reading.kind === 'final') return { calls: [], errors: [] };
  return {
    calls: [{ turnId: turn.id, turnVersion: turn.version, callId: `${turn.id}#command`, name: reading.command.action, input: reading.command.parameters }],
    errors: [],
  };
}

/** The command's result (or the answer's errors) as the next user turn. */
async function recordResult(session: Session, result: ActionOutcome | undefined, errors: readonly string[]): Promise<void> {
  if (result === undefined) {
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: errors.join('\n') }], meta: { protocolErrors: true } });
    return;
  }
  const { observation } = result;
  const body = observation?.summary ?? (typeof result.output === 'string' ? result.output : JSON.stringify(result.output));
  // An observation (a page snapshot) goes in a block of its own, which prompts leave out once a newer one follows.
  await session.addTurn({
    role: 'user',
    blocks: [
      { type: 'text', text: `Result of ${result.name}: ${result.ok ? 'done' : 'failed'}${body === '' ? '' : `\n${body}`}` },
      ...(observation === undefined ? [] : [{ type: 'text' as const, text: observation.text }]),
      ...imagesOf(result),
      ...(result.blocks ?? []),
    ],
    meta: {
      commandResult: { name: result.name, ok: result.ok },
      ...(observation !== undefined && { observation: { key: observation.key, block: 1, ...(observation.view !== undefined && { view: observation.view }) } }),
    },
  });
}
