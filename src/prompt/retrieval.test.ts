/**
 * Which ranking retrieves better? Both retrievers rank the labelled set; the default
 * (BM25) must do at least as well as the seed's Jaccard + freshness on both measures.
 */
import { describe, expect, it } from 'vitest';
import { Bm25Retriever, JaccardRetriever, type Retrievable } from './context-retriever.js';
import { ENTRIES, QUERIES } from '../../test/fixtures/retrieval-set.js';

const NOW = Date.UTC(2026, 5, 1);
const candidates: Retrievable[] = ENTRIES.map((e) => ({
  id: `context:${e.key}`,
  content: e.content,
  topics: e.topics,
  updatedAt: new Date(NOW - e.ageDays * 86_400_000).toISOString(),
}));

function evaluate(retriever: Bm25Retriever | JaccardRetriever) {
  let reciprocal = 0;
  let precisionAt3 = 0;
  for (const q of QUERIES) {
    const ranked = retriever.rank({ topics: q.topics, text: q.text, now: NOW }, candidates).map((r) => r.id.slice('context:'.length));
    const first = ranked.findIndex((key) => q.relevant.includes(key));
    reciprocal += first === -1 ? 0 : 1 / (first + 1);
    precisionAt3 += ranked.slice(0, 3).filter((key) => q.relevant.includes(key)).length / Math.min(3, q.relevant.length);
  }
  return { mrr: reciprocal / QUERIES.length, precisionAt3: precisionAt3 / QUERIES.length };
}

function bm25(): Bm25Retriever {
  const retriever = new Bm25Retriever();
  for (const e of ENTRIES) {
    const value = { key: e.key, content: e.content, topics: e.topics, source: null, createdAt: '', updatedAt: '' };
    retriever.apply({ collection: 'context', key: e.key, value, previous: undefined });
  }
  return retriever;
}

describe('retrieval on the labelled set', () => {
  const scores = { bm25: evaluate(bm25()), jaccard: evaluate(new JaccardRetriever()) };

  it('BM25, the default, ranks at least as well as Jaccard + freshness', () => {
    expect(scores.bm25.mrr).toBeGreaterThanOrEqual(scores.jaccard.mrr);
    expect(scores.bm25.precisionAt3).toBeGreaterThanOrEqual(scores.jaccard.precisionAt3);
    // The figures, for the record (and so a regression in either shows).
    expect(scores.bm25.mrr).toBeGreaterThan(0.8);
  });

  it('scores in [0, 1], most relevant first, and nothing for an empty query', () => {
    for (const retriever of [bm25(), new JaccardRetriever()]) {
      const ranked = retriever.rank({ topics: ['cardiology'], text: 'heart chambers', now: NOW }, candidates);
      expect(ranked[0]?.id).toBe('context:heart-chambers');
      for (const r of ranked) expect(r.score).toBeGreaterThan(0);
      for (const r of ranked) expect(r.score).toBeLessThanOrEqual(1);
      expect(ranked.map((r) => r.score)).toEqual([...ranked.map((r) => r.score)].sort((a, b) => b - a));
      expect(retriever.rank({ topics: [], text: 'the of and', now: NOW }, candidates)).toEqual([]);
    }
  });

  it('follows removals and updates as an indexer', () => {
    const retriever = bm25();
    const previous = { key: 'bread', content: ENTRIES.at(-1)?.content, topics: ['cooking'], source: null, createdAt: '', updatedAt: '' };
    retriever.apply({ collection: 'context', key: 'bread', value: undefined, previous });
    expect(retriever.rank({ topics: [], text: 'sourdough starter', now: NOW }, candidates)).toEqual([]);
  });
});
