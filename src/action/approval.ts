/**
 * What an action's approval request says (seed 003 section 5): the worker asking, how risky the
 * call is, and what the user is shown. Actions describe their calls with these; the UI adapters show them.
 */
import { z } from 'zod';

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
  /** 'plan': a plan the agent proposed (`propose_plan`), whose yes accepts it (its details: taskId, title, steps). */
  type: 'tool_call' | 'file_write' | 'command' | 'plan';
  description: string;
  details: unknown;
  risk: Risk;
  /** [root, ..., the worker asking]. */
  workerPath: WorkerInfo[];
}

/** A tool as an approval shows it: its description and input schema. */
const ToolVersion = z.object({ description: z.string(), inputSchema: z.record(z.string(), z.unknown()) });

/** What an MCP server changed in a tool since the user trusted it (an MCP call's `details.changed`): the tool before, and now. */
export const ToolChange = z.object({ before: ToolVersion, now: ToolVersion });
export type ToolChange = z.infer<typeof ToolChange>;

/** What an approval's details may say besides the call, each part read on its own (a malformed one is left out). */
const ExplainedDetails = z.object({
  riskReason: z.string().optional().catch(undefined),
  changed: ToolChange.optional().catch(undefined),
});

/** Why an approval asks, as its details say it: the reason for its risk, and what changed in the tool. */
export interface ApprovalExplanation {
  /** Why the action judged the risk so (run_command's `details.riskReason`). */
  riskReason?: string;
  /** What an MCP server changed in the tool since it was trusted (`details.changed`). */
  toolChange?: ToolChange;
}

/**
 * Reads why an approval asks from its `details` (an action's, so unchecked until here), the one
 * reading the page's approval view and the terminal's prompt share. What is missing or malformed
 * is left out.
 */
export function approvalExplanation(details: unknown): ApprovalExplanation {
  const explained = ExplainedDetails.safeParse(details);
  if (!explained.success) return {};
  const { riskReason, changed } = explained.data;
  return { ...(riskReason !== undefined && { riskReason }), ...(changed !== undefined && { toolChange: changed }) };
}
