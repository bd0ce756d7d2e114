/**
 * One model call through the prompt pipeline: `npx tsx examples/respond.ts`.
 * With GOLEM_MODEL set (e.g. `ollama:qwen3`, `openai:gpt-4.1-mini`) it asks that model;
 * without, a scripted model (a test double) answers, so it runs offline.
 */
import { createWorkspace, promptRecordOf, resolveModel, type ModelAdapter } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';

const model: ModelAdapter =
  process.env.GOLEM_MODEL === undefined
    ? scriptedModel({ text: 'The heart has four chambers: two atria and two ventricles.' })
    : resolveModel(process.env.GOLEM_MODEL);

const ws = await createWorkspace();
await ws.context.add({ key: 'heart', content: 'The human heart has four chambers.', topics: ['anatomy'] });
await ws.context.add({ key: 'bread', content: 'Sourdough rises with a wild yeast starter.', topics: ['cooking'] });
await ws.preferences.add({ id: 'brief', content: 'Answer in one sentence.' });
await ws.roles.add({ name: 'tutor', persona: 'You are a patient anatomy tutor.', preferences: ['brief'] });

const s = await ws.sessions.create({ role: 'tutor', topics: ['anatomy'] });
await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'How many chambers does the heart have?' }] });

const turn = await s.respond({
  model,
  tokenBudget: { total: 8000 },
  onPart: (part) => part.type === 'text-delta' && process.stdout.write(part.text),
});
const record = promptRecordOf(turn);
console.log(
  `\n\nsent ${record?.turns.count} turn(s); context: ${record?.context.map((c) => `${c.key} (${c.score})`).join(', ')}; preferences: ${record?.preferences.map((p) => `${p.id} [${p.tier}]`).join(', ')}`,
);
console.log(`tokens: ${JSON.stringify(record?.tokens)}; usage: ${JSON.stringify(turn.meta.usage)}`);
await ws.close();
