/**
 * Stage 2 of the prompt pipeline: ranking context entries and preferences against the
 * session's topics and recent turns.
 */
import MiniSearch from 'minisearch';
import type { IndexChange, Indexer, WorkspaceView } from '../core/workspace-index.js';
import type { ContextEntry, Preference } from '../core/records.js';
import type { CommandInput } from '../core/plugin.js';
import type { Result } from '../core/errors.js';
import type { Store } from '../core/store.js';

/** Something retrievable: a context entry or a preference. */
export interface Retrievable {
  /** `context:<key>` or `preference:<id>`. */
  id: string;
  content: string;
  topics: readonly string[];
  updatedAt: string;
}

/** What to rank against. */
export interface RetrievalQuery {
  topics: readonly string[];
  /** The text of the recent turns. */
  text: string;
  /** Now, in ms (for freshness). */
  now: number;
}

/** A candidate's id and its score, in [0, 1]. */
export interface Ranked {
  id: string;
  score: number;
}

/** What a retriever that keeps state in the workspace (kept vectors) gets from it. */
export interface RetrieverHost {
  /** The workspace's read model as it is now. */
  view(): WorkspaceView;
  /** Dispatches a command on the workspace. */
  dispatch(command: CommandInput): Promise<Result<unknown>>;
  /** The workspace's store (for a search it runs in the database). */
  readonly store: Store;
}

/** Ranks candidates; scores are in [0, 1], higher is more relevant. */
export interface ContextRetriever {
  readonly name: string;
  rank(query: RetrievalQuery, candidates: readonly Retrievable[]): Ranked[] | Promise<Ranked[]>;
  /**
   * Optional: called when the workspace opens, with what the retriever may use of it; returns
   * what to do when it closes.
   */
  attach?(host: RetrieverHost): () => void;
}

export function retrievableOf(record: ContextEntry | Preference): Retrievable {
  return 'key' in record
    ? { id: `context:${record.key}`, content: record.content, topics: record.topics, updatedAt: record.updatedAt }
    : { id: `preference:${record.id}`, content: record.content, topics: record.topics, updatedAt: record.updatedAt };
}

const STOPWORDS = new Set(
  'a an and are as at be by for from has have how i in is it its me my of on or our so that the this to was we what when where which who why will with you your do does did can could should would not no yes'.split(
    ' ',
  ),
);

/** Lowercase words of three letters or more, without stopwords. */
export function searchTerms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((t) => !STOPWORDS.has(t));
}

/**
 * BM25 (MiniSearch) over content and topics, prefix-matching, topics boosted. Kept up to
 * date as an indexer of the workspace, so ranking costs a search, not an index build.
 * Scores map BM25's unbounded score s to s / (s + 3).
 */
export class Bm25Retriever implements ContextRetriever, Indexer {
  readonly name = 'bm25';
  readonly #search = new MiniSearch<{ id: string; content: string; topics: string }>({
    fields: ['content', 'topics'],
    storeFields: [],
    tokenize: (text) => searchTerms(text),
    processTerm: (term) => term,
    searchOptions: { boost: { topics: 2 }, prefix: (term) => term.length > 4, combineWith: 'OR' },
  });

  reset(): void {
    this.#search.removeAll();
  }

  apply(change: IndexChange): void {
    if (change.collection !== 'context' && change.collection !== 'preference') return;
    const id = `${change.collection}:${change.key}`;
    if (change.previous !== undefined) this.#search.discard(id);
    if (change.value !== undefined) {
      const doc = retrievableOf(change.value as ContextEntry | Preference);
      this.#search.add({ id, content: doc.content, topics: doc.topics.join(' ') });
    }
  }

  rank(query: RetrievalQuery, candidates: readonly Retrievable[]): { id: string; score: number }[] {
    const wanted = new Set(candidates.map((c) => c.id));
    const words = [...new Set(searchTerms([...query.topics, query.text].join(' ')))];
    if (words.length === 0) return [];
    return this.#search
      .search(words.join(' '), { filter: (result) => wanted.has(String(result.id)) })
      .map((r) => ({ id: String(r.id), score: r.score / (r.score + 3) }));
  }
}

/**
 * The seed's ranking (5.0.0 README): word overlap (Jaccard) with the recent turns,
 * topic overlap with the session, and freshness.
 */
export class JaccardRetriever implements ContextRetriever {
  readonly name = 'jaccard';
  constructor(readonly weights = { words: 0.6, topics: 0.3, freshness: 0.1, halfLifeDays: 30 }) {}

  rank(query: RetrievalQuery, candidates: readonly Retrievable[]): { id: string; score: number }[] {
    const q = new Set(searchTerms(query.text));
    const qTopics = new Set(query.topics.map((t) => t.toLowerCase()));
    const ranked = candidates.map((c) => {
      const d = new Set(searchTerms(`${c.content} ${c.topics.join(' ')}`));
      const shared = [...q].filter((t) => d.has(t)).length;
      const words = q.size + d.size - shared === 0 ? 0 : shared / (q.size + d.size - shared);
      const topics = qTopics.size === 0 ? 0 : c.topics.filter((t) => qTopics.has(t.toLowerCase())).length / qTopics.size;
      const ageDays = Math.max(0, query.now - Date.parse(c.updatedAt)) / 86_400_000;
      const freshness = Math.pow(0.5, ageDays / this.weights.halfLifeDays);
      const relevance = this.weights.words * words + this.weights.topics * topics;
      return { id: c.id, score: relevance === 0 ? 0 : relevance + this.weights.freshness * freshness };
    });
    return ranked.filter((r) => r.score > 0).sort((a, b) => b.score - a.score);
  }
}
