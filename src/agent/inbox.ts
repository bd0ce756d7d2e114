/**
 * A session's inbox (issue 36): the messages sent to it while a run holds it, kept in the
 * store until delivered. `inbox:add` accepts one while a run holds the session (with its
 * policy: `enqueue`, delivered once the run ends; `steer`, at the run's next step boundary;
 * `interrupt`, once the run stops);
 * `inbox:deliver` makes the oldest a user turn and takes it out, in one command, so a message
 * is delivered exactly once whichever process delivers it and whenever another dies;
 * `inbox:remove` takes back one not delivered yet.
 */
import { z } from 'zod';
import {
  appendTurn,
  ContentBlock,
  defineCommand,
  fail,
  Id,
  JsonObject,
  makeTurn,
  requireLoaded,
  requireSession,
  Timestamp,
  type WorkspaceView,
} from '../core/index.js';
import { leaseOf, live } from './run-commands.js';

export const RUN_POLICIES = ['reject', 'enqueue', 'steer', 'interrupt'] as const;
export type RunPolicy = (typeof RUN_POLICIES)[number];

/** How many messages a session's inbox holds by default (`inbox:add`'s `limit`). */
export const DEFAULT_INBOX_LIMIT = 50;

export const InboxMessage = z.strictObject({
  /** The user turn it becomes (a client's id for its message, or a new one). */
  id: Id,
  /** The (root) session it is for. */
  sessionId: Id,
  blocks: z.array(ContentBlock).min(1),
  policy: z.enum(['enqueue', 'steer', 'interrupt']),
  /** Who sent it, for people: "the page", "AG-UI", "golem in a terminal". */
  by: z.string(),
  createdAt: Timestamp,
  /** Its place among the session's messages: delivered in this order. */
  order: z.number().int().nonnegative(),
  /** Kept on the turn it becomes (the user who sent it, a client's id). */
  meta: JsonObject.optional(),
});
export type InboxMessage = z.infer<typeof InboxMessage>;

/** A session's messages not delivered yet, oldest first. */
export function inboxOf(view: WorkspaceView, sessionId: string): InboxMessage[] {
  return [...view.collection('inbox').values()].filter((m) => m.sessionId === sessionId).sort((a, b) => a.order - b.order);
}

/**
 * Accepts a message for the run that holds the session when the command commits: the message,
 * and that run's id. `null` when no run holds it then (none, or its lease lapsed): the message
 * is not kept, and the sender starts a run with it. Decided here, not on the sender's earlier
 * read: a run whose holder looked for waiting messages as it ended must not miss one accepted after.
 */
export const inboxAdd = defineCommand({
  type: 'inbox:add',
  description: "Accepts a message for a session's run: delivered as a user turn at the run's end (enqueue, interrupt) or its next step (steer).",
  payload: z.strictObject({
    sessionId: Id,
    id: Id,
    blocks: z.array(ContentBlock).min(1),
    policy: z.enum(['enqueue', 'steer', 'interrupt']),
    by: z.string().default(''),
    meta: JsonObject.optional(),
    /** How many messages the inbox may hold (INBOX_FULL past it). */
    limit: z.number().int().min(1).max(10_000),
  }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const worker = ctx.index.collection('worker').get(payload.sessionId);
    if (worker !== undefined)
      throw fail('INVALID_ARGUMENT', `session "${payload.sessionId}" is a sub-worker's; send to its root, "${worker.rootSessionId}"`, {
        sessionId: payload.sessionId,
      });
    if (ctx.index.node(payload.id) !== undefined || ctx.index.collection('inbox').has(payload.id))
      throw fail('DUPLICATE_ID', `a turn or message with id "${payload.id}" exists already`, { id: payload.id });
    const lease = leaseOf(ctx.index, payload.sessionId);
    if (lease === undefined || !live(lease, ctx.now)) return { writes: [], result: null };
    const pending = inboxOf(ctx.index, payload.sessionId);
    if (pending.length >= payload.limit)
      throw fail('INBOX_FULL', `session "${payload.sessionId}" has ${pending.length} messages waiting, the most it takes; wait for the run, or take one back`, {
        sessionId: payload.sessionId,
        limit: payload.limit,
      });
    const message: InboxMessage = {
      id: payload.id,
      sessionId: payload.sessionId,
      blocks: payload.blocks,
      policy: payload.policy,
      by: payload.by,
      createdAt: ctx.now,
      order: (pending.at(-1)?.order ?? -1) + 1,
      ...(payload.meta !== undefined && { meta: payload.meta }),
    };
    return { writes: [{ op: 'put', collection: 'inbox', key: message.id, value: message }], result: { message, runId: lease.runId } };
  },
});

export const inboxRemove = defineCommand({
  type: 'inbox:remove',
  description: 'Takes back a message not delivered yet.',
  payload: z.strictObject({ id: Id }),
  reduce(payload, ctx) {
    const message = ctx.index.collection('inbox').get(payload.id);
    if (message === undefined)
      throw fail('MESSAGE_NOT_FOUND', `no message "${payload.id}" waits (it was delivered, taken back, or never sent)`, { id: payload.id });
    return { writes: [{ op: 'delete', collection: 'inbox', key: message.id }], result: message };
  },
});

/**
 * Delivers the session's oldest message (of `policy`, when given) as a user turn at its head,
 * and takes it out of the inbox; `null` when none waits.
 */
export const inboxDeliver = defineCommand({
  type: 'inbox:deliver',
  description: "Makes the session's oldest waiting message a user turn at its head, and takes it out of the inbox.",
  payload: z.strictObject({ sessionId: Id, policy: z.enum(['enqueue', 'steer', 'interrupt']).optional() }),
  reduce(payload, ctx) {
    const session = requireSession(ctx.index, payload.sessionId);
    requireLoaded(ctx.index, session.id);
    const message = inboxOf(ctx.index, session.id).find((m) => payload.policy === undefined || m.policy === payload.policy);
    if (message === undefined) return { writes: [], result: null };
    const meta = { ...message.meta, inbox: { policy: message.policy, by: message.by, sentAt: message.createdAt } };
    const turn = makeTurn(ctx, { id: message.id, version: 0, parent: session.head, sessionId: session.id, role: 'user', blocks: message.blocks, meta });
    const { writes } = appendTurn(ctx, session, turn);
    return { writes: [...writes, { op: 'delete', collection: 'inbox', key: message.id }], result: { message, turn } };
  },
});
