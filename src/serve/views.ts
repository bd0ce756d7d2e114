/** The API's views of the workspace's records (api-types.ts), as `ServeHost` returns them. */
import type { ApprovalRecord, ClearanceRecord } from '../agent/agent-plugin.js';
import type { ApprovalResult } from '../agent/ui-adapter.js';
import type { Turn } from '../core/records.js';
import type { SessionView } from '../core/turn-tree.js';
import type { ApprovalAnswerBody, ApprovalView, ClearanceView, TurnView } from './api-types.js';

export function turnView(turn: Turn, view: SessionView): TurnView {
  const text: string[] = [];
  const toolCalls: TurnView['toolCalls'] = [];
  const toolResults: TurnView['toolResults'] = [];
  for (const b of turn.blocks) {
    if (b.type === 'text') text.push(b.text);
    else if (b.type === 'tool_use') toolCalls.push({ callId: b.callId, name: b.name, input: b.args });
    else if (b.type === 'server_tool_result')
      toolResults.push({ callId: b.callId, text: typeof b.output === 'string' ? b.output : JSON.stringify(b.output), isError: b.isError === true });
    else if (b.type === 'tool_result') {
      const content = b.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
      toolResults.push({ callId: b.callId, text: content, isError: b.isError === true });
    }
  }
  const branch = view.branchInfo(turn.id) ?? { versions: [turn.version], currentIndex: 0, total: 1, hasPrev: false, hasNext: false };
  return {
    id: turn.id,
    version: turn.version,
    role: turn.role as TurnView['role'],
    text: text.join('\n\n'),
    toolCalls,
    toolResults,
    branch,
    createdAt: turn.createdAt,
  };
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
    workerPath: a.workerPath,
    createdAt: a.createdAt,
  };
}

export function clearanceView(c: ClearanceRecord): ClearanceView {
  return { id: c.id, sessionId: c.sessionId, type: c.type, description: c.description, status: c.status, createdAt: c.createdAt };
}

export function resultOf(body: ApprovalAnswerBody): ApprovalResult {
  if (body.answer === 'yes') return { approved: true };
  if (body.answer === 'always') return { approved: 'always' };
  if (body.answer === 'session') return { approved: 'session' };
  return body.reason === undefined || body.reason === '' ? { approved: false } : { approved: false, reason: body.reason };
}
