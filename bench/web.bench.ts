/**
 * The web task suite with a real model (`npm run bench:web`): every task, a few seeds
 * each, through `ws.browser.runTask` in Chromium. Reports the success rate (the page's own
 * reward), steps, tokens and time per task.
 *
 *   GOLEM_MODEL=openai:gpt-4.1-mini OPENAI_API_KEY=... npm run bench:web
 *   npm run bench:web -- --scripted      # the harness itself, with the tests' scripted policies (not a model)
 *
 * BENCH_WEB_SEEDS (default 3) seeds per task; BENCH_WEB_TASKS=login,form to choose tasks;
 * BENCH_WEB_MAX_STEPS (default 25).
 */
import { countOpenAiTokens, createWorkspace, resolveModel, type ModelAdapter, type Turn } from '../src/index.js';
import { taskPolicy } from '../test/web-tasks/policies.js';
import { startTaskServer } from '../test/web-tasks/server.js';
import { TASKS } from '../test/web-tasks/tasks.js';
import { fmt, log, median, printTable, type Row } from './lib.js';

const scripted = process.argv.includes('--scripted');
const spec = process.env.GOLEM_MODEL;
if (!scripted && (spec === undefined || spec === '')) {
  console.error(
    'bench:web needs a model: GOLEM_MODEL=<provider>:<model> npm run bench:web (see the README, "Point it at a model").\nnpm run bench:web -- --scripted runs the harness with the tests\' scripted policies instead (not a model).',
  );
  process.exit(2);
}
const seeds = Array.from({ length: Number(process.env.BENCH_WEB_SEEDS ?? 3) }, (_, i) => 1000 + i);
const chosen = process.env.BENCH_WEB_TASKS?.split(',').map((s) => s.trim()) ?? TASKS.map((t) => t.name);
const unknown = chosen.filter((name) => !TASKS.some((t) => t.name === name));
if (unknown.length > 0) {
  console.error(`bench:web: no such task: ${unknown.join(', ')} (tasks: ${TASKS.map((t) => t.name).join(', ')})`);
  process.exit(2);
}
const maxSteps = Number(process.env.BENCH_WEB_MAX_STEPS ?? 25);

interface Episode {
  task: string;
  seed: number;
  success: boolean;
  status: string;
  steps: number;
  invalid: number;
  inputTokens: number;
  outputTokens: number;
  ms: number;
  note: string;
}

const usageOf = (turn: Turn) => (turn.meta.usage ?? {}) as { inputTokens?: number; outputTokens?: number };

const server = await startTaskServer();
const ws = await createWorkspace();
const browser = await ws.browser.launch({ security: { allowedDomains: ['127.0.0.1'] }, countTokens: countOpenAiTokens });
const label = scripted ? 'scripted policies (test doubles, not a model)' : (spec as string);
const episodes: Episode[] = [];
try {
  for (const task of chosen) {
    for (const seed of seeds) {
      const episode = `bench-${task}-${seed}-${Date.now()}`;
      const model: ModelAdapter = scripted ? taskPolicy(task) : resolveModel(spec as string);
      const started = performance.now();
      const { outcome, session } = await browser.runTask({ goal: `Open ${server.taskUrl(task, seed, episode)} and do what the page asks.`, model, maxSteps });
      const ms = performance.now() - started;
      const turns = await session.transcript();
      const answers = turns.filter((t) => t.role === 'assistant');
      const reward = server.reward(episode);
      const result: Episode = {
        task,
        seed,
        success: reward?.reward === 1,
        status: outcome.status,
        steps: outcome.steps,
        invalid: turns.filter((t) => t.meta.protocolErrors === true).length,
        inputTokens: answers.reduce((n, t) => n + (usageOf(t).inputTokens ?? 0), 0),
        outputTokens: answers.reduce((n, t) => n + (usageOf(t).outputTokens ?? 0), 0),
        ms,
        note: reward === undefined ? (outcome.error?.message ?? outcome.decision?.message ?? outcome.status) : reward.detail,
      };
      episodes.push(result);
      log(
        `${task} seed ${seed}: ${result.success ? 'reward 1' : `failed (${result.status}: ${result.note.slice(0, 120)})`}, ${result.steps} steps, ${result.inputTokens + result.outputTokens} tokens, ${fmt(ms)}`,
      );
    }
  }
} finally {
  await browser.close();
  await ws.close();
  await server.close();
}

const rows: Row[] = [];
const summarize = (name: string, list: Episode[]): Row => {
  const wins = list.filter((e) => e.success).length;
  const tokens = list.map((e) => e.inputTokens + e.outputTokens);
  return {
    measure: name,
    value: `${wins}/${list.length} (${Math.round((wins / list.length) * 100)}%)`,
    target: `steps ${median(list.map((e) => e.steps))}, tokens ${Math.round(median(tokens)).toLocaleString('en')} (out ${Math.round(median(list.map((e) => e.outputTokens))).toLocaleString('en')}), invalid ${list.reduce((n, e) => n + e.invalid, 0)}, ${fmt(median(list.map((e) => e.ms)))}`,
  };
};
for (const task of chosen)
  rows.push(
    summarize(
      task,
      episodes.filter((e) => e.task === task),
    ),
  );
rows.push(summarize('all tasks', episodes));
printTable(
  `Golem web tasks: ${label} (${seeds.length} seeds a task, step limit ${maxSteps}; medians per episode)`,
  rows,
  [
    'success: the page reported reward 1. steps: model calls. tokens: input + output as the provider reported them. invalid: answers outside the response schema.',
  ],
  ['task', 'success', 'median steps, tokens, invalid answers (total), time'],
);
