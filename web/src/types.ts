/**
 * The page's own view of a model-built UI instance (src/ui/schema.ts, which imports zod and
 * so stays out of the bundle) and of the socket's events.
 */
import type { ServeCustomEvent } from '../../src/serve/api-types.js';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** The built-in field components (docs/ui-catalog.md); any other type is a registered one, or unknown to this page. */
export type InputType =
  'text' | 'number' | 'textarea' | 'select' | 'checkbox' | 'radio' | 'multiselect' | 'date' | 'slider' | 'switch' | 'tags' | 'file' | 'json';
export type DisplayType = 'markdown' | 'table' | 'progress' | 'badge' | 'metric' | 'image' | 'chart' | 'code';
export type FieldType = InputType | DisplayType | (string & {});

export type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger';

/** A visibility rule (src/ui/rules.ts): the value at `path` compared, or truthy. */
export interface VisibleRule {
  path: string;
  equals?: Json;
  notEquals?: Json;
  in?: Json[];
  truthy?: boolean;
}
export type Visible = VisibleRule | VisibleRule[];

/**
 * A field: the members every field has, and each type's own (read where the type is drawn;
 * the engine checked them against the catalog when they were written).
 */
export interface FieldConfig {
  label: string;
  key: string;
  type: FieldType;
  value?: Json;
  description?: string;
  visible?: Visible;
  required?: boolean;
  options?: { label: string; value: string }[];
  placeholder?: string;
  rows?: number;
  min?: number | string;
  max?: number | string;
  step?: number;
  pattern?: string;
  accept?: string[];
  maxBytes?: number;
  columns?: { key: string; label: string }[];
  sortable?: boolean;
  tone?: Tone;
  tones?: Record<string, Tone>;
  unit?: string;
  alt?: string;
  chart?: 'line' | 'bar' | 'pie';
  x?: string;
  y?: string | string[];
  language?: string;
  [prop: string]: unknown;
}

/** What a file field's value holds once uploaded (POST /api/ui/<instanceId>/files/<key>). */
export interface FileRef {
  sha256: string;
  name: string;
  mediaType: string;
  size: number;
}

export interface UIBlock {
  id: string;
  type: 'form';
  bind: 'state.params' | 'state.runtime';
  /** Fields, and the seed's properties that draw data of state.runtime (web/src/block-data.ts). */
  props?: {
    fields?: FieldConfig[];
    title?: string;
    description?: string;
    actions?: UIAction[];
    visible?: Visible;
    modal?: boolean;
    span?: number;
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
  visible?: Visible;
  /** false: the click skips the fields' rules (a Cancel). */
  validate?: boolean;
  /** Applied by the server with the values, as one patch_ui_state call; the agent is not told. */
  handler?: Json;
}

export interface UILayout {
  type: 'single' | 'column' | 'row' | 'grid' | 'tabs';
  columns?: number;
}

export interface UIInstance {
  meta: { pageKey: string; step: { current: number; total: number }; status: 'idle' | 'submitted' };
  state: { params: Record<string, Json>; runtime: Record<string, Json> };
  blocks: UIBlock[];
  actions: UIAction[];
  layout?: UILayout;
}

/** GET /api/ui/catalog: the components the server knows (a renderer for those the page does not draw itself), and image hosts. */
export interface UiCatalog {
  components: { type: string; kind: 'input' | 'display'; renderer?: string }[];
  imageHosts: string[];
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
