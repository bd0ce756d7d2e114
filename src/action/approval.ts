/**
 * What an action's approval request says (seed 003 section 5): the worker asking, how risky the
 * call is, and what the user is shown. Actions describe their calls with these; the UI adapters show them.
 */

/** One worker of the tree, as the user is shown it. */
export interface WorkerInfo {
  /** The worker's id (its session's id). */
  id: string;
  depth: number;
  task: string;
}

/**
 * How risky a call looks to the user: 'unknown' when the rules cannot tell (a program they do not
 * know); ranked low < medium < unknown < high.
 */
export type Risk = 'low' | 'medium' | 'high' | 'unknown';

/** A supervised action waiting for the user's yes (seed 003 section 5). */
export interface ApprovalRequest {
  /** The approval's id in the workspace (`approval:*`). */
  id: string;
  type: 'tool_call' | 'file_write' | 'command';
  description: string;
  details: unknown;
  risk: Risk;
  /** [root, ..., the worker asking]. */
  workerPath: WorkerInfo[];
}
