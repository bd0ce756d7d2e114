import { createRequire } from 'node:module';

/** A token estimate for providers without a tokenizer here: about four characters a token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

let openai: ((text: string) => number) | undefined;

/**
 * Tokens as OpenAI's o200k encoding counts them (gpt-4o, gpt-4.1, o-series), with the
 * gpt-tokenizer library, loaded on first use.
 */
export function countOpenAiTokens(text: string): number {
  if (openai === undefined) {
    const tokenizer = createRequire(import.meta.url)('gpt-tokenizer') as { countTokens(text: string): number };
    openai = (t) => tokenizer.countTokens(t);
  }
  return openai(text);
}
