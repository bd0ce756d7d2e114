/** Trust overrides (`trust:*`) and grants (`grant:*`): which mode an action runs in, and the standing yeses the user gave. */
import { z } from 'zod';
import { defineCommand, fail, Id, requireSession, type ReducerContext, type Write } from '../core/index.js';
import { TrustMode, type Grant, type TrustOverrides } from './agent-records.js';

/** Sets or clears an action's trust mode for the workspace or one session (a scope left with no mode is deleted). */
export const trustSet = defineCommand({
  type: 'trust:set',
  description: "Sets (or with null, clears) an action's trust mode for the workspace or for one session.",
  payload: z.strictObject({ sessionId: Id.nullable().optional(), action: z.string().min(1), mode: TrustMode.nullable() }),
  reduce(payload, ctx) {
    if (payload.sessionId != null) requireSession(ctx.index, payload.sessionId);
    const key = payload.sessionId == null ? 'workspace' : `session:${payload.sessionId}`;
    const previous = ctx.index.collection('trust').get(key);
    const modes = { ...previous?.modes };
    if (payload.mode === null) delete modes[payload.action];
    else modes[payload.action] = payload.mode;
    const next: TrustOverrides = { key, modes };
    const write: Write = Object.keys(modes).length === 0 ? { op: 'delete', collection: 'trust', key } : { op: 'put', collection: 'trust', key, value: next };
    return { writes: [write], result: next };
  },
});

/** A new grant and the write that stores it (shared with `approval:answer`, whose 'always' and 'session' answers grant). */
export function grantWrite(ctx: ReducerContext, fields: Omit<Grant, 'id' | 'createdAt'>): { grant: Grant; write: Write } {
  const grant: Grant = { id: ctx.newId(), ...fields, createdAt: ctx.now };
  return { grant, write: { op: 'put', collection: 'grant', key: grant.id, value: grant } };
}

/** Stores a standing yes for an action's calls with one grant key. */
export const grantAdd = defineCommand({
  type: 'grant:add',
  description: 'Stores a standing yes for calls of an action with one grant key, in the workspace or one session.',
  payload: z.strictObject({ action: z.string().min(1), key: z.string(), scope: z.enum(['workspace', 'session']), sessionId: Id.nullable().optional() }),
  reduce(payload, ctx) {
    if (payload.scope === 'session' && payload.sessionId == null) throw fail('INVALID_ARGUMENT', 'a session grant needs a sessionId');
    if (payload.sessionId != null) requireSession(ctx.index, payload.sessionId);
    const { grant, write } = grantWrite(ctx, {
      action: payload.action,
      key: payload.key,
      scope: payload.scope,
      sessionId: payload.scope === 'session' ? (payload.sessionId ?? null) : null,
      approvalId: null,
    });
    return { writes: [write], result: grant };
  },
});

/** Removes a grant. */
export const grantRevoke = defineCommand({
  type: 'grant:revoke',
  description: 'Removes a grant: the calls it covered ask again.',
  payload: z.strictObject({ id: Id }),
  reduce(payload, ctx) {
    const grant = ctx.index.collection('grant').get(payload.id);
    if (grant === undefined) throw fail('GRANT_NOT_FOUND', `no grant "${payload.id}"`, { grantId: payload.id });
    return { writes: [{ op: 'delete', collection: 'grant', key: grant.id }], result: grant };
  },
});
