/**
 * What the steps of a worker's run share: the worker's parts as one internal object (its
 * workspace and session, its actions and mode, its place in the tree), so each step is a
 * module of its own and the public Worker stays small.
 */
import type { Action } from '../../action/action.js';
import type { WorkspaceManager } from '../../core/manager.js';
import type { Environment } from '../../environment/environment.js';
import type { Serializer } from '../../core/serializer.js';
import type { GitStaging } from '../../project/git-staging.js';
import type { Session } from '../../prompt/session.js';
import type { SessionManager } from '../../prompt/session-manager.js';
import type { StagedProject } from '../staged-project.js';
import type { WorkerEvent, WorkerInfo } from '../ui-adapter.js';
import type { ModeProtocol } from './mode.js';
import type { WorkerOptions } from './options.js';
import type { TreeGate } from './tree-gate.js';

/** A worker's place in the tree (internal: sub-workers are made by `spawn_worker`). */
export interface TreePosition {
  path: WorkerInfo[];
  rootSessionId: string;
  /** Shared by the whole tree: the staging (and its one-at-a-time queue), and the gate approvals hold. */
  shared: { staging?: Promise<GitStaging>; staged?: Serializer; gate: TreeGate };
}

/** What a Worker is given besides its options: the sessions to open its sub-workers' in, and its place in the tree. */
export interface WorkerInternals {
  sessions?: SessionManager;
  position?: TreePosition;
}

/** The worker as its run's steps see it. */
export interface WorkerContext {
  readonly manager: WorkspaceManager;
  readonly session: Session;
  options: WorkerOptions;
  /** The actions the model is offered, by name (Worker.setActions replaces the ones it was given). */
  readonly actions: Map<string, Action>;
  readonly environments: readonly Environment[];
  /**
   * The actions the worker makes itself, which a sub-worker gets when its parent gives their
   * names: the environments' `update_editable_status` (with the environments) and
   * `spawn_worker` (with the depth limit). Undefined when the worker has none.
   */
  readonly own: {
    readonly update: Action | undefined;
    /** `execute_action`, for environments that take actions by name (the seed's `executeAction`). */
    readonly execute: Action | undefined;
    /** A call of a name no action has goes to the one environment that takes actions by name. */
    readonly routesByName: boolean;
    readonly spawn: Action | undefined;
    /** `propose_plan` (with `update_plan`), when the worker offers plans. */
    readonly plan: Action | undefined;
  };
  readonly mode: ModeProtocol;
  readonly position: TreePosition;
  /** 0 for the root worker, the number of ancestors for a sub-worker. */
  readonly depth: number;
  /** How deep the tree under the root may go (0: no sub-workers). */
  readonly maxDepth: number;
  /** How many sub-workers one answer's spawn_worker calls run at once (default 4). */
  readonly concurrency: number;
  /** The spawn_worker calls of the answer being performed (two or more), by call id: their place among them. */
  readonly batches: Map<string, { index: number; size: number }>;
  /** The project's files, staged in manual mode (none without a project). */
  readonly project: StagedProject | undefined;
  /** Where sub-workers' sessions are opened (set when the worker may spawn). */
  readonly sessions: SessionManager | undefined;
  /** [root, ..., this worker]; the root's task is its session's label as it is now. */
  path(): WorkerInfo[];
  /** This worker as the user is shown it. */
  info(): WorkerInfo;
  /** Sends an event to the run's stream; a listener that throws is reported as `listener:error`, and the run goes on. */
  emit(event: WorkerEvent): void;
}
