/**
 * The PromptBuilder (seed 001 section 6): snapshot, retrieval, instructions, blob
 * resolution, each a replaceable stage, fitted into a token budget by the planner. The
 * result is a provider-agnostic Prompt (stage 5 is the model adapter's) and a record of
 * how it was built.
 */
import type { ContentBlock } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { Prompt, PromptMedia, PromptMessage, PromptTool, ResponseFormat } from '../models/prompt.js';
import type { BlobStorage } from '../core/blob-storage.js';
import type { ContextEntry, Session, Turn, TurnRef } from '../core/records.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { retrievableOf, terms, type ContextRetriever } from './context-retriever.js';
import { orderPreferences, systemInstruction, type PreferenceTier } from './instructions.js';
import { CONTINUED, toMessages } from './messages.js';
import { groupTurns, snapshot, supersede, type Snapshot } from './transcript.js';
import { planTokens, type TokenBudget } from './token-planner.js';

/** Tokens an image is counted as (providers bill roughly this for a mid-sized image). */
export const IMAGE_TOKENS = 1000;

/** How relevant context is chosen. */
export interface RelevanceConfig {
  /** How many of the latest turns make up the query (default 6). */
  recentMessageWindow?: number;
  /** The lowest score an entry or topic preference needs (default 0.2). */
  minScore?: number;
  /** At most this many context entries (default 8). */
  maxEntries?: number;
  /** The largest share of the input budget context may take (default 0.25). */
  contextShare?: number;
}

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

/** How a prompt was built: kept on the assistant turn as `meta.prompt`. */
export interface PromptRecord {
  /** The turns sent: a run of the transcript ending at the head. */
  turns: TurnRange;
  /** Turns left out to fit the budget: the run before them. */
  dropped: TurnRange;
  /** Turns a summary stands in for. */
  summarized: TurnRef[];
  /** A turn whose text was cut from the front to fit. */
  truncated: TurnRef | null;
  /** Observations (page snapshots) replaced by a note because a newer one of the same thing follows. */
  superseded?: number;
  context: { key: string; score: number; tokens: number }[];
  preferences: { id: string; tier: PreferenceTier }[];
  role: string | null;
  blobs: { sha256: string; as: 'inline' | 'fileId' }[];
  retriever: string;
  tokens: { system: number; tools: number; context: number; history: number; total: number; budget: number; reserve: number };
}

/** A run of consecutive transcript turns (kept compact: a long history is one range, not a list). */
export interface TurnRange {
  count: number;
  first: TurnRef | null;
  last: TurnRef | null;
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
  snapshot(view: WorkspaceView, session: Session): Snapshot;
  instructions: typeof systemInstruction;
  resolveBlob(sha256: string, mediaType: string, model: BuildOptions['model']): Promise<PromptMedia>;
}

export class PromptBuilder {
  readonly #view: () => WorkspaceView;
  readonly #blobs: BlobStorage;
  readonly #retriever: ContextRetriever;
  readonly #stages: PromptStages;

  constructor(deps: { view: () => WorkspaceView; blobs: BlobStorage; retriever: ContextRetriever; stages?: Partial<PromptStages> }) {
    this.#view = deps.view;
    this.#blobs = deps.blobs;
    this.#retriever = deps.retriever;
    this.#stages = {
      snapshot: (view, session) => snapshot(view, session.head),
      instructions: systemInstruction,
      resolveBlob: (sha256, mediaType, model) => this.#resolveBlob(sha256, mediaType, model),
      ...deps.stages,
    };
  }

  get retriever(): ContextRetriever {
    return this.#retriever;
  }

  /** The turns a prompt record says were sent, read back from the DAG (for debugging an answer). */
  sentTurns(record: Pick<PromptRecord, 'turns' | 'summarized'>): Turn[] {
    const summarized = new Set(record.summarized.map((r) => `${r.id}@${r.version}`));
    const path = snapshot(this.#view(), record.turns.last).turns.filter((t) => !summarized.has(`${t.id}@${t.version}`));
    return record.turns.count === 0 ? [] : path.slice(-record.turns.count);
  }

  async build(session: Session, options: BuildOptions): Promise<BuiltPrompt> {
    const view = this.#view();
    const count = (text: string) => options.model.countTokens(text);
    const relevance = { recentMessageWindow: 6, minScore: 0.2, maxEntries: 8, contextShare: 0.25, ...options.relevance };
    const budget = options.tokenBudget ?? { total: 128_000 };

    // 1. Snapshot
    const snap = this.#stages.snapshot(view, session);
    // Observations a newer one makes obsolete (old page snapshots) go before anything is counted.
    const current = supersede(snap.turns);
    const groups = groupTurns(current.turns);

    // 2. Retrieval
    const recent = current.turns.slice(-relevance.recentMessageWindow);
    const query = { topics: session.topics, text: recent.map(textOf).join('\n'), now: options.now ?? Date.now() };
    const role = session.role === null ? undefined : view.roles.get(session.role);
    const fixed = new Set([...(role?.preferences ?? []), ...session.preferences]);
    const candidates = [
      ...[...view.context.values()].map(retrievableOf),
      ...[...view.preferences.values()].filter((p) => !fixed.has(p.id)).map(retrievableOf),
    ];
    const ranked = terms([query.text, ...query.topics].join(' ')).length === 0 ? [] : this.#retriever.rank(query, candidates).filter((r) => r.score >= relevance.minScore);
    const contextRanked = ranked.filter((r) => r.id.startsWith('context:')).slice(0, relevance.maxEntries);
    const topicPreferences = ranked.flatMap((r) => (r.id.startsWith('preference:') ? [view.preferences.get(r.id.slice('preference:'.length))] : [])).filter(isDefined);

    // 3. Instructions
    const preferences = orderPreferences({
      role: (role?.preferences ?? []).map((id) => view.preferences.get(id)).filter(isDefined),
      topic: topicPreferences,
      session: session.preferences.map((id) => view.preferences.get(id)).filter(isDefined),
    });
    const summaries = snap.summaries.map((s) => s.text);
    const sections = (options.systemSections ?? []).filter((x) => x.trim() !== '');
    const withSections = (instruction: string) => [instruction, ...sections].filter((x) => x !== '').join('\n\n');
    const baseSystem = withSections(this.#stages.instructions({ role, preferences, context: [], summaries }));
    const toolTokens = declaredTokens(options.tools, options.responseFormat, count);
    const contextEntries = contextRanked.map((r) => {
      const entry = view.context.get(r.id.slice('context:'.length)) as ContextEntry;
      return { id: r.id, entry, score: r.score, tokens: count(`- [${entry.key}] ${entry.content}\n`) };
    });

    // The budget. Only the newest groups that could fit are counted: a long history costs a walk, not a count.
    const groupTokens: number[] = new Array<number>(groups.length).fill(Number.POSITIVE_INFINITY);
    for (let i = groups.length - 1, sum = 0; i >= 0 && sum <= budget.total; i--) {
      groupTokens[i] = (groups[i] as Turn[]).reduce((n, t) => n + this.#turnTokens(t, options.model), 0);
      sum += groupTokens[i] as number;
    }
    const plan = planTokens({
      budget,
      // The opening note that may be put before the history (messages.ts, CONTINUED) is counted in always.
      systemTokens: count(baseSystem) + (contextEntries.length > 0 ? count('## Relevant context\n') : 0) + count(CONTINUED) + 4,
      toolTokens,
      context: contextEntries.map((c) => ({ id: c.id, tokens: c.tokens })),
      groups: groupTokens.map((tokens) => ({ tokens })),
      contextShare: relevance.contextShare,
    });
    if ('tooLarge' in plan) {
      throw new GolemError('PROMPT_TOO_LARGE', `the system instruction and tools need ${plan.tooLarge.needed} tokens, but the budget leaves ${plan.tooLarge.available} for the prompt`, {
        details: plan.tooLarge,
      });
    }
    const keptContext = contextEntries.filter((c) => plan.context.includes(c.id));
    const system = withSections(this.#stages.instructions({ role, preferences, context: keptContext.map((c) => c.entry), summaries }));
    const keptGroups = groups.slice(plan.firstGroup);
    const kept = keptGroups.flat();
    let truncated: TurnRef | null = null;
    /** The newest group fitted to `room` tokens, noted as truncated. */
    const fitNewest = (newest: readonly Turn[], room: number): Turn[] => {
      truncated = newest[0] === undefined ? null : { id: newest[0].id, version: newest[0].version };
      return fitTurns(newest, Math.max(0, room), (t) => this.#turnTokens(t, options.model));
    };
    if (plan.truncateNewestTo !== undefined) {
      const newest = keptGroups.at(-1) ?? [];
      kept.splice(kept.length - newest.length, newest.length, ...fitNewest(newest, plan.truncateNewestTo));
    }

    // 4. Blob resolution, and the messages. The prompt as it will be sent is counted again: what the
    // messages add (notes, results for lost calls), and what estimates missed (text documents), counts too.
    // While it is over, the oldest group goes.
    const limit = budget.total - plan.reserve;
    let firstGroup = plan.firstGroup;
    let blobs: PromptRecord['blobs'];
    let prompt: Prompt;
    let measured: number;
    for (;;) {
      blobs = [];
      prompt = {
        system,
        messages: await this.#messages(kept, options.model, blobs),
        ...(options.tools !== undefined && options.tools.length > 0 && { tools: options.tools }),
        ...(options.responseFormat !== undefined && { responseFormat: options.responseFormat }),
        ...(options.providerOptions !== undefined && { providerOptions: options.providerOptions }),
        ...(options.maxOutputTokens !== undefined && { maxOutputTokens: options.maxOutputTokens }),
        ...(options.temperature !== undefined && { temperature: options.temperature }),
      };
      measured = countPrompt(prompt, count);
      if (measured <= limit) break;
      if (firstGroup >= groups.length - 1 && truncated === null) {
        // Only the newest group is left and estimates fell short (a large text document, say): fit it to what remains.
        const newest = kept.splice(0);
        kept.push(...fitNewest(newest, newest.reduce((n, t) => n + this.#turnTokens(t, options.model), 0) - (measured - limit)));
        continue;
      }
      if (firstGroup >= groups.length - 1) {
        throw new GolemError('PROMPT_TOO_LARGE', `the prompt needs ${measured} tokens even with only its newest turn(s), over the ${limit} the budget leaves`, {
          details: { needed: measured, available: limit },
        });
      }
      kept.splice(0, (groups[firstGroup] as Turn[]).length);
      firstGroup++;
    }
    const dropped = groups.slice(0, firstGroup).flat();
    const systemTokens = count(system);
    return {
      prompt,
      sent: kept,
      dropped,
      summaries,
      summaryTurns: snap.summaries.map((x) => x.turn),
      record: {
        turns: rangeOf(kept),
        dropped: rangeOf(dropped),
        summarized: snap.summaries.flatMap((s) => s.summarizes),
        truncated,
        ...(current.superseded > 0 && { superseded: current.superseded }),
        context: keptContext.map((c) => ({ key: c.entry.key, score: round(c.score), tokens: c.tokens })),
        preferences: preferences.map((p) => ({ id: p.preference.id, tier: p.tier })),
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

  /** A turn's tokens for a model; turns are immutable, so the count is cached per turn and model. */
  #turnTokens(turn: Turn, model: BuildOptions['model']): number {
    let counts = tokenCache.get(turn);
    if (counts === undefined) tokenCache.set(turn, (counts = new WeakMap()));
    let n = counts.get(model);
    if (n === undefined) {
      n = 4; // the message frame
      for (const block of turn.blocks) n += blockTokens(block, (text) => model.countTokens(text), (sha) => this.#view().blobs.get(sha)?.size ?? 0);
      counts.set(model, n);
    }
    return n;
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
    if (bytes === null) throw new GolemError('BLOB_NOT_STORED', `blob ${sha256} is referenced by the transcript but its bytes are missing`, { details: { sha256 } });
    return bytes;
  }

  async #resolveBlob(sha256: string, mediaType: string, model: BuildOptions['model']): Promise<PromptMedia> {
    const record = this.#view().blobs.get(sha256);
    const fileId = record?.remoteIds[model.provider];
    if (fileId !== undefined && model.acceptsFileId?.(mediaType) === true) return { fileId };
    return { base64: Buffer.from(await this.#bytes(sha256)).toString('base64') };
  }
}

const tokenCache = new WeakMap<Turn, WeakMap<object, number>>();

/** Tokens a document sent by file id is counted as (its bytes are not at hand). */
export const DOCUMENT_FILE_TOKENS = 1500;

/** The tokens of what a prompt declares besides its text: its tools and its response schema. */
function declaredTokens(tools: readonly PromptTool[] | undefined, format: ResponseFormat | undefined, count: (text: string) => number): number {
  let n = format?.schema === undefined ? 0 : count(JSON.stringify(format.schema));
  for (const t of tools ?? []) n += count(`${t.name} ${t.description} ${JSON.stringify(t.inputSchema)}`);
  return n;
}

/** The tokens of a prompt as it will be sent: system, tools, and every part of every message. */
export function countPrompt(prompt: Prompt, count: (text: string) => number): number {
  let n = count(prompt.system) + declaredTokens(prompt.tools, prompt.responseFormat, count);
  for (const message of prompt.messages) {
    n += 4;
    for (const part of message.content) {
      switch (part.type) {
        case 'text':
        case 'thinking':
          n += count(part.text);
          break;
        case 'image':
          n += IMAGE_TOKENS;
          break;
        case 'document':
          n += part.base64 !== undefined ? Math.ceil((part.base64.length * 3) / 16) : DOCUMENT_FILE_TOKENS;
          break;
        case 'tool-call':
          n += count(`${part.name}${JSON.stringify(part.input)}`);
          break;
        case 'tool-result':
          n += 4 + count(part.output.type === 'text' ? part.output.text : part.output.parts.map((p) => (p.type === 'text' ? p.text : '')).join(''));
          break;
      }
    }
  }
  return n;
}

function blockTokens(block: ContentBlock, count: (text: string) => number, sizeOf: (sha: string) => number): number {
  switch (block.type) {
    case 'text':
      return count(block.text);
    case 'thinking':
      return count(block.thinking);
    case 'image':
      return IMAGE_TOKENS;
    case 'document':
      return Math.ceil(sizeOf(block.blob.sha256) / 4);
    case 'tool_use':
      return count(`${block.name}${JSON.stringify(block.args)}`);
    case 'tool_result':
      return block.content.reduce((n, p) => n + blockTokens(p, count, sizeOf), 4);
    default:
      return 0;
  }
}

function textOf(turn: Turn): string {
  return turn.blocks.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? b.content.map((p) => (p.type === 'text' ? p.text : '')).join(' ') : '')).join(' ');
}

/**
 * Turns made to fit `limit` tokens: media become a short note, then every text is cut from
 * its front (the end of a message matters most), tightening until the count fits.
 */
export function fitTurns(turns: readonly Turn[], limit: number, tokensOf: (turn: Turn) => number): Turn[] {
  const omitted = (kind: string) => ({ type: 'text' as const, text: `[${kind} omitted: over the token budget]` });
  const cut = (text: string, share: number) => (share >= 1 ? text : `…${text.slice(Math.floor(text.length * (1 - share)))}`);
  // Thinking goes (a signed block may not be cut, and it matters least); so do media and large call arguments.
  const base: Turn[] = turns.map((t) => ({
    ...t,
    blocks: t.blocks.flatMap((b): ContentBlock[] => {
      if (b.type === 'thinking') return [];
      if (b.type === 'image' || b.type === 'document') return [omitted(b.type)];
      if (b.type === 'tool_result') return [{ ...b, content: b.content.map((p) => (p.type === 'text' ? p : omitted(p.type))) }];
      if (b.type === 'tool_use' && tokensOf({ ...t, blocks: [b] }) > limit / 2) return [{ ...b, args: { omitted: 'the arguments were over the token budget' } }];
      return [b];
    }),
  }));
  const withShare = (share: number): Turn[] =>
    base.map((t) => ({
      ...t,
      blocks: t.blocks.map((b) => {
        if (b.type === 'text') return { ...b, text: cut(b.text, share) };
        if (b.type === 'tool_result') return { ...b, content: b.content.map((p) => (p.type === 'text' ? { ...p, text: cut(p.text, share) } : p)) };
        return b;
      }),
    }));
  const total = (ts: readonly Turn[]) => ts.reduce((n, t) => n + tokensOf(t), 0);
  let share = 1;
  let fitted = base;
  for (let round = 0; round < 12 && total(fitted) > limit; round++) {
    share *= Math.max(0.05, (limit / total(fitted)) * 0.9);
    fitted = withShare(share);
  }
  return fitted;
}

function rangeOf(turns: readonly Turn[]): TurnRange {
  const ref = (t: Turn | undefined) => (t === undefined ? null : { id: t.id, version: t.version });
  return { count: turns.length, first: ref(turns[0]), last: ref(turns.at(-1)) };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

function isDefined<T>(value: T | undefined): value is T {
  return value !== undefined;
}
