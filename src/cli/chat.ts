/**
 * `golem`: a chat with the root worker in the terminal (seed 003). The worker works on
 * the project in the current folder with the built-in actions; supervised calls ask here,
 * manual edits are staged for clearance (`/clearance` here, or `golem clearance`).
 * Stopping the process loses nothing: the next `golem` resumes an interrupted run.
 * A message typed while the worker runs goes to its run (ws.runs.send): Enter queues it for
 * the next turn, Tab steers the run with it (see chat-inbox.ts).
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
import type { TaskRecord } from '../agent/task-records.js';
import { CLI_MODEL_FORMS } from './cli-model.js';
import { TerminalAdapter, type ProgressMode } from '../terminal/index.js';
import type { LineHistory } from '../terminal/line-reader.js';
import { completeCommand, slashCommand, type ChatContext } from './chat-commands.js';
import { promptCommands } from '../mcp/prompts.js';
import type { ElicitationAnswer, ElicitationRequest } from '../mcp/connection.js';
import { recentConversation } from './session-view.js';
import { ChatInbox } from './chat-inbox.js';

/** What the root worker is told about itself. */
export const GOLEM_INSTRUCTIONS = [
  "You are Golem, a coding assistant working in the user's project (the current folder). Read before you change; keep answers short.",
  'edit_file and write_file are staged for the user to review (clearance), not written at once: say so when you use them.',
  'run_command asks the user first, unless they already allowed that exact command (always, or for this session) or chose a trust mode that does not ask.',
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
  /** Sub-workers as a box each (the default) or a line each. */
  progress?: ProgressMode;
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
  const by = `golem in a terminal, pid ${process.pid} on ${hostname()}`;
  // The session open, and the id it has or will have (undefined until a new one's first message).
  let session = options.session;
  let sessionId = session?.id ?? ws.manager.newId();
  const inbox = new ChatInbox(ws, { by, sessionId: () => sessionId, say: (text, level) => say(text, level) });
  const ui = new TerminalAdapter({
    input: options.input,
    output: options.output,
    onInterrupt: () => controller?.abort(),
    messages: inbox,
    plans: () => runPlans(ws.tasks.list(), sessionId, runStartedAt),
    editPlan: async (taskId, edits) => void (await ws.tasks.accept(taskId, edits)),
    ...(options.progress !== undefined && { progress: options.progress }),
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

  let model = options.model;
  let worker: Worker | undefined;
  // The run in progress's delivery of the messages sent to steer it (ws.runs.send, Tab): the worker calls it before each model call.
  let steering: (() => Promise<number>) | undefined;
  const workerOf = (s: Session): Worker | undefined => {
    if (model === undefined) return undefined;
    worker ??= ws.worker({
      session: s,
      model,
      actions,
      ui,
      project: { root },
      subWorkers: true,
      plans: true,
      instructions: GOLEM_INSTRUCTIONS,
      steer: () => steering?.() ?? Promise.resolve(0),
    });
    return worker;
  };
  // A message sent during a run becomes a user turn when it is delivered (before a model call, or as the next run's turn): shown then.
  // The plans' checklist is drawn again as a plan is proposed, decided or marked (here, or by another process).
  let runStartedAt = '';
  const offPlans = (['task:propose', 'task:accept', 'task:update', 'task:close'] as const).map((type) => ws.manager.events.on(type, () => ui.plansChanged()));
  const offDelivered = ws.manager.events.on('inbox:deliver', (event) => {
    const turn = event.result?.turn;
    if (turn === undefined || turn.sessionId !== sessionId) return;
    const content = turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    void ui.displayMessage({ role: 'user', content });
  });

  /**
   * Runs `body` as a run of the session (ws.runs: one at a time, here or in a golem serve),
   * stoppable by Esc and Ctrl-C, and by `golem runs cancel` from anywhere. `outcomeOf` says how
   * a worker's run ended, for its record. `before`, once the run is claimed, says whether it
   * is to run (false: the claim is given up, and the result is undefined).
   */
  const exclusive = async <T>(
    s: Session,
    body: (signal: AbortSignal) => Promise<T>,
    outcomeOf: (value: T) => WorkerOutcome | undefined = () => undefined,
    before?: () => Promise<boolean>,
  ) => {
    const running = (controller = new AbortController());
    let claim: RunClaim;
    try {
      claim = await ws.runs.claim(s.id, {
        by,
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
    if (before !== undefined) {
      let go = false;
      try {
        go = await before();
      } finally {
        if (!go) {
          controller = undefined;
          await claim.drop();
        }
      }
      if (!go) return undefined;
    }
    runStartedAt = new Date().toISOString();
    ui.setBusy(true);
    let value: T | undefined;
    let failure: { error: unknown } | undefined;
    try {
      await claim.run(async ({ signal, steer }) => {
        steering = steer;
        try {
          value = await body(signal);
        } catch (error) {
          failure = { error };
          throw error;
        } finally {
          steering = undefined;
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
    inbox.accept(true);
    try {
      const outcome = await runWorker(s, input);
      if (outcome !== undefined && outcome.status !== 'paused') await drain(s);
    } finally {
      inbox.accept(false);
    }
  };

  /**
   * One run of the worker: on `input`, or on what the session holds (a run resumed; a message
   * `before` delivered). Undefined when it did not run (the session busy elsewhere, nothing delivered).
   */
  const runWorker = async (s: Session, input: string | undefined, before?: () => Promise<boolean>) => {
    const w = workerOf(s) as Worker;
    const outcome = await exclusive(
      s,
      async (signal) => {
        if (input !== undefined && s.label === null) await s.update({ label: input.slice(0, 60) });
        return w.run(input, { signal });
      },
      (done) => done,
      before,
    );
    if (outcome !== undefined) report(outcome, ws.runs.inbox(s.id).length); // the worker told of new clearance items as it staged them
    return outcome;
  };

  /**
   * What was sent while the session ran (queued with Enter, a steer it had no model call left
   * for, or from another process): each becomes the next user turn and its run, oldest first,
   * as golem serve's runs do, until none waits. A run stopped by Esc goes on to them too; one
   * waiting for an approval, or that did not run, does not.
   */
  const drain = async (s: Session) => {
    for (;;) {
      await inbox.settled();
      const late = inbox.late();
      let outcome: WorkerOutcome | undefined;
      if (late !== undefined) {
        await ui.displayMessage({ role: 'user', content: late });
        outcome = await runWorker(s, late);
      } else {
        if (ws.runs.inbox(s.id).length === 0) return;
        outcome = await runWorker(s, undefined, async () => (await ws.runs.deliver(s.id)) !== null);
      }
      if (outcome === undefined || outcome.status === 'paused') return;
    }
  };

  /** Says how a run ended, unless it simply answered; `waiting`: how many messages wait to go next. */
  const report = (outcome: WorkerOutcome, waiting: number) => {
    if (outcome.status === 'aborted') say(waiting > 0 ? `Stopped. What you queued goes next (${waiting}).` : 'Stopped. Say what to do next.', 'warning');
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
    } else if (model !== undefined && ws.runs.inbox(next.id).length > 0) {
      // Messages queued for it that no run took (the golem they were sent to stopped): they go now.
      say(`Sending the ${ws.runs.inbox(next.id).length} message(s) queued for this session.`);
      inbox.accept(true);
      try {
        await drain(next);
      } finally {
        inbox.accept(false);
      }
    } else {
      ui.notifyClearancePending(clearanceItems(ws.manager.workspace(), { sessionId: next.id }).map(toClearanceItem));
    }
  };

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
      // The status line's count of what waits for clearance: decided in another process meanwhile, or staged by the run.
      ui.clearanceChanged(clearanceItems(ws.manager.workspace(), { sessionId }).map(toClearanceItem));
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
    offDelivered();
    for (const off of offPlans) off();
    await ui.shutdown();
  }
}

/**
 * The plans the checklist shows during a run: the session's open ones (proposed, accepted) and
 * those it closed since the run started, with the plans of its sub-workers nested under them.
 */
export function runPlans(tasks: readonly TaskRecord[], sessionId: string, since: string): TaskRecord[] {
  const shown = new Set<string>();
  for (const task of tasks)
    if (task.sessionId === sessionId && (task.status === 'proposed' || task.status === 'accepted' || (task.status === 'done' && task.updatedAt >= since)))
      shown.add(task.id);
  // Nested plans, to any depth (a task comes after its parent: oldest first).
  for (const task of tasks)
    if (task.parentTask !== null && shown.has(task.parentTask.taskId) && task.status !== 'declined' && task.status !== 'cancelled') shown.add(task.id);
  return tasks.filter((t) => shown.has(t.id));
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
