/**
 * The Worker: the agent loop on a session (ARCHITECTURE.md, "The agent loop"). Each step
 * builds the prompt (with every mounted environment's context), streams the model,
 * records its answer, and for each action it asked for: validates the input, applies the
 * trust policy (run, ask the user, or stage for clearance; seed 003), runs it, and
 * records the result at once. It goes on until the model stops asking, a step limit, a
 * question (sub-workers), a pause for an approval nobody can answer now, or cancellation.
 *
 * Everything a run needs to go on is in the workspace: `run()` without input resumes an
 * interrupted run, performing only the calls that have no result yet (a pending approval
 * is asked again, a sub-worker is resumed, not restarted).
 */
import { z } from 'zod';
import type { ContentBlock, JsonValue } from '../core/blocks.js';
import { GolemError, toGolemError, unwrap } from '../core/errors.js';
import type { Environment } from '../environment/environment.js';
import type { AIResponse } from '../protocol/types.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { RespondOptions } from '../prompt/respond.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Turn } from '../core/records.js';
import type { Session } from '../prompt/session.js';
import type { SessionManager } from '../prompt/session-manager.js';
import { defineAction, type Action, type ActionContext, type Observation, type Trust } from '../action/action.js';
import { callFingerprint, findApproval, recordsOf, startedCall, type ApprovalRecord, type ClearanceRecord, type WorkerRecord } from './agent-plugin.js';
import type { GitStaging } from '../project/git-staging.js';
import { answerOf } from './agent-api.js';
import { clearanceItems, toClearanceItem } from './clearance.js';
import { StagedProject } from './staged-project.js';
import { Envelope, invalidResponseMessage, type EnvelopeOptions } from './envelope.js';
import { extractInstructions } from './text-instructions.js';
import { decide } from './trust.js';
import type { ApprovalResult, UIAdapter, WorkerEvent, WorkerInfo } from './ui-adapter.js';
import { askParentAction, rootInstructions, spawnWorkerAction, subWorkerInstructions, taskMessage, type SpawnInput, type SubWorkerReport, type SubWorkerWaiting } from './worker-tree.js';

/**
 * How actions are offered to the model: as native tool calls, as JSON instructions in its
 * text (seed 000), or as the one command of a structured response (seed 002's envelope:
 * decision, reasoning, command).
 */
export type ActionMode = 'tools' | 'text' | 'envelope';

export interface WorkerOptions extends Omit<RespondOptions, 'model' | 'tools' | 'signal' | 'systemSections'> {
  session: Session;
  model: ModelAdapter;
  environments?: Environment[];
  actions?: Action[];
  /** Default 'tools'. */
  mode?: ActionMode;
  /** Envelope mode's schema, validation and retry limit. */
  envelope?: EnvelopeOptions;
  /** Model calls at most per run, per worker (default 12). */
  maxSteps?: number;
  /** Put first in the system prompt (e.g. who the assistant is). */
  instructions?: string;
  /**
   * The user interface: approvals are asked through it and the tree's work is shown on
   * it. Without one (and without `requestApproval`), a supervised call pauses the run
   * (status 'paused') until the approval is answered in the workspace and `run()` resumes.
   */
  ui?: UIAdapter;
  /** Asks the user to approve a call (default: `ui.requestApproval`). */
  requestApproval?: (request: Parameters<UIAdapter['requestApproval']>[0]) => Promise<ApprovalResult>;
  /** Sees the tree's work as it happens (default: `ui.onEvent`). */
  onEvent?: (event: WorkerEvent) => void;
  /**
   * The project the actions work on: `ctx.files` confined to `root`; manual file changes
   * are staged in git (the repository holding `root`, else a shadow repository in
   * `stagingDir`, default `<root>/.golem/staging.git`).
   */
  project?: { root: string; stagingDir?: string };
  /** Trust modes for this worker's actions, above their defaults (the workspace's and session's overrides win). */
  trust?: Readonly<Record<string, Trust>>;
  /** Offer `spawn_worker` (seed 003 worker tree), with a depth limit (default 4). Default: off. */
  subWorkers?: boolean | { maxDepth?: number };
}

/** How a run ended. */
export interface WorkerOutcome {
  /**
   * 'error': the model call failed, or (envelope mode) kept answering outside the schema;
   * the error is here, and what was done before it stands. 'question': a sub-worker asked
   * its parent (`question`). 'paused': a supervised call waits for `approval` and there is
   * nobody to ask now. 'failed': (envelope mode) the model decided ABORT. 'aborted': the
   * caller's signal stopped the run.
   */
  status: 'done' | 'step_limit' | 'aborted' | 'error' | 'question' | 'paused' | 'failed';
  /** Envelope mode: the model's last decision (its message is the answer, or why it gave up). */
  decision?: AIResponse['decision'];
  error?: GolemError;
  question?: string;
  approval?: ApprovalRecord;
  /** Model calls made. */
  steps: number;
  /** Actions run (or refused), in order. */
  actions: { name: string; input: JsonValue; ok: boolean }[];
  /** The last assistant turn. */
  turn: Turn | undefined;
}

/** One result of one requested action, as it goes back to the model. */
interface ActionOutcome {
  name: string;
  input: JsonValue;
  ok: boolean;
  output: JsonValue;
  /** The part of the output a newer observation supersedes (it ends `output` too); `summary` is the rest. */
  observation?: Observation & { summary: string };
  /** It made or changed a clearance item. */
  staged?: boolean;
  /** The run ends after this call: a question for the parent, or a pause for an approval. */
  stop?: { status: 'question'; question: string } | { status: 'paused'; approval: ApprovalRecord };
}

interface Call {
  /** The answer (turn version) that made the call. */
  turnId: string;
  turnVersion: number;
  callId: string;
  name: string;
  input: JsonValue;
}

/** A worker's place in the tree (internal: sub-workers are made by `spawn_worker`). */
interface TreePosition {
  path: WorkerInfo[];
  rootSessionId: string;
  /** Shared by the whole tree. */
  shared: { staging?: Promise<GitStaging> };
}

export class Worker {
  readonly session: Session;
  readonly #manager: WorkspaceManager;
  readonly #options: WorkerOptions;
  readonly #actions = new Map<string, Action>();
  readonly #environments: Environment[];
  readonly #position: TreePosition;
  readonly #maxDepth: number;
  /** The project's files, staged in manual mode (none without a project). */
  readonly #project: StagedProject | undefined;
  readonly #sessions: SessionManager | undefined;
  readonly #envelope: Envelope | undefined;

  /** Use `ws.worker(options)`; `sessions` lets it open its sub-workers' sessions. */
  constructor(manager: WorkspaceManager, options: WorkerOptions, internals: { sessions?: SessionManager; position?: TreePosition } = {}) {
    const { position } = internals;
    this.#sessions = internals.sessions;
    this.#manager = manager;
    this.#options = options;
    this.session = options.session;
    this.#environments = options.environments ?? [];
    this.#position = position ?? {
      path: [{ id: options.session.id, depth: 0, task: options.session.label ?? 'chat' }],
      rootSessionId: options.session.id,
      shared: {},
    };
    const sub = options.subWorkers;
    this.#maxDepth = sub === undefined || sub === false ? 0 : sub === true ? 4 : (sub.maxDepth ?? 4);
    this.#project =
      options.project === undefined ? undefined : new StagedProject(manager, options.project, { rootSessionId: this.#position.rootSessionId, workerId: this.session.id, shared: this.#position.shared });
    const ids = this.#environments.map((e) => e.info.id);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined) throw new GolemError('INVALID_ARGUMENT', `two environments have the id "${twice}"; give each its own (their values are kept under it)`);
    if (this.#maxDepth > 0 && this.#sessions === undefined) throw new GolemError('INVALID_ARGUMENT', 'sub-workers need the workspace: create the worker with ws.worker(options)');
    const tree = [...(this.#maxDepth > 0 ? [spawnWorkerAction((input, ctx) => this.#spawn(input, ctx))] : []), ...(this.depth > 0 ? [askParentAction] : [])];
    for (const action of [...this.#environmentActions(), ...(options.actions ?? []), ...tree]) {
      if (this.#actions.has(action.name)) throw new GolemError('INVALID_ARGUMENT', `two actions are named "${action.name}"`);
      this.#actions.set(action.name, action);
    }
    this.#envelope = options.mode === 'envelope' ? new Envelope(this.actions, options.envelope) : undefined;
  }

  /** 0 for the root worker, the number of ancestors for a sub-worker. */
  get depth(): number {
    return this.#position.path.length - 1;
  }

  /** This worker as the user is shown it. */
  get info(): WorkerInfo {
    return this.#path().at(-1) as WorkerInfo;
  }

  /** [root, ..., this worker]; the root's task is its session's label as it is now. */
  #path(): WorkerInfo[] {
    const [root, ...rest] = this.#position.path as [WorkerInfo, ...WorkerInfo[]];
    if (this.depth > 0) return this.#position.path;
    return [{ ...root, task: this.session.record().label ?? 'chat' }, ...rest];
  }

  /** The actions the model is offered. */
  get actions(): Action[] {
    return [...this.#actions.values()];
  }

  /** True when the last answer's calls did not all get a result (the run was stopped): `run()` without input resumes it. */
  interrupted(): boolean {
    const pending = this.#pending(this.#options.mode ?? 'tools');
    return pending !== undefined && pending !== 'answered';
  }

  #mounted: Promise<void> | undefined;

  /** Mounts the environments on the workspace (once; `run` does it first): their stored values load, their changes persist. */
  mount(): Promise<void> {
    this.#mounted ??= this.#mount();
    return this.#mounted;
  }

  async #mount(): Promise<void> {
    for (const environment of this.#environments) await environment.mount?.(this.#manager);
  }

  /**
   * Runs the loop: adds `input` as a user turn (if given), then steps until the model
   * asks for nothing more, `maxSteps` model calls, a question, a pause, or `signal`
   * aborts. Without input it resumes: calls of the last answer that have no result yet
   * are performed first.
   */
  async run(input?: string | ContentBlock[], options: { signal?: AbortSignal } = {}): Promise<WorkerOutcome> {
    if (this.depth > 0) return this.#run(input, options);
    // The root's run is shown as a whole too (a sub-worker's start and end are shown by its parent).
    this.#emit({ type: 'worker-start', worker: this.info, parent: null });
    const outcome = await this.#run(input, options);
    const status = outcome.status === 'error' || outcome.status === 'aborted' || outcome.status === 'failed' ? 'failed' : 'done';
    this.#emit({ type: 'worker-end', worker: this.info, status, text: outcome.status === 'done' || outcome.status === 'failed' ? answerText(outcome) : '' });
    return outcome;
  }

  async #run(input: string | ContentBlock[] | undefined, options: { signal?: AbortSignal }): Promise<WorkerOutcome> {
    const { signal } = options;
    const aborted = () => signal?.aborted === true; // read afresh: it changes while actions run
    await this.mount();
    if (input !== undefined) {
      const blocks = typeof input === 'string' ? [{ type: 'text' as const, text: input }] : input;
      await this.session.addTurn({ role: 'user', blocks });
    }
    const mode = this.#options.mode ?? 'tools';
    const maxSteps = this.#options.maxSteps ?? 12;
    const outcome: WorkerOutcome = { status: 'done', steps: 0, actions: [], turn: undefined };
    let invalid = 0;
    for (;;) {
      if (aborted()) return { ...outcome, status: 'aborted' };
      const pending = this.#pending(mode);
      if (pending === 'answered') return this.#finish(outcome);
      if (pending !== undefined) {
        outcome.turn ??= pending.turn;
        if (this.#envelope !== undefined) {
          // An answer outside the schema goes back with its errors, a few times in a row at most.
          invalid = pending.calls.length === 0 ? invalid + 1 : 0;
          if (invalid > this.#envelope.maxInvalidResponses) {
            const error = new GolemError('PROTOCOL_INVALID_RESPONSE', `the model answered ${invalid} times in a row with responses that do not follow the response schema:\n${pending.errors.join('\n')}`, {
              details: { errors: pending.errors },
            });
            return { ...outcome, status: 'error', error };
          }
        }
        const stop = await this.#performAll(mode, pending, outcome, signal);
        if (stop !== undefined) return { ...outcome, status: stop.status, ...(stop.status === 'question' ? { question: stop.question } : { approval: stop.approval }) };
        if (aborted()) return { ...outcome, status: 'aborted' };
        continue;
      }
      if (outcome.steps >= maxSteps) return { ...outcome, status: 'step_limit' };
      outcome.steps++;
      try {
        outcome.turn = await this.#respond(mode, signal);
      } catch (error) {
        const failure = toGolemError(error, 'MODEL_ERROR');
        if (failure.code === 'MODEL_ABORTED') return { ...outcome, status: 'aborted' };
        return { ...outcome, status: 'error', error: failure };
      }
      const requested = this.#requests(mode, outcome.turn);
      this.#emit({ type: 'step', worker: this.info, step: outcome.steps, turn: outcome.turn, requested: requested.calls.length });
    }
  }

  /** One model call, its text streamed to `onEvent`. */
  async #respond(mode: ActionMode, signal: AbortSignal | undefined): Promise<Turn> {
    const {
      session: _s, environments: _e, actions: _a, mode: _m, maxSteps: _x, instructions, ui: _u, requestApproval: _r, onEvent: _o, project: _p, trust: _t, subWorkers: _w, envelope: _v,
      ...respondOptions
    } = this.#options;
    const envelope = this.#envelope;
    const format = envelope?.responseFormat();
    const tree = this.depth > 0 ? [subWorkerInstructions(this.#position.path, this.#actions.has('spawn_worker'))] : this.#maxDepth > 0 ? [rootInstructions(this.#maxDepth)] : [];
    const turn = await this.session.respond({
        ...respondOptions,
        ...(mode === 'tools' && this.#actions.size > 0 && { tools: this.actions.map((a) => a.toTool()) }),
        ...(format !== undefined && {
          responseFormat: format,
          // The envelope has optional fields, which OpenAI's strict mode does not take: its schema guides, validation decides.
          providerOptions: { ...respondOptions.providerOptions, openai: { strictJsonSchema: false, ...respondOptions.providerOptions?.openai } },
        }),
        systemSections: [...(instructions === undefined ? [] : [instructions]), ...tree, ...(envelope === undefined ? [] : [envelope.instructions()]), ...this.#environments.map((e) => e.renderContext())],
        ...(signal !== undefined && { signal }),
        onPart: (part) => {
          if (part.type === 'text-delta') this.#emit({ type: 'text-delta', worker: this.info, text: part.text });
        },
      });
      this.#emit({ type: 'answer', worker: this.info, turnId: turn.id, version: turn.version });
      return turn;
  }

  /**
   * The calls of the last answer still waiting for a result; 'answered' when that answer
   * asked for nothing and is the head; undefined when the model is next.
   */
  #pending(mode: ActionMode): { turn: Turn; calls: Call[]; errors: string[] } | 'answered' | undefined {
    const view = this.#manager.workspace();
    const head = this.session.record().head;
    let turn = head === null ? undefined : view.turn(head);
    const answered = new Set<string>();
    // Results (and, in tools mode, system notes such as a clearance decision) may follow the answer.
    while (turn !== undefined && (turn.role === 'tool' || (turn.role === 'system' && mode === 'tools'))) {
      for (const b of turn.blocks) if (b.type === 'tool_result') answered.add(b.callId);
      turn = turn.parent === null ? undefined : view.turn(turn.parent);
    }
    if (turn?.role !== 'assistant') return undefined;
    const isHead = head !== null && head.id === turn.id && head.version === turn.version;
    const requested = this.#requests(mode, turn);
    if (requested.calls.length === 0 && requested.errors.length === 0) return isHead ? 'answered' : undefined;
    const calls = requested.calls.filter((c) => !answered.has(c.callId));
    if (mode === 'tools') return calls.length === 0 ? undefined : { turn, calls, errors: [] };
    return isHead ? { turn, calls, errors: requested.errors } : undefined;
  }

  /** Performs the pending calls in order, recording each result as it comes (tools) or all together (text). */
  async #performAll(mode: ActionMode, pending: { calls: Call[]; errors: string[] }, outcome: WorkerOutcome, signal: AbortSignal | undefined): Promise<ActionOutcome['stop']> {
    const results: ActionOutcome[] = [];
    let stop: ActionOutcome['stop'];
    const seen = new Set<string>();
    for (const call of pending.calls) {
      let result: ActionOutcome;
      const repeated = seen.has(call.callId);
      seen.add(call.callId);
      if (repeated) {
        // One id, one call: a copy is not run (one approval must not run a call once per copy).
        result = { name: call.name, input: call.input, ok: false, output: `Not run: an earlier call of your answer has the same id (${call.callId}), so this one was taken for a copy of it; call it again if you meant it to run twice.` };
      } else if (signal?.aborted === true) {
        // Cancelled: the calls not yet run are answered as such, so the history stays whole.
        result = { name: call.name, input: call.input, ok: false, output: 'Not run: the user stopped the run.' };
      } else if (stop !== undefined) {
        result = { name: call.name, input: call.input, ok: false, output: 'Not run: your run ended with your question.' };
      } else {
        result = await this.#perform(call, signal);
        if (result.stop?.status === 'paused') return result.stop; // no result yet: the call waits for its approval
        stop = result.stop;
        outcome.actions.push({ name: result.name, input: result.input, ok: result.ok });
        this.#emit({ type: 'action', worker: this.info, name: result.name, input: result.input, ok: result.ok, output: result.output });
        if (result.staged === true) this.#notifyClearance();
      }
      if (mode === 'tools') await this.#recordResult(call.callId, result);
      else results.push(result);
    }
    if (mode === 'text') await this.#recordTextResults(results, pending.errors);
    if (mode === 'envelope') await this.#recordEnvelopeResult(results[0], pending.errors);
    return stop;
  }

  /** Validates one call, applies the trust policy and runs it. Every failure becomes a result the model reads; nothing throws. */
  async #perform(call: Call, signal: AbortSignal | undefined): Promise<ActionOutcome> {
    const { name, input } = call;
    const action = this.#actions.get(name);
    if (action === undefined) {
      return { name, input, ok: false, output: `Unknown action "${name}". The actions are: ${[...this.#actions.keys()].join(', ') || '(none)'}` };
    }
    const valid = action.validate(input);
    if (!valid.ok) return { name, input, ok: false, output: valid.error.message };
    try {
      // Started before the process ended, never answered: whether it took effect is unknown, and running it again could do it twice.
      if (!action.repeatable && startedCall(this.#manager.workspace(), { id: call.turnId, version: call.turnVersion }, call.callId) !== undefined) {
        return {
          name,
          input,
          ok: false,
          output: `${name} was started, but the run stopped (its process ended) before its result was recorded, so whether it took effect is unknown. It was not run again: check its effect before you call it again.`,
        };
      }
      const decision = decide(this.#manager.workspace(), action, action.grantKey(valid.value), this.#position.rootSessionId, this.#options.trust);
      switch (decision.kind) {
        case 'run':
          return await this.#execute(action, call, valid.value, signal, true);
        case 'ask': {
          const answer = await this.#approve(action, call, valid.value, signal);
          if (answer.kind === 'paused') return { name, input, ok: false, output: 'Waiting for approval.', stop: { status: 'paused', approval: answer.approval } };
          if (answer.kind === 'denied') return { name, input, ok: false, output: answer.message };
          return await this.#execute(action, call, valid.value, signal, true);
        }
        case 'stage':
          return await this.#stage(action, call, valid.value, signal);
        case 'defer':
          return await this.#defer(action, call);
      }
    } catch (error) {
      const e = toGolemError(error);
      return { name, input, ok: false, output: `${name} failed: ${e.message}` };
    }
  }

  /** Runs a call; `direct`: its effects are real (not on a staging view), so a call that is not repeatable is marked started first. */
  async #execute(action: Action, call: Call, input: unknown, signal: AbortSignal | undefined, direct: boolean, files = this.#project?.files()): Promise<ActionOutcome> {
    const ctx: ActionContext = { callId: call.callId, ...(signal !== undefined && { signal }), ...(files !== undefined && { files }) };
    try {
      if (direct && !action.repeatable) {
        unwrap(await this.#manager.dispatch({ type: 'call:start', payload: { sessionId: this.session.id, turn: { id: call.turnId, version: call.turnVersion }, callId: call.callId, action: action.name } }));
      }
      const output = await action.run(input, ctx);
      const end = action.endsRun?.(output);
      if (end?.type === 'paused') {
        const approval = recordsOf<ApprovalRecord>(this.#manager.workspace(), 'approval').find((a) => a.id === end.approvalId);
        if (approval === undefined) throw new GolemError('APPROVAL_NOT_FOUND', `no approval "${end.approvalId}" to wait for`);
        return { name: call.name, input: call.input, ok: false, output: 'Waiting for approval.', stop: { status: 'paused', approval } };
      }
      const stop = end === undefined ? {} : { stop: { status: 'question' as const, question: end.question } };
      const failed = typeof output === 'object' && output !== null && 'success' in output && (output as { success: unknown }).success === false;
      const rendered = action.render === undefined ? toJson(output) : action.render(output);
      const seen = action.observe?.(output);
      if (seen === undefined || typeof rendered !== 'string') return { name: call.name, input: call.input, ok: !failed, output: rendered, ...stop };
      return { name: call.name, input: call.input, ok: !failed, output: `${rendered}\n${seen.text}`, observation: { ...seen, summary: rendered }, ...stop };
    } catch (error) {
      const e = toGolemError(error);
      return { name: call.name, input: call.input, ok: false, output: `${call.name} failed: ${e.message}` };
    }
  }

  /**
   * Asks for approval of one supervised call. The approval is workspace state, bound to
   * this call (action and input): asked once, answered once, found again on resume.
   */
  async #approve(action: Action, call: Call, input: unknown, signal: AbortSignal | undefined): Promise<{ kind: 'approved' } | { kind: 'denied'; message: string } | { kind: 'paused'; approval: ApprovalRecord }> {
    const description = action.describe(input);
    let approval = unwrap(
      await this.#manager.dispatch({
        type: 'approval:request',
        payload: {
          sessionId: this.session.id,
          turnId: call.turnId,
          callId: call.callId,
          action: action.name,
          input: call.input,
          grantKey: action.grantKey(input),
          type: description.type,
          description: description.description,
          details: toJson(description.details),
          risk: description.risk,
          workerPath: this.#path(),
        },
      }),
    );
    if (approval.status === 'pending') {
      const ask = this.#options.requestApproval ?? this.#options.ui?.requestApproval.bind(this.#options.ui);
      if (ask === undefined) {
        // Text mode records a step's results together, so it cannot pause mid-step without repeating calls on resume.
        if ((this.#options.mode ?? 'tools') === 'text') return { kind: 'denied', message: `Not run: ${action.name} needs the user's approval and nobody can be asked now (approval ${approval.id} waits).` };
        return { kind: 'paused', approval };
      }
      const result = await untilAborted(
        ask({ id: approval.id, type: approval.type, description: approval.description, details: approval.details, risk: approval.risk, workerPath: approval.workerPath }),
        signal,
      );
      const answer = result === undefined ? { answer: 'no' as const, reason: 'the user stopped the run' } : answerOf(result);
      const answered = await this.#manager.dispatch({ type: 'approval:answer', payload: { id: approval.id, ...answer, fingerprint: approval.fingerprint } });
      if (answered.ok) approval = answered.value;
      else if (answered.error.code === 'APPROVAL_ANSWERED') approval = findApproval(this.#manager.workspace(), this.session.id, call.turnId, call.callId) ?? approval;
      else throw answered.error;
    }
    if (approval.fingerprint !== callFingerprint(action.name, call.input)) {
      return { kind: 'denied', message: `Not run: the approval on record was given for a different call of ${action.name}.` };
    }
    if (approval.status === 'denied') {
      return { kind: 'denied', message: `The user declined ${action.name}${approval.reason === null ? '.' : `: ${approval.reason}`}` };
    }
    return { kind: 'approved' };
  }

  /** Manual mode, file changes: runs the action on a staging view; its changes join the conversation's open staged commit. */
  async #stage(action: Action, call: Call, input: unknown, signal: AbortSignal | undefined): Promise<ActionOutcome> {
    const project = this.#project;
    if (project === undefined) return { name: call.name, input: call.input, ok: false, output: `${call.name} needs a project to stage its changes in, and this worker has none.` };
    return project.stage(call.name, (view) => this.#execute(action, call, input, signal, false, view));
  }

  /** Manual mode, other actions: the call itself waits for the user to run (push) or discard it. */
  async #defer(action: Action, call: Call): Promise<ActionOutcome> {
    // Staged before the process ended, not yet answered: the same item, not a second one.
    const earlier = recordsOf<ClearanceRecord>(this.#manager.workspace(), 'clearance').find((c) => c.type === 'pending_export' && c.workerId === this.session.id && c.metadata.turnId === call.turnId && c.metadata.turnVersion === call.turnVersion && c.metadata.callId === call.callId);
    const item = earlier ?? unwrap(
      await this.#manager.dispatch({
        type: 'clearance:stage',
        payload: {
          type: 'pending_export',
          description: `Run ${action.name} ${JSON.stringify(call.input).slice(0, 200)}`,
          sessionId: this.#position.rootSessionId,
          workerId: this.session.id,
          metadata: { action: action.name, input: call.input, turnId: call.turnId, turnVersion: call.turnVersion, callId: call.callId, ...(this.#project !== undefined && { root: this.#project.disk.root }) },
        },
      }),
    );
    return {
      name: call.name,
      input: call.input,
      ok: true,
      staged: true,
      output: { staged: true, clearanceId: item.id, note: `${action.name} is manual: only the user can run it. It waits as clearance item ${item.id}; you will be told what the user decides.` },
    };
  }

  #notifyClearance(): void {
    const items = clearanceItems(this.#manager.workspace(), { sessionId: this.#position.rootSessionId });
    this.#options.ui?.notifyClearancePending(items.map(toClearanceItem));
  }

  /** `spawn_worker`: starts (or resumes, or reports) the sub-worker linked to this call. */
  async #spawn(input: SpawnInput, ctx: ActionContext): Promise<SubWorkerReport | SubWorkerWaiting> {
    const callId = ctx.callId ?? this.#manager.newId();
    const view = this.#manager.workspace();
    const workers = recordsOf<WorkerRecord>(view, 'worker');
    let record = workers.find((w) => w.parentSessionId === this.session.id && w.parentCallId === callId);
    let prior: { worker: string; task: string; result: string }[] = [];
    if (record === undefined) {
      const names = input.actions ?? [...this.#actions.keys()].filter((n) => n !== 'ask_parent');
      const unknown = names.filter((n) => !this.#actions.has(n) || n === 'ask_parent');
      if (unknown.length > 0) throw new GolemError('INVALID_ARGUMENT', `no action${unknown.length > 1 ? 's' : ''} named ${unknown.join(', ')} to give; yours are ${[...this.#actions.keys()].join(', ')}`);
      prior = this.#priorResults(workers, input.include_results);
      record = unwrap(
        await this.#manager.dispatch({
          type: 'worker:spawn',
          payload: { parentSessionId: this.session.id, parentCallId: callId, task: input.task, actions: names, reinvokes: input.reinvoke ?? null, maxDepth: this.#maxDepth },
        }),
      );
    } else if (record.status !== 'running') {
      return reportOf(record);
    }
    const child = this.#child(record);
    // The progress line first, then the worker's box (so the line stands outside it).
    this.#options.ui?.showProgress({ id: record.id, description: record.task, depth: record.depth, status: 'running' });
    this.#emit({ type: 'worker-start', worker: child.info, parent: this.info });
    const empty = child.session.record().head === null;
    const outcome = await child.run(empty ? taskMessage(record.task, prior) : undefined, ctx.signal === undefined ? {} : { signal: ctx.signal });
    // Waiting for an approval: the record stays 'running' and the call gets no result, so a later run resumes it.
    if (outcome.status === 'paused' && outcome.approval !== undefined) return { worker: record.id, status: 'waiting', approvalId: outcome.approval.id };
    if (outcome.status === 'aborted') {
      await this.#manager.dispatch({ type: 'worker:finish', payload: { id: record.id, status: 'failed', result: 'stopped by the user' } });
      this.#emit({ type: 'worker-end', worker: child.info, status: 'failed', text: 'stopped by the user' });
      throw new GolemError('MODEL_ABORTED', 'the user stopped the sub-worker');
    }
    const finished =
      outcome.status === 'question'
        ? { status: 'question' as const, result: outcome.question ?? '' }
        : outcome.status === 'done'
          ? { status: 'done' as const, result: answerText(outcome) }
          : { status: 'failed' as const, result: outcome.status === 'step_limit' ? `it reached its step limit (${this.#options.maxSteps ?? 12} model calls) before finishing` : (outcome.error?.message ?? outcome.decision?.message ?? 'it failed') };
    record = unwrap(await this.#manager.dispatch({ type: 'worker:finish', payload: { id: record.id, ...finished } }));
    this.#emit({ type: 'worker-end', worker: child.info, status: finished.status, text: finished.result });
    this.#options.ui?.showProgress({ id: record.id, description: record.task, depth: record.depth, status: finished.status === 'done' ? 'complete' : finished.status === 'question' ? 'waiting' : 'failed' });
    return reportOf(record);
  }

  /** The results a new sub-worker gets: those asked for, else those of siblings finished since the parent's last user turn. */
  #priorResults(workers: readonly WorkerRecord[], ids: readonly string[] | undefined): { worker: string; task: string; result: string }[] {
    const siblings = workers.filter((w) => w.parentSessionId === this.session.id && w.status === 'done' && w.result !== null);
    let chosen: WorkerRecord[];
    if (ids !== undefined) {
      chosen = ids.map((id) => {
        const found = siblings.find((w) => w.id === id);
        if (found === undefined) throw new GolemError('INVALID_ARGUMENT', `no finished worker "${id}" of yours to take results from`);
        return found;
      });
    } else {
      const since = this.#lastUserTurnAt();
      chosen = siblings.filter((w) => w.createdAt >= since);
    }
    return chosen.map((w) => ({ worker: w.id, task: w.task, result: w.result ?? '' }));
  }

  #lastUserTurnAt(): string {
    const view = this.#manager.workspace();
    const head = this.session.record().head;
    for (let turn = head === null ? undefined : view.turn(head); turn !== undefined; turn = turn.parent === null ? undefined : view.turn(turn.parent)) {
      if (turn.role === 'user') return turn.createdAt;
    }
    return '';
  }

  /** The worker of a sub-worker record, with the actions it was given. */
  #child(record: WorkerRecord): Worker {
    const given = new Set(record.actions);
    const session = (this.#sessions as SessionManager).get(record.id);
    if (session === undefined) throw new GolemError('WORKER_NOT_FOUND', `the session of worker "${record.id}" is gone`);
    const environments = given.has('update_editable_status') ? this.#environments : [];
    const own = new Set(this.#environmentActions().map((a) => a.name));
    const actions = [...this.#actions.values()].filter((a) => given.has(a.name) && !own.has(a.name) && a.name !== 'spawn_worker' && a.name !== 'ask_parent');
    const { instructions: _i, ...options } = this.#options;
    return new Worker(
      this.#manager,
      { ...options, session, environments, actions, subWorkers: given.has('spawn_worker') ? { maxDepth: this.#maxDepth } : false },
      {
        sessions: this.#sessions as SessionManager,
        position: { path: [...this.#path(), { id: record.id, depth: record.depth, task: record.task }], rootSessionId: this.#position.rootSessionId, shared: this.#position.shared },
      },
    );
  }

  #emit(event: WorkerEvent): void {
    const listener = this.#options.onEvent ?? this.#options.ui?.onEvent?.bind(this.#options.ui);
    try {
      listener?.(event);
    } catch (error) {
      this.#manager.events.emit('listener:error', { type: `worker:${event.type}`, error });
    }
  }

  /** Records one call's result as a tool turn (so a resumed run knows it was done). */
  async #recordResult(callId: string, result: ActionOutcome): Promise<void> {
    await this.session.addTurn({
      role: 'tool',
      blocks: [
        {
          type: 'tool_result',
          callId,
          content: [{ type: 'text', text: typeof result.output === 'string' ? result.output : JSON.stringify(result.output) }],
          ...(!result.ok && { isError: true }),
        },
      ],
    });
  }

  /** Envelope mode: the command's result (or the answer's errors) as the next user turn. */
  async #recordEnvelopeResult(result: ActionOutcome | undefined, errors: readonly string[]): Promise<void> {
    if (result === undefined) {
      await this.session.addTurn({ role: 'user', blocks: [{ type: 'text', text: errors.join('\n') }], meta: { protocolErrors: true } });
      return;
    }
    const { observation } = result;
    const body = observation?.summary ?? (typeof result.output === 'string' ? result.output : JSON.stringify(result.output));
    // An observation (a page snapshot) goes in a block of its own, which prompts leave out once a newer one follows.
    await this.session.addTurn({
      role: 'user',
      blocks: [{ type: 'text', text: `Result of ${result.name}: ${result.ok ? 'done' : 'failed'}\n${body}` }, ...(observation === undefined ? [] : [{ type: 'text' as const, text: observation.text }])],
      meta: { commandResult: { name: result.name, ok: result.ok }, ...(observation !== undefined && { observation: { key: observation.key, block: 1 } }) },
    });
  }

  /** What an answer asks for: its tool calls, its text's instructions, or its envelope's command (with the reasons an envelope is invalid). */
  #requests(mode: ActionMode, turn: Turn): { calls: Call[]; errors: string[] } {
    if (mode === 'tools') return toolCalls(turn);
    if (mode === 'text') return textRequests(turn);
    const reading = (this.#envelope as Envelope).read(turn);
    if (reading.kind === 'invalid') return { calls: [], errors: [invalidResponseMessage(reading.errors)] };
    if (reading.kind === 'final') return { calls: [], errors: [] };
    return { calls: [{ turnId: turn.id, turnVersion: turn.version, callId: `${turn.id}#command`, name: reading.command.action, input: reading.command.parameters }], errors: [] };
  }

  /** The run's end once the model asks for nothing more: in envelope mode, its decision says how. */
  #finish(outcome: WorkerOutcome): WorkerOutcome {
    const head = this.session.record().head;
    const turn = head === null ? undefined : this.#manager.workspace().turn(head);
    if (this.#envelope === undefined || turn === undefined) return outcome;
    const reading = this.#envelope.read(turn);
    if (reading.kind !== 'final') return outcome;
    const { decision } = reading.response;
    return { ...outcome, turn: outcome.turn ?? turn, decision, status: decision.action === 'ABORT' ? 'failed' : 'done' };
  }

  /** Text mode: one user turn reporting every result. */
  async #recordTextResults(results: readonly ActionOutcome[], errors: readonly string[]): Promise<void> {
    const lines = [
      ...results.map((r) => `- ${r.name} ${JSON.stringify(r.input)} -> ${r.ok ? 'ok' : 'failed'}: ${typeof r.output === 'string' ? r.output : JSON.stringify(r.output)}`),
      ...errors.map((e) => `- could not read an instruction: ${e}`),
    ];
    await this.session.addTurn({ role: 'user', blocks: [{ type: 'text', text: `Results of your instructions:\n${lines.join('\n')}` }], meta: { instructionResults: true } });
  }

  /** `update_editable_status` for the mounted environments, and each environment's own actions. */
  #environmentActions(): Action[] {
    if (this.#environments.length === 0) return [];
    const byId = new Map(this.#environments.map((e) => [e.info.id, e]));
    const single = this.#environments.length === 1 ? this.#environments[0] : undefined;
    const update = defineAction({
      name: 'update_editable_status',
      // Sets a field to the value given: setting it again changes nothing.
      repeatable: true,
      description: `Sets an editable field of ${single === undefined ? 'an environment' : `the ${single.info.name}`} directly (see its context for the fields and their constraints).`,
      input: z.object({
        fieldName: z.string().min(1),
        // Models often write numbers and booleans unquoted: taken as the text they stand for.
        value: z.union([z.string(), z.number(), z.boolean()]).nullable(),
        ...(single === undefined && { environment: z.enum([...byId.keys()] as [string, ...string[]]) }),
      }),
      run: async (input: { fieldName: string; value: string | number | boolean | null; environment?: string | undefined }) => {
        const environment = single ?? byId.get(input.environment ?? '');
        if (environment === undefined) return { success: false, error: `no environment "${input.environment}"` };
        return environment.updateEditableStatus(input.fieldName, input.value === null ? null : String(input.value));
      },
    });
    const own = this.#environments.flatMap((e) => e.actions?.() ?? []);
    return [update as Action, ...own];
  }
}

function reportOf(record: WorkerRecord): SubWorkerReport {
  const text = record.result ?? '';
  if (record.status === 'question') {
    return {
      worker: record.id,
      status: 'question',
      question: text,
      next: `If you know the answer, call spawn_worker again with the clarified task and reinvoke: "${record.id}". Otherwise ask ${record.depth > 1 ? 'your parent (ask_parent)' : 'the user'}.`,
    };
  }
  if (record.status === 'done') return { worker: record.id, status: 'done', result: text };
  return { worker: record.id, status: 'failed', error: text };
}

/** The promise's value, or undefined as soon as the signal aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T | undefined> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** What a run answered: the envelope's final message, else the last answer's text. */
function answerText(outcome: WorkerOutcome): string {
  return outcome.decision?.message ?? finalText(outcome.turn);
}

function finalText(turn: Turn | undefined): string {
  return (turn?.blocks ?? []).flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n').trim() || '(no answer text)';
}

function toolCalls(turn: Turn): { calls: Call[]; errors: string[] } {
  return { calls: turn.blocks.flatMap((b) => (b.type === 'tool_use' ? [{ turnId: turn.id, turnVersion: turn.version, callId: b.callId, name: b.name, input: b.args }] : [])), errors: [] };
}

function textRequests(turn: Turn): { calls: Call[]; errors: string[] } {
  const text = turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  const { requests, errors } = extractInstructions(text);
  return {
    calls: requests.map((r, i) => ({ turnId: turn.id, turnVersion: turn.version, callId: `${turn.id}#${i}`, name: r.action, input: r.params })),
    errors: errors.map((e) => `${e.message}: ${e.snippet}`),
  };
}

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return typeof value === 'string' ? value : `(${typeof value} result that is not JSON)`;
  }
}
