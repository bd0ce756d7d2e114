/**
 * The browser on a workspace (`ws.browser`): the executor's sessions tied to Golem
 * sessions, the five commands as actions (validated, under the trust policy like any
 * action), saved variables as workspace state, and the task loop of seed 002: a goal,
 * then one structured response per step until PROCEED without a command, ABORT or the
 * step limit.
 */
import type { z } from 'zod';
import type { Page } from 'playwright-core';
import { GolemError, unwrap } from '../core/errors.js';
import { defineAction, type Action, type ApprovalDescription, type Observation, type Trust } from '../action/action.js';
import type { Worker, WorkerOptions, WorkerOutcome } from '../agent/worker/index.js';
import type { RunService } from '../agent/run-service.js';
import { BROWSER_COMMAND_DESCRIPTIONS, BROWSER_COMMAND_INPUTS } from '../protocol/browser-commands.js';
import { redactSecrets, toExecutorCommand } from '../protocol/interpolation.js';
import type { AIGeneratedCommand, CommandAction } from '../protocol/types.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Session } from '../prompt/session.js';
import type { SessionManager } from '../prompt/session-manager.js';
import { BrowserExecutor, type ExecutionResult, type ExecutorOptions } from './executor.js';
import { browserSessions, browserVariables, type BrowserSessionRecord } from './browser-plugin.js';
import type { PageSnapshot } from './snapshot.js';

/** Default trust of each command: reading and typing are autonomous; so is clicking (set CLICK_ELEMENT 'supervised' for sites where a click spends money). */
const DEFAULT_TRUST: Record<CommandAction, Trust> = {
  OPEN_PAGE: 'autonomous',
  CLICK_ELEMENT: 'autonomous',
  INPUT_TEXT: 'autonomous',
  SAVE_VARIABLE: 'autonomous',
  GET_DOM: 'autonomous',
};

export interface BrowserTaskOptions extends Omit<WorkerOptions, 'session' | 'mode' | 'actions'> {
  /** What to do, in words (the first user turn). */
  goal: string;
  /** The session to work in (default: a new one labelled with the goal). */
  session?: Session;
  /** Secrets the model may use as ${name} without seeing them (for this task only; never stored). */
  secrets?: Readonly<Record<string, string>>;
  /** More actions beside the browser's five. */
  actions?: Action[];
  signal?: AbortSignal;
}

export interface BrowserTaskResult {
  outcome: WorkerOutcome;
  session: Session;
  browserSessionId: string;
  /** The variables saved for the session. */
  variables: Record<string, string>;
}

/** One browser session: a tab in its own context, driven for one Golem session. */
export class BrowserSession {
  readonly id: string;
  readonly sessionId: string;
  /** The five commands as actions (seed 002's schemas), for a worker in any mode. */
  readonly actions: Action[];
  readonly #manager: WorkspaceManager;
  readonly #executor: BrowserExecutor;
  readonly #secrets: Readonly<Record<string, string>>;
  readonly #onClose: () => void;
  #closed = false;

  /** Use `browser.open(...)`. */
  constructor(
    manager: WorkspaceManager,
    executor: BrowserExecutor,
    record: BrowserSessionRecord,
    options: { secrets?: Readonly<Record<string, string>>; trust?: Partial<Record<CommandAction, Trust>> },
    onClose: () => void = () => undefined,
  ) {
    this.#manager = manager;
    this.#executor = executor;
    this.#onClose = onClose;
    this.id = record.id;
    this.sessionId = record.sessionId;
    this.#secrets = options.secrets ?? {};
    this.actions = (Object.keys(BROWSER_COMMAND_INPUTS) as CommandAction[]).map((name) => this.#action(name, options.trust?.[name] ?? DEFAULT_TRUST[name]));
  }

  /** Runs a command as the model wrote it: variables filled in, the session id injected, a saved variable recorded. */
  async execute(command: AIGeneratedCommand): Promise<ExecutionResult> {
    const input = Object.hasOwn(BROWSER_COMMAND_INPUTS, command.action) ? BROWSER_COMMAND_INPUTS[command.action as CommandAction] : undefined;
    if (input === undefined)
      return failure(
        command.action,
        new GolemError('INVALID_ARGUMENT', `the browser has no command "${command.action}" (it has ${Object.keys(BROWSER_COMMAND_INPUTS).join(', ')})`),
        await this.#executor.state(this.id),
      );
    const parsed = input.safeParse(command.parameters);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ');
      return failure(
        command.action,
        new GolemError('INVALID_ARGUMENT', `${command.action} parameters are not valid: ${problems}`),
        await this.#executor.state(this.id),
      );
    }
    const filled = toExecutorCommand(command, this.id, { variables: this.variables(), secrets: this.#secrets });
    if (!filled.ok) return failure(command.action, filled.error, await this.#executor.state(this.id));
    const result = await this.#executor.execute(filled.value);
    if (result.success && command.action === 'SAVE_VARIABLE') {
      const { variableName, value } = result.data as { variableName: string; value: string };
      const saved = await this.#manager.dispatch({ type: 'browser:variable_set', payload: { browserSessionId: this.id, name: variableName, value } });
      if (!saved.ok) return { ...result, success: false, error: { code: saved.error.code, message: saved.error.message } };
    }
    return result;
  }

  /** The variables saved for this session's Golem session. */
  variables(): Record<string, string> {
    return browserVariables(this.#manager.workspace(), this.sessionId);
  }

  /** A snapshot of the page now (what GET_DOM shows the model). */
  snapshot(budget?: number): Promise<PageSnapshot> {
    return this.#executor.snapshot(this.id, budget);
  }

  /** The Playwright page, for what the commands do not cover (screenshots, tests). */
  page(): Page {
    return this.#executor.page(this.id);
  }

  /** Closes the tab and records it (once; closing again does nothing). */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#executor.closeSession(this.id);
    unwrap(await this.#manager.dispatch({ type: 'browser:session_close', payload: { id: this.id } }));
    this.#closed = true;
    this.#onClose();
  }

  #action(name: CommandAction, trust: Trust): Action {
    const input = BROWSER_COMMAND_INPUTS[name] as z.ZodType<Record<string, string>>;
    return defineAction({
      name,
      description: BROWSER_COMMAND_DESCRIPTIONS[name],
      input,
      trust,
      // Reading the page again does no harm; a click or a typed text done twice might.
      repeatable: name === 'GET_DOM',
      run: (parameters: Record<string, string>) => this.execute({ action: name, parameters }),
      describe: (parameters: Record<string, string>): ApprovalDescription => ({
        type: 'tool_call',
        description: `${name} ${Object.values(parameters)
          .map((v) => JSON.stringify(v))
          .join(' ')}`.trim(),
        details: parameters,
        risk: name === 'CLICK_ELEMENT' || name === 'OPEN_PAGE' ? 'medium' : 'low',
      }),
      // The executor hid the secrets in the result already. The page after the command (a snapshot, or the changes since
      // the last one) is an observation, which prompts leave out once a newer one makes it obsolete (see resultObservation).
      render: (result: ExecutionResult) => renderResult(result, undefined, { snapshot: false, changes: false, brief: true }),
      observe: (result: ExecutionResult) => resultObservation(result, `browser:${this.id}`),
    }) as Action;
  }
}

/** What runs a browser task's agent: a worker on its session, as a run of `ws.runs`. */
export interface BrowserAgent {
  worker: (options: WorkerOptions) => Worker;
  runs: () => RunService;
}

/** A running Chromium serving one workspace's browser sessions. */
export class LaunchedBrowser {
  readonly executor: BrowserExecutor;
  readonly #manager: WorkspaceManager;
  readonly #sessions: SessionManager;
  readonly #agent: BrowserAgent;
  readonly #open = new Set<BrowserSession>();
  readonly #opening = new Set<string>();
  readonly #onClose: () => void;

  /** Use `ws.browser.launch(...)`. */
  constructor(manager: WorkspaceManager, sessions: SessionManager, agent: BrowserAgent, executor: BrowserExecutor, onClose: () => void = () => undefined) {
    this.#manager = manager;
    this.#sessions = sessions;
    this.#agent = agent;
    this.executor = executor;
    this.#onClose = onClose;
  }

  /** The ids of the browser sessions open now (and being opened). */
  openSessions(): string[] {
    return [...this.#opening, ...[...this.#open].map((tab) => tab.id)];
  }

  /** Opens a browser session for a Golem session (recorded as `browser:session_open`). */
  async open(options: {
    session: Session | string;
    secrets?: Readonly<Record<string, string>>;
    trust?: Partial<Record<CommandAction, Trust>>;
  }): Promise<BrowserSession> {
    const sessionId = typeof options.session === 'string' ? options.session : options.session.id;
    const record = unwrap(await this.#manager.dispatch({ type: 'browser:session_open', payload: { sessionId } }));
    this.#opening.add(record.id);
    try {
      await this.executor.createSession({ id: record.id, ...(options.secrets !== undefined && { secrets: options.secrets }) });
    } catch (error) {
      // Recorded as closed again; the error that matters is the one thrown.
      await this.#manager.dispatch({ type: 'browser:session_close', payload: { id: record.id } }).catch(() => undefined);
      throw error;
    } finally {
      this.#opening.delete(record.id);
    }
    const session: BrowserSession = new BrowserSession(this.#manager, this.executor, record, options, () => this.#open.delete(session));
    this.#open.add(session);
    return session;
  }

  /**
   * The task loop (seed 002): opens a browser session, gives the model the goal, and runs
   * it in envelope mode (one decision, its reasoning and one command per step) until it
   * finishes, aborts or reaches the step limit (default 25). The browser session is closed
   * at the end; the session, its transcript and its variables stay in the workspace.
   */
  async runTask(options: BrowserTaskOptions): Promise<BrowserTaskResult> {
    const { goal, session: given, secrets, actions = [], signal, instructions, ...workerOptions } = options;
    const session = given ?? (await this.#sessions.create({ label: goal.slice(0, 80) }));
    // A run of the session like any other (ws.runs): one at a time, listed, cancellable from any process.
    const claim = await this.#agent
      .runs()
      .claim(session.id, { by: `a browser task, pid ${process.pid}`, resumable: false, ...(signal !== undefined && { signal }) });
    let tab: BrowserSession;
    try {
      tab = await this.open({ session, ...(secrets !== undefined && { secrets }) });
    } catch (error) {
      await claim.drop();
      throw error;
    }
    try {
      const worker = this.#agent.worker({
        maxSteps: 25,
        ...workerOptions,
        session,
        mode: 'envelope',
        actions: [...tab.actions, ...actions],
        instructions: [instructions, browserInstructions(secrets)].filter((x) => x !== undefined).join('\n\n'),
        envelope: { security: this.executor.security, ...workerOptions.envelope },
      });
      const ended = await claim.run(({ signal: stop }) => worker.run(goal, { signal: stop })).done;
      if (ended.outcome === undefined) throw ended.error ?? new GolemError('INTERNAL', 'the browser task ended without an outcome');
      const outcome = ended.outcome;
      const variables = tab.variables();
      await tab.close();
      return { outcome, session, browserSessionId: tab.id, variables };
    } catch (error) {
      // The run's own error is the one to see; closing is tried, quietly.
      await tab.close().catch(() => undefined);
      throw error;
    }
  }

  /** Closes every session and Chromium. */
  async close(): Promise<void> {
    for (const tab of [...this.#open]) await tab.close().catch(() => undefined);
    this.#open.clear();
    this.#onClose();
    await this.executor.close();
  }
}

/** `ws.browser`: launch Chromium for this workspace; read its browser sessions and variables. */
export class BrowserApi {
  readonly #manager: WorkspaceManager;
  readonly #browsers = new Set<LaunchedBrowser>();
  readonly #sessions: SessionManager;
  readonly #agent: BrowserAgent;

  constructor(manager: WorkspaceManager, sessions: SessionManager, agent: BrowserAgent) {
    this.#manager = manager;
    this.#sessions = sessions;
    this.#agent = agent;
  }

  /**
   * Starts Chromium (playwright-core is loaded now, not before). BROWSER_UNAVAILABLE when
   * it cannot. The workspace closes the browsers it launched when it closes.
   */
  async launch(options: ExecutorOptions = {}): Promise<LaunchedBrowser> {
    const browser: LaunchedBrowser = new LaunchedBrowser(this.#manager, this.#sessions, this.#agent, await BrowserExecutor.launch(options), () =>
      this.#browsers.delete(browser),
    );
    this.#browsers.add(browser);
    return browser;
  }

  /**
   * Records as closed the browser sessions recorded as open that no browser of this
   * workspace object holds: those a process left open when it ended without closing them.
   * Call it when no other process works in the workspace (their open sessions would be
   * counted too). Returns the ids closed.
   */
  async closeOrphans(): Promise<string[]> {
    const live = new Set([...this.#browsers].flatMap((b) => b.openSessions()));
    const closed: string[] = [];
    for (const record of browserSessions(this.#manager.workspace())) {
      if (record.status !== 'open' || live.has(record.id)) continue;
      unwrap(await this.#manager.dispatch({ type: 'browser:session_close', payload: { id: record.id } }));
      closed.push(record.id);
    }
    return closed;
  }

  /** How many browsers of this workspace are running. */
  get launched(): number {
    return this.#browsers.size;
  }

  /** Closes every browser this workspace launched (the workspace's close does this). */
  async closeAll(): Promise<void> {
    for (const browser of [...this.#browsers]) await browser.close();
  }

  /** The variables saved for a Golem session. */
  variables(sessionId: string): Record<string, string> {
    return browserVariables(this.#manager.workspace(), sessionId);
  }

  /** The browser sessions recorded (for one Golem session, when given). */
  sessions(sessionId?: string): BrowserSessionRecord[] {
    return browserSessions(this.#manager.workspace(), sessionId);
  }
}

/** What the model is told about the browser, beyond the commands' own descriptions. */
export function browserInstructions(secrets?: Readonly<Record<string, string>>): string {
  const names = Object.keys(secrets ?? {});
  return [
    'You control a browser tab.',
    ...(names.length > 0
      ? [`Secrets: ${names.map((n) => `\${${n}}`).join(', ')}. Write one in INPUT_TEXT's text and it is filled in for you; you never see its value.`]
      : []),
  ].join('\n');
}

/**
 * The page a result shows, as an observation of the tab: a whole snapshot makes every older
 * one obsolete, and the changes read against them. Page 2 of a snapshot, a query's matches and
 * the changes after an action are views: obsolete once a whole snapshot follows, or a newer one
 * of the same view (page 2 again, the same query); asking for page 2 keeps page 1 in the prompt,
 * and changes stay until a whole snapshot follows.
 */
export function resultObservation(result: ExecutionResult, key: string): Observation | undefined {
  if (result.changes !== undefined) return { key, text: result.changes.text, view: `changes ${result.changes.id}` };
  const snapshot = result.snapshot;
  if (snapshot === undefined) return undefined;
  const page = snapshot.page.number > 1 ? `page ${snapshot.page.number}` : undefined;
  if (snapshot.query !== undefined) {
    const words = snapshot.query.toLowerCase().split(/\s+/).join(' ');
    return { key, text: snapshot.text, view: `query ${JSON.stringify(words)}${page === undefined ? '' : ` ${page}`}` };
  }
  return { key, text: snapshot.text, ...(page !== undefined && { view: page }) };
}

/**
 * A result as the model reads it: what happened, the page after it (its snapshot, unless
 * `snapshot: false`; its changes, unless `changes: false`). `brief` is for a prompt that has already said which command ran and
 * whether it succeeded (envelope mode's "Result of CLICK_ELEMENT: done"): the success line
 * and the timing, which the model has no use for, are left out.
 */
export function renderResult(
  result: ExecutionResult,
  secrets?: Readonly<Record<string, string>>,
  options: { snapshot?: boolean; changes?: boolean; brief?: boolean } = {},
): string {
  const brief = options.brief === true;
  const status = result.success
    ? `${result.action} succeeded`
    : `${result.action} failed [${result.error?.code ?? 'BROWSER_ERROR'}]: ${result.error?.message ?? ''}`;
  const lines = brief
    ? result.success
      ? []
      : [`[${result.error?.code ?? 'BROWSER_ERROR'}] ${result.error?.message ?? ''}`]
    : [`${status} (${result.timing.durationMs} ms)`];
  // Brief: a line a field, a text as it is unless it would read as something else (quotes, blank ends, line breaks).
  const plain = (v: string) => v !== '' && !/^["\s]|\s$|[\n\r\u2028\u2029\u0085]/.test(v);
  const data = Object.entries(result.data).map(([k, v]) => `${k}: ${typeof v === 'string' && brief && plain(v) ? v : JSON.stringify(v)}`);
  if (data.length > 0) lines.push(...(brief ? data : [data.join(', ')]));
  // The snapshot's (or the changes') first line names the page; without either, a line does.
  if (result.changes !== undefined) {
    if (options.changes !== false) lines.push(result.changes.text);
  }
  // SAVE_VARIABLE reads and never leaves the page: in brief, its success says nothing of where the tab is.
  else if (result.snapshot === undefined) {
    if (!(brief && result.success && result.action === 'SAVE_VARIABLE')) lines.push(`Page: ${result.page.title || '(no title)'} (${result.page.url})`);
  } else if (options.snapshot !== false) lines.push(result.snapshot.text);
  return redactSecrets(lines.join('\n'), secrets);
}

function failure(action: string, error: GolemError, page: ExecutionResult['page']): ExecutionResult {
  return {
    success: false,
    action,
    data: {},
    page,
    timing: { startedAt: new Date().toISOString(), durationMs: 0 },
    error: { code: error.code, message: error.message },
  };
}
