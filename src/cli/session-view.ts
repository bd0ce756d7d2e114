/**
 * What the chat shows of a session: its recent conversation when it is reopened (as
 * `claude --continue` and `codex resume` do), and what its answers used (`/cost`).
 */
import { recordsOf } from '../agent/agent-records.js';
import type { UIMessage } from '../agent/ui-adapter.js';
import type { JsonValue } from '../core/blocks.js';
import type { Turn } from '../core/records.js';
import type { Workspace } from '../create-workspace.js';
import type { Session } from '../prompt/session.js';

/** How many of the user's last messages a reopened session shows, with what followed each. */
export const RECENT_EXCHANGES = 3;

/** The recent conversation of a session: its messages from the `exchanges`-th last user message on, and how many came before. */
export function recentConversation(turns: readonly Turn[], exchanges = RECENT_EXCHANGES): { earlier: number; messages: UIMessage[] } {
  const asked = turns.flatMap((t, i) => (t.role === 'user' && t.blocks.some((b) => b.type === 'text') ? [i] : []));
  const from = asked.length <= exchanges ? 0 : (asked[asked.length - exchanges] ?? 0);
  const messages: UIMessage[] = [];
  let earlier = 0;
  for (const [i, turn] of turns.entries()) {
    const message = messageOf(turn);
    if (message === undefined) continue;
    if (i < from) earlier++;
    else messages.push(message);
  }
  return { earlier, messages };
}

/** A turn as the chat shows it: the user's and the model's words, the model's calls, a summary as a notice; tool results are not shown. */
function messageOf(turn: Turn): UIMessage | undefined {
  const timestamp = Date.parse(turn.createdAt);
  const text = turn.blocks
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('\n')
    .trim();
  if (turn.role === 'user') return text === '' ? undefined : { role: 'user', content: text, metadata: { timestamp } };
  if (turn.role === 'assistant') {
    const toolCalls = turn.blocks.flatMap((b) => (b.type === 'tool_use' ? [{ name: b.name, input: b.args as JsonValue }] : []));
    if (text === '' && toolCalls.length === 0) return undefined;
    return { role: 'assistant', content: text, metadata: { timestamp, ...(toolCalls.length > 0 && { toolCalls }) } };
  }
  if (turn.blocks.some((b) => b.type === 'summary')) return { role: 'system', content: 'The conversation before this point was compacted into a summary.' };
  return undefined;
}

/** What a session's answers used, its sub-workers' included. */
export interface SessionCost {
  answers: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  /** In US dollars, over the answers with a known price. */
  cost: number;
  /** Answers whose model has no price (their tokens are counted, their cost is not). */
  unpriced: number;
  /** The sub-workers' sessions counted. */
  subWorkers: number;
}

/** Adds up the usage and cost recorded on each answer of `session` (the turns on its path) and of its sub-workers' sessions. */
export async function sessionCost(ws: Workspace, session: Session): Promise<SessionCost> {
  const total: SessionCost = { answers: 0, inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cost: 0, unpriced: 0, subWorkers: 0 };
  const subWorkers = recordsOf(ws.manager.workspace(), 'worker').filter((w) => w.rootSessionId === session.id);
  total.subWorkers = subWorkers.length;
  const turns = [...(await session.transcript())];
  for (const worker of subWorkers) {
    const sub = ws.sessions.get(worker.id) as Session | undefined;
    if (sub !== undefined) turns.push(...(await sub.transcript()));
  }
  for (const turn of turns) {
    const usage = turn.meta.usage as { inputTokens?: unknown; outputTokens?: unknown; cachedInputTokens?: unknown } | undefined;
    if (turn.role !== 'assistant' || usage === undefined) continue;
    total.answers++;
    total.inputTokens += numberOr0(usage.inputTokens);
    total.outputTokens += numberOr0(usage.outputTokens);
    total.cachedInputTokens += numberOr0(usage.cachedInputTokens);
    if (typeof turn.meta.cost === 'number') total.cost += turn.meta.cost;
    else total.unpriced++;
  }
  return total;
}

/** A `SessionCost` in a line or two. */
export function formatCost(c: SessionCost): string {
  if (c.answers === 0) return 'No answers in this session yet: nothing used.';
  const tokens = `${c.answers} answer(s): ${c.inputTokens.toLocaleString('en-US')} tokens in${c.cachedInputTokens > 0 ? ` (${c.cachedInputTokens.toLocaleString('en-US')} cached)` : ''}, ${c.outputTokens.toLocaleString('en-US')} out`;
  const workers = c.subWorkers > 0 ? ` (with ${c.subWorkers} sub-worker session(s))` : '';
  const priced = c.answers - c.unpriced;
  const cost =
    priced === 0
      ? 'cost unknown (no price for the model)'
      : `$${c.cost.toFixed(4)}${c.unpriced > 0 ? ` for ${priced} of them (${c.unpriced} with no price for their model)` : ''}`;
  return `This session${workers}: ${tokens} · ${cost}`;
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
