/**
 * The token planner: fits the system instruction, retrieved context and history into a
 * budget. History goes newest first and is dropped oldest first, a group at a time;
 * context takes at most its share; a newest turn too large alone is cut from the front.
 */

export interface TokenBudget {
  /** The model's context window to stay within, in tokens. */
  total: number;
  /** Tokens kept free for the answer (default: a quarter of total, at most 4,096). */
  reserve?: number;
}

export interface PlanInput {
  budget: TokenBudget;
  systemTokens: number;
  toolTokens: number;
  /** Ranked context candidates with their token counts, best first. */
  context: { id: string; tokens: number }[];
  /** History groups, oldest first, with their token counts. */
  groups: { tokens: number }[];
  /** The largest share of the input budget retrieved context may take (default 0.25). */
  contextShare?: number;
}

export interface Plan {
  reserve: number;
  /** Ids of the context kept. */
  context: string[];
  /** Index of the oldest history group kept (groups before it are dropped). */
  firstGroup: number;
  /** When even the newest group does not fit, the tokens it may keep (cut from its front). */
  truncateNewestTo?: number;
  tokens: { system: number; tools: number; context: number; history: number; total: number };
}

export function planTokens(input: PlanInput): Plan | { tooLarge: { needed: number; available: number } } {
  const reserve = input.budget.reserve ?? Math.min(4096, Math.floor(input.budget.total / 4));
  const available = input.budget.total - reserve - input.systemTokens - input.toolTokens;
  if (available <= 0) return { tooLarge: { needed: input.systemTokens + input.toolTokens, available: input.budget.total - reserve } };

  let used = 0;
  let firstGroup = input.groups.length;
  let truncateNewestTo: number | undefined;
  // The newest group always goes in, cut if it must be.
  const newest = input.groups.at(-1);
  if (newest !== undefined) {
    firstGroup--;
    if (newest.tokens > available) truncateNewestTo = available;
    used = Math.min(newest.tokens, available);
  }
  const contextCap = Math.floor((available - used) * (input.contextShare ?? 0.25));
  let contextTokens = 0;
  const context: string[] = [];
  for (const c of input.context) {
    if (contextTokens + c.tokens > contextCap) continue;
    context.push(c.id);
    contextTokens += c.tokens;
  }
  used += contextTokens;
  while (firstGroup > 0 && used + (input.groups[firstGroup - 1]?.tokens ?? 0) <= available) {
    firstGroup--;
    used += input.groups[firstGroup]?.tokens ?? 0;
  }
  const history = used - contextTokens;
  return {
    reserve,
    context,
    firstGroup,
    ...(truncateNewestTo !== undefined && { truncateNewestTo }),
    tokens: { system: input.systemTokens, tools: input.toolTokens, context: contextTokens, history, total: input.systemTokens + input.toolTokens + used },
  };
}
