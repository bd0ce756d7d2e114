/**
 * The bookshelf example: `npx tsx examples/bookshelf/run.ts`.
 * The model finds the chapter on the heart, opens the book, goes to the page and reads it,
 * all through the shelf's fields and its search. With GOLEM_MODEL set (e.g. `ollama:qwen3`,
 * `anthropic:claude-sonnet-4-5`) a real model does it; without, a scripted model (a test
 * double) plays the same moves, so it runs offline. Pass a folder to keep the workspace.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BookshelfEnvironment, createWorkspace, resolveModel, type ModelAdapter, type Prompt, type WorkerEvent } from '../../src/index.js';
import { scriptedModel } from '../../src/test/index.js';

/** The scripted moves: search, open the book found, go to its page, read it from the context. */
function scriptedReader(): ModelAdapter {
  return scriptedModel((prompt: Prompt) => {
    const last = prompt.messages.at(-1)?.content.at(-1);
    const result =
      last?.type === 'tool-result' && last.output.type === 'text'
        ? (JSON.parse(last.output.text) as { data?: { book: string; page: number }[]; updatedField?: string; newValue?: string })
        : undefined;
    if (result === undefined) return { text: 'Let me search the shelf.', toolCalls: [{ name: 'semantic_search', input: { query: 'heart chambers' } }] };
    const hit = result.data?.[0];
    if (hit !== undefined)
      return {
        text: `The best match is ${hit.book}, page ${hit.page}.`,
        toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'selected_book_name', value: hit.book } }],
      };
    if (result.updatedField === 'selected_book_name') {
      const page = /is \w+, page (\d+)/.exec(JSON.stringify(prompt.messages))?.[1] ?? '1';
      return { toolCalls: [{ name: 'update_editable_status', input: { fieldName: 'current_page', value: page } }] };
    }
    const page = /## Current page:\n[^\n]*\n([\s\S]*)$/.exec(prompt.system)?.[1] ?? '';
    return { text: `Here is what the page says: ${/The heart has four chambers[^.]*\./.exec(page)?.[0] ?? '(I could not find it)'}` };
  });
}

const model = process.env.GOLEM_MODEL === undefined ? scriptedReader() : resolveModel(process.env.GOLEM_MODEL);
const ws = await createWorkspace({ dir: process.argv[2] ?? mkdtempSync(join(tmpdir(), 'golem-bookshelf-')) });
const session = await ws.sessions.create({ label: 'bookshelf' });
const shelf = new BookshelfEnvironment({ dir: join(import.meta.dirname, 'books'), pageSize: 600 });

let midLine = false;
// The run's own stream: answers as they stream, then each action the model asked for.
const onEvent = (e: WorkerEvent) => {
  if (e.type === 'action') console.log(`  ${e.ok ? '✓' : '✗'} ${e.name} ${JSON.stringify(e.input)}`);
  else if (e.type === 'text-delta') {
    process.stdout.write(e.text);
    midLine = true;
  } else if (e.type === 'answer' && midLine) {
    process.stdout.write('\n');
    midLine = false;
  }
};

const worker = ws.worker({ session, model, environments: [shelf], maxSteps: 8, onEvent });
const outcome = await worker.run('Find the chapter on the heart and read me what it says about its chambers.');
console.log(
  `\n${outcome.status} after ${outcome.steps} model calls; the shelf is at ${shelf.editableStatus.selected_book_name?.value}, page ${shelf.editableStatus.current_page?.value}`,
);
await ws.close();
