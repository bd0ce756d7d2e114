/**
 * The worker tree of seed 003: the root worker converses with the user; sub-workers get
 * a task instead of a chat history, run a single-shot tool loop, and end with a result or
 * with a question their parent answers by re-invoking them (or passes up, ultimately to
 * the user). These are the two actions that make the tree, and the words each worker is
 * given about its place in it.
 */
import { z } from 'zod';
import { defineAction, type Action, type ActionContext } from '../action/action.js';
import type { WorkerInfo } from './ui-adapter.js';

/** How a sub-worker ended, as its parent's model reads it. */
export type SubWorkerReport =
  | { worker: string; status: 'done'; result: string }
  | { worker: string; status: 'question'; question: string; next: string }
  | { worker: string; status: 'failed'; error: string };

export const SpawnInput = z.object({
  task: z.string().min(1).describe('The whole task, self-contained: the sub-worker sees nothing else (no chat history).'),
  actions: z.array(z.string()).optional().describe('The names of the actions it may use (default: all of yours).'),
  reinvoke: z.string().optional().describe('The id of an earlier worker that asked a question: re-invoke it with this clarified task.'),
  include_results: z
    .array(z.string())
    .optional()
    .describe(
      "Ids of earlier workers whose results it needs (default: those of this run's earlier workers that finished, not those started by the same answer, which run at the same time).",
    ),
});
export type SpawnInput = z.output<typeof SpawnInput>;

/**
 * A sub-worker's run paused: it waits for an approval nobody can answer now, and so does
 * the `spawn_worker` call that runs it (no result yet; the parent's run pauses too).
 */
export interface SubWorkerWaiting {
  worker: string;
  status: 'waiting';
  approvalId: string;
}

/** `spawn_worker`: the worker runs `start` with the call's id, so the child session is linked to it. */
export function spawnWorkerAction(start: (input: SpawnInput, ctx: ActionContext) => Promise<SubWorkerReport | SubWorkerWaiting>): Action {
  return defineAction({
    name: 'spawn_worker',
    description:
      'Hands a task to a sub-worker, which does it with its own tool loop and returns its result, or a question when it lacks information. ' +
      'Use it for self-contained pieces of work; write everything it needs into the task.',
    input: SpawnInput,
    // Its sub-worker is linked to the call: running it again resumes or reports that worker, never a second one.
    repeatable: true,
    run: start,
    endsRun: (output) => (output.status === 'waiting' ? { type: 'paused', approvalId: output.approvalId } : undefined),
  }) as Action;
}

/** `ask_parent` (sub-workers only): ends the run with a question for the worker that gave the task. */
export const askParentAction: Action = defineAction({
  name: 'ask_parent',
  description:
    'Ends your task with a question for the worker that gave it to you, when you cannot finish without information you do not have. Ask one precise question; do not guess.',
  input: z.object({ question: z.string().min(1) }),
  repeatable: true,
  run: ({ question }) => ({ asked: question }),
  // The run ends with the question; the model is told where it goes.
  render: () => 'Your question goes to the worker that gave you the task.',
  endsRun: ({ asked }) => ({ type: 'question', question: asked }),
}) as Action;

/** How spawn_worker calls run, as a worker is told: side by side, at most `concurrency` at once. */
function sideBySide(concurrency: number): string {
  return concurrency === 1
    ? 'The spawn_worker calls of one answer run one at a time, in order.'
    : `The spawn_worker calls of one answer run side by side, at most ${concurrency} at once: the others start as those finish.`;
}

/** What the root worker is told about the tree (`concurrency`: how many sub-workers one answer runs at once). */
export function rootInstructions(maxDepth: number, concurrency: number): string {
  return [
    '## Workers',
    `You can hand self-contained tasks to sub-workers with spawn_worker (at most ${maxDepth} levels deep). A sub-worker sees only the task you write, not this conversation.`,
    `${sideBySide(concurrency)} A task that needs another task's result goes in a later answer, once that result is back.`,
    'When a sub-worker returns a question: if this conversation already tells you the answer, call spawn_worker again with the clarified task and `reinvoke` set to its id. If you do not know, ask the user, then re-invoke it with the answer.',
  ].join('\n');
}

/**
 * What a sub-worker is told about its place. `canSpawn`: it is offered spawn_worker (it was
 * given it, and is above the depth limit); otherwise it is not told of sub-workers at all.
 */
export function subWorkerInstructions(path: readonly WorkerInfo[], canSpawn: boolean, concurrency: number): string {
  const self = path.at(-1);
  return [
    '## Your role',
    `You are a sub-worker at depth ${self?.depth ?? 1} of a worker tree: ${path.map((w) => w.task.slice(0, 60)).join(' → ')}.`,
    'You do not talk to the user and have no chat history: only your task. Use your actions to do it, then answer with the result: what you did and what you found, briefly.',
    'If you cannot finish without information you do not have, call ask_parent with one precise question instead of guessing.',
    ...(canSpawn ? [`You may hand self-contained parts to your own sub-workers with spawn_worker. ${sideBySide(concurrency)}`] : []),
  ].join('\n');
}

/** The first message of a sub-worker: its task and the results of earlier siblings it needs. */
export function taskMessage(task: string, priorResults: readonly { worker: string; task: string; result: string }[]): string {
  const prior = priorResults.map((r) => `### ${r.task} (worker ${r.worker})\n${r.result}`);
  return [`Your task:\n${task}`, ...(prior.length === 0 ? [] : [`Results of earlier workers:\n\n${prior.join('\n\n')}`])].join('\n\n');
}
