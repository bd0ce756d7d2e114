/**
 * The AI SDK's chat route on `golem serve`, for an app built on `useChat`: `POST /api/chat`
 * takes what its DefaultChatTransport sends (`{ id, messages, trigger, messageId }`; `id` is
 * the thread, a Golem session made on first use; chat-request.ts) and answers with the UI
 * message stream of the run it starts (chat-stream.ts); `GET /api/chat/:id/stream` is the
 * same stream again, from its start, for a client that lost it while the run goes on
 * (`reconnectToStream`: 204 when no run of this process is in progress on the thread).
 *
 * The user's message is the thread's next turn, under the client's id for it: the same
 * message sent again (a retry) is not answered twice, it gets the stream of its run (or, that
 * run gone, its answer told from the turns). Its run's supervised calls pause it: the stream
 * ends with the call's approval request, `addToolApprovalResponse` answers it, and the next
 * request (the assistant message with the answered part) gives the answer where the run that
 * asked waits: recorded, the run resumes and continues the same assistant message; a page's
 * run waiting in memory takes it and goes on (thread-approvals.ts). The same answer sent again
 * answers nothing and runs nothing: it gets the stream of the run it resumed, or the message
 * as the turns tell it. The UI instances the run's agent builds or changes come as `data-ui`.
 *
 * Refused before any stream starts, with nothing written: a malformed body, a thread another
 * user has (SESSION_NOT_FOUND), a thread whose run goes on (SESSION_BUSY: a second run cannot
 * join it, and the client can follow it with `resumeStream`), a new message while an
 * approval waits (APPROVAL_PENDING), an edit of a sent message (INVALID_ARGUMENT), and an
 * answer for an approval that is not this thread's (APPROVAL_NOT_FOUND), not this call's
 * (APPROVAL_MISMATCH) or answered otherwise (APPROVAL_ANSWERED).
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { recordsOf, type ApprovalRecord } from '../agent/agent-plugin.js';
import { GolemError } from '../core/errors.js';
import type { Turn } from '../core/records.js';
import { pathTo } from '../core/turn-tree.js';
import type { Session } from '../prompt/session.js';
import type { ApprovalAnswerBody } from './api-types.js';
import { readChatRequest, type ChatInput } from './chat-request.js';
import { ChatRun, queuedStream, runStream, sourceStream, toldAgain, turnsStream, type ChatStart, type RunStreamOptions } from './chat-stream.js';
import { afterOf, elsewhereSource } from './run-source.js';
import type { RunPolicy } from '../agent/inbox.js';
import { sendDuringRun } from './wire-policy.js';
import type { ServeHost } from './host.js';
import { MAX_MESSAGES_BODY, readJsonBody } from './json-body.js';
import { requestUser } from './request-user.js';
import type { RunLog } from '../agent/run-log.js';
import { answerApprovals, answeredBefore, askedInMemory, openCalls, requireNoPendingApproval, threadApproval } from './thread-approvals.js';
import { onUiChange } from '../ui/ui-plugin.js';
import { toolCallIdOf, UIMessageChunks, type MessageContext } from './ui-message-chunks.js';
import type { UIMessageChunk } from './ui-message-stream.js';
import { withUserBlocks, type UserPart } from './user-parts.js';

/** Mounts `POST /api/chat` and `GET /api/chat/:id/stream` (behind the API's auth and user hook). */
export function mountChat(app: Hono, host: ServeHost): void {
  const chat = new ChatRoute(host);
  app.post('/api/chat', async (c) => {
    // The whole body counts: DefaultChatTransport sends the thread's every message, each time.
    const request = readChatRequest(await readJsonBody(c.req.raw, MAX_MESSAGES_BODY));
    host.runs.requireAgent();
    const user = requestUser(c.req.raw);
    return request.input.type === 'message'
      ? chat.send(user, request.threadId, request.input, request.policy)
      : chat.answer(user, request.threadId, request.input);
  });
  app.get('/api/chat/:id/stream', async (c) => chat.resume(requestUser(c.req.raw), c.req.param('id'), c.req.raw));
}

/** How many threads' paused runs the route keeps (`ChatRoute.#paused`). */
const MAX_PAUSED = 200;

/** How a client answers an approval, for the refusal of a message sent while one waits. */
const HOW_TO_ANSWER =
  'approve or deny it (addToolApprovalResponse) before sending a new message; when a refused message is the last, sendMessage() with no message sends the answer';

class ChatRoute {
  readonly #host: ServeHost;
  readonly #runs = new WeakMap<RunLog, ChatRun>();
  /**
   * Each thread's last run here that paused on an approval, however long the answer takes:
   * the run its answer resumes continues its message, and keeps it (for a client that comes
   * back to the message). The oldest are let go past MAX_PAUSED threads.
   */
  readonly #paused = new Map<string, ChatRun>();

  constructor(host: ServeHost) {
    this.#host = host;
  }

  /**
   * The user's message: a run on it, streamed; the same message sent again, the stream of its
   * run; sent while the thread runs, kept for that run by `policy` (wire-policy.ts).
   */
  async send(user: string | null, threadId: string, message: Extract<ChatInput, { type: 'message' }>, policy?: RunPolicy): Promise<Response> {
    const host = this.#host;
    const session = await host.thread(user, threadId, true);
    const sent = await this.#sentBefore(session, message);
    if (sent !== undefined) return this.#again(session, sent);
    if (host.runs.busyAnywhere(session.id)) {
      const queued = await withUserBlocks(host.workspace, message.parts, (blocks) =>
        sendDuringRun(host.runs, session.id, { blocks, id: message.messageId }, policy),
      );
      if (queued.type === 'queued') return queuedStream(queued);
    }
    host.runs.requireIdle(session.id);
    requireNoPendingApproval(host, session.id, HOW_TO_ANSWER);
    let log: RunLog;
    try {
      const turn = { id: message.messageId };
      log = await withUserBlocks(host.workspace, message.parts, (blocks) => host.runs.startWith(session, { ...turn, blocks }, { pause: true }));
    } catch (error) {
      // The same message sent twice at once: the other request added it, and its run has it.
      const twin = GolemError.isInstance(error) && error.code === 'DUPLICATE_ID' ? await this.#sentBefore(session, message) : undefined;
      if (twin === undefined) throw error;
      return this.#again(session, twin);
    }
    return this.#follow(session, log, { messageId: log.runId }, { type: 'message', messageId: message.messageId });
  }

  /** Answers to approvals: given where the run that asked waits, and the message continued by what follows. */
  async answer(user: string | null, threadId: string, input: Extract<ChatInput, { type: 'approvals' }>): Promise<Response> {
    const host = this.#host;
    const session = await host.thread(user, threadId, false);
    const answers = input.answers.map((answer) => {
      const approval = threadApproval(host, session, answer.approvalId);
      // The part names the call under its answer's turn: the model's id alone may name a call of another answer.
      const call = toolCallIdOf(approval.turnId, approval.callId);
      if (call !== answer.toolCallId) throw new GolemError('APPROVAL_MISMATCH', `approval ${approval.id} is for call "${call}", not "${answer.toolCallId}"`);
      const body: ApprovalAnswerBody = answer.approved ? { answer: 'yes' } : { answer: 'no', ...(answer.reason !== undefined && { reason: answer.reason }) };
      return { approval, body, approved: answer.approved, answered: answeredBefore(approval, body, 'approval') };
    });
    const context: MessageContext = {
      messageId: input.messageId,
      shown: input.shown,
      answered: answers.map(({ approval, approved }) => ({ approval, approved })),
    };
    const approvals = answers.map((a) => a.approval);
    const open = answers.filter((a) => !a.answered);
    if (open.length === 0) return this.#answeredAgain(session, approvals, context);
    // The calls after the answered one wait their turn, and are shown as it comes.
    const waiting = lastAnswerCalls(await session.transcript());
    const paused = this.#paused.get(session.id);
    const from = session.head();
    const given = await answerApprovals(host, user, session, open);
    if (given.type === 'in-memory') return this.#stream(given.log, { ...context, waiting }, { from: given.from });
    const log = host.runs.run(session, undefined, given.claim, { pause: true });
    const ids = new Set(approvals.map((a) => a.id));
    // The run it resumes built the same message: kept with this one, for a client that comes back to it.
    const previous = paused?.context.messageId === input.messageId ? paused : undefined;
    return this.#follow(session, log, { ...context, waiting }, { type: 'answers', approvalIds: ids, from, previous });
  }

  /**
   * The stream of the run in progress on the thread, here or in another process, from its
   * start, or after the event a client's `Last-Event-ID` names (204 when none runs).
   */
  async resume(user: string | null, threadId: string, request: Request): Promise<Response> {
    const host = this.#host;
    const session = await host.thread(user, threadId, false);
    const log = host.runs.log(session.id);
    if (log === undefined || log.end !== undefined) {
      const elsewhere = await elsewhereSource(host.workspace, session.id);
      if (elsewhere === undefined) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
      return sourceStream(elsewhere, { messageId: elsewhere.runId }, afterOf(request, elsewhere.runId));
    }
    const after = afterOf(request, log.runId);
    const run = this.#runs.get(log);
    if (run?.start.type !== 'answers') return this.#stream(log, run?.context ?? { messageId: log.runId }, { run, after });
    // A resumed run continues a message: the client rebuilds it whole, from the runs before it while this process has them.
    const context: MessageContext = { messageId: run.context.messageId };
    const earlier = run.earlier();
    const answered = run.context.answered ?? [];
    if (earlier !== undefined) {
      const before = (chunks: UIMessageChunks) => {
        const told = toldAgain(chunks, earlier);
        chunks.resumedBy(answered);
        return told;
      };
      return this.#stream(log, context, { run, before, after });
    }
    // Otherwise from the thread's turns before it: a sub-worker's call it resumed is shown as when it asked (UI changes of before are not).
    await session.load();
    const path = pathTo(host.workspace.manager.workspace(), run.start.from);
    const turns = path.slice(path.findLastIndex((t) => t.role === 'user') + 1);
    const approvals = this.#approvalsOf(session);
    return this.#stream(log, { ...context, answered }, { run, after, before: (chunks) => [...chunks.turns(turns, approvals), ...chunks.askedBy(answered)] });
  }

  /**
   * Answers recorded before: the stream of the run they resumed, when this process has it;
   * SESSION_BUSY while another run goes on (a page's answer may have resumed it); a run
   * resumed now, when their calls still wait (they were recorded, and nothing resumed them
   * since: this process started after them); or else, the thread having gone on since, the
   * message as its turns tell it, nothing run.
   */
  async #answeredAgain(session: Session, approvals: readonly ApprovalRecord[], context: MessageContext): Promise<Response> {
    const host = this.#host;
    const log = host.runs.log(session.id);
    const run = log === undefined ? undefined : this.#runs.get(log);
    if (log !== undefined && run?.answered(approvals.map((a) => a.id)) === true) return this.#stream(log, run.context, { run });
    // Its answer in the message would be what the run has done so far, which leaves the client's part answered and unfinished: sent again, and again.
    if (host.runs.busyAnywhere(session.id)) throw new GolemError('SESSION_BUSY', `thread "${session.id}" is running; follow it with resumeStream()`);
    const path = await session.transcript();
    const anchor = approvals[0] === undefined ? undefined : this.#anchorOf(path, approvals[0]);
    const waiting = lastAnswerCalls(path);
    if (anchor !== undefined && waiting.some((call) => call.turnId === anchor)) {
      const from = session.head();
      const started = host.runs.run(session, undefined, await host.runs.claim(session.id), { pause: true });
      return this.#follow(
        session,
        started,
        { ...context, waiting },
        { type: 'answers', approvalIds: new Set(approvals.map((a) => a.id)), from, previous: undefined },
      );
    }
    const at = path.findIndex((t) => t.id === anchor);
    const anchored = at === -1 ? [] : path.slice(at, at + 1);
    // A sub-worker's call is not among the thread's turns: its result, from the worker's, comes first (it updates the client's part).
    const results: UIMessageChunk[] = [];
    for (const approval of approvals.filter((a) => a.sessionId !== a.rootSessionId)) {
      const worker = await host.workspace.sessions.open(approval.sessionId);
      const turns = (await worker?.transcript()) ?? [];
      const result = turns
        .slice(turns.findIndex((t) => t.id === approval.turnId) + 1)
        .flatMap((t) => t.blocks)
        .find((b) => b.type === 'tool_result' && b.callId === approval.callId);
      if (result?.type === 'tool_result') results.push(...UIMessageChunks.result(approval, result));
    }
    return this.#told(session, path, at, { ...context, waiting: openCalls(anchored) }, results);
  }

  /** The same message sent again: the stream of its run while this process has it, or its answer as the turns tell it. */
  async #again(session: Session, turn: Turn): Promise<Response> {
    const host = this.#host;
    const log = host.runs.log(session.id);
    const run = log === undefined ? undefined : this.#runs.get(log);
    if (log !== undefined && run?.start.type === 'message' && run.start.messageId === turn.id) return this.#stream(log, run.context, { run });
    if (host.runs.busyAnywhere(session.id)) throw new GolemError('SESSION_BUSY', `thread "${session.id}" is running; follow it with resumeStream()`);
    const path = await session.transcript();
    const at = path.findIndex((t) => t.id === turn.id);
    return this.#told(session, path, at, { messageId: path[at + 1]?.id ?? randomUUID() });
  }

  /** The message that follows the turn at `at` (up to the next user turn), as the turns tell it (after `first`), then `finish`. */
  #told(session: Session, path: readonly Turn[], at: number, context: MessageContext, first: UIMessageChunk[] = []): Response {
    const rest = at === -1 ? [] : path.slice(at + 1);
    const next = rest.findIndex((t) => t.role === 'user');
    const turns = next === -1 ? rest : rest.slice(0, next);
    const approvals = this.#approvalsOf(session);
    const waits = approvals.some((a) => a.status === 'pending' && turns.some((t) => t.id === a.turnId));
    return turnsStream(context, { first, turns, approvals, finishReason: waits ? 'tool-calls' : 'stop' });
  }

  /** The user turn on the thread with the message's id, when it is the same message (another is an edit: refused). */
  async #sentBefore(session: Session, message: Extract<ChatInput, { type: 'message' }>): Promise<Turn | undefined> {
    const turn = (await session.transcript()).find((t) => t.id === message.messageId && t.role === 'user');
    if (turn === undefined || sameMessage(turn, message.parts)) return turn;
    throw new GolemError(
      'INVALID_ARGUMENT',
      `messages: message "${message.messageId}" was sent before, with other content; a sent message is not edited here: send it as a new message`,
    );
  }

  /** The root's answer the client's message shows an approval's call in (a sub-worker's: the answer whose call started the worker). */
  #anchorOf(path: readonly Turn[], approval: ApprovalRecord): string | undefined {
    if (approval.sessionId === approval.rootSessionId) return approval.turnId;
    const spawn = this.#host.workspace.manager
      .workspace()
      .collection('worker')
      .get(approval.workerPath[1]?.id ?? '')?.parentCallId;
    return path.findLast((t) => t.role === 'assistant' && t.blocks.some((b) => b.type === 'tool_use' && b.callId === spawn))?.id;
  }

  #approvalsOf(session: Session): ApprovalRecord[] {
    return recordsOf(this.#host.workspace.manager.workspace(), 'approval').filter((a) => a.rootSessionId === session.id);
  }

  /** A run started here, followed: the UI instances its agent changes until it ends; its stream. */
  #follow(session: Session, log: RunLog, context: MessageContext, start: ChatStart): Response {
    const host = this.#host;
    const run = new ChatRun(log, context, start);
    this.#runs.set(log, run);
    this.#paused.delete(session.id);
    const shown = host.uiIdsOf(session.id);
    const off = onUiChange(host.workspace.manager.events, (result, builtBy) => {
      if (builtBy === undefined || host.rootOf(builtBy) !== session.id) return;
      // With users, by the id the user's agent gave it (ui-scope.ts).
      run.push({ instanceId: shown(result.instanceId), version: result.version, instance: result.instance ?? null }, log.entries().length);
    });
    log.follow((entry) => {
      if (entry.type !== 'end') return;
      off();
      if (entry.end.outcome?.status !== 'paused') return;
      this.#paused.set(session.id, run);
      for (const [oldest] of this.#paused) {
        if (this.#paused.size <= MAX_PAUSED) break;
        this.#paused.delete(oldest);
      }
    }, log.entries().length);
    return this.#stream(log, context, { run });
  }

  #stream(log: RunLog, context: MessageContext, options: Omit<RunStreamOptions, 'asked'> = {}): Response {
    return runStream(log, context, { ...options, asked: (entry) => askedInMemory(this.#host, log.sessionId, entry) });
  }
}

/** The calls of the last answer on the path that have no result yet, in order (a resumed run performs them). */
function lastAnswerCalls(path: readonly Turn[]) {
  const last = path.findLast((t) => t.role === 'assistant');
  return openCalls(path).filter((call) => call.turnId === last?.id);
}

/** Whether a turn holds what the message's parts say (its texts, its number of images). */
function sameMessage(turn: Turn, parts: readonly UserPart[]): boolean {
  const text = (texts: string[]) => texts.filter((t) => t !== '').join('\n\n');
  const images = <T extends { type: string }>(list: readonly T[]) => list.filter((p) => p.type === 'image').length;
  const turnText = text(turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])));
  return turnText === text(parts.flatMap((p) => (p.type === 'text' ? [p.text] : []))) && images(turn.blocks) === images(parts);
}
