/**
 * AG-UI over HTTP (`POST /api/agui`): a `RunAgentInput` in, a `text/event-stream` of AG-UI
 * events out, as `@ag-ui/client`'s HttpAgent (and CopilotKit, assistant-ui on it) expect.
 *
 * - The thread is a Golem session: one the user may see, or a new one with that id.
 * - What the client's messages add since the thread's head is the input: the user's new
 *   message(s) start a run; results of the client's own tools (`tools`, frontend tools) go to
 *   the run waiting for them. `context` entries and the app's `state` (keys besides
 *   `instances`, which is the thread's UI as Golem sent it) reach the run's instructions.
 * - A supervised call ends the client's run with an interrupt (RUN_FINISHED, outcome
 *   `interrupt`): the approval, pending in the workspace. The next request's `resume` answers
 *   it and the run goes on. A call of one of the client's tools ends it with the call pending
 *   (`pendingToolCallIds`); the next request's tool message is its result.
 * - A request with nothing new follows the run in progress from its start (a client that lost
 *   its stream comes back to it), or reports the thread as it is.
 * - A second run on a busy thread is refused with SESSION_BUSY (409) before any stream.
 *
 * Each stream: RUN_STARTED; STATE_SNAPSHOT of the thread's UI instances, then a STATE_DELTA
 * per change to them; the run's events (run-events.ts); MESSAGES_SNAPSHOT of the thread; and
 * RUN_FINISHED or RUN_ERROR with the cause's code. A client that goes away stops its stream,
 * not the run.
 */
import type { RunAgentInput } from '@ag-ui/core';
import type { Hono as HonoApp } from 'hono';
import { z } from 'zod';
import type { ApprovalRecord } from '../agent/agent-plugin.js';
import type { ApprovalResult } from '../agent/ui-adapter.js';
import type { JsonObject } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import { pathTo } from '../core/turn-tree.js';
import type { Session } from '../prompt/session.js';
import { uiInstances, type UIPatchResult } from '../ui/ui-plugin.js';
import { readClientInput, resultId, threadMessages } from './agui-messages.js';
import type { ClientTool } from './client-tools.js';
import type { ServeHost } from './host.js';
import { readJsonBody } from './json-body.js';
import { requestUser, setRequestUser } from './request-user.js';
import { RunLog } from './run-log.js';
import { RunEventTranslator, type RunEvent } from './run-events.js';
import type { RunStartOptions } from './runs.js';
import { sseResponse } from './sse.js';
import { instanceDelta } from './ui-stream.js';

/** The most bytes a `RunAgentInput` may have (8 MiB: messages may carry images). */
const MAX_INPUT = 8 * 1024 * 1024;
/** The most context a client gives a run, in characters. */
const MAX_CONTEXT = 20_000;

export function mountAgui(app: HonoApp, host: ServeHost): void {
  app.post('/api/agui', async (c) => aguiRun(host, c.req.raw));
}

/** What a resume entry's payload says about an approval. */
const ApprovalAnswer = z.strictObject({ answer: z.enum(['yes', 'no', 'always', 'session']), reason: z.string().max(2000).optional() });

const Ids = z.object({ threadId: z.string().min(1).max(200), runId: z.string().min(1).max(200) });

/** Answers one AG-UI request with its stream, or refuses it (a GolemError: the API's JSON error) before any stream starts. */
export async function aguiRun(host: ServeHost, request: Request): Promise<Response> {
  const input = await readInput(request);
  const ws = host.workspace;
  const runs = host.runs;
  const user = requestUser(request);
  const tools = clientTools(input);
  const options: RunStartOptions = {
    pause: true,
    ...(tools.length > 0 && { actions: (log: RunLog) => host.clientCalls.actions(tools, log) }),
    ...(instructionsOf(input) !== '' && { instructions: instructionsOf(input) }),
  };
  // The tools' schemas compile before anything is written (INVALID_ARGUMENT names the tool).
  if (tools.length > 0) host.clientCalls.actions(tools, new RunLog('check', 'check'));

  if ((input.resume ?? []).length > 0) {
    const session = await host.thread(user, input.threadId, false);
    const answers = (input.resume ?? []).map((entry) => answerOf(host, session, entry));
    if (runs.busyAnywhere(session.id) && !answers.every((a) => a.answered)) {
      throw new GolemError('SESSION_BUSY', `thread "${session.id}" is running; its approvals are answered where it runs`);
    }
    for (const a of answers) if (!a.answered) await ws.approvals.answer(a.approval.id, a.result, { fingerprint: a.approval.fingerprint });
    // A resume sent twice: the first one's run is followed.
    if (!runs.busy(session.id)) await runs.start(session, undefined, options);
    return stream(host, session.id, input, 0);
  }

  const existing = ws.sessions.get(input.threadId) === undefined ? undefined : await host.thread(user, input.threadId, false);
  const messages = existing === undefined ? [] : threadMessages(await pathOf(host, existing));
  const known = new Set(messages.map((m) => m.id));
  const { blocks, messageId, results } = await readClientInput(ws, input.messages, known);

  if (existing !== undefined && results.size > 0) {
    const waiting = new Set(host.clientCalls.waiting(existing.id));
    const log = runs.log(existing.id);
    if (blocks !== undefined && runs.busyAnywhere(existing.id)) throw busy(existing.id);
    const from = log?.entries().length ?? 0;
    let answered = false;
    for (const [callId, result] of results) if (waiting.has(callId)) answered = host.clientCalls.answer(existing.id, callId, result) || answered;
    if (answered && log !== undefined) return stream(host, existing.id, input, from);
    // No run waits for them (this server restarted): kept for the calls, which a resumed run performs again.
    const open = openCalls(await pathOf(host, existing));
    const kept = [...results].filter(([callId]) => open.has(callId));
    for (const [callId, result] of kept) host.clientCalls.answer(existing.id, callId, result);
    if (kept.length > 0 && blocks === undefined) {
      if (runs.busyAnywhere(existing.id)) throw busy(existing.id);
      await runs.start(existing, undefined, options);
      return stream(host, existing.id, input, 0);
    }
  }

  if (blocks !== undefined) {
    if (existing !== undefined && runs.busyAnywhere(existing.id)) throw busy(existing.id);
    const waiting = existing === undefined ? [] : ws.approvals.pending({ rootSessionId: existing.id });
    if (waiting.length > 0) {
      throw new GolemError(
        'APPROVAL_PENDING',
        `thread "${existing?.id}" waits for the answer to approval ${waiting[0]?.id} (${waiting[0]?.description}); resume it (RunAgentInput.resume) before sending a new message`,
      );
    }
    const session = existing ?? (await host.thread(user, input.threadId, true));
    // The turn takes the message's id: the client's copy of it stays where it is when the thread's messages come back.
    await runs.startWith(session, { blocks, ...(messageId !== undefined && /^[\w.:-]{1,200}$/.test(messageId) && { id: messageId }) }, options);
    return stream(host, session.id, input, 0);
  }

  // Nothing new: the run in progress, from its start, or the thread as it is (a new thread is not made for nothing).
  const log = existing === undefined ? undefined : runs.log(existing.id);
  return stream(host, input.threadId, input, log !== undefined && log.end === undefined ? 0 : undefined);
}

/** The request's RunAgentInput, checked (INVALID_ARGUMENT says what is wrong, and where). */
async function readInput(request: Request): Promise<RunAgentInput> {
  const json = await readJsonBody(request, MAX_INPUT);
  // @ag-ui/core's schemas load with the first request: nothing else of Golem needs them.
  const { RunAgentInputSchema } = await import('@ag-ui/core/schemas');
  const parsed = RunAgentInputSchema.safeParse(json);
  const ids = Ids.safeParse(json);
  if (!parsed.success || !ids.success) {
    const issues = parsed.success ? (ids.error?.issues ?? []) : parsed.error.issues;
    throw new GolemError('INVALID_ARGUMENT', `not a RunAgentInput: ${issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`).join('; ')}`);
  }
  return parsed.data as RunAgentInput;
}

function clientTools(input: RunAgentInput): ClientTool[] {
  return (input.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: (tool.parameters ?? { type: 'object', properties: {} }) as JsonObject,
  }));
}

/** The client's context entries and its app's state, for the run's instructions. */
function instructionsOf(input: RunAgentInput): string {
  const parts: string[] = [];
  if ((input.context ?? []).length > 0) {
    parts.push(['Context from the app the user is in:', ...input.context.map((c) => `- ${c.description}: ${c.value}`)].join('\n'));
  }
  const state = input.state as unknown;
  if (state !== null && typeof state === 'object' && !Array.isArray(state)) {
    const { instances: _ours, ...app } = state as Record<string, unknown>;
    if (Object.keys(app).length > 0) parts.push(`The app's state (JSON): ${JSON.stringify(app)}`);
  }
  const text = parts.join('\n\n');
  if (text.length > MAX_CONTEXT) throw new GolemError('INVALID_ARGUMENT', `context and state are ${text.length} characters; at most ${MAX_CONTEXT}`);
  return text;
}

type ResumeAnswer = { approval: ApprovalRecord; result: ApprovalResult; answered: boolean };

/** A resume entry as the answer to an approval of this thread, checked (nothing is answered until every entry is). */
function answerOf(host: ServeHost, session: Session, entry: NonNullable<RunAgentInput['resume']>[number]): ResumeAnswer {
  let approval: ApprovalRecord | undefined;
  try {
    approval = host.workspace.approvals.get(entry.interruptId);
  } catch {
    approval = undefined;
  }
  // Another thread's approval is not this thread's to answer, nor to name.
  if (approval?.id !== entry.interruptId || approval.rootSessionId !== session.id) {
    throw new GolemError('APPROVAL_NOT_FOUND', `thread "${session.id}" has no interrupt "${entry.interruptId}"`);
  }
  let result: ApprovalResult;
  if (entry.status === 'cancelled') result = { approved: false, reason: 'the user cancelled' };
  else {
    const payload = ApprovalAnswer.safeParse(entry.payload);
    if (!payload.success) {
      throw new GolemError(
        'INVALID_ARGUMENT',
        `resume "${entry.interruptId}": the payload is { answer: "yes" | "no" | "always" | "session", reason? }: ${payload.error.issues.map((i) => `${i.path.join('.') || '(payload)'}: ${i.message}`).join('; ')}`,
      );
    }
    const { answer, reason } = payload.data;
    result = answer === 'yes' ? { approved: true } : answer === 'no' ? { approved: false, ...(reason !== undefined && { reason }) } : { approved: answer };
  }
  if (approval.status === 'pending') return { approval, result, answered: false };
  // Answered already: the same answer again is the same resume (sent twice); another is refused.
  const same = approval.answer === (result.approved === true ? 'yes' : result.approved === false ? 'no' : result.approved);
  if (!same) throw new GolemError('APPROVAL_ANSWERED', `approval ${approval.id} was already answered (${approval.answer})`);
  return { approval, result, answered: true };
}

/** The session's path, loaded. */
async function pathOf(host: ServeHost, session: Session): Promise<ReturnType<typeof pathTo>> {
  await session.load();
  return pathTo(host.workspace.manager.workspace(), session.record().head);
}

/** The calls on the path that have no result yet. */
function openCalls(turns: ReturnType<typeof pathTo>): Set<string> {
  const open = new Set<string>();
  for (const turn of turns) {
    for (const block of turn.blocks) {
      if (block.type === 'tool_use' && block.providerExecuted !== true) open.add(block.callId);
      if (block.type === 'tool_result') open.delete(block.callId);
    }
  }
  return open;
}

const busy = (sessionId: string) =>
  new GolemError('SESSION_BUSY', `thread "${sessionId}" is running; wait for its run to end, or follow it with a request that adds nothing`);

/**
 * The client's stream: RUN_STARTED, the thread's UI state, then the thread's run log from
 * entry `from` (undefined: no run, the thread as it is) translated, with the UI's changes;
 * MESSAGES_SNAPSHOT and the run's end last.
 */
function stream(host: ServeHost, threadId: string, input: RunAgentInput, from: number | undefined): Response {
  const view = () => host.workspace.manager.workspace();
  const path = () => pathTo(view(), view().sessions.get(threadId)?.head ?? null);
  const messages = () => threadMessages(path());
  const snapshot = () => ({ type: 'MESSAGES_SNAPSHOT', timestamp: Date.now(), messages: messages() }) as unknown as RunEvent;
  return sseResponse((channel) => {
    // Which turn made each call on the path so far (a resumed run performs calls of earlier turns).
    const callTurns = new Map(path().flatMap((turn) => turn.blocks.flatMap((b) => (b.type === 'tool_use' ? [[b.callId, turn.id] as const] : []))));
    const translator = new RunEventTranslator(threadId, input.runId, { resultId: (callId, turnId) => resultId(turnId ?? '', callId), callTurns });
    const send = (events: RunEvent[]) => {
      for (const event of events) channel.send(event);
      if (translator.ended) channel.end();
    };
    // The thread's UI instances: those its agents built.
    const mine = new Set(uiInstances(view()).flatMap((ui) => (ui.builtBy !== undefined && rootOf(host, ui.builtBy) === threadId ? [ui.id] : [])));
    const instances = Object.fromEntries(uiInstances(view()).flatMap((ui) => (mine.has(ui.id) ? [[ui.id, ui.instance]] : [])));
    send([...translator.start(), { type: 'STATE_SNAPSHOT', timestamp: Date.now(), snapshot: { instances } } as RunEvent]);
    const offPatch = host.workspace.manager.events.on('ui:patch', (event) => {
      const result = event.result as UIPatchResult;
      const builtBy = view().collection('ui_instance').get(result.instanceId)?.builtBy;
      if (builtBy !== undefined && rootOf(host, builtBy) === threadId) mine.add(result.instanceId);
      if (!mine.has(result.instanceId)) return;
      if (result.kind === 'delete') mine.delete(result.instanceId);
      send([{ type: 'STATE_DELTA', timestamp: Date.now(), delta: instanceDelta(result) } as RunEvent]);
    });
    const log = from === undefined ? undefined : host.runs.log(threadId);
    if (log === undefined) {
      // No run: the thread as it is, and the approval it waits for, if any.
      const waiting = host.workspace.approvals.pending({ rootSessionId: threadId })[0];
      send([snapshot(), ...translator.end(waiting === undefined ? { status: 'open' } : { status: 'paused', approval: waiting })]);
      return offPatch;
    }
    const offLog = log.follow((entry) => {
      const out = translator.entry(entry, messages);
      // A call of the client's own tool: this stream ends with it pending; the run waits for the result.
      if (entry.type === 'client-call') out.push(snapshot(), ...translator.end({ status: 'open' }));
      send(out);
    }, from);
    return () => {
      offPatch();
      offLog();
    };
  });
}

/** The root session of the worker tree a session is in (itself, unless it is a sub-worker's). */
function rootOf(host: ServeHost, sessionId: string): string {
  return host.workspace.manager.workspace().collection('worker').get(sessionId)?.rootSessionId ?? sessionId;
}

/**
 * AG-UI over a WebSocket (`/ws/agui` on `golem serve`): each text message the client sends
 * is a RunAgentInput, answered by that run's events, one message each, in the framing of the
 * HTTP route (a refusal is a RUN_ERROR with its code); the runs one after another. Nothing
 * else is sent on it (the page's socket, `/ws`, carries the workspace's changes as well).
 */
export function aguiSocket(host: ServeHost, user: string | null, send: (text: string) => void): { receive(message: string): void; close(): void } {
  let queue = Promise.resolve();
  let reading: ReadableStreamDefaultReader<string> | undefined;
  let closed = false;
  const refuse = (error: unknown) => {
    const failure = GolemError.isInstance(error) ? error : new GolemError('INTERNAL', (error as Error).message, { cause: error });
    send(JSON.stringify({ type: 'RUN_ERROR', timestamp: Date.now(), code: failure.code, message: failure.message }));
  };
  const one = async (message: string) => {
    if (closed) return;
    const request = new Request('http://golem/api/agui', { method: 'POST', body: message, headers: { 'content-type': 'application/json' } });
    setRequestUser(request, user);
    const response = await aguiRun(host, request);
    const reader = (reading = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader());
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      const frames = buffer.split('\n\n');
      buffer = frames.pop() ?? '';
      for (const frame of frames) if (frame.startsWith('data: ')) send(frame.slice('data: '.length));
    }
  };
  return {
    receive: (message) => {
      queue = queue.then(() => one(message).catch(refuse));
    },
    // The client went away: its stream stops; its runs go on.
    close: () => {
      closed = true;
      void reading?.cancel().catch(() => undefined);
    },
  };
}
