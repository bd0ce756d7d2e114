/**
 * `session.respond`: one model call. Builds the prompt, streams the answer (publishing
 * each part to `onPart`), and records it as one assistant turn with the
 * record of how its prompt was built, its token usage and its cost.
 */
import type { ContentBlock, JsonObject } from '../core/blocks.js';
import { GolemError, toGolemError } from '../core/errors.js';
import type { ModelAdapter, StopReason, StreamPart, Usage } from '../models/model-adapter.js';
import { costOf, type Price } from '../models/pricing.js';
import { withTimeLimits, type ModelTimeLimits } from '../models/time-limits.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Session, Turn } from '../core/records.js';
import type { BuildOptions, BuiltPrompt, PromptBuilder } from './prompt-builder.js';
import type { PromptRecord } from './prompt-record.js';
import { summarizeInChunks } from './summarizer.js';

export interface RespondOptions extends Omit<BuildOptions, 'model'>, ModelTimeLimits {
  model: ModelAdapter;
  signal?: AbortSignal;
  /** Summarise the turns that no longer fit, with this session's model or another (default: off). */
  summarize?: boolean | { model: ModelAdapter };
  /** Prices for the cost on the turn (default: DEFAULT_PRICES). */
  pricing?: Readonly<Record<string, Price>>;
  /** Sees each part of the answer as it streams (text and thinking deltas, tool calls, the finish). A listener that throws is reported as `listener:error` on `ws.events`; the answer goes on. */
  onPart?: (part: StreamPart) => void;
}

/** The record of how an assistant turn's prompt was built, read back typed (undefined for other turns). */
export function promptRecordOf(turn: Turn): PromptRecord | undefined {
  const record = turn.meta.prompt as unknown;
  return typeof record === 'object' && record !== null && 'turns' in record && 'tokens' in record ? (record as PromptRecord) : undefined;
}

export async function respond(manager: WorkspaceManager, prompts: PromptBuilder, sessionId: string, options: RespondOptions): Promise<Turn> {
  const { model, signal } = options;
  await manager.load([sessionId]);
  const current = (): Session => {
    const record = manager.workspace().sessions.get(sessionId);
    if (record === undefined) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${sessionId}"`, { details: { sessionId } });
    return record;
  };
  // The head the prompt is built from is the head the answer is recorded under: if it moves
  // meanwhile (a turn added while blobs were read or the model answered), recording refuses.
  let session = current();
  let built = await prompts.build(session, { ...options, model });

  // Summarising makes the system instruction longer, which can drop more turns: summarise again
  // (a rolling summary that supersedes the last) until nothing is dropped, a few rounds at most.
  for (let round = 0; options.summarize !== undefined && options.summarize !== false && built.dropped.length > 0 && round < 3; round++) {
    const summarizer = options.summarize === true ? model : options.summarize.model;
    let text: string;
    try {
      text = await summarizeInChunks(summarizer, built.dropped, {
        budget: built.record.tokens.budget, // the call's, else the role's window, else the default
        ...(built.summaries.length > 0 && { earlier: built.summaries.join('\n\n') }),
        ...(signal !== undefined && { signal }),
        ...(options.idleTimeoutMs !== undefined && { idleTimeoutMs: options.idleTimeoutMs }),
        ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
      });
    } catch (error) {
      throw toGolemError(error, 'MODEL_ERROR');
    }
    const summarizes = [...built.record.summarized, ...built.summaryTurns, ...built.dropped.map((t) => ({ id: t.id, version: t.version }))];
    const summary = await manager.dispatch({
      type: 'turn:add',
      payload: {
        sessionId,
        turn: {
          id: manager.newId(),
          role: 'system',
          blocks: [{ type: 'summary', text, summarizes }],
          meta: { summary: { model: `${summarizer.provider}:${summarizer.modelId}` } },
        },
        expectedHead: session.head,
      },
    });
    if (!summary.ok) throw summary.error;
    session = current();
    built = await prompts.build(session, { ...options, model });
  }
  if (built.prompt.messages.length === 0) {
    throw new GolemError('INVALID_ARGUMENT', `session "${sessionId}" has nothing to respond to; add a user turn first`, { details: { sessionId } });
  }

  const answer = new Answer();
  let failure: GolemError | undefined;
  try {
    const limits = {
      ...(signal !== undefined && { signal }),
      ...(options.idleTimeoutMs !== undefined && { idleTimeoutMs: options.idleTimeoutMs }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    };
    for await (const part of withTimeLimits((s) => model.stream(built.prompt, { signal: s, sessionId }), limits)) {
      answer.add(part);
      if (options.onPart !== undefined) {
        try {
          options.onPart(part);
        } catch (error) {
          manager.events.emit('listener:error', { type: 'model:part', error });
        }
      }
    }
  } catch (error) {
    failure = toGolemError(error, 'MODEL_ERROR');
  }
  if (failure !== undefined && answer.empty) throw failure;
  return record(manager, model, options, session, built, answer, failure);
}

async function record(
  manager: WorkspaceManager,
  model: ModelAdapter,
  options: RespondOptions,
  session: Session,
  built: BuiltPrompt,
  answer: Answer,
  failure: GolemError | undefined,
): Promise<Turn> {
  const meta: JsonObject = {
    prompt: built.record as unknown as JsonObject,
    model: { provider: model.provider, modelId: model.modelId },
    status: failure === undefined ? 'complete' : 'incomplete',
    ...(answer.usage !== undefined && {
      usage: answer.usage as unknown as JsonObject,
      cost: costOf(model.provider, model.modelId, answer.usage, options.pricing),
    }),
    ...(answer.stopReason !== undefined && { stopReason: answer.stopReason }),
    ...(failure !== undefined && { error: { code: failure.code, message: failure.message } }),
  };
  const blocks = answer.blocks();
  const recorded = await manager.dispatch({
    type: 'turn:add',
    payload: { sessionId: session.id, turn: { id: manager.newId(), role: 'assistant', blocks, meta }, expectedHead: session.head },
  });
  if (!recorded.ok) {
    // The answer was paid for: hand it to the caller with the error, to keep or retry with.
    const details = { ...recorded.error.details, answer: { blocks, meta }, ...(failure !== undefined && { streamError: failure.toJSON() }) };
    throw new GolemError(recorded.error.code, `${recorded.error.message}; the answer was not recorded (it is in this error's details.answer)`, {
      cause: failure ?? recorded.error,
      details,
    });
  }
  const turn = recorded.value;
  if (failure !== undefined) {
    throw new GolemError(failure.code, `${failure.message} (the partial answer is recorded as turn ${turn.id}, marked incomplete)`, {
      cause: failure,
      details: { ...failure.details, turn: { id: turn.id, version: turn.version } },
    });
  }
  return turn;
}

/** An answer as it streams in, its blocks in the order they came. */
class Answer {
  readonly #blocks: ContentBlock[] = [];
  #thinkingOpen = false;
  usage: Usage | undefined;
  stopReason: StopReason | undefined;

  add(part: StreamPart): void {
    const last = this.#blocks.at(-1);
    switch (part.type) {
      case 'thinking-delta':
        if (this.#thinkingOpen && last?.type === 'thinking') last.thinking += part.text;
        else this.#blocks.push({ type: 'thinking', thinking: part.text });
        this.#thinkingOpen = true;
        break;
      case 'thinking-end':
        // Redacted thinking comes with no text: a block of its own, kept to be sent back as it came.
        if (part.redacted !== undefined && !(this.#thinkingOpen && last?.type === 'thinking'))
          this.#blocks.push({ type: 'thinking', thinking: '', redacted: part.redacted });
        else if (last?.type === 'thinking') {
          if (part.signature !== undefined) last.signature = part.signature;
          if (part.redacted !== undefined) last.redacted = part.redacted;
        }
        this.#thinkingOpen = false;
        break;
      case 'text-delta':
        if (last?.type === 'text') last.text += part.text;
        else this.#blocks.push({ type: 'text', text: part.text });
        break;
      case 'tool-call':
        this.#blocks.push({
          type: 'tool_use',
          callId: part.callId,
          name: part.name,
          args: part.input,
          ...(part.providerExecuted === true && { providerExecuted: true }),
          ...(part.providerMetadata !== undefined && { providerMetadata: part.providerMetadata }),
        });
        break;
      case 'server-tool-result':
        this.#blocks.push({
          type: 'server_tool_result',
          callId: part.callId,
          name: part.name,
          output: part.output,
          ...(part.isError && { isError: true }),
          ...(part.providerMetadata !== undefined && { providerMetadata: part.providerMetadata }),
        });
        break;
      case 'finish':
        this.usage = part.usage;
        this.stopReason = part.stopReason;
        break;
    }
  }

  get empty(): boolean {
    return this.#blocks.length === 0;
  }

  blocks(): ContentBlock[] {
    return this.#blocks.map((b) => ({ ...b }));
  }
}
