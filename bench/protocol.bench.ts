/**
 * Protocol and browser benchmarks (part of `npm run bench`): schema generation and
 * validation against seed 002's budgets (100 ms and 50 ms; the aim is a thousand times
 * under both), and each task page's GET_DOM snapshot in tokens against its raw HTML.
 */
import { BrowserExecutor, countOpenAiTokens, createSchemaManager, type AIResponse } from '../src/index.js';
import { startTaskServer } from '../test/web-tasks/server.js';
import { TASKS } from '../test/web-tasks/tasks.js';
import { fmt, log, median, printTable, timeBatched, timeEach, type Row } from './lib.js';

const response: AIResponse = {
  decision: {
    action: 'PROCEED',
    message: 'The form is filled; submit it.',
    resultValidation: { success: true, expectedElements: ['button "Submit"'], actualState: 'all four fields hold the values asked for', issues: [] },
  },
  reasoning: {
    analysis: 'Every field shows its value in the snapshot.',
    rationale: 'Submitting is the last step of the task.',
    expectedOutcome: 'The page shows Reward: 1.',
  },
  command: { action: 'CLICK_ELEMENT', parameters: { selector: 'ref=s4/e16' } },
};
const invalid = {
  decision: { action: 'RETRY', message: 7 },
  reasoning: { analysis: 'x' },
  command: { action: 'OPEN_PAGE', parameters: { url: 'javascript:alert(1)' } },
  extra: true,
};

async function protocolRows(): Promise<Row[]> {
  log('schema generation and validation...');
  const cold = createSchemaManager({ schema: { cacheEnabled: false } });
  const generate = timeBatched(200, 20, () => cold.generateResponseSchema());
  const cached = createSchemaManager();
  const schema = cached.generateResponseSchema();
  const generateCached = timeBatched(200, 1000, () => cached.generateResponseSchema());
  // The first validation of a schema compiles it with ajv, once per distinct schema in the process:
  // measured with a command set never seen before, and for a new manager with the usual commands.
  const compile = median(
    await timeEach(30, (i) => {
      const m = createSchemaManager();
      m.registerCommands([
        {
          name: `lookup_${i}`,
          description: 'Looks a topic up.',
          parameters: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'], additionalProperties: false },
        },
      ]);
      m.validateAIResponse(response, m.generateResponseSchema());
    }),
  );
  const firstValidation = median(
    await timeEach(50, () => {
      const m = createSchemaManager();
      m.validateAIResponse(response, m.generateResponseSchema());
    }),
  );
  const text = JSON.stringify(response);
  const check = (fn: () => boolean) => {
    if (!fn()) throw new Error('the benchmark response is not judged as expected');
  };
  check(() => cached.validateAIResponse(response, schema).valid);
  check(() => !cached.validateAIResponse(invalid, schema).valid);
  const validateObject = timeBatched(200, 200, () => cached.validateAIResponse(response, schema));
  const validateText = timeBatched(200, 200, () => cached.validateAIResponse(text, schema));
  const validateInvalid = timeBatched(200, 200, () => cached.validateAIResponse(invalid, schema));
  const under = (ms: number, budget: number) => `${Math.round(budget / ms).toLocaleString('en')}× under ${budget} ms`;
  return [
    { measure: 'generateResponseSchema, cache off', value: fmt(generate), target: `≤ 100 µs (${under(generate, 100)})`, ok: generate <= 0.1 },
    { measure: 'generateResponseSchema, cached', value: fmt(generateCached), target: `≤ 100 µs (${under(generateCached, 100)})`, ok: generateCached <= 0.1 },
    {
      measure: 'compile a schema never seen (once per command set and process)',
      value: fmt(compile),
      target: `≤ 50 ms (${under(compile, 50)})`,
      ok: compile <= 50,
    },
    {
      measure: 'a new manager: create, generate, first validation',
      value: fmt(firstValidation),
      target: `≤ 50 ms (${under(firstValidation, 50)})`,
      ok: firstValidation <= 50,
    },
    { measure: 'validateAIResponse, a valid object', value: fmt(validateObject), target: `≤ 50 µs (${under(validateObject, 50)})`, ok: validateObject <= 0.05 },
    { measure: "validateAIResponse, the model's text", value: fmt(validateText), target: `≤ 50 µs (${under(validateText, 50)})`, ok: validateText <= 0.05 },
    {
      measure: 'validateAIResponse, an invalid object (4 errors)',
      value: fmt(validateInvalid),
      target: `≤ 50 µs (${under(validateInvalid, 50)})`,
      ok: validateInvalid <= 0.05,
    },
  ];
}

async function snapshotRows(): Promise<Row[]> {
  log('task pages: raw HTML against GET_DOM snapshots, in Chromium...');
  let executor: BrowserExecutor;
  try {
    executor = await BrowserExecutor.launch({ countTokens: countOpenAiTokens });
  } catch (error) {
    return [{ measure: 'task page snapshots', value: 'not measured', target: (error as Error).message }];
  }
  const server = await startTaskServer();
  const rows: Row[] = [];
  try {
    for (const task of TASKS) {
      const id = await executor.createSession();
      const opened = await executor.execute({ sessionId: id, action: 'OPEN_PAGE', parameters: { url: server.taskUrl(task.name, 7, `bench-${task.name}`) } });
      if (!opened.success) throw new Error(`${task.name}: ${opened.error?.message ?? ''}`);
      const html = countOpenAiTokens(await executor.page(id).content());
      const times = await timeEach(20, () => executor.execute({ sessionId: id, action: 'GET_DOM', parameters: {} }));
      const snapshot = await executor.snapshot(id);
      rows.push({
        measure: `${task.name}: snapshot / raw HTML tokens`,
        value: `${snapshot.tokens} / ${html}`,
        target: `${((snapshot.tokens / html) * 100).toFixed(0)}%, GET_DOM ${fmt(median(times))}`,
        ok: snapshot.tokens < html,
      });
      await executor.closeSession(id);
    }
  } finally {
    await executor.close();
    await server.close();
  }
  return rows;
}

const rows = [...(await protocolRows()), ...(await snapshotRows())];
printTable(`Golem protocol, UI and browser benchmarks (medians; node ${process.version}; tokens by the OpenAI tokenizer)`, rows, [
  'Seed 002 budgets: schema generation 100 ms, validation 50 ms; the targets are a thousand times under both.',
]);
