/**
 * Merging a what-if branch back: `npx tsx examples/merge.ts [dir]`. A trip is planned on
 * main; a fork asks "what if Lisbon?"; main merges that branch back, once as its turns and
 * once (in another fork) as a summary, and the model reads what came from where. Runs
 * offline: a scripted model (a test double) answers and summarizes.
 */
import { createWorkspace, promptRecordOf, type Prompt } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';

const text = (value: string) => ({ type: 'text' as const, text: value });
const dir = process.argv[2];
const ws = await createWorkspace(dir === undefined ? {} : { dir });

const main = await ws.sessions.create({ label: 'trip' });
await main.addTurn({ role: 'user', blocks: [text('Plan a weekend for two: Porto or Lisbon?')] });
await main.addTurn({ role: 'assistant', blocks: [text('Porto: two nights by the river, 320 euros.')] });
const beforeMerge = main.head();

// The what-if branch: a fork (no turn copied) that goes its own way.
const whatIf = await ws.sessions.fork(main.id, undefined, { label: 'what-if: Lisbon' });
await whatIf.addTurn({ role: 'user', blocks: [text('What if we went to Lisbon instead?')] });
await whatIf.addTurn({ role: 'assistant', blocks: [text('Lisbon: three nights in Alfama, 410 euros.')] });

// Merged back as its turns: the merge turn's parents are main's head and the branch's head.
const merge = await main.merge(whatIf.id, { as: 'turns' });
console.log(`merge turn: ${merge.blocks[0]?.type === 'text' ? merge.blocks[0].text.replace(/ \(session [^)]+\)/, '') : ''}`);
await main.addTurn({ role: 'user', blocks: [text('Which of the two costs less per night?')] });

let seen: Prompt | undefined;
const model = scriptedModel((prompt) => {
  seen = prompt;
  return { text: 'Lisbon: about 137 euros a night, against 160 in Porto.' };
});
const answer = await main.respond({ model });
console.log('the model read:');
for (const message of seen?.messages ?? []) {
  for (const part of message.content) if (part.type === 'text') console.log(`  ${message.role}: ${part.text.replace(/ \(session [^)]+\)/, '')}`);
}
console.log(`answer: ${answer.blocks[0]?.type === 'text' ? answer.blocks[0].text : ''}`);
const merged = promptRecordOf(answer)?.merged?.[0];
console.log(`the prompt record: merged ${merged?.turns.length} turns as ${merged?.as}`);

// The same branch merged as a summary, in a fork of main from before the merge: the summary stands in for its turns.
const brief = await ws.sessions.fork(main.id, beforeMerge?.id, { label: 'trip, briefly' });
const summarizer = scriptedModel({ text: 'Lisbon was weighed: three nights in Alfama for 410 euros.' });
await brief.merge(whatIf.id, { as: 'summary', model: summarizer });
const built = await brief.buildPrompt({ model });
const last = built.prompt.messages.at(-1)?.content.at(-1);
console.log(`as a summary, the model reads: ${last?.type === 'text' ? last.text.replace(/ \(session [^)]+\)/, '') : ''}`);
await ws.close();
