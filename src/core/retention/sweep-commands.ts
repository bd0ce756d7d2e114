/**
 * The commands a retention sweep is made of, each one session and a bounded batch, each
 * deciding again on the state it commits on (an append racing the sweep makes a session
 * active again, or is refused and decided anew), so a sweep cut short anywhere leaves a
 * sound workspace and a second run finishes it.
 */
import { z } from 'zod';
import { defineCommand, type CommandDefinition } from '../plugin.js';
import { Id, turnKey } from '../records.js';
import { forkFamily } from '../commands/kit.js';
import { removal } from '../commands/turn.js';
import { holdsBySession, type RetentionHolds } from './holds.js';
import { planDrop, planTrim } from './plan.js';
import { TurnRetention } from './policy.js';
import type { WorkspaceView } from '../workspace-index.js';

/** What one sweep command did to its session. */
export type SweepOutcome =
  | { sessionId: string; outcome: 'removed'; turns: number; releasedBlobs: string[]; more: boolean }
  | { sessionId: string; outcome: 'held'; reasons: string[] }
  | { sessionId: string; outcome: 'active' | 'gone' };

/** Every pinned turn version's key. */
export function pinnedTurnKeys(view: WorkspaceView): Set<string> {
  const keys = new Set<string>();
  for (const pin of view.collection('pin').values()) if (pin.turn !== null) keys.add(turnKey(pin.turn));
  return keys;
}

/** `retention:drop_session` and `retention:trim_session`, with the holds of the parts given. */
export function sweepCommands(holds: readonly RetentionHolds[]): CommandDefinition<unknown, unknown, unknown>[] {
  const dropSession = defineCommand({
    type: 'retention:drop_session',
    description: 'Deletes a session idle since before `idleBefore`, as session:delete does, unless something holds it.',
    payload: z.strictObject({ sessionId: Id, idleBefore: z.iso.datetime({ offset: true }) }),
    sessions: forkFamily,
    reduce(payload, ctx) {
      const session = ctx.index.sessions.get(payload.sessionId);
      const base = { sessionId: payload.sessionId };
      if (session === undefined) return { writes: [], result: { ...base, outcome: 'gone' } as SweepOutcome };
      if (Date.parse(session.updatedAt) >= Date.parse(payload.idleBefore)) return { writes: [], result: { ...base, outcome: 'active' } as SweepOutcome };
      const plan = planDrop(ctx.index, session, holdsBySession(ctx.index, holds).get(session.id) ?? [], pinnedTurnKeys(ctx.index));
      if (plan.type !== 'remove')
        return { writes: [], result: { ...base, outcome: 'held', reasons: plan.type === 'held' ? plan.reasons : [] } as SweepOutcome };
      const change = removal(ctx, new Set(plan.turns), [{ op: 'delete', collection: 'session', key: session.id }]);
      const result: SweepOutcome = { ...base, outcome: 'removed', turns: plan.turns.length, releasedBlobs: change.result.releasedBlobs, more: false };
      return { writes: change.writes, effects: change.effects, result };
    },
  });
  const trimSession = defineCommand({
    type: 'retention:trim_session',
    description:
      "Removes up to `limit` turn versions of a session that the policy does not keep and nothing else needs (its path, forks' and merges' history stay).",
    payload: z.strictObject({ sessionId: Id, keep: TurnRetention, limit: z.number().int().positive().max(100_000) }),
    sessions: forkFamily,
    reduce(payload, ctx) {
      const session = ctx.index.sessions.get(payload.sessionId);
      const base = { sessionId: payload.sessionId };
      if (session === undefined) return { writes: [], result: { ...base, outcome: 'gone' } as SweepOutcome };
      const held = holdsBySession(ctx.index, holds).get(session.id) ?? [];
      const plan = planTrim(ctx.index, session, payload.keep, held, pinnedTurnKeys(ctx.index), payload.limit);
      if (plan.type !== 'remove')
        return { writes: [], result: { ...base, outcome: 'held', reasons: plan.type === 'held' ? plan.reasons : [] } as SweepOutcome };
      const change = removal(ctx, new Set(plan.turns), []);
      const result: SweepOutcome = { ...base, outcome: 'removed', turns: plan.turns.length, releasedBlobs: change.result.releasedBlobs, more: plan.more };
      return { writes: change.writes, effects: change.effects, result };
    },
  });
  return [dropSession, trimSession] as CommandDefinition<unknown, unknown, unknown>[];
}
