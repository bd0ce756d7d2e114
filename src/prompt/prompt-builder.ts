/**
 * The PromptBuilder (seed 001 section 6): snapshot, retrieval, instructions, blob
 * resolution, each a replaceable stage, fitted into a token budget by the planner. The
 * result is a provider-agnostic Prompt (stage 5 is the model adapter's) and a record of
 * how it was built.
 */
import { GolemError } from '../core/errors.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Prompt, PromptMedia, PromptMessage, PromptTool, ResponseFormat } from '../models/prompt.js';
import type { BlobStorage } from '../core/blob-storage.js';
import { turnKey, type Role, type Session, type Turn, type TurnRef } from '../core/records.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import type { ContextRetriever } from './context-retriever.js';
import { fitTurns } from './fit-turns.js';
import { systemInstruction } from './instructions.js';
import { CONTINUED, toMessages } from './messages.js';
import { rangeOf, type PromptRecord } from './prompt-record.js';
import { countPrompt, declaredTokens, turnTokens } from './prompt-tokens.js';
import { relevantEntries, type RelevanceConfig, type RelevantEntry } from './relevant-context.js';
import type { SystemPrompt } from './system-prompt.js';
import { groupTurns, transcriptSnapshot, type TranscriptSnapshot } from './transcript.js';
import {
  RELEVANCE_DEFAULTS,
  resolveEffective,
  roleConstraintsOf,
  startPipeline,
  type EffectiveSession,
  type PipelineParts,
  type ResolveOptions,
} from './effective-session.js';
import { planTokens, type Plan, type TokenBudget } from './token-planner.js';

/** The context window a prompt fits in when neither the call nor the session's role gives one. */
const DEFAULT_BUDGET = 128_000;

/** What `build` needs besides the session: the model, the budget, what the prompt declares. */
export interface BuildOptions {
  /** The model the prompt is for: its tokenizer, its provider (for remote file ids). */
  model: Pick<ModelAdapter, 'provider' | 'countTokens'> & { acceptsFileId?(mediaType: string): boolean };
  tokenBudget?: TokenBudget;
  relevance?: RelevanceConfig;
  tools?: PromptTool[];
  /** The answer must be JSON matching this (the structured response protocol's envelope, say). */
  responseFormat?: ResponseFormat;
  /** Provider-specific options, passed through untouched. */
  providerOptions?: Prompt['providerOptions'];
  maxOutputTokens?: number;
  temperature?: number;
  /** Now, in ms (for freshness in ranking); default Date.now(). */
  now?: number;
  /** Sections added to the system instruction after everything else, e.g. the mounted environments' renderContext(). */
  systemSections?: string[];
}

/** What `build` returns. */
export interface BuiltPrompt {
  prompt: Prompt;
  record: PromptRecord;
  /** The turns sent and the turns dropped, in full (for a summarizer). */
  sent: Turn[];
  dropped: Turn[];
  /** The texts of the summaries in force, oldest first. */
  summaries: string[];
  /** The turns holding those summaries. */
  summaryTurns: TurnRef[];
}

/** The replaceable stages. */
export interface PromptStages {
  /** Stage 1: the turns the prompt is made of (default: the path from the root to the head, summaries standing in). */
  snapshot(view: WorkspaceView, session: Session): TranscriptSnapshot;
  /** Stage 3: the system instruction (default: persona, preferences by the conflict rule, context, summaries). */
  instructions: typeof systemInstruction;
  /** Stage 4: a blob as the model gets it (default: inline, or the provider's file id where one is recorded). */
  resolveBlob(sha256: string, mediaType: string, model: BuildOptions['model']): Promise<PromptMedia>;
  /** The token planner: what context and which turns fit the budget (default: `planTokens`). */
  plan: typeof planTokens;
}

/**
 * The history being fitted: the transcript's groups, the turns kept (whole groups from
 * `firstGroup`, the newest cut when `truncated` says so).
 */
interface History {
  groups: Turn[][];
  kept: Turn[];
  firstGroup: number;
  truncated: TurnRef | null;
}

/** Builds the prompt for a session's next answer from the workspace's current view. */
export class PromptBuilder {
  readonly #view: () => WorkspaceView;
  readonly #blobs: BlobStorage;
  readonly #retriever: ContextRetriever;
  readonly #stages: PromptStages;
  readonly #estimator: ((text: string) => number) | undefined;
  /** Each model as prompts count with the estimator (one per model: turn counts are cached per model). */
  readonly #estimated = new WeakMap<BuildOptions['model'], BuildOptions['model']>();

  /** `estimator`: counts a text's tokens for every prompt, in place of each model's own count. */
  constructor(deps: {
    view: () => WorkspaceView;
    blobs: BlobStorage;
    retriever: ContextRetriever;
    stages?: Partial<PromptStages>;
    estimator?: (text: string) => number;
  }) {
    this.#view = deps.view;
    this.#blobs = deps.blobs;
    this.#retriever = deps.retriever;
    this.#estimator = deps.estimator;
    this.#stages = {
      snapshot: (view, session) => transcriptSnapshot(view, session.head),
      instructions: systemInstruction,
      resolveBlob: (sha256, mediaType, model) => this.#resolveBlob(sha256, mediaType, model),
      plan: planTokens,
      ...deps.stages,
    };
  }

  /** The retriever that ranks context for the prompts. */
  get retriever(): ContextRetriever {
    return this.#retriever;
  }

  /** The turns a prompt record says were sent, read back from the DAG (for debugging an answer). */
  sentTurns(record: Pick<PromptRecord, 'turns' | 'summarized'>): Turn[] {
    const summarized = new Set(record.summarized.map((r) => `${r.id}@${r.version}`));
    const path = transcriptSnapshot(this.#view(), record.turns.last).turns.filter((t) => !summarized.has(`${t.id}@${t.version}`));
    return record.turns.count === 0 ? [] : path.slice(-record.turns.count);
  }

  /** Stage 1 on its own: the turns a prompt for the session is made of (what `session.snapshot()` shows). */
  snapshot(session: Session): TranscriptSnapshot {
    return this.#stages.snapshot(this.#view(), session);
  }

  /**
   * Seed 001's `resolveSession`: the session as this pipeline sees it without a model (role,
   * persona, constraints, the preferences in force by the conflict rule, the context
   * retrieved, the transcript and the system instruction), before the token budget.
   */
  async resolve(session: Session, options: ResolveOptions = {}): Promise<EffectiveSession> {
    return resolveEffective(this.#parts(), session, options ?? {});
  }

  /** The prompt for the session's next answer, fitted into the token budget, and how it was built. */
  async build(session: Session, given: BuildOptions): Promise<BuiltPrompt> {
    const view = this.#view();
    const options = withRoleConstraints(this.#counting(given), session.role === null ? undefined : view.roles.get(session.role));
    const count = (text: string) => options.model.countTokens(text);
    const relevance = { ...RELEVANCE_DEFAULTS, ...options.relevance };
    const budget = options.tokenBudget ?? { total: DEFAULT_BUDGET };

    // Stages 1 to 3: the transcript snapshot, retrieval, the instructions.
    const {
      snap,
      current,
      relevant,
      system: all,
    } = await startPipeline(this.#parts(view), session, {
      relevance,
      now: options.now,
      systemSections: options.systemSections,
    });
    const groups = groupTurns(current.turns);
    const toolTokens = declaredTokens(options.tools, options.responseFormat, count);
    const contextEntries = relevantEntries(view, relevant.context, count);
    // The budget: what context and which turns fit. Preferences count against it: where the
    // instruction does not fit, the weakest are left out (and recorded) before the prompt is refused.
    const planFor = (system: SystemPrompt) =>
      this.#plan({ groups, baseSystem: system.base, toolTokens, contextEntries, budget, contextShare: relevance.contextShare, model: options.model });
    let system = all;
    let plan = planFor(system);
    while ('tooLarge' in plan && system.preferences.length > 0) {
      system = all.withoutFirst(all.preferences.length - system.preferences.length + 1);
      plan = planFor(system);
    }
    if ('tooLarge' in plan) {
      throw new GolemError(
        'PROMPT_TOO_LARGE',
        `the system instruction and tools need ${plan.tooLarge.needed} tokens${all.preferences.length > 0 ? ' even without the preferences' : ''}, but the budget leaves ${plan.tooLarge.available} for the prompt`,
        { details: plan.tooLarge },
      );
    }
    const leftOut = all.preferences.slice(0, all.preferences.length - system.preferences.length);
    const keptContext = contextEntries.filter((c) => plan.context.includes(c.id));
    const systemText = system.withContext(keptContext.map((c) => c.entry));
    const history = this.#history(groups, plan, options.model);
    // 4. Blob resolution, and the messages, measured as they will be sent
    const { prompt, blobs, measured } = await this.#fitMessages(systemText, history, budget.total - plan.reserve, options);

    return this.#result({
      session,
      leftOut,
      snap,
      superseded: current.superseded,
      system,
      systemText,
      keptContext,
      plan,
      history,
      budget,
      prompt,
      blobs,
      measured,
      count,
    });
  }

  #parts(view = this.#view()): PipelineParts {
    const stages = this.#stages;
    return { view, retriever: this.#retriever, snapshot: (at, session) => stages.snapshot(at, session), instructions: stages.instructions };
  }

  /** The options with the model counting by the workspace's estimator, when it has one. */
  #counting(options: BuildOptions): BuildOptions {
    const estimator = this.#estimator;
    if (estimator === undefined) return options;
    const { model } = options;
    let counted = this.#estimated.get(model);
    if (counted === undefined) {
      counted = {
        provider: model.provider,
        countTokens: (text: string) => estimator(text),
        ...(model.acceptsFileId !== undefined && { acceptsFileId: (mediaType: string) => model.acceptsFileId?.(mediaType) === true }),
      };
      this.#estimated.set(model, counted);
    }
    return { ...options, model: counted };
  }

  /** The built prompt, with the turns sent and dropped, and the record of how it was built. */
  #result(built: {
    session: Session;
    /** Preferences left out to fit the budget. */
    leftOut: SystemPrompt['preferences'];
    snap: TranscriptSnapshot;
    superseded: number;
    system: SystemPrompt;
    systemText: string;
    keptContext: RelevantEntry[];
    plan: Plan;
    history: History;
    budget: TokenBudget;
    prompt: Prompt;
    blobs: PromptRecord['blobs'];
    measured: number;
    count: (text: string) => number;
  }): BuiltPrompt {
    const { session, leftOut, snap, superseded, system, systemText, keptContext, plan, history, budget, prompt, blobs, measured, count } = built;
    const dropped = history.groups.slice(0, history.firstGroup).flat();
    const systemTokens = count(systemText);
    const sentKeys = new Set(history.kept.map(turnKey));
    const merged = (snap.merges ?? []).filter((m) => sentKeys.has(turnKey(m.turn)));
    return {
      prompt,
      sent: history.kept,
      dropped,
      summaries: system.summaries,
      summaryTurns: snap.summaries.map((x) => x.turn),
      record: {
        turns: rangeOf(history.kept),
        dropped: rangeOf(dropped),
        summarized: snap.summaries.flatMap((s) => s.summarizes),
        ...(merged.length > 0 && { merged }),
        truncated: history.truncated,
        ...(superseded > 0 && { superseded }),
        context: keptContext.map((c) => ({ key: c.entry.key, score: round(c.score), tokens: c.tokens })),
        preferences: system.preferences.map((p) => ({ id: p.preference.id, tier: p.tier })),
        ...(leftOut.length > 0 && { preferencesLeftOut: leftOut.map((p) => ({ id: p.preference.id, tier: p.tier })) }),
        role: session.role,
        blobs,
        retriever: this.#retriever.name,
        tokens: {
          system: systemTokens - plan.tokens.context,
          tools: plan.tokens.tools,
          context: plan.tokens.context,
          history: measured - systemTokens - plan.tokens.tools,
          total: measured,
          budget: budget.total,
          reserve: plan.reserve,
        },
      },
    };
  }

  /**
   * The token plan: the context kept and the oldest group of turns kept (or `tooLarge` when
   * the system instruction and tools leave no room). Only the newest groups that could fit
   * are counted: a long history costs a walk, not a count.
   */
  #plan(input: {
    groups: readonly Turn[][];
    baseSystem: string;
    toolTokens: number;
    contextEntries: RelevantEntry[];
    budget: TokenBudget;
    contextShare: number;
    model: BuildOptions['model'];
  }): ReturnType<typeof planTokens> {
    const { groups, baseSystem, toolTokens, contextEntries, budget, contextShare, model } = input;
    const count = (text: string) => model.countTokens(text);
    const groupTokens: number[] = new Array<number>(groups.length).fill(Number.POSITIVE_INFINITY);
    for (let i = groups.length - 1, sum = 0; i >= 0 && sum <= budget.total; i--) {
      groupTokens[i] = (groups[i] as Turn[]).reduce((n, t) => n + this.#turnTokens(t, model), 0);
      sum += groupTokens[i] as number;
    }
    return this.#stages.plan({
      budget,
      // The opening note that may be put before the history (messages.ts, CONTINUED) is counted in always.
      systemTokens: count(baseSystem) + (contextEntries.length > 0 ? count('## Relevant context\n') : 0) + count(CONTINUED) + 4,
      toolTokens,
      context: contextEntries.map((c) => ({ id: c.id, tokens: c.tokens })),
      groups: groupTokens.map((tokens) => ({ tokens })),
      contextShare,
    });
  }

  /** The turns the plan keeps, the newest group cut to what it leaves when it says so. */
  #history(groups: Turn[][], plan: Plan, model: BuildOptions['model']): History {
    const keptGroups = groups.slice(plan.firstGroup);
    const history: History = { groups, kept: keptGroups.flat(), firstGroup: plan.firstGroup, truncated: null };
    if (plan.truncateNewestTo !== undefined) {
      const newest = keptGroups.at(-1) ?? [];
      history.kept.splice(history.kept.length - newest.length, newest.length, ...this.#fitNewest(history, newest, plan.truncateNewestTo, model));
    }
    return history;
  }

  /** The newest group fitted to `room` tokens, noted as truncated. */
  #fitNewest(history: History, newest: readonly Turn[], room: number, model: BuildOptions['model']): Turn[] {
    history.truncated = newest[0] === undefined ? null : { id: newest[0].id, version: newest[0].version };
    return fitTurns(newest, Math.max(0, room), (t) => this.#turnTokens(t, model));
  }

  /**
   * The prompt with its messages (blobs resolved), counted again as it will be sent: what
   * the messages add (notes, results for lost calls), and what estimates missed (text
   * documents), counts too. While it is over `limit`, the oldest group goes.
   */
  async #fitMessages(
    system: string,
    history: History,
    limit: number,
    options: BuildOptions,
  ): Promise<{ prompt: Prompt; blobs: PromptRecord['blobs']; measured: number }> {
    const { groups, kept } = history;
    for (;;) {
      const blobs: PromptRecord['blobs'] = [];
      const prompt = this.#prompt(system, await this.#messages(kept, options.model, blobs), options);
      const measured = countPrompt(prompt, (text) => options.model.countTokens(text));
      if (measured <= limit) return { prompt, blobs, measured };
      if (history.firstGroup >= groups.length - 1 && history.truncated === null) {
        // Only the newest group is left and estimates fell short (a large text document, say): fit it to what remains.
        const newest = kept.splice(0);
        kept.push(...this.#fitNewest(history, newest, newest.reduce((n, t) => n + this.#turnTokens(t, options.model), 0) - (measured - limit), options.model));
        continue;
      }
      if (history.firstGroup >= groups.length - 1) {
        throw new GolemError('PROMPT_TOO_LARGE', `the prompt needs ${measured} tokens even with only its newest turn(s), over the ${limit} the budget leaves`, {
          details: { needed: measured, available: limit },
        });
      }
      kept.splice(0, (groups[history.firstGroup] as Turn[]).length);
      history.firstGroup++;
    }
  }

  #prompt(system: string, messages: PromptMessage[], options: BuildOptions): Prompt {
    return {
      system,
      messages,
      ...(options.tools !== undefined && options.tools.length > 0 && { tools: options.tools }),
      ...(options.responseFormat !== undefined && { responseFormat: options.responseFormat }),
      ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
      ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
      ...(options.temperature !== undefined && { temperature: options.temperature }),
    };
  }

  /** A turn's tokens for a model (cached per turn and model). */
  #turnTokens(turn: Turn, model: BuildOptions['model']): number {
    return turnTokens(turn, model, (sha) => this.#view().blobs.get(sha)?.size ?? 0);
  }

  #messages(turns: readonly Turn[], model: BuildOptions['model'], blobs: PromptRecord['blobs']): Promise<PromptMessage[]> {
    return toMessages(turns, {
      media: async (b) => {
        const resolved = await this.#stages.resolveBlob(b.blob.sha256, b.mediaType, model);
        blobs.push({ sha256: b.blob.sha256, as: resolved.fileId !== undefined ? 'fileId' : 'inline' });
        return resolved;
      },
      text: async (b) => {
        blobs.push({ sha256: b.blob.sha256, as: 'inline' });
        return new TextDecoder().decode(await this.#bytes(b.blob.sha256));
      },
    });
  }

  async #bytes(sha256: string): Promise<Uint8Array> {
    const bytes = await this.#blobs.get(sha256);
    if (bytes === null)
      throw new GolemError('BLOB_NOT_STORED', `blob ${sha256} is referenced by the transcript but its bytes are missing`, { details: { sha256 } });
    return bytes;
  }

  async #resolveBlob(sha256: string, mediaType: string, model: BuildOptions['model']): Promise<PromptMedia> {
    const record = this.#view().blobs.get(sha256);
    const fileId = record?.remoteIds[model.provider];
    if (fileId !== undefined && model.acceptsFileId?.(mediaType) === true) return { fileId };
    return { base64: Buffer.from(await this.#bytes(sha256)).toString('base64') };
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * The options with the session's role's model constraints filled in where the call gave none:
 * its temperature, its maxTokens (and, unless the budget says otherwise, that much kept free
 * for the answer) and its contextWindow as the budget. A value of the wrong type is left out.
 */
export function withRoleConstraints(options: BuildOptions, role: Role | undefined): BuildOptions {
  if (role === undefined) return options;
  const constraints = roleConstraintsOf(role);
  const temperature = options.temperature ?? constraints.temperature;
  const maxOutputTokens = options.maxOutputTokens ?? constraints.maxTokens;
  const total = options.tokenBudget?.total ?? constraints.contextWindow;
  // The role's answer length is kept free in the window (at most half of it), unless the call's budget says what to keep.
  const roleLength = options.maxOutputTokens === undefined ? constraints.maxTokens : undefined;
  const reserve = options.tokenBudget?.reserve ?? (roleLength === undefined ? undefined : Math.min(roleLength, Math.floor((total ?? DEFAULT_BUDGET) / 2)));
  return {
    ...options,
    ...(temperature !== undefined && { temperature }),
    ...(maxOutputTokens !== undefined && { maxOutputTokens }),
    ...((total !== undefined || reserve !== undefined) && { tokenBudget: { total: total ?? DEFAULT_BUDGET, ...(reserve !== undefined && { reserve }) } }),
  };
}
