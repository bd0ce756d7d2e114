/**
 * Semantic recall's figures (issue 37): mean reciprocal rank of BM25, vectors alone and
 * hybrid on the paraphrased questions (test/fixtures/recall-set.ts) and on the lexical set
 * (test/fixtures/retrieval-set.ts), with the feature-hashing embedder from golem/test (its
 * synonyms stand in for what a real model knows); and what a ranking costs on SQLite with
 * sqlite-vec, against exact search, over a larger corpus. `npm run bench:recall`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bm25Retriever, createWorkspace, hybridRetriever, vectorRetriever, type ContextRetriever, type VectorRetriever } from '../src/index.js';
import { featureHashingEmbedder } from '../src/test/index.js';
import { addEntries, candidatesOf, meanReciprocalRank, RECALL_ENTRIES, RECALL_QUERIES, RECALL_SYNONYMS } from '../test/fixtures/recall-set.js';
import { ENTRIES, QUERIES } from '../test/fixtures/retrieval-set.js';
import { median, timeEach } from './lib.js';

type Set = { entries: { key: string; content: string; topics: string[] }[]; queries: Parameters<typeof meanReciprocalRank>[2]; synonyms: string[][] };
const sets: Record<string, Set> = {
  paraphrased: { entries: RECALL_ENTRIES, queries: RECALL_QUERIES, synonyms: RECALL_SYNONYMS },
  lexical: { entries: ENTRIES.map((e) => ({ key: e.key, content: e.content, topics: e.topics })), queries: QUERIES, synonyms: [] },
};

async function mrrOf(make: (synonyms: string[][]) => ContextRetriever, set: Set): Promise<number> {
  const retriever = make(set.synonyms);
  const ws = await createWorkspace({ prompt: { retriever } });
  await addEntries(ws, set.entries);
  const { mrr } = await meanReciprocalRank(retriever, candidatesOf(ws), set.queries);
  await ws.close();
  return mrr;
}

const retrievers: Record<string, (synonyms: string[][]) => ContextRetriever> = {
  bm25: () => new Bm25Retriever(),
  vectors: (synonyms) => vectorRetriever({ embed: featureHashingEmbedder({ synonyms }) }),
  hybrid: (synonyms) => hybridRetriever({ embed: featureHashingEmbedder({ synonyms }) }),
};

console.log('MRR (a question scores 1/rank of its entry among those ranked at score 0.2 or more)');
console.log(
  `${'retriever'.padEnd(10)}${Object.keys(sets)
    .map((s) => `${s} (${sets[s]?.queries.length} q)`.padStart(22))
    .join('')}`,
);
for (const [name, make] of Object.entries(retrievers)) {
  const figures: string[] = [];
  for (const set of Object.values(sets)) figures.push((await mrrOf(make, set)).toFixed(3).padStart(22));
  console.log(`${name.padEnd(10)}${figures.join('')}`);
}

// What one ranking costs over 2,000 entries of 512 dimensions, vectors already kept.
const dir = mkdtempSync(join(tmpdir(), 'golem-recall-bench-'));
try {
  const retriever = vectorRetriever({ embed: featureHashingEmbedder({ synonyms: RECALL_SYNONYMS }) });
  const ws = await createWorkspace({ dir, durability: 'normal', prompt: { retriever } });
  const words = RECALL_ENTRIES.flatMap((e) => e.content.split(' '));
  for (let i = 0; i < 2000; i++) {
    const content = Array.from({ length: 14 }, (_, j) => words[(i * 7 + j * 13) % words.length]).join(' ');
    await ws.context.add({ key: `entry-${i}`, content, topics: [] });
  }
  const candidates = candidatesOf(ws);
  const query = { topics: [], text: RECALL_QUERIES[0]?.text ?? '', now: 0 };
  await retriever.rank(query, candidates);
  const sqlite = median(await timeEach(20, () => retriever.rank(query, candidates)));
  const exact = await exactTimed(retriever, query, candidates, ws);
  console.log(
    `\none ranking over ${candidates.length} entries (512 dimensions, vectors kept): sqlite-vec ${sqlite.toFixed(1)} ms, exact ${exact.toFixed(1)} ms (medians of 20)`,
  );
  await ws.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** The same ranking with the exact search a workspace in memory uses (the vectors copied over). */
async function exactTimed(
  onSqlite: VectorRetriever,
  query: Parameters<VectorRetriever['rank']>[0],
  candidates: Parameters<VectorRetriever['rank']>[1],
  from: Awaited<ReturnType<typeof createWorkspace>>,
): Promise<number> {
  const retriever = vectorRetriever({ embed: onSqlite.embedder });
  const ws = await createWorkspace({ prompt: { retriever } });
  const vectors = [...from.manager.workspace().collection('embedding').values()].map((e) => ({ key: e.key, model: e.model, vector: e.vector }));
  await ws.manager.dispatch({ type: 'embedding:put', payload: { vectors } });
  await retriever.rank(query, candidates);
  const time = median(await timeEach(20, () => retriever.rank(query, candidates)));
  await ws.close();
  return time;
}
