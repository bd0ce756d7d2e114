/**
 * A message that reaches a protocol route (AG-UI, the AI SDK's chat) while a run holds its
 * thread, here or in another process (issue 36): one rule for every wire, `ws.runs.send` by
 * policy. The request may name the policy (AG-UI: `forwardedProps.golem.policy`; the AI SDK:
 * a `golem.policy` field of the body); otherwise the server's default applies (`enqueue`
 * unless `golem serve` was given another). `reject` is SESSION_BUSY, as before the inbox.
 * Each route answers a queued message in its own protocol (its encoder); the decision is here.
 */
import { z } from 'zod';
import { RUN_POLICIES, type RunPolicy } from '../agent/inbox.js';
import type { InboxMessage } from '../agent/inbox.js';
import type { ContentBlock } from '../core/blocks.js';
import { parseInput } from './json-body.js';
import type { ServeRuns } from './runs.js';

/** The `golem` options a request may carry. */
const GolemOptions = z.looseObject({ policy: z.enum(RUN_POLICIES).optional() });

/** The policy a request names under `golem` (INVALID_ARGUMENT for an unknown one), or undefined. */
export function policyOf(golem: unknown, path: string): RunPolicy | undefined {
  if (golem === undefined || golem === null) return undefined;
  return parseInput(GolemOptions, golem, { prefix: `${path}: ` }).policy;
}

/** What became of a message sent while its thread runs. */
export type WireSend = { type: 'queued'; message: InboxMessage; runId: string } | { type: 'idle' };

/**
 * Sends the message to the thread's running run by `policy` (SESSION_BUSY for `reject`);
 * `idle` when no run holds the thread (any more): start one with it, as with no run.
 */
export async function sendDuringRun(
  runs: ServeRuns,
  sessionId: string,
  message: { blocks: ContentBlock[]; id?: string },
  policy?: RunPolicy,
): Promise<WireSend> {
  const sent = await runs.send(sessionId, message, policy);
  return sent.status === 'queued' ? { type: 'queued', message: sent.message, runId: sent.runId } : { type: 'idle' };
}

/** What a route tells its client of a queued message: its id, how it was sent, and the run it waits for. */
export function queuedView(sent: Extract<WireSend, { type: 'queued' }>): { messageId: string; policy: string; runId: string } {
  return { messageId: sent.message.id, policy: sent.message.policy, runId: sent.runId };
}
