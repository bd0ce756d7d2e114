/**
 * Semantic recall (issue 37, section 3): vectors kept in the workspace once per text and
 * model, searched with sqlite-vec on SQLite and exactly elsewhere with the same results,
 * hybrid ranking at least as good as BM25's, and every bad embedding refused.
 */
import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Bm25Retriever,
  createWorkspace,
  hybridRetriever,
  resolveEmbeddingModel,
  vectorRetriever,
  type Embedder,
  type HybridRetriever,
  type Workspace,
} from '../src/index.js';
import { featureHashingEmbedder, scriptedModel } from '../src/test/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { addEntries, candidatesOf, meanReciprocalRank, RECALL_ENTRIES, RECALL_QUERIES, RECALL_SYNONYMS } from './fixtures/recall-set.js';
import { ENTRIES, QUERIES } from './fixtures/retrieval-set.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'golem-recall-'));
  dirs.push(dir);
  return dir;
}

/** The fixture's embedder, counting the texts it is asked to embed. */
function countingEmbedder(): Embedder & { texts: string[] } {
  const inner = featureHashingEmbedder({ synonyms: RECALL_SYNONYMS });
  const texts: string[] = [];
  return {
    id: inner.id,
    texts,
    embed(batch) {
      texts.push(...batch);
      return inner.embed(batch);
    },
  };
}

async function rankingsOf(ws: Workspace): Promise<string[][]> {
  return (await meanReciprocalRank(ws.prompts.retriever, candidatesOf(ws), RECALL_QUERIES)).rankings;
}

describe('retrieval quality on paraphrased questions', () => {
  it("hybrid's MRR is at least BM25's, on paraphrases and on the lexical set", async () => {
    const mrr = async (make: () => Bm25Retriever | HybridRetriever, entries: typeof RECALL_ENTRIES, queries: Parameters<typeof meanReciprocalRank>[2]) => {
      const retriever = make();
      const ws = await createWorkspace({ prompt: { retriever } });
      await addEntries(ws, entries);
      const { mrr: value } = await meanReciprocalRank(retriever, candidatesOf(ws), queries);
      await ws.close();
      return value;
    };
    const embed = featureHashingEmbedder({ synonyms: RECALL_SYNONYMS });
    const paraphrased = {
      bm25: await mrr(() => new Bm25Retriever(), RECALL_ENTRIES, RECALL_QUERIES),
      hybrid: await mrr(() => hybridRetriever({ embed }), RECALL_ENTRIES, RECALL_QUERIES),
    };
    expect(paraphrased.hybrid).toBeGreaterThanOrEqual(paraphrased.bm25);
    // Paraphrases are what BM25 misses: a hybrid no better than it would be a fusion that does nothing.
    expect(paraphrased.hybrid).toBeGreaterThan(paraphrased.bm25 + 0.2);
    const lexicalEntries = ENTRIES.map((e) => ({ key: e.key, content: e.content, topics: e.topics }));
    const lexical = {
      bm25: await mrr(() => new Bm25Retriever(), lexicalEntries, QUERIES),
      hybrid: await mrr(() => hybridRetriever({ embed: featureHashingEmbedder() }), lexicalEntries, QUERIES),
    };
    expect(lexical.hybrid).toBeGreaterThanOrEqual(lexical.bm25);
  });

  it('a paraphrased question brings its entry into the prompt, and the record names the retriever', async () => {
    const ws = await createWorkspace({ prompt: { retriever: hybridRetriever({ embed: featureHashingEmbedder({ synonyms: RECALL_SYNONYMS }) }) } });
    await addEntries(ws, RECALL_ENTRIES);
    const session = await ws.sessions.create({ label: 'recall' });
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'Is it okay to push to prod at the end of the week?' }] });
    const built = await session.buildPrompt({ model: scriptedModel([]) });
    expect(built.record.retriever).toBe('hybrid');
    expect(built.record.context[0]?.key).toBe('deploy-freeze');
    expect(built.prompt.system).toContain('Production deploys are frozen');
    await ws.close();
  });
});

describe('vectors kept in the workspace', () => {
  it('on SQLite: embedded once per text, searched with sqlite-vec, nothing embedded again after a reopen', async () => {
    const dir = tempDir();
    const first = countingEmbedder();
    let ws = await createWorkspace({ dir, prompt: { retriever: hybridRetriever({ embed: first }) } });
    await addEntries(ws, RECALL_ENTRIES);
    const before = await rankingsOf(ws);
    // Each entry once (the first question embedded them all), and each question.
    expect(first.texts).toHaveLength(RECALL_ENTRIES.length + RECALL_QUERIES.length);
    expect(await (ws.prompts.retriever as HybridRetriever).vectors.vectorSearch()).toEqual({ kind: 'sqlite-vec' });
    expect(ws.manager.workspace().collection('embedding').size).toBe(RECALL_ENTRIES.length);
    await ws.close();

    const again = countingEmbedder();
    ws = await createWorkspace({ dir, prompt: { retriever: hybridRetriever({ embed: again }) } });
    expect((await ws.manager.store.stats()).records.embedding).toBe(RECALL_ENTRIES.length);
    expect(await rankingsOf(ws)).toEqual(before);
    expect(again.texts).toEqual(RECALL_QUERIES.map((q) => q.text));
    // A changed entry is embedded again; the others are not.
    again.texts.length = 0;
    await ws.context.update('holidays', { content: 'Vacation requests go through the HR portal at least two weeks ahead.' });
    await rankingsOf(ws);
    expect(again.texts.filter((t) => t.startsWith('Vacation'))).toHaveLength(1);
    expect(again.texts).toHaveLength(1 + RECALL_QUERIES.length);
    await ws.close();
  });

  it('on PostgreSQL: exact search with the same rankings as sqlite-vec, kept across a reopen', async () => {
    const sqlite = await createWorkspace({ dir: tempDir(), prompt: { retriever: hybridRetriever({ embed: countingEmbedder() }) } });
    await addEntries(sqlite, RECALL_ENTRIES);
    const expected = await rankingsOf(sqlite);
    const vectorsOnSqlite = await meanReciprocalRank((sqlite.prompts.retriever as HybridRetriever).vectors, candidatesOf(sqlite), RECALL_QUERIES);
    await sqlite.close();

    const schema = freshSchema('recall');
    const first = countingEmbedder();
    let ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }), prompt: { retriever: hybridRetriever({ embed: first }) } });
    await addEntries(ws, RECALL_ENTRIES);
    expect(await rankingsOf(ws)).toEqual(expected);
    const search = await (ws.prompts.retriever as HybridRetriever).vectors.vectorSearch();
    expect(search.kind).toBe('exact');
    const vectorsOnPostgres = await meanReciprocalRank((ws.prompts.retriever as HybridRetriever).vectors, candidatesOf(ws), RECALL_QUERIES);
    expect(vectorsOnPostgres.rankings).toEqual(vectorsOnSqlite.rankings);
    await ws.close();

    const again = countingEmbedder();
    ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }), prompt: { retriever: hybridRetriever({ embed: again }) } });
    expect(ws.manager.workspace().collection('embedding').size).toBe(RECALL_ENTRIES.length);
    expect(await rankingsOf(ws)).toEqual(expected);
    expect(again.texts).toEqual(RECALL_QUERIES.map((q) => q.text));
    await ws.close();
  });

  it('without sqlite-vec installed, SQLite falls back to exact search with the same rankings and says what to install', async () => {
    const dir = tempDir();
    const ws = await createWorkspace({ dir, prompt: { retriever: hybridRetriever({ embed: countingEmbedder() }) } });
    await addEntries(ws, RECALL_ENTRIES);
    const expected = await rankingsOf(ws);
    await ws.close();
    // A process in which the package cannot be found (a resolve hook answers as Node does for a missing one).
    const out = execFileSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures', 'recall-without-sqlite-vec.ts'), dir], {
      encoding: 'utf8',
      cwd: join(import.meta.dirname, '..'),
    });
    const child = JSON.parse(out) as { search: { kind: string; reason?: string }; rankings: string[][]; embedded: number };
    expect(child.search.kind).toBe('exact');
    expect(child.search.reason).toContain('npm install sqlite-vec');
    expect(child.rankings).toEqual(expected);
    // The kept vectors served the child: it embedded only the questions.
    expect(child.embedded).toBe(RECALL_QUERIES.length);
  });
});

describe('embedding models', () => {
  it('resolves a spec to an AI SDK embedding model, here an OpenAI-compatible server on loopback', async () => {
    const inner = featureHashingEmbedder({ synonyms: RECALL_SYNONYMS });
    const seen: string[][] = [];
    const server: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const { input } = JSON.parse(body) as { input: string[] };
        seen.push(input);
        void inner.embed(input).then((vectors) => {
          res.setHeader('content-type', 'application/json');
          res.end(
            JSON.stringify({
              object: 'list',
              data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
              usage: { prompt_tokens: 1, total_tokens: 1 },
            }),
          );
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const spec = `openai-compatible:http://127.0.0.1:${port}/v1#hashing`;
      const ws = await createWorkspace({ prompt: { retriever: hybridRetriever({ embed: spec }) } });
      await addEntries(ws, RECALL_ENTRIES);
      const viaServer = await rankingsOf(ws);
      expect(ws.manager.workspace().collection('embedding').values().next().value?.model).toBe(spec);
      await ws.close();
      const local = await createWorkspace({ prompt: { retriever: hybridRetriever({ embed: inner }) } });
      await addEntries(local, RECALL_ENTRIES);
      expect(viaServer).toEqual(await rankingsOf(local));
      await local.close();
      expect(seen.flat()).toHaveLength(RECALL_ENTRIES.length + RECALL_QUERIES.length);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses unknown providers and missing keys at once', () => {
    expect(() => resolveEmbeddingModel('anthropic:claude', { env: {} })).toThrow(expect.objectContaining({ code: 'MODEL_UNKNOWN_PROVIDER' }));
    expect(() => resolveEmbeddingModel('openai:', { env: { OPENAI_API_KEY: 'k' } })).toThrow(expect.objectContaining({ code: 'MODEL_UNKNOWN_PROVIDER' }));
    expect(() => resolveEmbeddingModel('openai:text-embedding-3-small', { env: {} })).toThrow(expect.objectContaining({ code: 'MODEL_KEY_MISSING' }));
    expect(() => resolveEmbeddingModel('openai-compatible:nourl', { env: {} })).toThrow(expect.objectContaining({ code: 'MODEL_UNKNOWN_PROVIDER' }));
  });
});

describe('bad embeddings and bad options', () => {
  const badCases: [string, (texts: string[]) => Promise<number[][]>][] = [
    ['too few vectors', (texts) => Promise.resolve(texts.slice(1).map(() => [1, 0]))],
    ['vectors of different lengths', (texts) => Promise.resolve(texts.map((_, i) => (i === 0 ? [1, 0, 0] : [1, 0])))],
    ['a number that is not finite', (texts) => Promise.resolve(texts.map(() => [Number.NaN, 1]))],
    ['an all-zero vector', (texts) => Promise.resolve(texts.map(() => [0, 0]))],
  ];
  for (const [name, embed] of badCases) {
    it(`${name}: EMBEDDING_INVALID, no vector kept`, async () => {
      const dir = tempDir();
      let ws = await createWorkspace({ dir, prompt: { retriever: vectorRetriever({ embed, id: 'bad' }) } });
      await addEntries(ws, RECALL_ENTRIES.slice(0, 3));
      const session = await ws.sessions.create({ label: 'bad' });
      await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'Can we deploy on Friday?' }] });
      await expect(session.buildPrompt({ model: scriptedModel([]) })).rejects.toMatchObject({ code: 'EMBEDDING_INVALID' });
      await ws.close();
      ws = await createWorkspace({ dir });
      expect(ws.manager.workspace().collection('embedding').size).toBe(0);
      await ws.close();
    });
  }

  it('embedding:put refuses a vector whose length differs from the kept ones of its model, writing nothing', async () => {
    const ws = await createWorkspace({ dir: tempDir() });
    const key = (c: string) => c.repeat(64);
    expect((await ws.manager.dispatch({ type: 'embedding:put', payload: { vectors: [{ key: key('a'), model: 'm', vector: [1, 0] }] } })).ok).toBe(true);
    const refused = await ws.manager.dispatch({
      type: 'embedding:put',
      payload: {
        vectors: [
          { key: key('b'), model: 'm', vector: [0, 1] },
          { key: key('c'), model: 'm', vector: [1, 0, 0] },
        ],
      },
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'EMBEDDING_INVALID', details: { expected: 2, got: 3 } } });
    expect([...ws.manager.workspace().collection('embedding').keys()]).toEqual([key('a')]);
    const malformed = await ws.manager.dispatch({ type: 'embedding:put', payload: { vectors: [{ key: 'not-a-hash', model: 'm', vector: [1] }] } });
    expect(malformed).toMatchObject({ ok: false, error: { code: 'INVALID_PAYLOAD' } });
    await ws.close();
  });

  it('a retriever serves one open workspace at a time, and checks its options', async () => {
    const retriever = hybridRetriever({ embed: featureHashingEmbedder() });
    const ws = await createWorkspace({ prompt: { retriever } });
    await expect(createWorkspace({ prompt: { retriever } })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await ws.close();
    // Once closed, it may serve the next.
    const next = await createWorkspace({ prompt: { retriever } });
    await next.close();
    expect(() => vectorRetriever({ embed: featureHashingEmbedder(), minSimilarity: 2 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => hybridRetriever({ embed: featureHashingEmbedder(), rrfK: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => featureHashingEmbedder({ dimensions: 1 })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
