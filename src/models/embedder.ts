/**
 * Embedding models: what semantic recall turns texts into vectors with. One shape, the
 * `Embedder`, for an AI SDK embedding model named by a spec (`openai:text-embedding-3-small`),
 * an AI SDK `EmbeddingModelV3` object, or a plain function.
 */
import type { EmbeddingModelV3 } from '@ai-sdk/provider';
import { GolemError } from '../core/errors.js';
import { missingKey, requireKey } from './resolve-model.js';

/** Turns texts into vectors, one per text, in order. */
export interface Embedder {
  /** Names the model and its settings: vectors are kept per content hash and this id, so a new id embeds again. */
  readonly id: string;
  embed(texts: readonly string[], options?: { signal?: AbortSignal }): Promise<number[][]>;
}

/** What `embed` options take: a spec for `resolveEmbeddingModel`, an AI SDK embedding model, an `Embedder`, or a function. */
export type EmbedInput = string | EmbeddingModelV3 | Embedder | ((texts: string[]) => Promise<number[][]>);

/** Where keys and base URLs are read, and the fetch the provider uses. */
export interface ResolveEmbeddingOptions {
  env?: Record<string, string | undefined>;
  fetch?: typeof globalThis.fetch;
}

/** The embedding model specs Golem understands, for help texts. */
export const EMBEDDING_SPEC_FORMS = [
  'openai:<model>                       (OPENAI_API_KEY; OPENAI_BASE_URL optional)',
  'google:<model>                       (GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY)',
  'ollama:<model>                       (OLLAMA_BASE_URL, default http://127.0.0.1:11434/v1)',
  'openai-compatible:<baseURL>#<model>  (OPENAI_COMPATIBLE_API_KEY optional)',
] as const;

/**
 * An embedder for a spec such as `openai:text-embedding-3-small`, `google:gemini-embedding-001`,
 * `ollama:nomic-embed-text` or `openai-compatible:http://127.0.0.1:8080/v1#my-embedder`.
 * Throws MODEL_UNKNOWN_PROVIDER or MODEL_KEY_MISSING at once; the provider package loads on the first call.
 */
export function resolveEmbeddingModel(spec: string, options: ResolveEmbeddingOptions = {}): Embedder {
  const env = options.env ?? process.env;
  const at = spec.indexOf(':');
  const provider = at === -1 ? spec : spec.slice(0, at);
  const rest = at === -1 ? '' : spec.slice(at + 1);
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const named = (model: string) => {
    if (model === '') throw new GolemError('MODEL_UNKNOWN_PROVIDER', `"${spec}" names no embedding model; write ${provider}:<model>`, { details: { spec } });
    return model;
  };
  switch (provider) {
    case 'openai': {
      const modelId = named(rest);
      const apiKey = requireKey(env, 'OPENAI_API_KEY', spec);
      const baseURL = env.OPENAI_BASE_URL;
      return lazyEmbedder(spec, async () =>
        (await import('@ai-sdk/openai')).createOpenAI({ apiKey, ...(baseURL !== undefined && { baseURL }), ...fetchOption }).embedding(modelId),
      );
    }
    case 'google': {
      const modelId = named(rest);
      const apiKey = env.GOOGLE_GENERATIVE_AI_API_KEY ?? env.GEMINI_API_KEY;
      if (apiKey === undefined || apiKey === '') throw missingKey('GOOGLE_GENERATIVE_AI_API_KEY (or GEMINI_API_KEY)', spec);
      return lazyEmbedder(spec, async () => (await import('@ai-sdk/google')).createGoogleGenerativeAI({ apiKey, ...fetchOption }).embedding(modelId));
    }
    case 'ollama':
      return compatible(spec, 'ollama', env.OLLAMA_BASE_URL ?? 'http://127.0.0.1:11434/v1', named(rest), undefined, fetchOption);
    case 'openai-compatible': {
      const hash = rest.lastIndexOf('#');
      const baseURL = hash === -1 ? '' : rest.slice(0, hash);
      const modelId = hash === -1 ? '' : rest.slice(hash + 1);
      if (!/^https?:\/\/./.test(baseURL) || modelId === '') {
        throw new GolemError('MODEL_UNKNOWN_PROVIDER', `write openai-compatible:<baseURL>#<model> (got "${spec}")`, { details: { spec } });
      }
      return compatible(spec, 'openai-compatible', baseURL, modelId, env.OPENAI_COMPATIBLE_API_KEY, fetchOption);
    }
    default:
      throw new GolemError(
        'MODEL_UNKNOWN_PROVIDER',
        `no embedding models for provider "${provider}" in "${spec}"; use one of:\n  ${EMBEDDING_SPEC_FORMS.join('\n  ')}`,
        { details: { spec, provider } },
      );
  }
}

/** The `Embedder` for what an `embed` option gives (a spec is resolved with `resolveEmbeddingModel`). */
export function embedderOf(embed: EmbedInput, options: ResolveEmbeddingOptions & { id?: string } = {}): Embedder {
  if (typeof embed === 'string') return resolveEmbeddingModel(embed, options);
  if (typeof embed === 'function') {
    const fn = embed;
    return { id: options.id ?? 'custom', embed: (texts) => fn([...texts]) };
  }
  if ('doEmbed' in embed) return modelEmbedder(options.id ?? `${embed.provider}:${embed.modelId}`, () => Promise.resolve(embed));
  return embed;
}

function lazyEmbedder(id: string, load: () => Promise<EmbeddingModelV3>): Embedder {
  let loaded: Promise<EmbeddingModelV3> | undefined;
  return modelEmbedder(id, () => (loaded ??= load()));
}

/** An AI SDK embedding model as an Embedder: texts sent in batches of the model's `maxEmbeddingsPerCall`. */
function modelEmbedder(id: string, model: () => Promise<EmbeddingModelV3>): Embedder {
  return {
    id,
    async embed(texts, options = {}) {
      const m = await model();
      const max = (await m.maxEmbeddingsPerCall) ?? 2048;
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += max) {
        const values = texts.slice(i, i + max);
        try {
          const result = await m.doEmbed({ values, ...(options.signal !== undefined && { abortSignal: options.signal }) });
          out.push(...result.embeddings);
        } catch (cause) {
          throw embeddingCallError(id, cause, options.signal);
        }
      }
      return out;
    },
  };
}

function compatible(
  id: string,
  name: string,
  baseURL: string,
  modelId: string,
  apiKey: string | undefined,
  fetchOption: { fetch?: typeof globalThis.fetch },
): Embedder {
  return lazyEmbedder(id, async () =>
    (await import('@ai-sdk/openai-compatible'))
      .createOpenAICompatible({ name, baseURL, ...(apiKey !== undefined && { apiKey }), ...fetchOption })
      .embeddingModel(modelId),
  );
}

function embeddingCallError(id: string, cause: unknown, signal: AbortSignal | undefined): GolemError {
  if (GolemError.isInstance(cause)) return cause;
  if (signal?.aborted === true) return new GolemError('MODEL_ABORTED', `the embedding call to ${id} was cancelled`, { cause });
  const status = (cause as { statusCode?: unknown }).statusCode;
  const message = cause instanceof Error ? cause.message : String(cause);
  if (status === 401 || status === 403) return new GolemError('MODEL_AUTH', `${id} refused the credentials: ${message}`, { cause, details: { status } });
  if (typeof status === 'number') return new GolemError('MODEL_ERROR', `${id} answered ${status}: ${message}`, { cause, details: { status } });
  return new GolemError('MODEL_UNREACHABLE', `${id} could not be reached: ${message}`, { cause });
}
