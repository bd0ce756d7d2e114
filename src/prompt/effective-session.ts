/**
 * Seed 001's `resolveSession`: what the prompt pipeline makes of a session before any model
 * is involved. Stages 1 to 3 (the transcript snapshot, retrieval, the instructions), the
 * same code `PromptBuilder.build` runs, stopped before the token budget.
 */
import { RoleConstraints, type ContextEntry, type Preference, type Role, type Session as SessionRecord } from '../core/records.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import type { ContextRetriever } from './context-retriever.js';
import type { PreferenceTier, systemInstruction } from './instructions.js';
import { findRelevant, type Relevant, type RelevanceConfig } from './relevant-context.js';
import { systemPromptOf, type SystemPrompt } from './system-prompt.js';
import { supersede, type TranscriptSnapshot } from './transcript.js';

/** The defaults of the relevance settings, as `build` uses them. */
export const RELEVANCE_DEFAULTS: Required<RelevanceConfig> = { recentMessageWindow: 6, minScore: 0.2, maxEntries: 8, contextShare: 0.25 };

/** What `resolveSession` takes besides the session id. */
export interface ResolveOptions {
  relevance?: RelevanceConfig;
  /** Now, in ms (for freshness in ranking); default Date.now(). */
  now?: number;
  /** Sections added to the system instruction after everything else (the mounted environments' renderContext(), say). */
  systemSections?: string[];
}

/**
 * A session as the prompt pipeline sees it, without a model: its role (persona and model
 * constraints), the preferences in force in the conflict rule's order (the role's defaults,
 * those its topics and latest turns bring in, its own), the context retrieved, its
 * transcript, and the system instruction they make. The token budget has not been applied:
 * a prompt built for a small window may leave out the weakest preferences and some context.
 */
export interface EffectiveSession {
  session: SessionRecord;
  /** The session's role, or null when it has none (or it no longer exists). */
  role: Role | null;
  /** The role's persona ('' without a role). */
  persona: string;
  /** The role's model constraints as prompts apply them (temperature, maxTokens, contextWindow, model; none when one has the wrong type). */
  constraints: RoleConstraints;
  /** The topics retrieval uses: the session's and its role's. */
  topics: string[];
  /** The preferences in force, weakest first: when two conflict, the later one wins. */
  preferences: { preference: Preference; tier: PreferenceTier }[];
  /** The context entries retrieved, best first, with their scores. */
  context: { entry: ContextEntry; score: number }[];
  /** Stage 1: the turns the prompt is made of (summaries standing in, merged branches shown). */
  transcript: TranscriptSnapshot;
  /** The summaries in force, oldest first. */
  summaries: string[];
  /** The system instruction: persona, preferences, the context retrieved, summaries, then the system sections. */
  system: string;
}

/** Stages 1 to 3 as `build` runs them: what the later stages fit into the budget. */
export interface PipelineStart {
  snap: TranscriptSnapshot;
  current: ReturnType<typeof supersede>;
  relevant: Relevant;
  system: SystemPrompt;
}

/** The stages and parts of a prompt builder that stages 1 to 3 use. */
export interface PipelineParts {
  view: WorkspaceView;
  retriever: ContextRetriever;
  snapshot(view: WorkspaceView, session: SessionRecord): TranscriptSnapshot;
  instructions: typeof systemInstruction;
}

/** Runs stages 1 to 3 of the prompt pipeline on a session. */
export async function startPipeline(
  parts: PipelineParts,
  session: SessionRecord,
  options: { relevance: Required<RelevanceConfig>; now: number | undefined; systemSections: string[] | undefined },
): Promise<PipelineStart> {
  const { view, retriever } = parts;
  // 1. TranscriptSnapshot. Observations a newer one makes obsolete (old page snapshots) go before anything is counted.
  const snap = parts.snapshot(view, session);
  const current = supersede(snap.turns);
  // 2. Retrieval
  const relevant = await findRelevant({ view, session, turns: current.turns, relevance: options.relevance, now: options.now, retriever });
  // 3. Instructions, the system sections after them
  const summaries = snap.summaries.map((s) => s.text);
  const system = systemPromptOf({ view, session, relevant, summaries, sections: options.systemSections, instructions: parts.instructions });
  return { snap, current, relevant, system };
}

/** The effective session: stages 1 to 3, read out. */
export async function resolveEffective(parts: PipelineParts, session: SessionRecord, options: ResolveOptions = {}): Promise<EffectiveSession> {
  const relevance = { ...RELEVANCE_DEFAULTS, ...options.relevance };
  const { snap, relevant, system } = await startPipeline(parts, session, { relevance, now: options.now, systemSections: options.systemSections });
  const context = relevant.context.flatMap((r) => {
    const entry = parts.view.context.get(r.id.slice('context:'.length));
    return entry === undefined ? [] : [{ entry, score: r.score }];
  });
  return {
    session,
    role: relevant.role ?? null,
    persona: relevant.role?.persona ?? '',
    constraints: roleConstraintsOf(relevant.role),
    topics: [...new Set([...session.topics, ...(relevant.role?.topics ?? [])])],
    preferences: system.preferences,
    context,
    transcript: snap,
    summaries: system.summaries,
    system: system.withContext(context.map((c) => c.entry)),
  };
}

/** A role's model constraints as prompts apply them: none when one of them has the wrong type. */
export function roleConstraintsOf(role: Role | undefined): RoleConstraints {
  const parsed = RoleConstraints.safeParse(role?.constraints ?? {});
  return parsed.success ? parsed.data : {};
}
