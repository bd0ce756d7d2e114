/**
 * A scripted model: a test double that answers from a script instead of a language
 * model, and records every prompt it was given. Use it in tests and offline demos.
 */
import type { JsonObject } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import {
  collectStream,
  MODEL_ADAPTER_SPEC,
  type CallOptions,
  type ModelAdapter,
  type StopReason,
  type StreamPart,
  type Usage,
} from '../models/model-adapter.js';
import type { Prompt } from '../models/prompt.js';
import { estimateTokens } from '../models/tokens.js';

/** One scripted answer. */
export interface ScriptedResponse {
  text?: string;
  thinking?: string;
  toolCalls?: { name: string; input: JsonObject; callId?: string }[];
  usage?: Partial<Usage>;
  stopReason?: StopReason;
  /** Fail the call after streaming what comes before (for testing interrupted answers). */
  failAfter?: { parts: number; error?: Error };
}

/** A step: an answer, or a function of the prompt (and the call's number, from 0) that makes one. */
export type ScriptStep = ScriptedResponse | ((prompt: Prompt, call: number, options: CallOptions) => ScriptedResponse | Promise<ScriptedResponse>);

export class ScriptedModel implements ModelAdapter {
  readonly specVersion = MODEL_ADAPTER_SPEC;
  readonly provider: string;
  readonly modelId: string;
  /** Every prompt this model received, in order. */
  readonly calls: Prompt[] = [];
  readonly #script: ScriptStep | readonly ScriptStep[];

  constructor(script: ScriptStep | readonly ScriptStep[], options: { provider?: string; modelId?: string } = {}) {
    this.#script = script;
    this.provider = options.provider ?? 'scripted';
    this.modelId = options.modelId ?? 'scripted-model';
  }

  countTokens(text: string): number {
    return estimateTokens(text);
  }

  generate(prompt: Prompt, options?: CallOptions) {
    return collectStream(this.stream(prompt, options));
  }

  async *stream(prompt: Prompt, options: CallOptions = {}): AsyncIterable<StreamPart> {
    const call = this.calls.length;
    this.calls.push(structuredClone(prompt));
    const step = Array.isArray(this.#script) ? (this.#script as readonly ScriptStep[])[call] : (this.#script as ScriptStep);
    if (step === undefined) {
      throw new GolemError(
        'MODEL_SCRIPT_EXHAUSTED',
        `the scripted model has ${(this.#script as readonly ScriptStep[]).length} steps and was called a ${call + 1}th time`,
      );
    }
    const response = typeof step === 'function' ? await step(prompt, call, options) : step;
    const parts: StreamPart[] = [];
    if (response.thinking !== undefined) {
      for (const piece of chunks(response.thinking)) parts.push({ type: 'thinking-delta', text: piece });
      parts.push({ type: 'thinking-end' });
    }
    for (const piece of chunks(response.text ?? '')) parts.push({ type: 'text-delta', text: piece });
    (response.toolCalls ?? []).forEach((c, i) => parts.push({ type: 'tool-call', callId: c.callId ?? `call_${call}_${i}`, name: c.name, input: c.input }));
    const promptText = prompt.system + JSON.stringify(prompt.messages);
    parts.push({
      type: 'finish',
      stopReason: response.stopReason ?? ((response.toolCalls?.length ?? 0) > 0 ? 'tool-calls' : 'stop'),
      usage: {
        inputTokens: response.usage?.inputTokens ?? estimateTokens(promptText),
        outputTokens:
          response.usage?.outputTokens ?? estimateTokens((response.thinking ?? '') + (response.text ?? '') + JSON.stringify(response.toolCalls ?? [])),
        ...(response.usage?.cachedInputTokens !== undefined && { cachedInputTokens: response.usage.cachedInputTokens }),
      },
    });
    for (const [i, part] of parts.entries()) {
      if (options.signal?.aborted === true) throw new GolemError('MODEL_ABORTED', 'the call to the scripted model was cancelled');
      if (response.failAfter !== undefined && i === response.failAfter.parts) {
        throw response.failAfter.error ?? new GolemError('MODEL_ERROR', 'the scripted model failed mid-stream, as scripted');
      }
      await Promise.resolve(); // a stream yields between parts, as a real one does
      yield part;
    }
  }
}

/** A scripted model (a test double): a response for every call, a list of them, or a function per call. */
export function scriptedModel(script: ScriptStep | readonly ScriptStep[], options?: { provider?: string; modelId?: string }): ScriptedModel {
  return new ScriptedModel(script, options);
}

/** Words with their following space, so streams arrive in realistic pieces. */
function chunks(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}
