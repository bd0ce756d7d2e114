/**
 * Counting a prompt's tokens: a turn's blocks as estimated before its messages are made
 * (cached per turn and model), what a prompt declares besides its text, and a prompt as
 * it will be sent.
 */
import type { ContentBlock } from '../core/blocks.js';
import type { Turn } from '../core/records.js';
import type { Prompt, PromptTool, ResponseFormat } from '../models/prompt.js';

/** Tokens an image is counted as (providers bill roughly this for a mid-sized image). */
export const IMAGE_TOKENS = 1000;

/** Tokens a document sent by file id is counted as (its bytes are not at hand). */
export const DOCUMENT_FILE_TOKENS = 1500;

const tokenCache = new WeakMap<Turn, WeakMap<object, number>>();

/**
 * A turn's tokens for a model (`sizeOf` gives a document blob's bytes); turns are
 * immutable, so the count is cached per turn and model.
 */
export function turnTokens(turn: Turn, model: { countTokens(text: string): number }, sizeOf: (sha: string) => number): number {
  let counts = tokenCache.get(turn);
  if (counts === undefined) tokenCache.set(turn, (counts = new WeakMap()));
  let n = counts.get(model);
  if (n === undefined) {
    n = 4; // the message frame
    for (const block of turn.blocks) n += blockTokens(block, (text) => model.countTokens(text), sizeOf);
    counts.set(model, n);
  }
  return n;
}

/** The tokens of what a prompt declares besides its text: its tools and its response schema. */
export function declaredTokens(tools: readonly PromptTool[] | undefined, format: ResponseFormat | undefined, count: (text: string) => number): number {
  let n = format?.schema === undefined ? 0 : count(JSON.stringify(format.schema));
  for (const t of tools ?? []) n += count(`${t.name} ${t.description} ${JSON.stringify(t.inputSchema)}`);
  return n;
}

/** The tokens of a prompt as it will be sent: system, tools, and every part of every message. */
export function countPrompt(prompt: Prompt, count: (text: string) => number): number {
  let n = count(prompt.system) + declaredTokens(prompt.tools, prompt.responseFormat, count);
  for (const message of prompt.messages) {
    n += 4;
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'thinking':
          n += count(part.text);
          break;
        case 'image':
          n += IMAGE_TOKENS;
          break;
        case 'document':
          n += part.base64 !== undefined ? Math.ceil((part.base64.length * 3) / 16) : DOCUMENT_FILE_TOKENS;
          break;
        case 'tool-call':
          n += count(`${part.name}${JSON.stringify(part.input)}`);
          break;
        case 'tool-result':
          n += 4 + count(part.output.type === 'text' ? part.output.text : part.output.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));
          break;
        case 'server-tool-result':
          n += 4 + count(JSON.stringify(part.output));
          break;
      }
    }
  }
  return n;
}

function blockTokens(block: ContentBlock, count: (text: string) => number, sizeOf: (sha: string) => number): number {
  switch (block.type) {
    case 'text':
      return count(block.text);
    case 'thinking':
      return count(block.thinking);
    case 'image':
      return IMAGE_TOKENS;
    case 'document':
      return Math.ceil(sizeOf(block.blob.sha256) / 4);
    case 'tool_use':
      return count(`${block.name}${JSON.stringify(block.args)}`);
    case 'tool_result':
      return block.content.reduce((n, p) => n + blockTokens(p, count, sizeOf), 4);
    case 'server_tool_result':
      return 4 + count(JSON.stringify(block.output));
    default:
      return 0;
  }
}
