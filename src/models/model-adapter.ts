/**
 * The model adapter spec, version 1: the one boundary between Golem and a language
 * model. `stream` yields typed parts; `generate` collects them.
 */
import type { JsonObject, JsonValue } from '../core/blocks.js';
import type { Prompt } from './prompt.js';

export const MODEL_ADAPTER_SPEC = 'golem.model/v1' as const;

/** Why the model stopped. */
export type StopReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

/** Tokens used by one call. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache, when it says. */
  cachedInputTokens?: number;
  /** Reasoning tokens (included in outputTokens), when the provider says. */
  reasoningTokens?: number;
}

export type StreamPart =
  | { type: 'text-delta'; text: string }
  | { type: 'thinking-delta'; text: string }
  /** Sent once a thinking block is complete, with the provider's signature over it (if any). */
  | { type: 'thinking-end'; signature?: string | undefined; redacted?: string | undefined }
  /** `providerExecuted`: the provider runs it itself (a server tool); its result follows as a `server-tool-result`. */
  | { type: 'tool-call'; callId: string; name: string; input: JsonObject; providerExecuted?: true; providerMetadata?: JsonObject }
  | { type: 'server-tool-result'; callId: string; name: string; output: JsonValue; isError: boolean; providerMetadata?: JsonObject }
  | { type: 'finish'; usage: Usage; stopReason: StopReason; rawStopReason?: string };

/** What `generate` collects from a stream. */
export interface GenerateResult {
  text: string;
  thinking: { text: string; signature?: string }[];
  toolCalls: { callId: string; name: string; input: JsonObject }[];
  usage: Usage;
  stopReason: StopReason;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** The session the answer is for (`session.respond` says): a model keeping state per conversation keys it on this. */
  sessionId?: string;
}

/** A language model, as Golem sees one. */
export interface ModelAdapter {
  readonly specVersion: typeof MODEL_ADAPTER_SPEC;
  /** The provider's name (`openai`, `anthropic`, `scripted`...): keys remote file ids and prices. */
  readonly provider: string;
  readonly modelId: string;
  stream(prompt: Prompt, options?: CallOptions): AsyncIterable<StreamPart>;
  generate(prompt: Prompt, options?: CallOptions): Promise<GenerateResult>;
  /** Counts the tokens of a text as this model would (a real tokenizer where one fits, else an estimate). */
  countTokens(text: string): number;
}

/** Collects a stream into a `GenerateResult`. */
export async function collectStream(parts: AsyncIterable<StreamPart>): Promise<GenerateResult> {
  const result: GenerateResult = { text: '', thinking: [], toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'other' };
  let thinking: { text: string; signature?: string } | undefined;
  for await (const part of parts) {
    switch (part.type) {
      case 'text-delta':
        result.text += part.text;
        break;
      case 'thinking-delta':
        if (thinking === undefined) result.thinking.push((thinking = { text: '' }));
        thinking.text += part.text;
        break;
      case 'thinking-end':
        if (thinking !== undefined && part.signature !== undefined) thinking.signature = part.signature;
        thinking = undefined;
        break;
      case 'tool-call':
        // A call the provider ran itself is not one for the caller to run.
        if (part.providerExecuted !== true) result.toolCalls.push({ callId: part.callId, name: part.name, input: part.input });
        break;
      case 'finish':
        result.usage = part.usage;
        result.stopReason = part.stopReason;
        break;
    }
  }
  return result;
}
