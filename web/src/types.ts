/**
 * The page's own view of a model-built UI instance (src/ui/schema.ts, which imports zod and
 * so stays out of the bundle) and of the socket's events.
 */
import type { ServeCustomEvent } from '../../src/serve/api-types.js';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export type FieldType = 'text' | 'number' | 'textarea' | 'select' | 'checkbox' | 'radio';

export interface FieldConfig {
  label: string;
  key: string;
  type: FieldType;
  value?: Json;
  description?: string;
  options?: { label: string; value: string }[];
}

export interface UIBlock {
  id: string;
  type: 'form';
  bind: 'state.params' | 'state.runtime';
  /** Fields, and the seed's properties that draw data of state.runtime (web/src/block-data.ts). */
  props?: {
    fields?: FieldConfig[];
    showProgress?: boolean;
    showStatus?: boolean;
    showImages?: boolean;
    showTable?: boolean;
    showCountInput?: boolean;
    showTaskId?: boolean;
  };
}

export interface UIAction {
  id: string;
  label: string;
  style: 'primary' | 'secondary' | 'danger';
}

export interface UIInstance {
  meta: { pageKey: string; step: { current: number; total: number }; status: 'idle' | 'submitted' };
  state: { params: Record<string, Json>; runtime: Record<string, Json> };
  blocks: UIBlock[];
  actions: UIAction[];
  layout?: { type: 'single' };
}

export interface UISnapshot {
  instances: Record<string, UIInstance>;
}

export interface PatchOp {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

/** What the socket brings; fields are checked where they are read. */
export type SocketEvent =
  | { type: 'STATE_SNAPSHOT'; snapshot: UISnapshot; metadata: { version: number } }
  | { type: 'STATE_DELTA'; delta: PatchOp[]; metadata: { version: number } }
  | { type: 'RUN_STARTED'; threadId: string; runId: string }
  | { type: 'RUN_FINISHED'; threadId: string; runId: string; result?: unknown }
  | { type: 'RUN_ERROR'; message: string; code?: string; threadId?: string; runId?: string }
  | { type: 'TEXT_MESSAGE_START'; messageId: string; role?: string }
  | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'TEXT_MESSAGE_END'; messageId: string }
  | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string }
  | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
  | { type: 'TOOL_CALL_END'; toolCallId: string }
  | { type: 'TOOL_CALL_RESULT'; messageId: string; toolCallId: string; content: string }
  | { type: 'STEP_STARTED' | 'STEP_FINISHED'; stepName: string }
  | ServeCustomEvent;

/** What the page sends on the socket (src/serve/ui-actions.ts). */
export type OutgoingMessage =
  { type: 'SNAPSHOT_REQUEST' } | { type: 'UI_ACTION'; instanceId: string; actionId: string; values: Record<string, Json>; count?: number };
