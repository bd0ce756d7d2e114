/**
 * Semantic recall: context ranked by what it means, not only by the words it shares with the
 * conversation. `vectorRetriever` ranks by the cosine of embeddings kept in the workspace;
 * `hybridRetriever` fuses that ranking with BM25's by reciprocal rank fusion.
 */
import { fail } from '../core/index.js';
import type { IndexChange, Indexer } from '../core/workspace-index.js';
import { embedderOf, type Embedder, type EmbedInput, type ResolveEmbeddingOptions } from '../models/index.js';
import { Bm25Retriever, type ContextRetriever, type Ranked, type RetrievalQuery, type Retrievable, type RetrieverHost } from './context-retriever.js';
import { embeddingKey } from './embeddings.js';
import { openVectorSearch, type VectorSearch } from './vector-search.js';

/** How `vectorRetriever` and `hybridRetriever` embed and what they count as similar. */
export interface VectorRetrieverOptions extends ResolveEmbeddingOptions {
  /**
   * The embedding model: a spec (`openai:text-embedding-3-small`, see `resolveEmbeddingModel`),
   * an AI SDK embedding model, an `Embedder`, or a function from texts to vectors.
   */
  embed: EmbedInput;
  /** Names a function `embed` (vectors are kept per text and this id); default 'custom'. Ignored for an `Embedder`. */
  id?: string;
  /** The lowest cosine similarity an entry needs to be ranked at all (default 0.25). */
  minSimilarity?: number;
}

/** What `hybridRetriever` adds: the fusion's constant. */
export interface HybridRetrieverOptions extends VectorRetrieverOptions {
  /** Reciprocal rank fusion's k: an entry at rank r in a list adds 1 / (k + r) (default 60). */
  rrfK?: number;
}

const EMBED_BATCH = 4096;

/**
 * Ranks candidates by the cosine similarity of their embedding to the query's. Each
 * candidate's text is embedded once per embedding model and kept in the workspace
 * (`embedding` records); the query is embedded on each ranking. Scores are the similarity.
 * Give it to `createWorkspace({ prompt: { retriever } })`: it works in one workspace at a time.
 */
export class VectorRetriever implements ContextRetriever {
  readonly name: string = 'vector';
  readonly embedder: Embedder;
  readonly minSimilarity: number;
  #host: RetrieverHost | undefined;
  #search: Promise<VectorSearch> | undefined;

  constructor(options: VectorRetrieverOptions) {
    this.minSimilarity = options.minSimilarity ?? 0.25;
    if (!(this.minSimilarity >= -1 && this.minSimilarity <= 1)) {
      throw fail('INVALID_ARGUMENT', `minSimilarity must be a number from -1 to 1 (got ${String(options.minSimilarity)})`, {
        minSimilarity: options.minSimilarity,
      });
    }
    this.embedder = embedderOf(options.embed, options);
  }

  attach(host: RetrieverHost): () => void {
    if (this.#host !== undefined) throw fail('INVALID_ARGUMENT', `this ${this.name} retriever already serves an open workspace; make one per workspace`);
    this.#host = host;
    return () => {
      const search = this.#search;
      this.#host = undefined;
      this.#search = undefined;
      void search?.then((s) => s.close()).catch(() => undefined);
    };
  }

  /** How the kept vectors are searched (`sqlite-vec` or `exact`, and why exact), once the first ranking opened it. */
  async vectorSearch(): Promise<Pick<VectorSearch, 'kind' | 'reason'>> {
    const search = await this.#openSearch();
    return { kind: search.kind, ...(search.reason !== undefined && { reason: search.reason }) };
  }

  async rank(query: RetrievalQuery, candidates: readonly Retrievable[]): Promise<Ranked[]> {
    const text = [...query.topics, query.text].join(' ').trim();
    if (text === '' || candidates.length === 0) return [];
    const model = this.embedder.id;
    const keys = new Map<string, string[]>();
    for (const c of candidates) {
      const key = embeddingKey(model, textOf(c));
      keys.set(key, [...(keys.get(key) ?? []), c.id]);
    }
    await this.#embedMissing(candidates);
    const [vector] = await this.#embed([text]);
    const search = await this.#openSearch();
    const matches = await search.search(vector as number[], { keys: [...keys.keys()], minSimilarity: this.minSimilarity });
    return matches.flatMap((m) => (keys.get(m.key) ?? []).sort().map((id) => ({ id, score: Math.max(0, Math.min(1, m.similarity)) })));
  }

  #need(): RetrieverHost {
    if (this.#host === undefined) {
      throw fail('INVALID_ARGUMENT', `the ${this.name} retriever ranks within a workspace: give it to createWorkspace({ prompt: { retriever } })`);
    }
    return this.#host;
  }

  #openSearch(): Promise<VectorSearch> {
    const host = this.#need();
    return (this.#search ??= openVectorSearch(host.store, () => host.view()));
  }

  /** Embeds the candidates whose text has no kept vector under this model, and keeps them. */
  async #embedMissing(candidates: readonly Retrievable[]): Promise<void> {
    const host = this.#need();
    const kept = host.view().collection('embedding');
    const missing = new Map<string, string>();
    for (const c of candidates) {
      const text = textOf(c);
      const key = embeddingKey(this.embedder.id, text);
      if (!kept.has(key)) missing.set(key, text);
    }
    const pending = [...missing];
    for (let i = 0; i < pending.length; i += EMBED_BATCH) {
      const batch = pending.slice(i, i + EMBED_BATCH);
      const vectors = await this.#embed(batch.map(([, text]) => text));
      const put = await host.dispatch({
        type: 'embedding:put',
        payload: { vectors: batch.map(([key], j) => ({ key, model: this.embedder.id, vector: vectors[j] as number[] })) },
      });
      if (!put.ok) throw put.error;
    }
  }

  /** The embedder's vectors, checked: one per text, all of one length, finite numbers. */
  async #embed(texts: string[]): Promise<number[][]> {
    const vectors = await this.embedder.embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw fail('EMBEDDING_INVALID', `${this.embedder.id} gave ${Array.isArray(vectors) ? vectors.length : 'no'} vectors for ${texts.length} texts`, {
        model: this.embedder.id,
      });
    }
    const kept = this.#host?.view().collection('embedding');
    const length = [...(kept?.values() ?? [])].find((e) => e.model === this.embedder.id)?.vector.length ?? vectors[0]?.length;
    for (const v of vectors) {
      if (!Array.isArray(v) || v.length !== length || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw fail('EMBEDDING_INVALID', `${this.embedder.id} gave a vector that is not ${String(length)} finite numbers`, { model: this.embedder.id, length });
      }
    }
    return vectors;
  }
}

/**
 * BM25 and vector similarity fused by reciprocal rank fusion: an entry scores the sum of
 * 1 / (k + rank) over the two rankings, divided by 2 / (k + 1) so that first in both is 1 and
 * first in one only is 0.5. BM25's ranking counts the entries whose BM25 score reaches 0.2
 * (the prompt's default `minScore`), the vectors' those at `minSimilarity`.
 */
export class HybridRetriever implements ContextRetriever, Indexer {
  readonly name = 'hybrid';
  readonly bm25 = new Bm25Retriever();
  readonly vectors: VectorRetriever;
  readonly #k: number;

  constructor(options: HybridRetrieverOptions) {
    this.#k = options.rrfK ?? 60;
    if (!(this.#k >= 0 && Number.isFinite(this.#k))) throw fail('INVALID_ARGUMENT', `rrfK must be a number of 0 or more (got ${String(options.rrfK)})`);
    this.vectors = new VectorRetriever(options);
  }

  reset(): void {
    this.bm25.reset();
  }

  apply(change: IndexChange): void {
    this.bm25.apply(change);
  }

  attach(host: RetrieverHost): () => void {
    return this.vectors.attach(host);
  }

  async rank(query: RetrievalQuery, candidates: readonly Retrievable[]): Promise<Ranked[]> {
    const lexical = this.bm25.rank(query, candidates).filter((r) => r.score >= 0.2);
    const semantic = await this.vectors.rank(query, candidates);
    return reciprocalRankFusion([lexical, semantic], this.#k);
  }
}

/**
 * Fuses rankings (each best first) by reciprocal rank fusion, scores in [0, 1]: the sum of
 * 1 / (k + rank) over the rankings an id is in, divided by the most it could be. Ties go to
 * the id with the better single rank, then by id.
 */
export function reciprocalRankFusion(rankings: readonly (readonly { id: string }[])[], k = 60): Ranked[] {
  const fused = new Map<string, { sum: number; best: number }>();
  for (const ranking of rankings) {
    ranking.forEach((r, i) => {
      const entry = fused.get(r.id) ?? { sum: 0, best: Number.POSITIVE_INFINITY };
      fused.set(r.id, { sum: entry.sum + 1 / (k + i + 1), best: Math.min(entry.best, i + 1) });
    });
  }
  const most = rankings.length / (k + 1);
  return [...fused]
    .sort(([a, x], [b, y]) => y.sum - x.sum || x.best - y.best || (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, { sum }]) => ({ id, score: most === 0 ? 0 : sum / most }));
}

/**
 * A retriever that ranks context by embeddings alone (see `VectorRetriever`).
 *
 * @example
 * const ws = await createWorkspace({ dir: '.golem', prompt: { retriever: vectorRetriever({ embed: 'openai:text-embedding-3-small' }) } })
 */
export function vectorRetriever(options: VectorRetrieverOptions): VectorRetriever {
  return new VectorRetriever(options);
}

/**
 * A retriever that fuses BM25 with embeddings (see `HybridRetriever`): entries that share the
 * conversation's words and entries that say the same in other words both come up.
 *
 * @example
 * const ws = await createWorkspace({ dir: '.golem', prompt: { retriever: hybridRetriever({ embed: 'openai:text-embedding-3-small' }) } })
 */
export function hybridRetriever(options: HybridRetrieverOptions): HybridRetriever {
  return new HybridRetriever(options);
}

/** The text embedded for a candidate: its content, and its topics on a line after it. */
function textOf(c: Retrievable): string {
  return c.topics.length === 0 ? c.content : `${c.content}\n${c.topics.join(' ')}`;
}
