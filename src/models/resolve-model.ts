/**
 * `resolveModel('provider:model')`: one string chooses the model. Keys come from each
 * provider's usual environment variable; provider packages load on the first call.
 */
import { GolemError } from '../core/errors.js';
import { AiSdkAdapter } from './ai-sdk-adapter.js';
import { countOpenAiTokens } from './tokens.js';

export interface ResolveModelOptions {
  /** Where keys and base URLs are read (default: process.env). */
  env?: Record<string, string | undefined>;
  /** The fetch the provider uses (default: the global one). */
  fetch?: typeof globalThis.fetch;
  /** Attempts for requests that fail with 429, 5xx or a network error (default 4). */
  maxAttempts?: number;
  retryDelayMs?: number;
}

/** The model specs Golem understands, for help texts. */
export const MODEL_SPEC_FORMS = [
  'openai:<model>                       (OPENAI_API_KEY; OPENAI_BASE_URL optional)',
  'anthropic:<model>                    (ANTHROPIC_API_KEY; ANTHROPIC_BASE_URL optional)',
  'google:<model>                       (GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY)',
  'ollama:<model>                       (OLLAMA_BASE_URL, default http://127.0.0.1:11434/v1)',
  'openai-compatible:<baseURL>#<model>  (OPENAI_COMPATIBLE_API_KEY optional)',
] as const;

const FILES_BETA = 'files-api-2025-04-14';
const FILE_SCHEME = 'golem-file:';

/**
 * A model adapter for a spec such as `openai:gpt-4.1-mini`, `anthropic:claude-sonnet-4-5`,
 * `google:gemini-2.5-flash`, `ollama:qwen3` or `openai-compatible:http://127.0.0.1:8080/v1#my-model`.
 * Throws MODEL_UNKNOWN_PROVIDER or MODEL_KEY_MISSING at once; network problems surface on the first call.
 */
export function resolveModel(spec: string, options: ResolveModelOptions = {}): AiSdkAdapter {
  const env = options.env ?? process.env;
  const at = spec.indexOf(':');
  const provider = at === -1 ? spec : spec.slice(0, at);
  const rest = at === -1 ? '' : spec.slice(at + 1);
  const common = {
    ...(options.maxAttempts !== undefined && { maxAttempts: options.maxAttempts }),
    ...(options.retryDelayMs !== undefined && { retryDelayMs: options.retryDelayMs }),
  };
  const fetchOption = options.fetch === undefined ? {} : { fetch: options.fetch };
  const need = (model: string) => {
    if (model === '') throw new GolemError('MODEL_UNKNOWN_PROVIDER', `"${spec}" names no model; write ${provider}:<model>`, { details: { spec } });
    return model;
  };
  switch (provider) {
    case 'openai': {
      const modelId = need(rest);
      const apiKey = requireKey(env, 'OPENAI_API_KEY', spec);
      const baseURL = env.OPENAI_BASE_URL;
      return new AiSdkAdapter(
        {
          modelId,
          load: async () => (await import('@ai-sdk/openai')).createOpenAI({ apiKey, ...(baseURL !== undefined && { baseURL }), ...fetchOption }).chat(modelId),
        },
        { provider: 'openai', fileIds: (mediaType) => mediaType === 'application/pdf', countTokens: countOpenAiTokens, ...common },
      );
    }
    case 'anthropic': {
      const modelId = need(rest);
      const apiKey = requireKey(env, 'ANTHROPIC_API_KEY', spec);
      const baseURL = env.ANTHROPIC_BASE_URL;
      const fetch = withAnthropicFileIds(options.fetch ?? globalThis.fetch);
      return new AiSdkAdapter(
        {
          modelId,
          load: async () => (await import('@ai-sdk/anthropic')).createAnthropic({ apiKey, ...(baseURL !== undefined && { baseURL }), fetch })(modelId),
        },
        {
          provider: 'anthropic',
          fileIds: (mediaType) => mediaType.startsWith('image/') || mediaType === 'application/pdf',
          fileIdData: (id) => new URL(`${FILE_SCHEME}${id}`),
          ...common,
        },
      );
    }
    case 'google': {
      const modelId = need(rest);
      const apiKey = env.GOOGLE_GENERATIVE_AI_API_KEY ?? env.GEMINI_API_KEY;
      if (apiKey === undefined || apiKey === '') throw missingKey('GOOGLE_GENERATIVE_AI_API_KEY (or GEMINI_API_KEY)', spec);
      return new AiSdkAdapter(
        { modelId, load: async () => (await import('@ai-sdk/google')).createGoogleGenerativeAI({ apiKey, ...fetchOption })(modelId) },
        { provider: 'google', ...common },
      );
    }
    case 'ollama': {
      const modelId = need(rest);
      return compatible('ollama', env.OLLAMA_BASE_URL ?? 'http://127.0.0.1:11434/v1', modelId, undefined, fetchOption, common);
    }
    case 'openai-compatible': {
      const hash = rest.lastIndexOf('#');
      const baseURL = hash === -1 ? '' : rest.slice(0, hash);
      const modelId = hash === -1 ? '' : rest.slice(hash + 1);
      if (!/^https?:\/\/./.test(baseURL) || modelId === '') {
        throw new GolemError(
          'MODEL_UNKNOWN_PROVIDER',
          `write openai-compatible:<baseURL>#<model>, e.g. openai-compatible:http://127.0.0.1:8080/v1#my-model (got "${spec}")`,
          {
            details: { spec },
          },
        );
      }
      return compatible('openai-compatible', baseURL, modelId, env.OPENAI_COMPATIBLE_API_KEY, fetchOption, common);
    }
    default:
      throw new GolemError('MODEL_UNKNOWN_PROVIDER', `unknown model provider "${provider}" in "${spec}"; use one of:\n  ${MODEL_SPEC_FORMS.join('\n  ')}`, {
        details: { spec, provider },
      });
  }
}

function compatible(
  name: string,
  baseURL: string,
  modelId: string,
  apiKey: string | undefined,
  fetchOption: { fetch?: typeof globalThis.fetch },
  common: { maxAttempts?: number; retryDelayMs?: number },
): AiSdkAdapter {
  return new AiSdkAdapter(
    {
      modelId,
      load: async () =>
        (await import('@ai-sdk/openai-compatible'))
          .createOpenAICompatible({ name, baseURL, ...(apiKey !== undefined && { apiKey }), ...fetchOption, includeUsage: true })
          .chatModel(modelId),
    },
    { provider: name, ...common },
  );
}

export function requireKey(env: Record<string, string | undefined>, name: string, spec: string): string {
  const key = env[name];
  if (key === undefined || key === '') throw missingKey(name, spec);
  return key;
}

export function missingKey(name: string, spec: string): GolemError {
  return new GolemError('MODEL_KEY_MISSING', `${spec} needs an API key: set ${name}`, { details: { spec, variable: name } });
}

/**
 * Anthropic takes files uploaded to its Files API as `{ source: { type: 'file', file_id } }`,
 * which the AI SDK does not write: Golem sends such parts as `golem-file:<id>` URLs and
 * rewrites them here, adding the Files API beta header.
 */
function withAnthropicFileIds(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    if (typeof init?.body !== 'string' || !init.body.includes(FILE_SCHEME)) return fetch(input, init);
    let used = false;
    const body = JSON.stringify(JSON.parse(init.body), (_key, value: unknown) => {
      const source = value as { type?: unknown; url?: unknown } | null;
      if (typeof source === 'object' && source !== null && source.type === 'url' && typeof source.url === 'string' && source.url.startsWith(FILE_SCHEME)) {
        used = true;
        return { type: 'file', file_id: source.url.slice(FILE_SCHEME.length) };
      }
      return value;
    });
    const headers = new Headers(init.headers);
    if (used) headers.set('anthropic-beta', [headers.get('anthropic-beta'), FILES_BETA].filter((v) => v !== null && v !== '').join(','));
    return fetch(input, { ...init, body, headers });
  };
}
