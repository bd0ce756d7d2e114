/**
 * The UI abstraction layer (seed 003 section 2): what a worker tree needs from a user
 * interface, whatever the platform. The terminal implements it now (`golem`), the
 * browser later (`golem serve`), tests in-process.
 */
import type { JsonValue } from '../core/blocks.js';
import type { Turn } from '../core/records.js';
import type { ApprovalRequest, WorkerInfo } from '../action/approval.js';

export type { ApprovalRequest, Risk, WorkerInfo } from '../action/approval.js';

/** A message shown to the user. */
export interface UIMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
  metadata?: {
    toolCalls?: { name: string; input: JsonValue }[];
    timestamp: number;
  };
}

/**
 * The user's answer: yes, no (with a reason the model sees), yes and always for this
 * call in this workspace, or yes for this call for the rest of the session.
 */
export type ApprovalResult = { approved: true } | { approved: false; reason?: string } | { approved: 'always' } | { approved: 'session' };

/** Something an action staged for the user to push or discard (seed 003 section 6). */
export interface ClearanceItem {
  id: string;
  type: 'staged_commit' | 'pending_export' | 'binary_output';
  description: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  metadata: Record<string, unknown>;
}

export type ClearanceDecision = { action: 'push'; target?: string } | { action: 'discard' } | { action: 'defer' };

/** What became of a decision. */
export interface ClearanceResult {
  item: ClearanceItem;
  decision: ClearanceDecision;
  ok: boolean;
  message: string;
}

/** One worker's place in the progress tree. */
export interface TaskProgress {
  id: string;
  description: string;
  depth: number;
  status: 'waiting' | 'running' | 'complete' | 'failed';
}

export interface StatusUpdate {
  text: string;
  level?: 'info' | 'warning' | 'error';
}

export interface DiffContent {
  title: string;
  /** A unified diff. */
  diff: string;
}

/** What the worker tree reports as it goes, for an adapter to show (the seed's `onEvent`). */
export type WorkerEvent =
  /** `batch`: the worker is one of `size` sub-workers its parent runs side by side (their events interleave), the `index`th of them from 0. */
  | { type: 'worker-start'; worker: WorkerInfo; parent: WorkerInfo | null; batch?: { index: number; size: number } }
  | { type: 'text-delta'; worker: WorkerInfo; text: string }
  /** An answer's streamed text is complete and recorded as this turn (its actions run next). */
  | { type: 'answer'; worker: WorkerInfo; turnId: string; version: number }
  /** A model call finished (step `step` of the run) and its answer asks for `requested` actions, which run next. */
  | { type: 'step'; worker: WorkerInfo; step: number; turn: Turn; requested: number }
  /** `callId`: the model's call it answers (the `tool_use` block's `callId` in the step's turn). */
  | { type: 'action'; worker: WorkerInfo; callId?: string; name: string; input: JsonValue; ok: boolean; output: JsonValue }
  /** `waiting`: a sub-worker stopped on an approval nobody can answer now; a later run resumes it. */
  | { type: 'worker-end'; worker: WorkerInfo; status: 'done' | 'question' | 'failed' | 'waiting'; text: string };

export interface UIAdapter {
  // Conversation
  displayMessage(msg: UIMessage): Promise<void>;
  /** The user's next input; null when the user closed the input (end of file). */
  getUserInput(): Promise<string | null>;
  // Approval (supervised mode)
  requestApproval(request: ApprovalRequest): Promise<ApprovalResult>;
  // Clearance (manual mode)
  notifyClearancePending(items: ClearanceItem[]): void;
  getClearanceDecision(item: ClearanceItem): Promise<ClearanceDecision>;
  displayClearanceResult(result: ClearanceResult): void;
  onClearanceStateChange(callback: (items: ClearanceItem[]) => void): void;
  // Progress
  showProgress(task: TaskProgress): void;
  updateStatus(status: StatusUpdate): void;
  // Diff review
  displayDiff(diff: DiffContent): Promise<void>;
  // The tree's stream of work (answers as they stream, sub-workers' actions)
  onEvent?(event: WorkerEvent): void;
  // Lifecycle
  initialize(): Promise<void>;
  shutdown(): Promise<void>;
}
