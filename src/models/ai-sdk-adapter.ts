/**
 * The bridge from Golem's model adapter spec to the Vercel AI SDK's provider interface
 * (`LanguageModelV3`), so every AI SDK provider (OpenAI, Anthropic, Google, any
 * OpenAI-compatible server) works. Golem calls the provider's `doStream` itself: the
 * prompt goes out exactly as mapped here, and retries are Golem's.
 */
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
} from '@ai-sdk/provider';
import type { JsonObject, JsonValue } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import { MODEL_ADAPTER_SPEC, type CallOptions, type GenerateResult, type ModelAdapter, type StopReason, type StreamPart } from './model-adapter.js';
import type { Prompt, PromptPart, ToolResultOutput } from './prompt.js';
import { estimateTokens } from './tokens.js';

export interface AiSdkAdapterOptions {
  /** The provider's name, as Golem keys it (remote file ids, prices). */
  provider: string;
  /** Which media types the provider accepts by file id (default: none). */
  fileIds?: (mediaType: string) => boolean;
  /** How a remote file id is put in a file part (default: the id as the part's data). */
  fileIdData?: (fileId: string) => string | URL;
  countTokens?: (text: string) => number;
  /** Attempts for a request that fails with 429, 5xx or a network error (default 4). */
  maxAttempts?: number;
  /** The first retry's delay in ms; it doubles each time (default 500). */
  retryDelayMs?: number;
}

/** A ModelAdapter over an AI SDK language model, or over one that loads on first use. */
export class AiSdkAdapter implements ModelAdapter {
  readonly specVersion = MODEL_ADAPTER_SPEC;
  readonly provider: string;
  readonly modelId: string;
  readonly #model: () => Promise<LanguageModelV3>;
  readonly #options: AiSdkAdapterOptions;

  constructor(model: LanguageModelV3 | { modelId: string; load: () => Promise<LanguageModelV3> }, options: AiSdkAdapterOptions) {
    this.provider = options.provider;
    this.modelId = model.modelId;
    let loaded: Promise<LanguageModelV3> | undefined;
    this.#model = 'load' in model ? () => (loaded ??= model.load()) : () => Promise.resolve(model);
    this.#options = options;
  }

  /** Whether a blob of this media type may be sent as a remote file id. */
  acceptsFileId(mediaType: string): boolean {
    return this.#options.fileIds?.(mediaType) ?? false;
  }

  countTokens(text: string): number {
    return (this.#options.countTokens ?? estimateTokens)(text);
  }

  /** One non-streaming request (the provider's plain JSON endpoint). */
  async generate(prompt: Prompt, options: CallOptions = {}): Promise<GenerateResult> {
    const model = await this.#model();
    const result = await this.#withRetries(() => model.doGenerate(this.#call(prompt, options)), options.signal);
    const out: GenerateResult = { text: '', thinking: [], toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, stopReason: 'other' };
    try {
      for (const content of result.content) {
        if (content.type === 'text') out.text += content.text;
        else if (content.type === 'reasoning') {
          const signature = signatureOf(content);
          out.thinking.push({ text: content.text, ...(signature !== undefined && { signature }) });
        } else if (content.type === 'tool-call' && content.providerExecuted !== true) {
          out.toolCalls.push({ callId: content.toolCallId, name: content.toolName, input: parseToolInput(content.toolName, content.input) });
        }
      }
    } catch (error) {
      throw this.#error(error, options.signal);
    }
    const finish = mapPart({ type: 'finish', usage: result.usage, finishReason: result.finishReason });
    if (finish?.type === 'finish') {
      out.usage = finish.usage;
      out.stopReason = finish.stopReason;
    }
    return out;
  }

  #call(prompt: Prompt, options: CallOptions): LanguageModelV3CallOptions {
    return {
      prompt: toProviderPrompt(prompt, (id) => this.#options.fileIdData?.(id) ?? id),
      ...(prompt.maxOutputTokens !== undefined && { maxOutputTokens: prompt.maxOutputTokens }),
      ...(prompt.temperature !== undefined && { temperature: prompt.temperature }),
      ...(prompt.tools !== undefined &&
        prompt.tools.length > 0 && {
          tools: prompt.tools.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, inputSchema: t.inputSchema as never })),
        }),
      ...(prompt.responseFormat !== undefined && {
        responseFormat: {
          type: 'json' as const,
          ...(prompt.responseFormat.schema !== undefined && { schema: prompt.responseFormat.schema as never }),
          ...(prompt.responseFormat.name !== undefined && { name: prompt.responseFormat.name }),
          ...(prompt.responseFormat.description !== undefined && { description: prompt.responseFormat.description }),
        },
      }),
      ...(prompt.providerOptions !== undefined && { providerOptions: prompt.providerOptions }),
      ...(options.signal !== undefined && { abortSignal: options.signal }),
    };
  }

  /**
   * A streaming request: parts as the provider's server-sent events arrive. A failure
   * before the first part (a refused request, or an error event such as Anthropic's
   * `overloaded_error` at the start of the stream) is retried; after it, never, so no
   * part is ever sent twice.
   */
  async *stream(prompt: Prompt, options: CallOptions = {}): AsyncIterable<StreamPart> {
    const model = await this.#model();
    const call = this.#call(prompt, options);
    for (let attempt = 1; ; attempt++) {
      let yielded = false;
      let opened = false; // request failures were retried by #withRetries already
      try {
        const { stream } = await this.#withRetries(() => model.doStream(call), options.signal);
        opened = true;
        const reader = stream.getReader();
        let signature: string | undefined; // Anthropic sends it as metadata of a reasoning delta, before the end
        let redacted: string | undefined; // and redacted thinking's data with the reasoning's start
        try {
          for (;;) {
            const next = await readOrAbort(reader, options.signal);
            if (next.done) return;
            signature = signatureOf(next.value) ?? signature;
            redacted = redactedOf(next.value) ?? redacted;
            const part = mapPart(next.value);
            if (part?.type === 'thinking-end') {
              if (part.signature === undefined && signature !== undefined) part.signature = signature;
              if (redacted !== undefined) part.redacted = redacted;
              signature = undefined;
              redacted = undefined;
            }
            if (part !== undefined) {
              yielded = true;
              yield part;
            }
          }
        } finally {
          reader.releaseLock();
        }
      } catch (error) {
        const failure = this.#error(error, options.signal);
        const retryable = failure.code === 'MODEL_UNREACHABLE' || (failure.code === 'MODEL_ERROR' && isRetryable(error));
        if (!opened || yielded || !retryable || attempt >= this.#attempts || options.signal?.aborted === true) throw failure;
        await this.#backoff(error, attempt, options.signal);
      }
    }
  }

  async #withRetries<T>(request: () => PromiseLike<T>, signal: AbortSignal | undefined): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await request();
      } catch (error) {
        if (signal?.aborted === true || attempt >= this.#attempts || !isRetryable(error)) throw this.#error(error, signal);
        await this.#backoff(error, attempt, signal);
      }
    }
  }

  get #attempts(): number {
    return this.#options.maxAttempts ?? 4;
  }

  /** Waits before another attempt: the provider's Retry-After, else the first delay doubled per attempt. Cancellable. */
  async #backoff(error: unknown, attempt: number, signal: AbortSignal | undefined): Promise<void> {
    const delay = retryAfterMs(error) ?? (this.#options.retryDelayMs ?? 500) * 2 ** (attempt - 1);
    await sleep(delay, signal).catch((cause: unknown) => {
      throw this.#error(cause, signal);
    });
  }

  #error(error: unknown, signal: AbortSignal | undefined): GolemError {
    if (GolemError.isInstance(error)) return error;
    const where = `${this.provider}:${this.modelId}`;
    if (signal?.aborted === true || (error instanceof Error && error.name === 'AbortError')) {
      return new GolemError('MODEL_ABORTED', `the call to ${where} was cancelled`, { cause: error });
    }
    const status = statusOf(error);
    const message = messageOf(error);
    if (status === 401 || status === 403)
      return new GolemError('MODEL_AUTH', `${where} refused the credentials (${status}): ${message}`, { cause: error, details: { status } });
    if (status === undefined && isNetworkError(error)) {
      const url = (error as { url?: string }).url;
      return new GolemError('MODEL_UNREACHABLE', `cannot reach ${where}${url === undefined ? '' : ` at ${url}`}: ${causeMessage(error)}`, { cause: error });
    }
    return new GolemError('MODEL_ERROR', `${where} failed${status === undefined ? '' : ` (${status})`}: ${message}`, {
      cause: error,
      details: { ...(status !== undefined && { status }) },
    });
  }
}

type UserPart = Extract<LanguageModelV3Message, { role: 'user' }>['content'][number];
type AssistantPart = Extract<LanguageModelV3Message, { role: 'assistant' }>['content'][number];

/** Maps the agnostic prompt to the AI SDK's provider prompt. */
export function toProviderPrompt(prompt: Prompt, fileIdData: (fileId: string) => string | URL): LanguageModelV3Prompt {
  const messages: LanguageModelV3Message[] = [];
  if (prompt.system !== '') messages.push({ role: 'system', content: prompt.system });
  const file = (part: Extract<PromptPart, { type: 'image' | 'document' }>): LanguageModelV3FilePart => ({
    type: 'file',
    mediaType: part.mediaType,
    data: part.fileId !== undefined ? fileIdData(part.fileId) : part.base64,
    ...(part.filename !== undefined && { filename: part.filename }),
  });
  for (const message of prompt.messages) {
    if (message.role === 'user') {
      messages.push({
        role: 'user',
        content: message.content.flatMap((p): UserPart[] =>
          p.type === 'text' ? [{ type: 'text', text: p.text }] : p.type === 'image' || p.type === 'document' ? [file(p)] : [],
        ),
      });
    } else if (message.role === 'assistant') {
      messages.push({
        role: 'assistant',
        content: message.content.flatMap((p): AssistantPart[] => {
          if (p.type === 'text') return [{ type: 'text' as const, text: p.text }];
          if (p.type === 'thinking') {
            const anthropic = { ...(p.signature !== undefined && { signature: p.signature }), ...(p.redacted !== undefined && { redactedData: p.redacted }) };
            return [{ type: 'reasoning' as const, text: p.text, ...(Object.keys(anthropic).length > 0 && { providerOptions: { anthropic } }) }];
          }
          if (p.type === 'tool-call') {
            return [
              {
                type: 'tool-call' as const,
                toolCallId: p.callId,
                toolName: p.name,
                input: p.input,
                ...(p.providerExecuted === true && { providerExecuted: true }),
                ...(p.providerMetadata !== undefined && { providerOptions: p.providerMetadata as never }),
              },
            ];
          }
          if (p.type === 'server-tool-result') {
            // A server tool's result, back in the answer as the provider sent it (web_search_tool_result and the like).
            return [
              {
                type: 'tool-result' as const,
                toolCallId: p.callId,
                toolName: p.name,
                output: p.isError === true ? { type: 'error-json' as const, value: p.output as never } : { type: 'json' as const, value: p.output as never },
                ...(p.providerMetadata !== undefined && { providerOptions: p.providerMetadata as never }),
              },
            ];
          }
          return [];
        }),
      });
    } else {
      messages.push({
        role: 'tool',
        content: message.content.flatMap((p) =>
          p.type === 'tool-result'
            ? [{ type: 'tool-result' as const, toolCallId: p.callId, toolName: p.name, output: toolOutput(p.output, p.isError === true) }]
            : [],
        ),
      });
    }
  }
  return messages;
}

function toolOutput(output: ToolResultOutput, isError: boolean): LanguageModelV3ToolResultOutput {
  if (output.type === 'text') return isError ? { type: 'error-text', value: output.text } : { type: 'text', value: output.text };
  return {
    type: 'content',
    value: output.parts.map((p) =>
      p.type === 'text'
        ? { type: 'text' as const, text: p.text }
        : { type: 'file-data' as const, data: p.base64 ?? '', mediaType: p.mediaType, ...(p.filename !== undefined && { filename: p.filename }) },
    ),
  };
}

const STOP_REASONS: readonly StopReason[] = ['stop', 'length', 'tool-calls', 'content-filter', 'error', 'other'];

function mapPart(part: LanguageModelV3StreamPart): StreamPart | undefined {
  switch (part.type) {
    case 'text-delta':
      return part.delta === '' ? undefined : { type: 'text-delta', text: part.delta };
    case 'reasoning-delta':
      return part.delta === '' ? undefined : { type: 'thinking-delta', text: part.delta };
    case 'reasoning-end': {
      const signature = signatureOf(part);
      return { type: 'thinking-end', ...(signature !== undefined && { signature }) };
    }
    case 'tool-call': {
      const metadata = jsonMetadata(part.providerMetadata);
      return {
        type: 'tool-call',
        callId: part.toolCallId,
        name: part.toolName,
        input: parseToolInput(part.toolName, part.input),
        ...(part.providerExecuted === true && { providerExecuted: true }),
        ...(metadata !== undefined && { providerMetadata: metadata }),
      };
    }
    case 'tool-result': {
      // A result the provider sent itself: of a tool it ran (web search, code execution, an MCP server's tool).
      const metadata = jsonMetadata(part.providerMetadata);
      return {
        type: 'server-tool-result',
        callId: part.toolCallId,
        name: part.toolName,
        output: JSON.parse(JSON.stringify(part.result ?? null)) as JsonValue,
        isError: part.isError === true,
        ...(metadata !== undefined && { providerMetadata: metadata }),
      };
    }
    case 'finish': {
      const unified = part.finishReason.unified;
      return {
        type: 'finish',
        stopReason: STOP_REASONS.includes(unified) ? unified : 'other',
        ...(part.finishReason.raw !== undefined && { rawStopReason: part.finishReason.raw }),
        usage: {
          inputTokens: part.usage.inputTokens.total ?? 0,
          outputTokens: part.usage.outputTokens.total ?? 0,
          ...(part.usage.inputTokens.cacheRead !== undefined && { cachedInputTokens: part.usage.inputTokens.cacheRead }),
          ...(part.usage.outputTokens.reasoning !== undefined && { reasoningTokens: part.usage.outputTokens.reasoning }),
        },
      };
    }
    case 'error':
      throw part.error;
    default:
      return undefined;
  }
}

/** The data of redacted reasoning (Anthropic's redacted_thinking), from a part's provider metadata. */
function redactedOf(part: object): string | undefined {
  const metadata = (part as { providerMetadata?: Record<string, unknown> }).providerMetadata;
  const data = (metadata?.anthropic as { redactedData?: unknown } | undefined)?.redactedData;
  return typeof data === 'string' && data !== '' ? data : undefined;
}

/** Provider metadata as plain JSON (what is kept with a block and sent back as provider options), or undefined when there is none. */
function jsonMetadata(metadata: unknown): JsonObject | undefined {
  if (typeof metadata !== 'object' || metadata === null || Object.keys(metadata).length === 0) return undefined;
  return JSON.parse(JSON.stringify(metadata)) as JsonObject;
}

function signatureOf(part: object): string | undefined {
  const metadata = (part as { providerMetadata?: Record<string, unknown> }).providerMetadata;
  const signature = (metadata?.anthropic as { signature?: unknown } | undefined)?.signature;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}

function parseToolInput(name: string, input: string): JsonObject {
  let value: unknown;
  try {
    value = input.trim() === '' ? {} : JSON.parse(input);
  } catch (cause) {
    throw new GolemError('MODEL_ERROR', `the model called ${name} with arguments that are not JSON: ${input.slice(0, 200)}`, { cause });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GolemError('MODEL_ERROR', `the model called ${name} with arguments that are not a JSON object: ${input.slice(0, 200)}`);
  }
  return value as JsonObject;
}

async function readOrAbort<T>(
  reader: ReadableStreamDefaultReader<T>,
  signal: AbortSignal | undefined,
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<T>['read']>>> {
  if (signal === undefined) return reader.read();
  signal.throwIfAborted();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([reader.read(), aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
  }
}

/** A readable message, also for the plain objects providers put in stream error events. */
function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const e = error as { message?: unknown; type?: unknown; error?: { message?: unknown; type?: unknown } } | null;
  if (typeof e === 'object' && e !== null) {
    const inner = e.error ?? e;
    const type = typeof inner.type === 'string' ? `${inner.type}: ` : '';
    if (typeof inner.message === 'string') return `${type}${inner.message}`;
    return JSON.stringify(error);
  }
  return String(error);
}

/** Error types providers report inside a stream that are worth another try. */
const RETRYABLE_TYPES = /overloaded|rate_limit|api_error|server_error|timeout/i;

function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function isRetryable(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined) return status === 408 || status === 409 || status === 429 || status >= 500;
  if (!(error instanceof Error) && typeof error === 'object' && error !== null) return RETRYABLE_TYPES.test(messageOf(error));
  return isNetworkError(error);
}

function isNetworkError(error: unknown): boolean {
  const text = `${causeMessage(error)} ${error instanceof Error ? error.message : ''}`;
  return /ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|fetch failed|socket hang up|Cannot connect/i.test(text);
}

function causeMessage(error: unknown): string {
  let at: unknown = error;
  let text = '';
  for (let depth = 0; at instanceof Error && depth < 5; depth++) {
    text = `${(at as { code?: string }).code ?? ''} ${at.message}`.trim();
    at = at.cause;
  }
  return text;
}

function retryAfterMs(error: unknown): number | undefined {
  const headers = (error as { responseHeaders?: Record<string, string> } | undefined)?.responseHeaders;
  const value = headers?.['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) ? Math.min(seconds * 1000, 60_000) : undefined;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });
}
