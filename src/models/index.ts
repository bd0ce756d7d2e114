/** The model boundary: the `ModelAdapter` spec every model passes, the AI SDK provider bridge and `resolveModel`, time limits, token counting and prices. */
export type { ModelAdapter, StreamPart, Usage, StopReason, GenerateResult, CallOptions } from './model-adapter.js';
export { MODEL_ADAPTER_SPEC, collectStream } from './model-adapter.js';
export { withTimeLimits, DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUT_MS, type ModelTimeLimits } from './time-limits.js';
export type { Prompt, PromptMessage, PromptPart, PromptTool, PromptMedia, ResponseFormat, ToolResultOutput } from './prompt.js';
export { AiSdkAdapter, toProviderPrompt, type AiSdkAdapterOptions } from './ai-sdk-adapter.js';
export { resolveModel, MODEL_SPEC_FORMS, type ResolveModelOptions } from './resolve-model.js';
export { costOf, DEFAULT_PRICES, type Price } from './pricing.js';
export { estimateTokens, countOpenAiTokens } from './tokens.js';
export { resolveEmbeddingModel, embedderOf, EMBEDDING_SPEC_FORMS, type Embedder, type EmbedInput, type ResolveEmbeddingOptions } from './embedder.js';
