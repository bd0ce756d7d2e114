/** The API's views of the workspace's records (api-types.ts), as `ServeHost` returns them. */
import { z } from 'zod';
import { approvalExplanation } from '../action/approval.js';
import type { ApprovalRecord, ClearanceRecord } from '../agent/agent-plugin.js';
import type { InboxMessage } from '../agent/inbox.js';
import type { ApprovalResult } from '../agent/ui-adapter.js';
import type { Session as SessionRecord, Turn } from '../core/records.js';
import { pathLength, type SessionView } from '../core/turn-tree.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import type { ApprovalAnswerBody, ApprovalView, ClearanceView, InboxMessageView, SessionSummary, TurnView } from './api-types.js';

/** A session as the session list shows it; `turns` when the caller has counted them. */
export function sessionSummary(view: WorkspaceView, record: SessionRecord, turns?: number): SessionSummary {
  return {
    id: record.id,
    label: record.label,
    updatedAt: record.updatedAt,
    turns: turns ?? record.length ?? pathLength(view, record.head),
    forkedFrom: record.forkedFrom?.sessionId ?? null,
  };
}

export function turnView(turn: Turn, view: SessionView): TurnView {
  const text: string[] = [];
  const toolCalls: TurnView['toolCalls'] = [];
  const toolResults: TurnView['toolResults'] = [];
  const notices: string[] = [];
  const plans: TurnView['plans'] = [];
  for (const b of turn.blocks) {
    if (b.type === 'task:proposal') plans.push({ taskId: b.taskId, title: b.title });
    if (b.type === 'text') text.push(b.text);
    else if (b.type === 'tool_use') toolCalls.push({ callId: b.callId, name: b.name, input: b.args });
    else if (b.type === 'server_tool_result')
      toolResults.push({ callId: b.callId, text: typeof b.output === 'string' ? b.output : JSON.stringify(b.output), isError: b.isError === true });
    else if (b.type === 'tool_result') {
      const content = b.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      toolResults.push({ callId: b.callId, text: content, isError: b.isError === true });
    } else if (b.type === 'summary') notices.push('The conversation before this point was summarized to fit the model.');
    else if (b.type === 'role:transition') notices.push(`Role changed: ${b.from ?? 'none'} → ${b.to ?? 'none'}.`);
  }
  const branch = view.branchInfo(turn.id) ?? { versions: [turn.version], currentIndex: 0, total: 1, hasPrev: false, hasNext: false };
  const joined = text.join('\n\n');
  // A click is the block ServeHost.uiAction wrote (its id): a message that only reads like one stays a message.
  const click = turn.role === 'user' ? turn.blocks.find((b) => b.type === 'text' && b.id === UI_ACTION_BLOCK) : undefined;
  const uiAction = click?.type === 'text' ? uiActionOf(click.text) : null;
  const kind: TurnView['kind'] =
    turn.role === 'system'
      ? 'notice'
      : uiAction !== null
        ? 'ui-action'
        : turn.role === 'tool' || turn.meta.instructionResults === true || (toolResults.length > 0 && joined === '')
          ? 'results'
          : 'message';
  return {
    id: turn.id,
    version: turn.version,
    role: turn.role as TurnView['role'],
    text: kind === 'notice' ? (mergeNotice(turn) ?? [...notices, ...text.map(noticeText)].join(' ')) : joined,
    toolCalls,
    toolResults,
    branch,
    createdAt: turn.createdAt,
    kind,
    uiAction,
    usage: turn.role === 'assistant' ? usageOf(turn.meta) : null,
    ended: turn.role === 'assistant' ? endedOf(turn.meta) : null,
    plans,
  };
}

/** The id of the block `ServeHost.uiAction` writes a click in: a message typed in a page has none. */
export const UI_ACTION_BLOCK = 'golem-ui-action';

/** The message `ServeHost.uiAction` writes for a click, read back (null when the text is not one). */
function uiActionOf(text: string): TurnView['uiAction'] {
  const match = /^\[UI action\] The user clicked "(.*)" \(action "(.*)"\) on the UI "(.*)" \(version \d+\)\.\nThe form's values: (\{.*\})$/s.exec(text);
  if (match === null) return null;
  let values: unknown;
  try {
    values = JSON.parse(match[4] as string);
  } catch {
    return null;
  }
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return null;
  return { label: match[1] as string, actionId: match[2] as string, instanceId: match[3] as string, values: values as Record<string, unknown> };
}

/**
 * A merge turn in words, from what it records (`merge.as`, `meta.mergedBranch`): the text the
 * model reads names the branch's session by id, which a person has no use for.
 */
function mergeNotice(turn: Turn): string | undefined {
  const branch = turn.meta.mergedBranch;
  if (turn.merge === undefined || typeof branch !== 'object' || branch === null || Array.isArray(branch)) return undefined;
  const name = typeof branch.label === 'string' ? `the branch "${branch.label}"` : 'an unnamed branch';
  const n = typeof branch.turns === 'number' ? branch.turns : 0;
  const count = `${n} turn${n === 1 ? '' : 's'}`;
  if (turn.merge.as === 'turns') return `Merged ${count} from ${name} into this conversation.`;
  const first = turn.blocks[0];
  const summary = first?.type === 'text' ? first.text.split('\n\n').slice(1).join('\n\n') : '';
  return `Merged ${name}, as a summary of its ${count}: ${summary}`;
}

/** A system turn's text in a few words: a clearance decision without the item's id. */
function noticeText(text: string): string {
  const decision = /^\[System: the user (pushed|discarded|deferred \(it stays staged\)) clearance item \S+: (.*)\]$/s.exec(text);
  if (decision === null) return text.replace(/^\[System: (.*)\]$/s, '$1');
  const verb = decision[1] === 'pushed' ? 'Pushed' : decision[1] === 'discarded' ? 'Discarded' : 'Deferred (it stays staged)';
  return `${verb}: ${decision[2] as string}`;
}

function usageOf(meta: Turn['meta']): TurnView['usage'] {
  const usage = meta.usage;
  if (typeof usage !== 'object' || usage === null || Array.isArray(usage)) return null;
  const { inputTokens, outputTokens, cachedInputTokens } = usage;
  if (typeof inputTokens !== 'number' || typeof outputTokens !== 'number') return null;
  return {
    inputTokens,
    outputTokens,
    cachedInputTokens: typeof cachedInputTokens === 'number' ? cachedInputTokens : null,
    cost: typeof meta.cost === 'number' ? meta.cost : null,
  };
}

function endedOf(meta: Turn['meta']): TurnView['ended'] {
  if (meta.status !== 'incomplete') return null;
  const error = meta.error;
  const code = typeof error === 'object' && error !== null && !Array.isArray(error) && typeof error.code === 'string' ? error.code : 'MODEL_ERROR';
  if (code === 'MODEL_ABORTED') return { status: 'stopped' };
  const message =
    typeof error === 'object' && error !== null && !Array.isArray(error) && typeof error.message === 'string' ? error.message : 'the answer broke off';
  return { status: 'failed', code, message };
}

export function approvalView(a: ApprovalRecord): ApprovalView {
  return {
    id: a.id,
    rootSessionId: a.rootSessionId,
    action: a.action,
    type: a.type,
    description: a.description,
    details: a.details,
    risk: a.risk,
    ...approvalExplanation(a.details),
    workerPath: a.workerPath,
    createdAt: a.createdAt,
  };
}

export function clearanceView(c: ClearanceRecord): ClearanceView {
  return { id: c.id, sessionId: c.sessionId, type: c.type, description: c.description, status: c.status, createdAt: c.createdAt };
}

/** A message waiting in a session's inbox, as the page lists it: its text blocks joined (what else it holds is named, as a tool result's are). */
export function inboxView(m: InboxMessage): InboxMessageView {
  const text = m.blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
  return { id: m.id, text, policy: m.policy, createdAt: m.createdAt };
}

/** An answer to an approval, as every wire takes it (the page's API, an AG-UI resume's payload). */
export const ApprovalAnswerSchema = z.strictObject({
  answer: z
    .enum(['yes', 'no', 'always', 'session'])
    .describe('yes: run it; no: refuse it; always: yes, and for such calls from now on; session: yes, for the rest of this thread'),
  reason: z.string().max(2000).optional().describe('With no: why, for the model to read'),
});

export function resultOf(body: ApprovalAnswerBody): ApprovalResult {
  if (body.answer === 'yes') return { approved: true };
  if (body.answer === 'always') return { approved: 'always' };
  if (body.answer === 'session') return { approved: 'session' };
  return body.reason === undefined || body.reason === '' ? { approved: false } : { approved: false, reason: body.reason };
}
