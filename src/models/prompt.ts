/**
 * The provider-agnostic prompt (seed 001 section 6.5): what the prompt pipeline
 * assembles and every model adapter maps to its provider's wire format.
 */
import type { JsonObject, JsonValue } from '../core/blocks.js';

/** Bytes of an image or document: inline (base64), or a file the provider already holds. */
export type PromptMedia = { base64: string; fileId?: never } | { fileId: string; base64?: never };

export type PromptPart =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string; signature?: string; redacted?: string }
  | ({ type: 'image'; mediaType: string; filename?: string } & PromptMedia)
  | ({ type: 'document'; mediaType: string; filename?: string; title?: string } & PromptMedia)
  | { type: 'tool-call'; callId: string; name: string; input: JsonObject; providerExecuted?: true; providerMetadata?: JsonObject }
  | { type: 'tool-result'; callId: string; name: string; output: ToolResultOutput; isError?: boolean }
  /** In an assistant message: the result of a call the provider ran itself, as it sent it. */
  | { type: 'server-tool-result'; callId: string; name: string; output: JsonValue; isError?: boolean; providerMetadata?: JsonObject };

/** What a tool returned: text, or text and media parts. */
export type ToolResultOutput = { type: 'text'; text: string } | { type: 'content'; parts: Array<Extract<PromptPart, { type: 'text' | 'image' | 'document' }>> };

export interface PromptMessage {
  role: 'user' | 'assistant' | 'tool';
  content: PromptPart[];
}

/** A tool the model may call. */
export interface PromptTool {
  name: string;
  description: string;
  /** JSON Schema of the input. */
  inputSchema: JsonObject;
}

/** A JSON answer, and the JSON Schema it must match (sent to providers that enforce schemas at generation). */
export interface ResponseFormat {
  type: 'json';
  schema?: JsonObject;
  /** A name for the schema (some providers require one). */
  name?: string;
  description?: string;
}

/** A complete, provider-agnostic request. */
export interface Prompt {
  /** The system instruction: persona, preferences, retrieved context. */
  system: string;
  messages: PromptMessage[];
  tools?: PromptTool[];
  /** Ask for one JSON value as the answer, matching `schema` where the provider can enforce one (structured outputs). */
  responseFormat?: ResponseFormat;
  maxOutputTokens?: number;
  temperature?: number;
  /** Provider-specific options, passed through untouched (e.g. `{ anthropic: { thinking: {...} } }`). */
  providerOptions?: Record<string, Record<string, JsonValue>>;
}
