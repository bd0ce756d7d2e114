/**
 * Semantic recall, offline: `npx tsx examples/recall.ts [dir]`.
 *
 * A question that shares no word with the context entry it needs still brings it into the
 * prompt: hybridRetriever fuses BM25 with embedding similarity. Here the embedder is the
 * deterministic feature-hashing one from golem/test, told a few synonyms; with a real model,
 * write `hybridRetriever({ embed: 'openai:text-embedding-3-small' })`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bm25Retriever, createWorkspace, hybridRetriever, type ContextRetriever } from '../src/index.js';
import { featureHashingEmbedder, scriptedModel } from '../src/test/index.js';

const dir = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'golem-recall-'));
const embed = featureHashingEmbedder({
  synonyms: [
    ['deploy', 'push', 'ship'],
    ['production', 'prod'],
    ['friday', 'week', 'weekend'],
  ],
});
const question = 'Is it okay to push to prod at the end of the week?';

async function contextFor(retriever: ContextRetriever): Promise<string[]> {
  const ws = await createWorkspace({ dir, prompt: { retriever } });
  if (ws.context.get('deploy-freeze') === undefined) {
    await ws.context.add({ key: 'deploy-freeze', content: 'Production deploys are frozen from Friday noon until Monday morning.', topics: ['ops'] });
    await ws.context.add({ key: 'backups', content: 'The database is backed up every night to S3.', topics: ['ops'] });
  }
  const session = await ws.sessions.create({ label: retriever.name });
  await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: question }] });
  const { record } = await session.buildPrompt({ model: scriptedModel([]) });
  const kept = ws.manager.workspace().collection('embedding').size;
  await ws.close();
  console.log(`${retriever.name}: context ${JSON.stringify(record.context.map((c) => c.key))}, vectors kept ${kept}`);
  return record.context.map((c) => c.key);
}

console.log(`question: ${question}`);
await contextFor(new Bm25Retriever());
await contextFor(hybridRetriever({ embed }));
// Reopened: the entries' vectors are read back, only the question is embedded.
let embedded = 0;
await contextFor(
  hybridRetriever({
    embed: {
      id: embed.id,
      embed: (texts) => {
        embedded += texts.length;
        return embed.embed(texts);
      },
    },
  }),
);
console.log(`texts embedded after the reopen: ${embedded}`);
