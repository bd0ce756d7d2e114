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
import type { ApprovalAnswerBody } from './api-types.js';
import { ApprovalAnswerSchema } from './views.js';
import type { ContentBlock, JsonObject } from '../core/blocks.js';
import { GolemError, toGolemError } from '../core/errors.js';
import { pathTo } from '../core/turn-tree.js';
import type { Session } from '../prompt/session.js';
import { onUiChange, uiInstances } from '../ui/ui-plugin.js';
import { checkUserParts, readClientInput, resultId, threadMessages, userParts } from './agui-messages.js';
import type { ClientTool } from './client-tools.js';
import type { ServeHost } from './host.js';
import { invalidInput, MAX_MESSAGES_BODY, parseInput, readJsonBody } from './json-body.js';
import { requestUser, setRequestUser } from './request-user.js';
import { RunLog } from '../agent/run-log.js';
import { afterOf, elsewhereSource, eventId, localSource, type RunSource } from './run-source.js';
import { policyOf, queuedView, sendDuringRun, type WireSend } from './wire-policy.js';
import { inConversation, uiVisibleTo } from '../ui/ui-visibility.js';
import { RunEventTranslator, type RunEvent } from './run-events.js';
import type { RunStartOptions } from './runs.js';
import { sseResponse, type SseChannel } from './sse.js';
import { answerApprovals, answeredBefore, askedInMemory, openCalls, requireNoPendingApproval, threadApproval, type OpenAnswer } from './thread-approvals.js';
import { withUserBlocks } from './user-parts.js';
import { instanceDelta } from './ui-stream.js';
import { escapePointer, type JsonPatchOperation } from '../ui/patch-engine.js';
import type { JsonValue } from '../core/blocks.js';

/** The most context a client gives a run, in characters. */
const MAX_CONTEXT = 20_000;

export function mountAgui(app: HonoApp, host: ServeHost): void {
  app.post('/api/agui', async (c) => sseResponse(await aguiRun(host, c.req.raw)));
}

/** A run's events for one client, fed to a channel (an SSE response, a WebSocket); returns what stops the feed. */
export type AguiFeed = (channel: SseChannel) => () => void;

const Ids = z.object({ threadId: z.string().min(1).max(200), runId: z.string().min(1).max(200) });

/** Answers one AG-UI request with its events' feed, or refuses it (a GolemError: the API's JSON error) before anything is written. */
export async function aguiRun(host: ServeHost, request: Request): Promise<AguiFeed> {
  const input = await readInput(request);
  const ws = host.workspace;
  const runs = host.runs;
  const user = requestUser(request);
  const tools = clientTools(input);
  const instructions = instructionsOf(input);
  // A message while the thread runs: this request's policy, else the server's (wire-policy.ts).
  const policy = policyOf((input.forwardedProps as { golem?: unknown } | undefined)?.golem, 'forwardedProps.golem');
  const options: RunStartOptions = {
    pause: true,
    ...(tools.length > 0 && { actions: (log: RunLog) => host.clientCalls.actions(tools, log) }),
    ...(instructions !== '' && { instructions }),
  };
  // The tools compile, and take no name the agent has, before anything is written (INVALID_ARGUMENT names the tool).
  if (tools.length > 0) runs.checkActions(host.clientCalls.actions(tools, new RunLog('check', 'check')));
  // Another user's thread and none at all are told apart by nothing.
  const existing = ws.sessions.get(input.threadId) === undefined ? undefined : await host.thread(user, input.threadId, false);

  if ((input.resume ?? []).length > 0) {
    if (existing === undefined) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${input.threadId}"`);
    return resume(host, user, existing, input, options);
  }

  // The thread's path, read once: what the client knows of it, and (below) the calls still without a result.
  const path = existing === undefined ? [] : await pathOf(host, existing);
  const messages = threadMessages(path);
  const { user: said, messageId, results } = readClientInput(input.messages, new Set(messages.map((m) => m.id)));
  checkUserParts(said);

  if (existing !== undefined && results.size > 0) {
    const waiting = new Set(host.clientCalls.waiting(existing.id));
    const log = runs.log(existing.id);
    if (said.length > 0 && runs.busyAnywhere(existing.id)) throw busy(existing.id);
    const from = log?.entries().length ?? 0;
    let answered = false;
    for (const [callId, result] of results) if (waiting.has(callId)) answered = host.clientCalls.answer(existing.id, callId, result) || answered;
    if (answered && log !== undefined) return stream(host, existing.id, input, from);
    // No run waits for them (this server restarted): kept for the calls, which a resumed run performs again.
    const open = new Set(openCalls(path).map((call) => call.callId));
    const kept = [...results].filter(([callId]) => open.has(callId));
    if (kept.length > 0 && said.length === 0) {
      if (runs.busyAnywhere(existing.id)) throw busy(existing.id);
      for (const [callId, result] of kept) host.clientCalls.answer(existing.id, callId, result);
      await runs.start(existing, undefined, options);
      return stream(host, existing.id, input, 0);
    }
  }

  if (said.length > 0) {
    if (existing !== undefined) {
      if (runs.busyAnywhere(existing.id)) {
        const message = (blocks: ContentBlock[]) => ({ blocks, ...(messageId !== undefined && { id: messageId }) });
        const sent = await withUserBlocks(ws, userParts(said), (blocks) => sendDuringRun(runs, existing.id, message(blocks), policy));
        if (sent.type === 'queued') return queuedFeed(existing.id, input.runId, sent);
      }
      requireNoPendingApproval(host, existing.id, 'resume it (RunAgentInput.resume) before sending a new message');
    }
    const session = existing ?? (await host.thread(user, input.threadId, true));
    // The turn takes the message's id when it is free: the client's copy stays where it is when the thread's messages come back.
    await withUserBlocks(ws, userParts(said), (blocks) => runs.startWith(session, { blocks, ...(messageId !== undefined && { id: messageId }) }, options));
    return stream(host, session.id, input, 0);
  }

  // Nothing new: the run in progress, from its start, or the thread as it is.
  if (existing === undefined) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${input.threadId}"`);
  const log = runs.log(existing.id);
  // The run in progress here: from its start, or after the event a client coming back names (`Last-Event-ID`).
  if (log !== undefined && log.end === undefined) return stream(host, existing.id, input, Math.max(0, afterOf(request, log.runId) + 1 - log.first));
  // A run another process holds: followed through the events it keeps, after the one a client coming back names.
  const elsewhere = await elsewhereSource(ws, existing.id);
  return stream(host, existing.id, input, undefined, elsewhere && { source: elsewhere, after: afterOf(request, elsewhere.runId) });
}

/**
 * A request whose `resume` answers the thread's interrupts: each answer checked before any is
 * given; an approval a run here waits for in memory is answered there (its stream goes on from
 * where it is), the others in the workspace, and the run resumed from the log.
 */
async function resume(host: ServeHost, user: string | null, session: Session, input: RunAgentInput, options: RunStartOptions): Promise<AguiFeed> {
  const { runs } = host;
  const answers = (input.resume ?? []).map((entry) => answerOf(host, session, entry));
  const open = answers.filter((a) => !a.answered);
  if (open.length > 0) {
    const given = await answerApprovals(host, user, session, open);
    if (given.type === 'in-memory') return stream(host, session.id, input, given.from);
    runs.run(session, undefined, given.claim, options);
    return stream(host, session.id, input, 0);
  }
  // Answered already and its run going (the same resume sent twice): that run is followed.
  if (!runs.busy(session.id)) await runs.start(session, undefined, options);
  return stream(host, session.id, input, 0);
}

/** The request's RunAgentInput, checked (INVALID_ARGUMENT says what is wrong, and where). */
async function readInput(request: Request): Promise<RunAgentInput> {
  const json = await readJsonBody(request, MAX_MESSAGES_BODY);
  // @ag-ui/core's schemas load with the first request: nothing else of Golem needs them.
  const { RunAgentInputSchema } = await import('@ag-ui/core/schemas');
  const parsed = RunAgentInputSchema.safeParse(json);
  if (!parsed.success) throw invalidInput(parsed.error.issues, { prefix: 'not a RunAgentInput: ' });
  parseInput(Ids, json, { prefix: 'not a RunAgentInput: ' });
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

/** A resume entry as the answer to an approval of this thread, checked (nothing is answered until every entry is). */
function answerOf(host: ServeHost, session: Session, entry: NonNullable<RunAgentInput['resume']>[number]): OpenAnswer & { answered: boolean } {
  const approval = threadApproval(host, session, entry.interruptId, 'interrupt');
  let body: ApprovalAnswerBody = { answer: 'no', reason: 'the user cancelled' };
  if (entry.status !== 'cancelled') {
    const { answer, reason } = parseInput(ApprovalAnswerSchema, entry.payload, {
      root: '(payload)',
      prefix: `resume "${entry.interruptId}": the payload is { answer: "yes" | "no" | "always" | "session", reason? }: `,
    });
    body = reason === undefined ? { answer } : { answer, reason };
  }
  // Answered already: the same answer again is the same resume (sent twice); another is refused.
  return { approval, body, answered: answeredBefore(approval, body, 'answer') };
}

/** The session's path, loaded. */
/** A message kept for the thread's run (queued, or steering it): told as a run of its own that says so and ends. */
function queuedFeed(threadId: string, runId: string, sent: Extract<WireSend, { type: 'queued' }>): AguiFeed {
  return (channel) => {
    const timestamp = Date.now();
    channel.send({ type: 'RUN_STARTED', timestamp, threadId, runId });
    channel.send({ type: 'CUSTOM', timestamp, name: 'golem.queued', value: queuedView(sent) });
    channel.send({ type: 'RUN_FINISHED', timestamp, threadId, runId });
    channel.end();
    return () => undefined;
  };
}

async function pathOf(host: ServeHost, session: Session): Promise<ReturnType<typeof pathTo>> {
  await session.load();
  return pathTo(host.workspace.manager.workspace(), session.record().head);
}

const busy = (sessionId: string) =>
  new GolemError('SESSION_BUSY', `thread "${sessionId}" is running; wait for its run to end, or follow it with a request that adds nothing`);

/**
 * The client's stream: RUN_STARTED, the thread's UI state, then the thread's run log from
 * entry `from` (undefined: no run, the thread as it is) translated, with the UI's changes;
 * MESSAGES_SNAPSHOT and the run's end last.
 */
function stream(host: ServeHost, threadId: string, input: RunAgentInput, from: number | undefined, elsewhere?: { source: RunSource; after: number }): AguiFeed {
  const view = () => host.workspace.manager.workspace();
  const path = () => pathTo(view(), view().sessions.get(threadId)?.head ?? null);
  const messages = () => threadMessages(path());
  const snapshot = () => ({ type: 'MESSAGES_SNAPSHOT', timestamp: Date.now(), messages: messages() }) as unknown as RunEvent;
  return (channel) => {
    // Which turn made each call on the path so far (a resumed run performs calls of earlier turns).
    const callTurns = new Map(path().flatMap((turn) => turn.blocks.flatMap((b) => (b.type === 'tool_use' ? [[b.callId, turn.id] as const] : []))));
    const translator = new RunEventTranslator(threadId, input.runId, { resultId: (callId, turnId) => resultId(turnId ?? '', callId), callTurns });
    // The last event made of a run's entry carries its id (run-source.ts).
    const send = (events: RunEvent[], id?: string) => {
      events.forEach((event, i) => channel.send(event, i === events.length - 1 ? id : undefined));
      if (translator.ended) channel.end();
    };
    // The thread's UI instances: those its agents built. One that joins is sent whole; one that leaves (deleted, or
    // built on since by another thread) is removed, so the client's state stays the server's.
    const user = host.ownerOf(threadId) ?? null;
    const ours = (builtBy: string | undefined) => inConversation(view(), { builtBy }, threadId) && uiVisibleTo({ builtBy }, user, (id) => host.ownerOf(id));
    // With users, keyed by the ids the user's agent gave them (ui-scope.ts).
    const shown = host.uiIdsOf(threadId);
    const mine = new Set(uiInstances(view()).flatMap((ui) => (ours(ui.builtBy) ? [ui.id] : [])));
    const instances = Object.fromEntries(uiInstances(view()).flatMap((ui) => (mine.has(ui.id) ? [[shown(ui.id), ui.instance]] : [])));
    send([...translator.start(), { type: 'STATE_SNAPSHOT', timestamp: Date.now(), snapshot: { instances } } as RunEvent]);
    const offPatch = onUiChange(host.workspace.manager.events, (result) => {
      const id = result.instanceId;
      const was = mine.has(id);
      const is = result.kind !== 'delete' && ours(view().collection('ui_instance').get(id)?.builtBy);
      let delta: JsonPatchOperation[];
      const key = shown(id);
      if (was && is) delta = instanceDelta({ ...result, instanceId: key });
      else if (is) delta = [{ op: 'add', path: `/instances/${escapePointer(key)}`, value: result.instance as JsonValue }];
      else if (was) delta = [{ op: 'remove', path: `/instances/${escapePointer(key)}` }];
      else return;
      if (is) mine.add(id);
      else mine.delete(id);
      send([{ type: 'STATE_DELTA', timestamp: Date.now(), delta } as RunEvent]);
    });
    const log = from === undefined ? undefined : host.runs.log(threadId);
    const source = elsewhere?.source ?? (log === undefined ? undefined : localSource(log));
    if (source === undefined) {
      // No run: the thread as it is, and the approval it waits for, if any.
      const waiting = host.workspace.approvals.pending({ rootSessionId: threadId })[0];
      send([snapshot(), ...translator.end(waiting === undefined ? { status: 'open' } : { status: 'paused', approval: waiting })]);
      return offPatch;
    }
    const after = elsewhere?.after ?? (log === undefined ? 0 : log.first + (from ?? 0) - 1);
    const offLog = source.follow((entry, seq) => {
      const out = translator.entry(entry, messages);
      // A call of the client's own tool the run waits for (not one answered since): this stream ends with it pending.
      if (entry.type === 'client-call' && host.clientCalls.waiting(threadId).includes(entry.call.callId)) {
        out.push(snapshot(), ...translator.end({ status: 'open' }));
      }
      // An approval the run waits for in memory (a page may answer it too): this stream ends with it as the interrupt.
      const asked = askedInMemory(host, threadId, entry);
      if (asked !== undefined) out.push(snapshot(), ...translator.end({ status: 'paused', approval: asked }));
      send(out, eventId(source.runId, seq));
    }, after);
    return () => {
      offPatch();
      offLog();
    };
  };
}

/**
 * AG-UI over a WebSocket (`/ws/agui` on `golem serve`): each text message the client sends
 * is a RunAgentInput, answered by that run's events, one message each, in the framing of the
 * HTTP route (a refusal is a RUN_ERROR with its code). One run at a time: a message sent
 * while one streams is refused with SESSION_BUSY. Nothing else is sent on it (the page's
 * socket, `/ws`, carries the workspace's changes as well).
 */
export function aguiSocket(host: ServeHost, user: string | null, send: (text: string) => void): { receive(message: string): void; close(): void } {
  let streaming = false;
  let stop: (() => void) | undefined;
  let closed = false;
  const refuse = (error: unknown) => {
    const failure = toGolemError(error);
    send(JSON.stringify({ type: 'RUN_ERROR', timestamp: Date.now(), code: failure.code, message: failure.message }));
  };
  const one = async (message: string) => {
    const request = new Request('http://golem/api/agui', { method: 'POST', body: message, headers: { 'content-type': 'application/json' } });
    setRequestUser(request, user);
    const feed = await aguiRun(host, request);
    if (closed) return;
    await new Promise<void>((resolve) => {
      // The feed's own stop, once it is open (a feed that ends while it opens is stopped as soon as it is).
      const opened: { stop?: () => void; ended?: true } = {};
      const finish = () => {
        stop = undefined;
        opened.stop?.();
        resolve();
      };
      opened.stop = feed({
        send: (data) => send(typeof data === 'string' ? data : JSON.stringify(data)),
        end: () => {
          opened.ended = true;
          finish();
        },
      });
      if (opened.ended === true) opened.stop();
      else stop = finish;
    });
  };
  return {
    receive: (message) => {
      if (streaming) return refuse(new GolemError('SESSION_BUSY', 'this socket streams a run already; send the next RunAgentInput once it has ended'));
      streaming = true;
      void one(message)
        .catch(refuse)
        .finally(() => (streaming = false));
    },
    // The client went away: its stream stops; its runs go on.
    close: () => {
      closed = true;
      stop?.();
    },
  };
}
