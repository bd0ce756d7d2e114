/**
 * Stage 3 of the prompt builder, instructions: the active preferences in the conflict
 * rule's order, and the system instruction (a replaceable stage) with the summaries in
 * force and the context kept, the system sections (the environments' own) after it.
 */
import type { ContextEntry, Preference, Session } from '../core/records.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { orderPreferences, type PreferenceTier, type systemInstruction } from './instructions.js';
import type { Relevant } from './relevant-context.js';

/** The system instruction of a prompt, before and after the context is chosen. */
export interface SystemPrompt {
  /** The active preferences, in the order of the conflict rule. */
  preferences: { preference: Preference; tier: PreferenceTier }[];
  /** The texts of the summaries in force, oldest first. */
  summaries: string[];
  /** The system instruction without context (what the planner counts before choosing the context). */
  base: string;
  /** The system instruction with the context entries kept. */
  withContext(context: ContextEntry[]): string;
  /**
   * The same instruction without its first `n` preferences: the weakest by the conflict rule
   * (the role's defaults, then the topics', then the session's own; older first), left out
   * when the instruction does not fit the budget.
   */
  withoutFirst(n: number): SystemPrompt;
}

/** What `systemPromptOf` puts together. */
export interface SystemPromptInput {
  view: WorkspaceView;
  session: Session;
  relevant: Relevant;
  summaries: string[];
  /** Sections added after everything else; blank ones are left out. */
  sections: string[] | undefined;
  /** The instruction stage (systemInstruction, or its replacement). */
  instructions: typeof systemInstruction;
}

/** Orders the preferences (the role's, the topics', the session's) and writes the system instruction without context. */
export function systemPromptOf(input: SystemPromptInput): SystemPrompt {
  const { view, session, summaries, instructions } = input;
  const { role, topicPreferences } = input.relevant;
  const preferences = orderPreferences({
    role: (role?.preferences ?? []).map((id) => view.preferences.get(id)).filter(isDefined),
    topic: topicPreferences,
    session: session.preferences.map((id) => view.preferences.get(id)).filter(isDefined),
  });
  const sections = (input.sections ?? []).filter((x) => x.trim() !== '');
  const withSections = (instruction: string) => [instruction, ...sections].filter((x) => x !== '').join('\n\n');
  const make = (active: SystemPrompt['preferences']): SystemPrompt => ({
    preferences: active,
    summaries,
    base: withSections(instructions({ role, preferences: active, context: [], summaries })),
    withContext: (context) => withSections(instructions({ role, preferences: active, context, summaries })),
    withoutFirst: (n) => make(preferences.slice(n)),
  });
  return make(preferences);
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
