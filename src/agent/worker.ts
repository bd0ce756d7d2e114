/**
 * The Worker: the agent loop on a session (ARCHITECTURE.md, "The agent loop"). Each step
 * builds the prompt (with every mounted environment's context), streams the model,
 * records its answer, validates and runs each action it asked for, records the results,
 * and goes on until the model stops asking, a step limit, or cancellation.
 */
import { z } from 'zod';
import type { ContentBlock, JsonValue } from '../content/blocks.js';
import { GolemError, toGolemError } from '../errors.js';
import type { Environment } from '../environment/environment.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { RespondOptions } from '../prompt/respond.js';
import type { WorkspaceManager } from '../workspace/manager.js';
import type { Turn } from '../workspace/records.js';
import type { Session } from '../workspace/session.js';
import { defineAction, type Action } from './action.js';
import { extractInstructions } from './text-instructions.js';

/** How actions are offered to the model: as native tool calls, or as JSON instructions in its text (seed 000). */
export type ActionMode = 'tools' | 'text';

export interface WorkerOptions extends Omit<RespondOptions, 'model' | 'tools' | 'signal' | 'systemSections'> {
  session: Session;
  model: ModelAdapter;
  environments?: Environment[];
  actions?: Action[];
  /** Default 'tools'. */
  mode?: ActionMode;
  /** Model calls at most per run (default 12). */
  maxSteps?: number;
}

/** How a run ended. */
export interface WorkerOutcome {
  /** 'error': the model call failed (the error is here; what was done before it stands). */
  status: 'done' | 'step_limit' | 'aborted' | 'error';
  error?: GolemError;
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
}

export class Worker {
  readonly session: Session;
  readonly #manager: WorkspaceManager;
  readonly #options: WorkerOptions;
  readonly #actions = new Map<string, Action>();
  readonly #environments: Environment[];

  constructor(manager: WorkspaceManager, options: WorkerOptions) {
    this.#manager = manager;
    this.#options = options;
    this.session = options.session;
    this.#environments = options.environments ?? [];
    const ids = this.#environments.map((e) => e.info.id);
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined) throw new GolemError('INVALID_ARGUMENT', `two environments have the id "${twice}"; give each its own (their values are kept under it)`);
    for (const action of [...this.#environmentActions(), ...(options.actions ?? [])]) {
      if (this.#actions.has(action.name)) throw new GolemError('INVALID_ARGUMENT', `two actions are named "${action.name}"`);
      this.#actions.set(action.name, action);
    }
  }

  /** The actions the model is offered. */
  get actions(): Action[] {
    return [...this.#actions.values()];
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
   * asks for nothing more, `maxSteps` model calls, or `signal` aborts.
   */
  async run(input?: string | ContentBlock[], options: { signal?: AbortSignal } = {}): Promise<WorkerOutcome> {
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
    while (outcome.steps < maxSteps) {
      if (aborted()) return { ...outcome, status: 'aborted' };
      outcome.steps++;
      let turn: Turn;
      try {
        const { session: _session, environments: _environments, actions: _actions, mode: _mode, maxSteps: _maxSteps, ...respondOptions } = this.#options;
        turn = await this.session.respond({
          ...respondOptions,
          ...(mode === 'tools' && this.#actions.size > 0 && { tools: this.actions.map((a) => a.toTool()) }),
          systemSections: this.#environments.map((e) => e.renderContext()),
          ...(signal !== undefined && { signal }),
        });
      } catch (error) {
        const failure = toGolemError(error, 'MODEL_ERROR');
        if (failure.code === 'MODEL_ABORTED') return { ...outcome, status: 'aborted' };
        return { ...outcome, status: 'error', error: failure };
      }
      outcome.turn = turn;
      const requested = mode === 'tools' ? this.#toolCalls(turn) : this.#textRequests(turn);
      this.#manager.events.emit('worker:step', { sessionId: this.session.id, step: outcome.steps, turn, requested: requested.calls.length });
      if (requested.calls.length === 0 && requested.errors.length === 0) return outcome;
      const results: { callId: string | undefined; result: ActionOutcome }[] = [];
      for (const call of requested.calls) {
        if (aborted()) {
          // Cancelled: the calls not yet run are answered as such, so the history stays whole.
          results.push({ callId: call.callId, result: { name: call.name, input: call.input, ok: false, output: 'Not run: the run was cancelled.' } });
          continue;
        }
        const result = await this.#perform(call.name, call.input, signal);
        outcome.actions.push({ name: result.name, input: result.input, ok: result.ok });
        this.#manager.events.emit('worker:action', { sessionId: this.session.id, name: result.name, input: result.input, ok: result.ok, output: result.output });
        results.push({ callId: call.callId, result });
      }
      await this.#record(mode, results, requested.errors);
      if (aborted()) return { ...outcome, status: 'aborted' };
    }
    return { ...outcome, status: 'step_limit' };
  }

  #toolCalls(turn: Turn): { calls: { callId: string; name: string; input: JsonValue }[]; errors: string[] } {
    return { calls: turn.blocks.flatMap((b) => (b.type === 'tool_use' ? [{ callId: b.callId, name: b.name, input: b.args }] : [])), errors: [] };
  }

  #textRequests(turn: Turn): { calls: { callId: undefined; name: string; input: JsonValue }[]; errors: string[] } {
    const text = turn.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
    const { requests, errors } = extractInstructions(text);
    return {
      calls: requests.map((r) => ({ callId: undefined, name: r.action, input: r.params })),
      errors: errors.map((e) => `${e.message}: ${e.snippet}`),
    };
  }

  /** Validates and runs one requested action. Every failure becomes a result the model reads; nothing throws. */
  async #perform(name: string, input: JsonValue, signal: AbortSignal | undefined): Promise<ActionOutcome> {
    const action = this.#actions.get(name);
    if (action === undefined) {
      return { name, input, ok: false, output: `Unknown action "${name}". The actions are: ${[...this.#actions.keys()].join(', ') || '(none)'}` };
    }
    const valid = action.validate(input);
    if (!valid.ok) return { name, input, ok: false, output: valid.error.message };
    const decision = this.#authorize(action, valid.value);
    if (!decision.run) return { name, input, ok: false, output: decision.reason };
    try {
      const output = await action.run(valid.value, signal === undefined ? {} : { signal });
      const failed = typeof output === 'object' && output !== null && 'success' in output && (output as { success: unknown }).success === false;
      return { name, input, ok: !failed, output: toJson(output) };
    } catch (error) {
      const e = toGolemError(error);
      return { name, input, ok: false, output: `${name} failed: ${e.message}` };
    }
  }

  /**
   * The one place the trust policy decides whether an action runs. Every action runs
   * autonomously for now; supervised and manual modes (seed 003) hook in here.
   */
  #authorize(_action: Action, _input: unknown): { run: true } | { run: false; reason: string } {
    return { run: true };
  }

  /** Records the results: tool_result blocks in a tool turn (tools mode), or a user turn reporting them (text mode). */
  async #record(mode: ActionMode, results: { callId: string | undefined; result: ActionOutcome }[], errors: string[]): Promise<void> {
    if (mode === 'tools') {
      await this.session.addTurn({
        role: 'tool',
        blocks: results.map(({ callId, result }) => ({
          type: 'tool_result' as const,
          callId: callId ?? '',
          content: [{ type: 'text' as const, text: typeof result.output === 'string' ? result.output : JSON.stringify(result.output) }],
          ...(!result.ok && { isError: true }),
        })),
      });
      return;
    }
    const lines = [
      ...results.map(({ result }) => `- ${result.name} ${JSON.stringify(result.input)} -> ${result.ok ? 'ok' : 'failed'}: ${typeof result.output === 'string' ? result.output : JSON.stringify(result.output)}`),
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

function toJson(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch {
    return typeof value === 'string' ? value : `(${typeof value} result that is not JSON)`;
  }
}
