/**
 * `golem`: a chat with the root worker in the terminal (seed 003). The worker works on
 * the project in the current folder with the built-in actions; supervised calls ask here,
 * manual edits are staged for clearance (`/clearance` here, or `golem clearance`).
 * Stopping the process loses nothing: the next `golem` resumes an interrupted run.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { projectActions } from '../project/project-actions.js';
import { RunLeases, type HeldLease } from '../agent/run-leases.js';
import { ClearanceApi, clearanceItems, toClearanceItem } from '../agent/clearance.js';
import type { Worker, WorkerOutcome } from '../agent/worker/index.js';
import { GolemError, toGolemError } from '../core/errors.js';
import type { ClearanceDecision } from '../agent/ui-adapter.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Workspace } from '../create-workspace.js';
import type { Session } from '../prompt/session.js';
import { CLI_MODEL_FORMS } from './cli-model.js';
import { TerminalAdapter } from '../terminal/index.js';

/** What the root worker is told about itself. */
export const GOLEM_INSTRUCTIONS = [
  "You are Golem, a coding assistant working in the user's project (the current folder). Read before you change; keep answers short.",
  'edit_file and write_file are staged for the user to review (clearance), not written at once: say so when you use them. run_command asks the user first.',
].join('\n');

export interface ChatOptions {
  ws: Workspace;
  session: Session;
  model: ModelAdapter | undefined;
  /** Why there is no model (shown with how to configure one). */
  modelProblem?: string;
  root: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

const HELP = `Commands in the chat:
  /clearance                 list the items waiting for clearance
  /clearance diff <id>       show a staged change
  /clearance review          go through each waiting item: its diff, then push, discard or later
  /clearance push <id> [branch]  write it into the files (or run the waiting call);
                             with a branch, commit it there and leave the files
  /clearance discard <id>    drop it
  /clearance defer <id>      decide later
  /session                   this session's id and the way back to it
  /help                      this help
  /exit                      leave (Ctrl-D too); Ctrl-C stops a running answer
`;

/** Runs the chat until the user leaves; resolves with the exit code. */
export async function chat(options: ChatOptions): Promise<number> {
  const { ws, session, model, root } = options;
  const actions = projectActions();
  let controller: AbortController | undefined;
  const ui = new TerminalAdapter({ input: options.input, output: options.output, onInterrupt: () => controller?.abort() });
  const clearance = new ClearanceApi(ws.manager, { actions });
  const say = (text: string, level: 'info' | 'warning' | 'error' = 'info') => ui.updateStatus({ text, level });
  // Its runs are resumed by the next golem here, not taken over by a golem serve (with another agent).
  const leases = new RunLeases(ws.manager, { by: `golem in a terminal, pid ${process.pid} on ${hostname()}`, resumable: false });
  await ui.initialize();
  const worker: Worker | undefined =
    model === undefined ? undefined : ws.worker({ session, model, actions, ui, project: { root }, subWorkers: true, instructions: GOLEM_INSTRUCTIONS });

  const runTurn = async (input: string | undefined) => {
    if (worker === undefined) {
      say(noModel(options.modelProblem), 'warning');
      return;
    }
    const running = (controller = new AbortController());
    // One run of the session at a time, here or in another process (a golem serve on the same workspace).
    let lease: HeldLease;
    try {
      lease = await leases.claim(session.id, randomUUID(), (error) => {
        running.abort();
        say(`This run was taken over by another process: ${error.message}`, 'warning');
      });
    } catch (error) {
      controller = undefined;
      if (!GolemError.isInstance(error)) throw error;
      say(`[${error.code}] ${error.message}`, 'error');
      return;
    }
    let outcome: WorkerOutcome;
    ui.setBusy(true);
    try {
      if (input !== undefined && session.label === null) await session.update({ label: input.slice(0, 60) }); // names the chat in lists and approval paths
      outcome = await worker.run(input, { signal: running.signal });
    } finally {
      ui.setBusy(false);
      controller = undefined;
      await lease.release();
    }
    report(outcome); // the worker told of new clearance items as it staged them
  };

  const report = (outcome: WorkerOutcome) => {
    if (outcome.status === 'aborted') say('Stopped. Say what to do next.', 'warning');
    else if (outcome.status === 'error')
      say(`The model call failed${outcome.error === undefined ? '' : ` [${outcome.error.code}]: ${outcome.error.message}`}`, 'error');
    else if (outcome.status === 'step_limit') say(`Stopped after ${outcome.steps} model calls (the step limit). Say "go on" to continue.`, 'warning');
    else if (outcome.status === 'paused') say(`Waiting for approval ${outcome.approval?.id ?? ''}.`, 'warning');
  };

  /** Carries out a decision on an item and shows how it went (a refusal as a failed result, with its reason). */
  const decide = async (id: string, decision: ClearanceDecision): Promise<void> => {
    const item = clearance.get(id);
    try {
      const decided =
        decision.action === 'push'
          ? await clearance.push(item.id, decision.target === undefined ? {} : { target: decision.target })
          : await clearance[decision.action](item.id);
      const message = decided.outcome ?? (decision.action === 'defer' ? 'Deferred.' : 'Discarded.');
      ui.displayClearanceResult({ item: toClearanceItem(decided), decision, ok: true, message });
    } catch (error) {
      const e = toGolemError(error);
      ui.displayClearanceResult({ item: toClearanceItem(item), decision, ok: false, message: `[${e.code}] ${e.message}` });
    }
    ui.clearanceChanged(clearanceItems(ws.manager.workspace(), { sessionId: session.id }).map(toClearanceItem));
  };

  /** Each item waiting for clearance in turn: its diff, then the user's decision (seed 003's getClearanceDecision). */
  const review = async (): Promise<void> => {
    const items = clearance.list({ sessionId: session.id });
    if (items.length === 0) say('Nothing waits for clearance.');
    for (const item of items) {
      await ui.displayDiff({ title: item.description, diff: await clearance.diff(item.id) });
      await decide(item.id, await ui.getClearanceDecision(toClearanceItem(item)));
    }
  };

  // What waits for clearance, in the status line each time it changes (decided here, or staged by the run).
  ui.onClearanceStateChange((items) => {
    if (items.length > 0) say(`${items.length} item(s) wait for clearance: /clearance review`);
  });

  const slash = async (line: string): Promise<'exit' | undefined> => {
    const [command = '', sub, id, target] = line.slice(1).trim().split(/\s+/);
    if (command === 'exit' || command === 'quit') return 'exit';
    if (command === 'help') {
      ui.print(HELP);
      return undefined;
    }
    if (command === 'session') {
      say(`Session ${session.id}. Back to it later with: golem --session ${session.id}`);
      return undefined;
    }
    if (command !== 'clearance') {
      say(`Unknown command /${command}. /help lists them.`, 'warning');
      return undefined;
    }
    try {
      if (sub === undefined || sub === 'list') {
        const items = clearance.list({ sessionId: session.id });
        if (items.length === 0) say('Nothing waits for clearance.');
        for (const item of items) ui.print(`  ${item.id}  ${item.type}  ${item.status}  ${item.description}`);
        return undefined;
      }
      if (sub === 'review') {
        await review();
        return undefined;
      }
      if (id === undefined) throw new GolemError('INVALID_ARGUMENT', `/clearance ${sub} needs an item id (see /clearance)`);
      const item = clearance.get(id);
      if (sub === 'diff') await ui.displayDiff({ title: item.description, diff: await clearance.diff(item.id) });
      else if (sub === 'push') await decide(item.id, target === undefined ? { action: 'push' } : { action: 'push', target });
      else if (sub === 'discard' || sub === 'defer') await decide(item.id, { action: sub });
      else throw new GolemError('INVALID_ARGUMENT', `unknown /clearance command "${sub}" (list, review, diff, push, discard, defer)`);
    } catch (error) {
      say(GolemError.isInstance(error) ? `[${error.code}] ${error.message}` : (error as Error).message, 'error');
    }
    return undefined;
  };

  try {
    say(
      `Golem · session ${session.id}${session.label === null ? '' : ` (${session.label})`} · ${model === undefined ? 'no model' : `${model.provider}:${model.modelId}`} · project ${root}. /help for commands.`,
    );
    // Without a model, the user hears why and what to do before typing anything.
    if (model === undefined) say(noModel(options.modelProblem), 'warning');
    await session.load(); // for the synchronous reads below
    if (worker?.interrupted() === true) {
      say('Resuming the run that was interrupted.');
      await runTurn(undefined);
    } else {
      ui.notifyClearancePending(clearanceItems(ws.manager.workspace(), { sessionId: session.id }).map(toClearanceItem));
    }
    for (;;) {
      const line = await ui.getUserInput();
      if (line === null) break;
      if (line.trim() === '') continue;
      await ws.manager.refresh(); // another golem (e.g. `golem clearance push`) may have changed the workspace
      if (line.startsWith('/')) {
        if ((await slash(line)) === 'exit') break;
        continue;
      }
      await runTurn(line);
    }
    return 0;
  } finally {
    leases.dispose();
    await ui.shutdown();
  }
}

/**
 * What to do without a model: the model given could not be used (its key is missing, say),
 * so that is what to fix; or none was given, so here is how to give one.
 */
function noModel(problem: string | undefined): string {
  const rest = 'The rest works without one: /clearance, /session, golem sessions.';
  if (problem !== undefined) return `The model cannot be used: ${problem.trim().replace(/\.$/, '')}.\nFix that and start golem again. ${rest}`;
  return `No model is configured. Set GOLEM_MODEL or start golem with --model, one of:\n  ${CLI_MODEL_FORMS.join('\n  ')}\n${rest}`;
}
