/**
 * Pins: a turn or a session a user keeps whatever a retention policy says (`turn:pin`,
 * `session:pin`, and their `unpin`). A pin is a workspace-wide record in the `pin`
 * collection, keyed by what it keeps.
 */
import { z } from 'zod';
import { defineCommand } from '../plugin.js';
import { Id, Timestamp, TurnRef, turnKey } from '../records.js';
import { requireSession, viewOf } from '../commands/kit.js';

/** A pinned session (`turn` null) or turn version, in the session it was pinned from. */
export const PinRecord = z.strictObject({
  key: z.string().min(1),
  sessionId: Id,
  turn: TurnRef.nullable(),
  createdAt: Timestamp,
});
export type PinRecord = z.infer<typeof PinRecord>;

declare module '../workspace-index.js' {
  interface CollectionMap {
    pin: PinRecord;
  }
}

/** The key of a session's pin, or of a turn version's. */
export function pinKey(target: { sessionId: string; turn?: TurnRef | null }): string {
  return target.turn == null ? `session:${target.sessionId}` : `turn:${turnKey(target.turn)}`;
}

type PinContext = { index: { collection(name: 'pin'): ReadonlyMap<string, PinRecord> }; now: string };

/** The pin of `key` (the one there, if any): writes and result of a pin command. */
function pinned(ctx: PinContext, key: string, sessionId: string, turn: TurnRef | null) {
  const existing = ctx.index.collection('pin').get(key);
  if (existing !== undefined) return { writes: [], result: existing };
  const pin: PinRecord = { key, sessionId, turn, createdAt: ctx.now };
  return { writes: [{ op: 'put' as const, collection: 'pin', key, value: pin }], result: pin };
}

/** The pin of `key` removed, if there is one: writes and result of an unpin command. */
function unpinned(ctx: PinContext, key: string) {
  const removed = ctx.index.collection('pin').has(key);
  return { writes: removed ? [{ op: 'delete' as const, collection: 'pin', key }] : [], result: { removed } };
}

const TurnTarget = z.strictObject({ sessionId: Id, turnId: Id, version: z.number().int().nonnegative().optional() });

export const turnPin = defineCommand({
  type: 'turn:pin',
  description: 'Keeps a turn version (by default the one on the session path) and its history whatever a retention policy says.',
  payload: TurnTarget,
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    const view = viewOf(ctx.index, session);
    const version = payload.version ?? view.currentVersion(payload.turnId)?.version ?? 0;
    const turn = view.require({ id: payload.turnId, version });
    return pinned(ctx, pinKey({ sessionId: session.id, turn }), session.id, { id: turn.id, version: turn.version });
  },
});

export const turnUnpin = defineCommand({
  type: 'turn:unpin',
  description: 'Removes the pin of a turn version; a retention policy may remove it again.',
  payload: z.strictObject({ turnId: Id, version: z.number().int().nonnegative() }),
  reduce(payload, ctx) {
    return unpinned(ctx, pinKey({ sessionId: '', turn: { id: payload.turnId, version: payload.version } }));
  },
});

export const sessionPin = defineCommand({
  type: 'session:pin',
  description: 'Keeps a session and all of its turns whatever a retention policy says.',
  payload: z.strictObject({ sessionId: Id }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    return pinned(ctx, pinKey({ sessionId: session.id }), session.id, null);
  },
});

export const sessionUnpin = defineCommand({
  type: 'session:unpin',
  description: "Removes a session's pin; a retention policy may remove it again.",
  payload: z.strictObject({ sessionId: Id }),
  reduce(payload, ctx) {
    return unpinned(ctx, pinKey({ sessionId: payload.sessionId }));
  },
});
