/** What a worker is given: its session and model, its actions and how they are offered, the UI it asks and shows its work on. */
import type { Action, Trust } from '../../action/action.js';
import type { Environment } from '../../environment/environment.js';
import type { ModelAdapter } from '../../models/model-adapter.js';
import type { RespondOptions } from '../../prompt/respond.js';
import type { Session } from '../../prompt/session.js';
import type { EnvelopeOptions } from '../envelope.js';
import type { ApprovalResult, UIAdapter, WorkerEvent } from '../ui-adapter.js';

/**
 * How actions are offered to the model: as native tool calls, as JSON instructions in its
 * text (seed 000), or as the one command of a structured response (seed 002's envelope:
 * decision, reasoning, command).
 */
export type ActionMode = 'tools' | 'text' | 'envelope';

/** A worker's options (`ws.worker(options)`); the rest of `respond`'s options go to each model call. */
export interface WorkerOptions extends Omit<RespondOptions, 'model' | 'tools' | 'signal' | 'systemSections'> {
  session: Session;
  model: ModelAdapter;
  environments?: Environment[];
  actions?: Action[];
  /** Default 'tools'. */
  mode?: ActionMode;
  /** Envelope mode's schema, validation and retry limit. */
  envelope?: EnvelopeOptions;
  /** Model calls at most per run, per worker (default 12). */
  maxSteps?: number;
  /** Put first in the system prompt (e.g. who the assistant is). */
  instructions?: string;
  /**
   * The user interface: approvals are asked through it and the tree's work is shown on
   * it. Without one (and without `requestApproval`), a supervised call pauses the run
   * (status 'paused') until the approval is answered in the workspace and `run()` resumes.
   */
  ui?: UIAdapter;
  /**
   * Asks the user to approve a call (default: `ui.requestApproval`). null: nobody is asked
   * while the run goes, even with a `ui`; a supervised call pauses the run (status
   * 'paused') until the approval is answered in the workspace and `run()` resumes.
   */
  requestApproval?: ((request: Parameters<UIAdapter['requestApproval']>[0]) => Promise<ApprovalResult>) | null;
  /** Sees the tree's work as it happens (default: `ui.onEvent`). */
  onEvent?: (event: WorkerEvent) => void;
  /**
   * The project the actions work on: `ctx.files` confined to `root`; manual file changes
   * are staged in git (the repository holding `root`, else a shadow repository in
   * `stagingDir`, default `<root>/.golem/staging.git`).
   */
  project?: { root: string; stagingDir?: string };
  /** Trust modes for this worker's actions, above their defaults (the workspace's and session's overrides win). */
  trust?: Readonly<Record<string, Trust>>;
  /**
   * Offer `spawn_worker` (seed 003 worker tree), with a depth limit (default 4) and how many
   * sub-workers the spawn_worker calls of one answer run side by side (default 4; 1 runs them
   * one after another). Default: off.
   */
  subWorkers?: boolean | { maxDepth?: number; concurrency?: number };
  /**
   * Offer `propose_plan` and `update_plan` (issue 37, tasks and plans): the model proposes a
   * plan for work of several steps, which becomes a task (`ws.tasks`), accepted at once when
   * propose_plan's mode is autonomous, else reviewed by the user like an approval (type
   * 'plan'); then it marks the steps as it goes. Sub-workers get them too, their plans nested
   * under their parent's step. Default: off.
   */
  plans?: boolean;
  /**
   * Messages sent to the session while it runs, for the worker to read before its next model
   * call (`ws.runs.send` with the `steer` policy; a run's claim gives it): delivers those that
   * wait as user turns. Called at each step boundary, never between a call and its result. A
   * sub-worker is not steered: its root is.
   */
  steer?: () => Promise<unknown>;
}
