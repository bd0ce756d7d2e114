/**
 * A thread's approvals as the protocol routes answer them (AG-UI's `resume`, the AI SDK's
 * answered tool parts), one way for both: each answer checked before any is given (another
 * thread's approval is not found, one answered otherwise is APPROVAL_ANSWERED), then given
 * where the run that asked waits. A run here waiting in memory (a page's run: its log says so)
 * takes the answer and goes on, and its log tells what follows; otherwise the answers are
 * recorded in the workspace under a claim of the thread's run, which resumes from the log.
 */
import { recordsOf, type ApprovalRecord } from '../agent/agent-plugin.js';
import type { JsonValue } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { Turn } from '../core/records.js';
import type { Session } from '../prompt/session.js';
import type { ApprovalAnswerBody } from './api-types.js';
import type { ServeHost } from './host.js';
import type { RunLog, RunLogEntry } from '../agent/run-log.js';
import type { Claim } from './runs.js';
import { resultOf } from './views.js';

/** An approval of the thread, by id: another thread's, or none, is APPROVAL_NOT_FOUND (`what` is what the client calls it). */
export function threadApproval(host: ServeHost, session: Session, approvalId: string, what = 'approval'): ApprovalRecord {
  const approval = recordsOf(host.workspace.manager.workspace(), 'approval').find((a) => a.id === approvalId);
  // Another thread's approval is not this thread's to answer, nor to name.
  if (approval === undefined || approval.rootSessionId !== session.id) {
    throw new GolemError('APPROVAL_NOT_FOUND', `thread "${session.id}" has no ${what} "${approvalId}"`);
  }
  return approval;
}

/**
 * Whether the approval was answered already with this answer (the same answer sent again);
 * answered otherwise, APPROVAL_ANSWERED. `alike`: what makes two answers the same, the answer
 * itself (yes, always and session told apart) or only whether it approved (a client that says
 * only yes or no).
 */
export function answeredBefore(approval: ApprovalRecord, body: ApprovalAnswerBody, alike: 'answer' | 'approval'): boolean {
  if (approval.status === 'pending') return false;
  const same = alike === 'answer' ? approval.answer === body.answer : (approval.status === 'approved') === (body.answer !== 'no');
  if (!same) throw new GolemError('APPROVAL_ANSWERED', `approval ${approval.id} was already answered (${approval.answer ?? approval.status})`);
  return true;
}

/** Refuses a new message while one of the thread's approvals waits for its answer (APPROVAL_PENDING; `how`: how the client answers it). */
export function requireNoPendingApproval(host: ServeHost, sessionId: string, how: string): void {
  const [waiting] = host.workspace.approvals.pending({ rootSessionId: sessionId });
  if (waiting !== undefined) {
    throw new GolemError('APPROVAL_PENDING', `thread "${sessionId}" waits for the answer to approval ${waiting.id} (${waiting.description}); ${how}`);
  }
}

/**
 * The approval a log entry says the run waits for in memory (a page's run, whose dialog a
 * protocol client may answer too), while it is still pending; undefined for any other entry.
 */
export function askedInMemory(host: ServeHost, sessionId: string, entry: RunLogEntry): ApprovalRecord | undefined {
  if (entry.type !== 'approval') return undefined;
  return host.workspace.approvals.pending({ rootSessionId: sessionId }).find((a) => a.id === entry.approvalId);
}

/** An answer to give: the approval, checked, and what the user said. */
export interface OpenAnswer {
  approval: ApprovalRecord;
  body: ApprovalAnswerBody;
}

/** Where the answers went. */
export type AnswersGiven =
  /** To the run here that waited for them in memory: it goes on, and its log tells what follows from entry `from`. */
  | { type: 'in-memory'; log: RunLog; from: number }
  /** Into the workspace, under `claim`: the caller starts the run that resumes them (`runs.run`), or drops the claim. */
  | { type: 'recorded'; claim: Claim };

/**
 * Gives the answers (each checked already: none answered yet) to the run that waits for them.
 * A run here waiting in memory takes them; a run here that paused on them and is still letting
 * go of the thread is waited for; a run going on otherwise (here, or in another process) is
 * SESSION_BUSY, nothing answered. Otherwise the thread's run is claimed and the answers
 * recorded (the claim dropped if that fails).
 */
export async function answerApprovals(host: ServeHost, user: string | null, session: Session, open: readonly OpenAnswer[]): Promise<AnswersGiven> {
  const { runs } = host;
  const log = runs.log(session.id);
  if (log !== undefined && log.end === undefined && open.every(({ approval }) => waitsInMemory(log, approval.id))) {
    const from = log.entries().length;
    for (const { approval, body } of open) await host.answerApproval(user, approval.id, body);
    return { type: 'in-memory', log, from };
  }
  if (log?.end !== undefined && runs.isRunning(session.id)) await runs.settled(session.id);
  if (runs.busyAnywhere(session.id)) {
    const where = runs.busy(session.id) ? '' : ' in another process';
    throw new GolemError('SESSION_BUSY', `thread "${session.id}" is running${where}; its approvals are answered once its run ends, or where it runs`);
  }
  const claim = await runs.claim(session.id);
  try {
    for (const { approval, body } of open) await host.workspace.approvals.answer(approval.id, resultOf(body), { fingerprint: approval.fingerprint });
  } catch (error) {
    await runs.drop(session.id, claim);
    throw error;
  }
  return { type: 'recorded', claim };
}

/** Whether the log's run asked for the approval and waits for it in memory. */
function waitsInMemory(log: RunLog, approvalId: string): boolean {
  return log.entries().some((entry) => entry.type === 'approval' && entry.approvalId === approvalId);
}

/** A call a model made that has no result yet. */
export interface OpenCall {
  /** The answer (assistant turn) that made it. */
  turnId: string;
  callId: string;
  name: string;
  input: JsonValue;
}

/** The calls on the path that have no result yet, in order: a run resumed on the path performs them. */
export function openCalls(turns: readonly Turn[]): OpenCall[] {
  const open: OpenCall[] = [];
  for (const turn of turns) {
    for (const block of turn.blocks) {
      if (block.type === 'tool_use' && block.providerExecuted !== true)
        open.push({ turnId: turn.id, callId: block.callId, name: block.name, input: block.args });
      if (block.type !== 'tool_result') continue;
      // A provider may name the calls of each answer alike: a result is its latest call's.
      const at = open.findLastIndex((call) => call.callId === block.callId);
      if (at !== -1) open.splice(at, 1);
    }
  }
  return open;
}
