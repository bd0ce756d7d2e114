/**
 * Stage 2 of the prompt builder, retrieval: the context entries and the topic preferences
 * relevant to the latest turns and the session's topics, as the retriever ranks them.
 */
import type { ContextEntry, Preference, Role, Session, Turn } from '../core/records.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { retrievableOf, searchTerms, type ContextRetriever } from './context-retriever.js';

/** How relevant context is chosen. */
export interface RelevanceConfig {
  /** How many of the latest turns make up the query (default 6). */
  recentMessageWindow?: number;
  /** The lowest score an entry or topic preference needs (default 0.2). */
  minScore?: number;
  /** At most this many context entries (default 8). */
  maxEntries?: number;
  /** The largest share of the input budget context may take (default 0.25). */
  contextShare?: number;
}

/** What `findRelevant` ranks, against what, and how much of it it keeps. */
export interface RelevanceInput {
  view: WorkspaceView;
  session: Session;
  /** The transcript, oldest first: its latest turns make up the query. */
  turns: readonly Turn[];
  relevance: Required<RelevanceConfig>;
  /** Now, in ms (for freshness in ranking); default Date.now(). */
  now: number | undefined;
  retriever: ContextRetriever;
}

/** What retrieval found for a prompt. */
export interface Relevant {
  /** The session's role, if it has one (its preferences always apply: they are not ranked). */
  role: Role | undefined;
  /** The ids (`context:<key>`) and scores of the context entries that rank high enough, best first. */
  context: { id: string; score: number }[];
  /** The preferences the ranking brings in for the session's topics and latest turns. */
  topicPreferences: Preference[];
}

/** A context entry that may join the system instruction, with its score and tokens. */
export interface RelevantEntry {
  id: string;
  entry: ContextEntry;
  score: number;
  tokens: number;
}

/** Ranks the workspace's context entries, and the preferences the session does not have already, against its latest turns and topics. */
export async function findRelevant(input: RelevanceInput): Promise<Relevant> {
  const { view, session, relevance } = input;
  const recent = input.turns.slice(-relevance.recentMessageWindow);
  const role = session.role === null ? undefined : view.roles.get(session.role);
  // The role's topics of interest count as the session's own.
  const topics = [...new Set([...session.topics, ...(role?.topics ?? [])])];
  const query = { topics, text: recent.map(textOf).join('\n'), now: input.now ?? Date.now() };
  const fixed = new Set([...(role?.preferences ?? []), ...session.preferences]);
  const candidates = [...[...view.context.values()].map(retrievableOf), ...[...view.preferences.values()].filter((p) => !fixed.has(p.id)).map(retrievableOf)];
  const ranked =
    searchTerms([query.text, ...query.topics].join(' ')).length === 0
      ? []
      : (await input.retriever.rank(query, candidates)).filter((r) => r.score >= relevance.minScore);
  const context = ranked.filter((r) => r.id.startsWith('context:')).slice(0, relevance.maxEntries);
  const topicPreferences = ranked
    .flatMap((r) => (r.id.startsWith('preference:') ? [view.preferences.get(r.id.slice('preference:'.length))] : []))
    .filter(isDefined);
  return { role, context, topicPreferences };
}

/** The relevant context entries, read from the view, with the tokens each adds to the system instruction. */
export function relevantEntries(view: WorkspaceView, context: Relevant['context'], count: (text: string) => number): RelevantEntry[] {
  return context.map((r) => {
    const entry = view.context.get(r.id.slice('context:'.length)) as ContextEntry;
    return { id: r.id, entry, score: r.score, tokens: count(`- [${entry.key}] ${entry.content}\n`) };
  });
}

function textOf(turn: Turn): string {
  return turn.blocks
    .map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content.map((p) => (p.type === 'text' ? p.text : '')).join(' ') : ''))
    .join(' ');
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
