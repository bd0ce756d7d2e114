/**
 * The AI SDK's UI message stream, the wire `useChat` reads (its DefaultChatTransport), as
 * Golem writes it: server-sent events whose data is one chunk each, then `[DONE]`, marked
 * by the `x-vercel-ai-ui-message-stream: v1` header. The chunk types are written out here
 * (Golem does not load the `ai` package); test/serve-chat.test.ts checks each against the
 * package's own schema and types. Only the chunks Golem sends are declared.
 */
import type { WorkerInfo } from '../action/approval.js';
import type { JsonValue } from '../core/blocks.js';
import type { UIInstance } from '../ui/schema.js';
import { sseResponse, type SseChannel } from './sse.js';

/** Why a message ended, as the AI SDK names it. */
export type FinishReason = 'stop' | 'length' | 'content-filter' | 'tool-calls' | 'error' | 'other';

/** A UI instance as a data part: its id is the part's, so each change replaces the part. `instance` is null once deleted. */
export interface UIInstancePart {
  instanceId: string;
  version: number;
  instance: UIInstance | null;
}

/** What Golem tells of an approval with its request: the part's `approval.descriptor` on the client. */
export interface ApprovalDescriptor {
  description: string;
  risk: 'low' | 'medium' | 'high' | 'unknown';
  /** The workers from the root to the one whose call waits (a sub-worker's call pauses its root's run). */
  workerPath: WorkerInfo[];
}

/** One chunk of the stream. */
export type UIMessageChunk =
  /** The assistant message the chunks build (the id the client keeps for it). */
  | { type: 'start'; messageId: string }
  /** One model call's parts are between these. */
  | { type: 'start-step' }
  | { type: 'finish-step' }
  | { type: 'text-start'; id: string }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-end'; id: string }
  /** A call the model made, with its whole input; `providerExecuted`: the provider ran it (its result follows in the same step). */
  | { type: 'tool-input-available'; toolCallId: string; toolName: string; input: JsonValue; providerExecuted?: true }
  | { type: 'tool-output-available'; toolCallId: string; output: JsonValue; providerExecuted?: true }
  /** The call failed (or was refused); `errorText` is what the model was told. */
  | { type: 'tool-output-error'; toolCallId: string; errorText: string; providerExecuted?: true }
  /** The user said no to the call. */
  | { type: 'tool-output-denied'; toolCallId: string }
  /** The run paused on the call: `approvalId` is Golem's approval, answered with `addToolApprovalResponse({ id: approvalId, ... })`. */
  | { type: 'tool-approval-request'; approvalId: string; toolCallId: string; approvalDescriptor: ApprovalDescriptor }
  /** A UI instance the run built or changed (`data-ui` parts on the client). */
  | { type: 'data-ui'; id: string; data: UIInstancePart }
  /** A message sent while the thread ran, kept for its run (wire-policy.ts); transient: not a part of the message. */
  | { type: 'data-golem-queued'; data: { messageId: string; policy: string; runId: string }; transient: true }
  /** The run failed: `errorText` starts with Golem's error code (`MODEL_ERROR: …`). */
  | { type: 'error'; errorText: string }
  /** The run was stopped. */
  | { type: 'abort'; reason: string }
  | { type: 'finish'; finishReason: FinishReason };

/** Where the chunks go: `write` each, then `end` (which sends `[DONE]`). */
export interface UIMessageSink {
  /** `id`: the SSE event id (see run-source.ts), on the last chunk of a run's entry. */
  write(chunk: UIMessageChunk, id?: string): void;
  end(): void;
}

/** The response headers of the stream, as the AI SDK's clients expect them. */
export const UI_MESSAGE_STREAM_HEADERS = { 'x-vercel-ai-ui-message-stream': 'v1', 'cache-control': 'no-store' } as const;

/**
 * A streaming response of UI message chunks: `open` gets the sink and returns what to do
 * when the stream ends (the client went away, or `end` was called): stop following what fed
 * it. The run that fed it goes on either way.
 */
export function uiMessageStreamResponse(open: (sink: UIMessageSink) => () => void): Response {
  return sseResponse(
    (channel: SseChannel) =>
      open({
        write: (chunk, id) => channel.send(chunk, id),
        end: () => {
          channel.send('[DONE]');
          channel.end();
        },
      }),
    UI_MESSAGE_STREAM_HEADERS,
  );
}
