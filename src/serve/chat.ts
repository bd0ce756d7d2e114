/**
 * The AI SDK's chat route on `golem serve`, for an app built on `useChat`: `POST /api/chat`
 * takes what its DefaultChatTransport sends (`{ id, messages, trigger, messageId }`; `id` is
 * the thread, a Golem session made on first use) and answers with the UI message stream of
 * the run it starts (ui-message-chunks.ts); `GET /api/chat/:id/stream` is the same stream
 * again, from its start, for a client that lost it while the run goes on
 * (`reconnectToStream`: 204 when no run is in progress on the thread).
 *
 * The user's message starts a run whose supervised calls pause it: the stream ends with the
 * call's approval request, `addToolApprovalResponse` answers it, and the next request (the
 * assistant message with the answered part) records the answer and resumes the run, which
 * continues the same assistant message. The same answer sent again answers nothing and runs
 * nothing: it gets the stream of the run the first one resumed (or, when this process has no
 * such run, the run resumes from the log, doing only what is still to do). The UI instances
 * the run's agent builds or changes come as `data-ui` parts.
 *
 * Refused before any stream starts, with nothing written: a malformed body, a thread another
 * user has (SESSION_NOT_FOUND), a thread whose run goes on (SESSION_BUSY: a second run cannot
 * join it, and the client can follow it with `resumeStream`), a new message while an
 * approval waits (APPROVAL_PENDING), and an answer for an approval that is not this thread's
 * (APPROVAL_NOT_FOUND), not this call's (APPROVAL_MISMATCH) or answered otherwise
 * (APPROVAL_ANSWERED).
 */
import type { Hono } from 'hono';
import { recordsOf, type ApprovalRecord } from '../agent/agent-plugin.js';
import type { ContentBlock } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { Turn, TurnRef } from '../core/records.js';
import { pathTo } from '../core/turn-tree.js';
import type { Session } from '../prompt/session.js';
import { readChatRequest, type ChatInput, type UserInputPart } from './chat-request.js';
import type { ServeHost } from './host.js';
import { readJsonBody } from './json-body.js';
import { requestUser } from './request-user.js';
import type { RunLog } from './run-log.js';
import { UIMessageChunks, waitingCalls, type MessageContext, type PendingCall } from './ui-message-chunks.js';
import { uiMessageStreamResponse, type UIInstancePart, type UIMessageChunk } from './ui-message-stream.js';

/** Mounts `POST /api/chat` and `GET /api/chat/:id/stream` (behind the API's auth and user hook). */
export function mountChat(app: Hono, host: ServeHost): void {
  const chat = new ChatRoute(host);
  app.post('/api/chat', async (c) => {
    const request = readChatRequest(await readJsonBody(c.req.raw));
    host.runs.requireAgent();
    const user = requestUser(c.req.raw);
    return request.input.type === 'message' ? chat.send(user, request.threadId, request.input.parts) : chat.answer(user, request.threadId, request.input);
  });
  app.get('/api/chat/:id/stream', async (c) => chat.resume(requestUser(c.req.raw), c.req.param('id')));
}

/** A run started here: the message it builds, and the UI instances its agent changed, each at its place in the log. */
class ChatRun {
  readonly log: RunLog;
  readonly context: MessageContext;
  /** A resumed run: the session's head when it started (the message's turns before the run end there). */
  readonly from: TurnRef | null | undefined;
  readonly ui: { at: number; part: UIInstancePart }[] = [];
  readonly #listeners = new Set<() => void>();

  constructor(log: RunLog, context: MessageContext, from: TurnRef | null | undefined) {
    this.log = log;
    this.context = context;
    this.from = from;
  }

  /** An instance changed before the log's entry `at`. */
  push(part: UIInstancePart, at: number): void {
    this.ui.push({ at, part });
    for (const listener of this.#listeners) listener();
  }

  listen(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }
}

class ChatRoute {
  readonly #host: ServeHost;
  readonly #runs = new WeakMap<RunLog, ChatRun>();

  constructor(host: ServeHost) {
    this.#host = host;
  }

  /** The user's new message: a run on it, streamed. */
  async send(user: string | null, threadId: string, parts: UserInputPart[]): Promise<Response> {
    const host = this.#host;
    const session = await host.thread(user, threadId, true);
    host.runs.requireIdle(session.id);
    const [waiting] = host.workspace.approvals.pending({ rootSessionId: session.id });
    if (waiting !== undefined) {
      throw new GolemError(
        'APPROVAL_PENDING',
        `approval ${waiting.id} (${waiting.description}) waits for its answer; approve or deny it (addToolApprovalResponse) before sending a new message`,
      );
    }
    const claim = await host.runs.claim(session.id);
    // Images are held until the run ends: by then its turn references them, or nothing does and they go.
    const held: string[] = [];
    let input: string | ContentBlock[];
    try {
      input = await this.#input(parts, held);
    } catch (error) {
      await host.runs.drop(session.id, claim);
      await this.#release(held);
      throw error;
    }
    const run = this.#run(session, input, claim, { messageId: claim.runId }, undefined, held);
    return this.#stream(run.log, run.context, run, []);
  }

  /** Answers to approvals: recorded, and the paused run resumed, continuing the client's message. */
  async answer(user: string | null, threadId: string, input: Extract<ChatInput, { type: 'approvals' }>): Promise<Response> {
    const host = this.#host;
    const session = await host.thread(user, threadId, false);
    const view = host.workspace.manager.workspace();
    const open: { approval: ApprovalRecord; approved: boolean; reason?: string }[] = [];
    for (const answer of input.answers) {
      const approval = recordsOf(view, 'approval').find((a) => a.id === answer.approvalId);
      if (approval === undefined || approval.rootSessionId !== session.id) {
        throw new GolemError('APPROVAL_NOT_FOUND', `thread "${session.id}" has no approval "${answer.approvalId}"`);
      }
      if (approval.callId !== answer.toolCallId) {
        throw new GolemError('APPROVAL_MISMATCH', `approval ${approval.id} is for call "${approval.callId}", not "${answer.toolCallId}"`);
      }
      if (approval.status === 'pending') open.push({ approval, approved: answer.approved, ...(answer.reason !== undefined && { reason: answer.reason }) });
      else if ((approval.status === 'approved') !== answer.approved) {
        throw new GolemError('APPROVAL_ANSWERED', `approval ${approval.id} was already answered ${approval.answer ?? ''}`.trim());
      }
    }
    const context: MessageContext = {
      messageId: input.messageId,
      shown: input.shown,
      answered: new Map(input.answers.map((a) => [a.toolCallId, a.approved])),
    };
    const log = host.runs.log(session.id);
    if (open.length === 0 && log !== undefined) {
      // These answers were recorded already (a client sending again): the run they resumed is streamed again, nothing answered or run twice.
      const run = this.#runs.get(log);
      return this.#stream(log, run?.context ?? context, run, []);
    }
    // Recorded, and no run here since (this process started after them): the run resumes, doing only what is still to do.
    const claim = await host.runs.claim(session.id);
    let waiting: PendingCall[];
    try {
      // The calls after the answered one wait their turn, and are shown as it comes.
      await host.workspace.manager.load([session.id]);
      waiting = waitingCalls(pathTo(host.workspace.manager.workspace(), session.head()));
      for (const { approval, approved, reason } of open) {
        const result = approved ? { approved: true as const } : { approved: false as const, ...(reason !== undefined && { reason }) };
        await host.workspace.approvals.answer(approval.id, result, { fingerprint: approval.fingerprint });
      }
    } catch (error) {
      await host.runs.drop(session.id, claim);
      throw error;
    }
    const run = this.#run(session, undefined, claim, { ...context, waiting }, session.head(), []);
    return this.#stream(run.log, run.context, run, []);
  }

  /** The stream of the run in progress on the thread, from its start (204 when none). */
  async resume(user: string | null, threadId: string): Promise<Response> {
    const host = this.#host;
    const session = await host.thread(user, threadId, false);
    const log = host.runs.log(session.id);
    if (log === undefined || log.end !== undefined) return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } });
    const run = this.#runs.get(log);
    if (run?.from === undefined) return this.#stream(log, run?.context ?? { messageId: log.runId }, run, []);
    // A resumed run continues a message: the client rebuilds it whole, from the turns before the run.
    await host.workspace.manager.load([session.id]);
    const view = host.workspace.manager.workspace();
    const path = pathTo(view, run.from);
    const lastUser = path.findLastIndex((t) => t.role === 'user');
    const approvals = recordsOf(view, 'approval').filter((a) => a.rootSessionId === session.id);
    // Nothing is shown yet: the client starts the message again.
    const context: MessageContext = { messageId: run.context.messageId, ...(run.context.answered !== undefined && { answered: run.context.answered }) };
    return this.#stream(log, context, run, path.slice(lastUser + 1), approvals);
  }

  /** Starts the claimed run, and follows the UI instances its agent changes until it ends. */
  #run(
    session: Session,
    input: string | ContentBlock[] | undefined,
    claim: Awaited<ReturnType<ServeHost['runs']['claim']>>,
    context: MessageContext,
    from: TurnRef | null | undefined,
    held: string[],
  ): ChatRun {
    const host = this.#host;
    try {
      host.runs.run(session, input, claim, { pause: true });
    } catch (error) {
      void this.#release(held);
      throw error;
    }
    const log = host.runs.log(session.id) as RunLog;
    const run = new ChatRun(log, context, from);
    this.#runs.set(log, run);
    const { manager } = host.workspace;
    const rootOf = (id: string) => manager.workspace().collection('worker').get(id)?.rootSessionId ?? id;
    const off = manager.events.on('ui:patch', ({ command, result }) => {
      const builtBy = command.payload.builtBy;
      if (typeof builtBy !== 'string' || rootOf(builtBy) !== session.id) return;
      run.push({ instanceId: result.instanceId, version: result.version, instance: result.instance ?? null }, log.entries().length);
    });
    log.follow((entry) => {
      if (entry.type !== 'end') return;
      off();
      void this.#release(held);
    }, log.entries().length);
    return run;
  }

  /** The run's stream: the message's earlier turns (`turns`), then the log and the UI changes in their order, live once caught up. */
  #stream(log: RunLog, context: MessageContext, run: ChatRun | undefined, turns: readonly Turn[], approvals: readonly ApprovalRecord[] = []): Response {
    return uiMessageStreamResponse((sink) => {
      const chunks = new UIMessageChunks(context);
      const write = (list: UIMessageChunk[]) => list.forEach((chunk) => sink.write(chunk));
      write(chunks.start());
      write(chunks.turns(turns, approvals));
      const ui = run?.ui ?? [];
      let shown = 0;
      const flush = (before: number) => {
        for (let next = ui[shown]; next !== undefined && next.at <= before; next = ui[++shown]) write(chunks.ui(next.part));
      };
      const offLog = log.follow((entry, index) => {
        flush(index);
        write(chunks.entry(entry));
        if (entry.type === 'end') sink.end();
        // A run a page started waits, in memory, for its dialog: the message ends with the approval it asks for.
        const asked =
          entry.type === 'approval'
            ? this.#host.workspace.approvals.pending({ rootSessionId: log.sessionId }).find((a) => a.id === entry.approvalId)
            : undefined;
        if (asked !== undefined) {
          write(chunks.entry({ type: 'end', end: { outcome: { status: 'paused', approval: asked, steps: 0, actions: [], turn: undefined } } }));
          sink.end();
        }
      });
      const offUi = run?.listen(() => flush(Infinity));
      flush(log.entries().length);
      return () => {
        offLog();
        offUi?.();
      };
    });
  }

  /** The user's message as the run's input: its text, or blocks when it has images (stored as blobs, held in `held`). */
  async #input(parts: UserInputPart[], held: string[]): Promise<string | ContentBlock[]> {
    const [only] = parts;
    if (parts.length === 1 && only?.type === 'text') return only.text;
    const blocks: ContentBlock[] = [];
    for (const part of parts) {
      if (part.type === 'text') {
        if (part.text !== '') blocks.push({ type: 'text', text: part.text });
        continue;
      }
      const filename = part.filename !== undefined && { filename: part.filename };
      const blob = await this.#host.workspace.blobs.register(part.bytes, { mediaType: part.mediaType, ...filename, hold: true });
      held.push(blob.sha256);
      blocks.push({ type: 'image', blob: { sha256: blob.sha256 }, mediaType: part.mediaType, ...filename });
    }
    return blocks;
  }

  async #release(held: readonly string[]): Promise<void> {
    for (const sha256 of held) await this.#host.workspace.blobs.release(sha256).catch(() => undefined);
  }
}
