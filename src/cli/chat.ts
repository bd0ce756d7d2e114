/**
 * `golem`: a chat with the root worker in the terminal (seed 003). The worker works on
 * the project in the current folder with the built-in actions; supervised calls ask here,
 * manual edits are staged for clearance (`/clearance` here, or `golem clearance`).
 * Stopping the process loses nothing: the next `golem` resumes an interrupted run.
 */
import { hostname } from 'node:os';
import type { Action } from '../action/action.js';
import { projectActions } from '../project/project-actions.js';
import type { RunClaim } from '../agent/run-service.js';
import { ClearanceApi, clearanceItems, toClearanceItem } from '../agent/clearance.js';
import type { Worker, WorkerOutcome } from '../agent/worker/index.js';
import { GolemError } from '../core/errors.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Workspace } from '../create-workspace.js';
import type { Session } from '../prompt/session.js';
import { CLI_MODEL_FORMS } from './cli-model.js';
import { TerminalAdapter } from '../terminal/index.js';
import type { LineHistory } from '../terminal/line-reader.js';
import { completeCommand, slashCommand, type ChatContext } from './chat-commands.js';
import { promptCommands } from '../mcp/prompts.js';
import type { ElicitationAnswer, ElicitationRequest } from '../mcp/connection.js';
import { recentConversation } from './session-view.js';

/** What the root worker is told about itself. */
export const GOLEM_INSTRUCTIONS = [
  "You are Golem, a coding assistant working in the user's project (the current folder). Read before you change; keep answers short.",
  'edit_file and write_file are staged for the user to review (clearance), not written at once: say so when you use them. run_command asks the user first.',
].join('\n');

export interface ChatOptions {
  ws: Workspace;
  /** The session to open; undefined for a new one, made when the first message is sent (no empty sessions). */
  session: Session | undefined;
  model: ModelAdapter | undefined;
  /** Why there is no model (shown with how to configure one). */
  modelProblem?: string;
  /** The project's MCP servers' tools (.mcp.json). */
  mcpActions?: Action[];
  /** Filled by the chat: how an MCP server's request for input is asked (the terminal's questions). */
  elicitation?: { ask?: (request: ElicitationRequest) => Promise<ElicitationAnswer> };
  /** The model for `/model <spec>` (throws with what is wrong); without it `/model` only shows the model. */
  resolveModel?: (spec: string) => ModelAdapter;
  root: string;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** The chat prompt's history across runs (↑). */
  history?: LineHistory;
}

/** Runs the chat until the user leaves; resolves with the exit code. */
export async function chat(options: ChatOptions): Promise<number> {
  const { ws, root } = options;
  let actions = [...projectActions(), ...(options.mcpActions ?? [])];
  // The MCP servers' prompts are slash commands (read once; a server's list seldom changes during a chat).
  const prompts = await promptCommands(ws.mcp.connections());
  // An MCP server's tool list changed: the next answer is offered the new one.
  const offTools = ws.mcp.onToolsChanged(() => {
    const names = new Set<string>();
    actions = [...projectActions(), ...ws.mcp.actions()].filter((a) => !names.has(a.name) && names.add(a.name));
    worker?.setActions(actions);
  });
  let controller: AbortController | undefined;
  const ui = new TerminalAdapter({
    input: options.input,
    output: options.output,
    onInterrupt: () => controller?.abort(),
    ...(options.history !== undefined && { history: options.history }),
    complete: (line: string) =>
      completeCommand(
        line,
        prompts.map((p) => p.command),
      ),
  });
  const clearance = new ClearanceApi(ws.manager, { actions });
  if (options.elicitation !== undefined) options.elicitation.ask = (request) => ui.requestInput(request);
  const say = (text: string, level: 'info' | 'warning' | 'error' = 'info') => ui.updateStatus({ text, level });
  await ui.initialize();

  // The session open (undefined until a new one's first message), the id it has or will have, and the model.
  let session = options.session;
  let sessionId = session?.id ?? ws.manager.newId();
  let model = options.model;
  let worker: Worker | undefined;
  const workerOf = (s: Session): Worker | undefined => {
    if (model === undefined) return undefined;
    worker ??= ws.worker({ session: s, model, actions, ui, project: { root }, subWorkers: true, instructions: GOLEM_INSTRUCTIONS });
    return worker;
  };

  /**
   * Runs `body` as a run of the session (ws.runs: one at a time, here or in a golem serve),
   * stoppable by Esc and Ctrl-C, and by `golem runs cancel` from anywhere. `outcomeOf` says how
   * a worker's run ended, for its record.
   */
  const exclusive = async <T>(s: Session, body: (signal: AbortSignal) => Promise<T>, outcomeOf: (value: T) => WorkerOutcome | undefined = () => undefined) => {
    const running = (controller = new AbortController());
    let claim: RunClaim;
    try {
      claim = await ws.runs.claim(s.id, {
        by: `golem in a terminal, pid ${process.pid} on ${hostname()}`,
        // Its runs are resumed by the next golem here, not taken over by a golem serve (with another agent).
        resumable: false,
        signal: running.signal,
        onStop: (error) =>
          say(
            error.code === 'RUN_CANCELLED' ? `This run was cancelled: ${error.message}` : `This run was taken over by another process: ${error.message}`,
            'warning',
          ),
      });
    } catch (error) {
      controller = undefined;
      if (!GolemError.isInstance(error)) throw error;
      say(`[${error.code}] ${error.message}`, 'error');
      return undefined;
    }
    ui.setBusy(true);
    let value: T | undefined;
    let failure: { error: unknown } | undefined;
    try {
      await claim.run(async ({ signal }) => {
        try {
          value = await body(signal);
        } catch (error) {
          failure = { error };
          throw error;
        }
        return outcomeOf(value);
      }).done;
    } finally {
      ui.setBusy(false);
      controller = undefined;
    }
    if (failure !== undefined) throw failure.error;
    return value;
  };

  const runTurn = async (input: string | undefined) => {
    if (model === undefined) {
      say(noModel(options.modelProblem), 'warning');
      return;
    }
    // A new session is made with its first message, named by it (in lists and approval paths).
    session ??= await ws.sessions.create({ id: sessionId, label: input === undefined ? null : input.slice(0, 60) });
    const s = session;
    const w = workerOf(s) as Worker;
    const outcome = await exclusive(
      s,
      async (signal) => {
        if (input !== undefined && s.label === null) await s.update({ label: input.slice(0, 60) });
        return w.run(input, { signal });
      },
      (done) => done,
    );
    if (outcome !== undefined) report(outcome); // the worker told of new clearance items as it staged them
  };

  const report = (outcome: WorkerOutcome) => {
    if (outcome.status === 'aborted') say('Stopped. Say what to do next.', 'warning');
    else if (outcome.status === 'error')
      say(`The model call failed${outcome.error === undefined ? '' : ` [${outcome.error.code}]: ${outcome.error.message}`}`, 'error');
    else if (outcome.status === 'step_limit') say(`Stopped after ${outcome.steps} model calls (the step limit). Say "go on" to continue.`, 'warning');
    else if (outcome.status === 'paused') say(`Waiting for approval ${outcome.approval?.id ?? ''}.`, 'warning');
  };

  /** Opens a session (or a new one): its recent conversation, what waits for clearance, and a run it left unfinished. */
  const open = async (next: Session | undefined): Promise<void> => {
    session = next;
    sessionId = next?.id ?? ws.manager.newId();
    worker = undefined;
    if (next === undefined) return;
    await next.load(); // for the synchronous reads below
    const { earlier, messages } = recentConversation(await next.transcript());
    if (earlier > 0) say(`… ${earlier} earlier message(s): golem sessions show ${next.id}`);
    for (const message of messages) await ui.displayMessage(message);
    if (workerOf(next)?.interrupted() === true) {
      say('Resuming the run that was interrupted.');
      await runTurn(undefined);
    } else {
      ui.notifyClearancePending(clearanceItems(ws.manager.workspace(), { sessionId: next.id }).map(toClearanceItem));
    }
  };

  // What waits for clearance, in the status line each time it changes (decided here, or staged by the run).
  ui.onClearanceStateChange((items) => {
    if (items.length > 0) say(`${items.length} item(s) wait for clearance: /clearance review`);
  });

  const context: ChatContext = {
    ws,
    ui,
    clearance,
    say,
    session: () => session,
    sessionId: () => sessionId,
    model: () => model,
    resolveModel: (spec) => {
      if (options.resolveModel === undefined) throw new GolemError('INVALID_ARGUMENT', 'the model cannot be changed here; start golem with --model');
      return options.resolveModel(spec);
    },
    setModel: (next) => {
      model = next;
      worker = undefined;
    },
    open,
    exclusive,
    prompts: () => prompts,
    send: async (text) => {
      // What the command expanded to is what the model reads: the user sees it too.
      await ui.displayMessage({ role: 'user', content: text });
      await runTurn(text);
    },
  };

  try {
    const label = session === undefined ? ' (new)' : session.label === null ? '' : ` (${session.label})`;
    const modelName = model === undefined ? 'no model' : `${model.provider}:${model.modelId}`;
    say(`Golem · session ${sessionId}${label} · ${modelName} · project ${root}. /help for commands.`);
    // Without a model, the user hears why and what to do before typing anything.
    if (model === undefined) say(noModel(options.modelProblem), 'warning');
    if (session !== undefined) await open(session);
    for (;;) {
      const line = await ui.getUserInput();
      if (line === null) break;
      if (line.trim() === '') continue;
      await ws.manager.refresh(); // another golem (e.g. `golem clearance push`) may have changed the workspace
      if (line.startsWith('/')) {
        if ((await slashCommand(line, context)) === 'exit') break;
        continue;
      }
      await runTurn(line);
    }
    return 0;
  } finally {
    offTools();
    await ui.shutdown();
  }
}

/**
 * What to do without a model: the model given could not be used (its key is missing, say),
 * so that is what to fix; or none was given, so here is how to give one.
 */
function noModel(problem: string | undefined): string {
  const rest = 'The rest works without one: /clearance, /session, golem sessions. /model <provider:model> sets one here.';
  if (problem !== undefined)
    return `The model cannot be used: ${problem.trim().replace(/\.$/, '')}.\nFix that and start golem again, or set another with /model. ${rest}`;
  return `No model is configured. Set GOLEM_MODEL or start golem with --model, one of:\n  ${CLI_MODEL_FORMS.join('\n  ')}\n${rest}`;
}
