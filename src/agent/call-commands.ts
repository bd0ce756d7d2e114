/** Started calls (`call:*`): what a resumed run must not run again. */
import { z } from 'zod';
import { defineCommand, Id, requireSession, TurnRef, turnKey, type WorkspaceView } from '../core/index.js';
import type { CallStart } from './agent-records.js';

/** Records that a worker starts running a call of an answer (before an action that is not repeatable). */
export const callStart = defineCommand({
  type: 'call:start',
  description: 'Records that a worker starts running a call of an answer: a resumed run does not run it again.',
  payload: z.strictObject({ sessionId: Id, turn: TurnRef, callId: z.string().min(1), action: z.string().min(1) }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const key = turnKey(payload.turn);
    const earlier = ctx.index.collection('call').get(key);
    const started: CallStart = {
      turn: payload.turn,
      sessionId: earlier?.sessionId ?? payload.sessionId,
      calls: [...(earlier?.calls.filter((c) => c.callId !== payload.callId) ?? []), { callId: payload.callId, action: payload.action, startedAt: ctx.now }],
    };
    return { writes: [{ op: 'put', collection: 'call', key, value: started }], result: started };
  },
});

/** The start of this call of the answer `turn`, if a worker recorded one. */
export function startedCall(view: WorkspaceView, turn: { id: string; version: number }, callId: string): CallStart['calls'][number] | undefined {
  return view
    .collection('call')
    .get(turnKey(turn))
    ?.calls.find((c) => c.callId === callId);
}
