/**
 * `session.respond`: one model call. Builds the prompt, streams the answer (publishing
 * each part as a `model:part` event), and records it as one assistant turn with the
 * record of how its prompt was built, its token usage and its cost.
 */
import type { ContentBlock, JsonObject } from '../content/blocks.js';
import { GolemError, toGolemError, unwrap } from '../errors.js';
import type { ModelAdapter, StopReason, StreamPart, Usage } from '../models/model-adapter.js';
import { costOf, type Price } from '../models/pricing.js';
import type { WorkspaceManager } from '../workspace/manager.js';
import type { Turn } from '../workspace/records.js';
import type { BuildOptions, PromptBuilder } from './prompt-builder.js';
import { summarize } from './summarizer.js';

export interface RespondOptions extends Omit<BuildOptions, 'model'> {
  model: ModelAdapter;
  signal?: AbortSignal;
  /** Summarise the turns that no longer fit, with this session's model or another (default: off). */
  summarize?: boolean | { model: ModelAdapter };
  /** Prices for the cost on the turn (default: DEFAULT_PRICES). */
  pricing?: Readonly<Record<string, Price>>;
}

export async function respond(manager: WorkspaceManager, prompts: PromptBuilder, sessionId: string, options: RespondOptions): Promise<Turn> {
  const { model, signal } = options;
  const session = () => {
    const record = manager.workspace().sessions.get(sessionId);
    if (record === undefined) throw new GolemError('SESSION_NOT_FOUND', `no session with id "${sessionId}"`, { details: { sessionId } });
    return record;
  };
  const buildOptions = { ...options, model };
  let built = await prompts.build(session(), buildOptions);

  if (options.summarize !== undefined && options.summarize !== false && built.dropped.length > 0) {
    const summarizer = options.summarize === true ? model : options.summarize.model;
    const earlier = built.summaries.length > 0 ? built.summaries.join('\n\n') : undefined;
    const text = await summarize(summarizer, built.dropped, { ...(earlier !== undefined && { earlier }), ...(signal !== undefined && { signal }) });
    const summarizes = [...built.record.summarized, ...built.dropped.map((t) => ({ id: t.id, version: t.version }))];
    const current = session();
    unwrap(
      await manager.dispatch({
        type: 'turn:add',
        payload: {
          sessionId,
          turn: { id: manager.newId(), role: 'system', blocks: [{ type: 'summary', text, summarizes }], meta: { summary: { model: `${summarizer.provider}:${summarizer.modelId}` } } },
          expectedHead: current.head,
        },
      }),
    );
    built = await prompts.build(session(), buildOptions);
  }

  const head = session().head;
  const answer = new Answer();
  let failure: GolemError | undefined;
  try {
    for await (const part of model.stream(built.prompt, signal === undefined ? {} : { signal })) {
      answer.add(part);
      manager.events.emit('model:part', { sessionId, part });
    }
  } catch (error) {
    failure = toGolemError(error, 'MODEL_ERROR');
  }
  if (failure !== undefined && answer.empty) throw failure;

  const meta: JsonObject = {
    prompt: built.record as unknown as JsonObject,
    model: { provider: model.provider, modelId: model.modelId },
    status: failure === undefined ? 'complete' : 'incomplete',
    ...(answer.usage !== undefined && { usage: answer.usage as unknown as JsonObject, cost: costOf(model.provider, model.modelId, answer.usage, options.pricing) }),
    ...(answer.stopReason !== undefined && { stopReason: answer.stopReason }),
    ...(failure !== undefined && { error: { code: failure.code, message: failure.message } }),
  };
  const turn = unwrap(
    await manager.dispatch({
      type: 'turn:add',
      payload: { sessionId, turn: { id: manager.newId(), role: 'assistant', blocks: answer.blocks(), meta }, expectedHead: head },
    }),
  );
  if (failure !== undefined) {
    throw new GolemError(failure.code, `${failure.message} (the partial answer is recorded as turn ${turn.id}, marked incomplete)`, {
      cause: failure,
      details: { ...failure.details, turn: { id: turn.id, version: turn.version } },
    });
  }
  return turn;
}

/** An answer as it streams in. */
class Answer {
  #thinking: { thinking: string; signature?: string }[] = [];
  #open = false;
  #text = '';
  #tools: { callId: string; name: string; args: JsonObject }[] = [];
  usage: Usage | undefined;
  stopReason: StopReason | undefined;

  add(part: StreamPart): void {
    switch (part.type) {
      case 'thinking-delta': {
        const last = this.#thinking.at(-1);
        if (this.#open && last !== undefined) last.thinking += part.text;
        else this.#thinking.push({ thinking: part.text });
        this.#open = true;
        break;
      }
      case 'thinking-end': {
        const last = this.#thinking.at(-1);
        if (last !== undefined && part.signature !== undefined) last.signature = part.signature;
        this.#open = false;
        break;
      }
      case 'text-delta':
        this.#text += part.text;
        break;
      case 'tool-call':
        this.#tools.push({ callId: part.callId, name: part.name, args: part.input });
        break;
      case 'finish':
        this.usage = part.usage;
        this.stopReason = part.stopReason;
        break;
    }
  }

  get empty(): boolean {
    return this.#thinking.length === 0 && this.#text === '' && this.#tools.length === 0;
  }

  blocks(): ContentBlock[] {
    return [
      ...this.#thinking.map((t) => ({ type: 'thinking' as const, thinking: t.thinking, ...(t.signature !== undefined && { signature: t.signature }) })),
      ...(this.#text === '' ? [] : [{ type: 'text' as const, text: this.#text }]),
      ...this.#tools.map((t) => ({ type: 'tool_use' as const, callId: t.callId, name: t.name, args: t.args })),
    ];
  }
}
