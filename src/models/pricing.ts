import type { Usage } from './model-adapter.js';

/** USD per million tokens. */
export interface Price {
  input: number;
  output: number;
  cachedInput?: number;
}

/**
 * List prices of common models (USD per million tokens, as the providers published them
 * in 2025). Pass your own table to `respond({ pricing })` for others or for changes.
 */
export const DEFAULT_PRICES: Readonly<Record<string, Price>> = {
  'openai:gpt-4.1': { input: 2, output: 8, cachedInput: 0.5 },
  'openai:gpt-4.1-mini': { input: 0.4, output: 1.6, cachedInput: 0.1 },
  'openai:gpt-4.1-nano': { input: 0.1, output: 0.4, cachedInput: 0.025 },
  'openai:gpt-4o': { input: 2.5, output: 10, cachedInput: 1.25 },
  'openai:gpt-4o-mini': { input: 0.15, output: 0.6, cachedInput: 0.075 },
  'anthropic:claude-sonnet-4-5': { input: 3, output: 15, cachedInput: 0.3 },
  'anthropic:claude-haiku-4-5': { input: 1, output: 5, cachedInput: 0.1 },
  'anthropic:claude-opus-4-1': { input: 15, output: 75, cachedInput: 1.5 },
  'google:gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'google:gemini-2.5-pro': { input: 1.25, output: 10 },
};

/** The cost of a call in USD, or null when the model's price is unknown. */
export function costOf(provider: string, modelId: string, usage: Usage, prices: Readonly<Record<string, Price>> = DEFAULT_PRICES): number | null {
  const price = prices[`${provider}:${modelId}`];
  if (price === undefined) return null;
  const cached = Math.min(usage.cachedInputTokens ?? 0, usage.inputTokens);
  const cost = ((usage.inputTokens - cached) * price.input + cached * (price.cachedInput ?? price.input) + usage.outputTokens * price.output) / 1_000_000;
  return Math.round(cost * 1e8) / 1e8;
}
