/**
 * The Session facade: one session's timeline, read from the index and changed by
 * commands. Methods return values and throw a GolemError with a stable code.
 */
import type { ContentBlock, JsonObject } from '../core/blocks.js';
import { fail, unwrap } from '../core/errors.js';
import type { TurnDeleteResult, TurnInput } from '../core/commands/index.js';
import { requireLoaded } from '../core/commands/kit.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Session as SessionRecord, Turn, TurnRef, TurnRole } from '../core/records.js';
import type { BuildOptions, BuiltPrompt, PromptBuilder } from './prompt-builder.js';
import { respond, type RespondOptions } from './respond.js';
import { pathTo, SessionView, type BranchInfo } from '../core/turn-tree.js';
import { sessionSnapshot, sessionTurns, type SessionSnapshot, type TurnsOptions } from './session-snapshot.js';
import { mergeInto, type MergeOptions } from './session-merge.js';

/** Options shared by the commands that add a turn. */
export interface NewTurn {
  /** Who speaks (default 'user': seed 001 adds a prompt with `addTurn({ blocks })`). */
  role?: TurnRole;
  blocks: ContentBlock[];
  meta?: JsonObject;
  /** A caller-chosen id; a retry with the same id is refused with DUPLICATE_ID instead of adding twice. */
  id?: string;
}

export class Session {
  readonly id: string;
  readonly #manager: WorkspaceManager;
  readonly #prompts: PromptBuilder;

  constructor(manager: WorkspaceManager, prompts: PromptBuilder, id: string) {
    this.#manager = manager;
    this.#prompts = prompts;
    this.id = id;
  }

  /**
   * One model call: builds the prompt from this session (history, retrieved context,
   * persona and preferences, blobs) within the token budget, streams the answer and
   * records it as an assistant turn. `turn.meta.prompt` says how the prompt was built.
   *
   * @example
   * const turn = await session.respond({ model: resolveModel('openai:gpt-4.1-mini'), tokenBudget: { total: 8000 } })
   */
  async respond(options: RespondOptions): Promise<Turn> {
    return respond(this.#manager, this.#prompts, this.id, options);
  }

  /** The prompt `respond` would send now, and the record of how it was built, without calling the model. */
  async buildPrompt(options: BuildOptions): Promise<BuiltPrompt> {
    await this.load();
    return this.#prompts.build(this.record(), options);
  }

  /**
   * Brings the session's turns into memory (a store that loads per session reads them on
   * first use), so `turn()` can read them synchronously. The async reads load by themselves.
   */
  async load(): Promise<this> {
    await this.#manager.load([this.id]);
    return this;
  }

  /** The session's record as it is now. Throws SESSION_NOT_FOUND once the session is deleted. */
  record(): SessionRecord {
    const session = this.#manager.workspace().sessions.get(this.id);
    if (session === undefined) throw fail('SESSION_NOT_FOUND', `no session with id "${this.id}"`, { sessionId: this.id });
    return session;
  }

  get label(): string | null {
    return this.record().label;
  }

  get topics(): readonly string[] {
    return this.record().topics;
  }

  get role(): string | null {
    return this.record().role;
  }

  /** The current leaf of the session's timeline, or null while it is empty. */
  head(): TurnRef | null {
    return this.record().head;
  }

  /**
   * Appends a turn at the head (its parent is whatever the head is when the command runs).
   * Takes a turn, or only its blocks (seed 001's `addTurn(blocks)`); the role defaults to 'user'.
   */
  async addTurn(turn: NewTurn | ContentBlock[], options: { expectedHead?: TurnRef | null } = {}): Promise<Turn> {
    const expectedHead = options?.expectedHead;
    const payload = { sessionId: this.id, turn: this.#withId(turn), ...(expectedHead !== undefined && { expectedHead }) };
    return unwrap(await this.#manager.dispatch({ type: 'turn:add', payload }));
  }

  /** Creates a new version of a turn (same parent); the head moves to it. */
  async editTurn(turnId: string, blocks: ContentBlock[], options: { role?: TurnRole; meta?: JsonObject } = {}): Promise<Turn> {
    return unwrap(await this.#manager.dispatch({ type: 'turn:edit', payload: { sessionId: this.id, turnId, blocks, ...(options ?? {}) } }));
  }

  /** Starts a new turn under any turn of the session (`parent: null` starts a new root); the head moves to it. */
  async branch(turn: NewTurn & { parent: TurnRef | null }): Promise<Turn> {
    const { parent, ...rest } = turn ?? ({} as NewTurn & { parent: TurnRef | null });
    return unwrap(await this.#manager.dispatch({ type: 'turn:branch', payload: { sessionId: this.id, parent, turn: this.#withId(rest) } }));
  }

  /** Removes a turn version (by default the one on the path) and everything below it. */
  async deleteTurn(turnId: string, version?: number): Promise<TurnDeleteResult> {
    const payload = { sessionId: this.id, turnId, ...(version !== undefined && { version }) };
    return unwrap(await this.#manager.dispatch({ type: 'turn:delete', payload }));
  }

  /**
   * Merges another branch into this session: a merge turn at the head whose second parent is
   * `from` (a turn this session sees, or another session of its fork family, by id: its head).
   * `as: 'turns'`: later prompts show that branch's turns since the common ancestor, marked as
   * merged, before the merge turn; `as: 'summary'`: `options.model` summarizes them first, and
   * the summary stands in their place. MERGE_NOT_RELATED when the branches share no history,
   * MERGE_NOTHING when `from` is already in this session's history, MODEL_REQUIRED for a
   * summary without a model.
   *
   * @example
   * await main.merge(whatIf.id, { as: 'turns' })
   */
  async merge(from: TurnRef | string, options: MergeOptions): Promise<Turn> {
    return mergeInto(this.#manager, this.id, from, options);
  }

  /**
   * Copies one turn version of another branch (one this session sees, or of a session of
   * its fork family) onto the head as a new turn, its blobs retained and its origin kept in
   * `meta.pickedFrom: { sessionId, turn }`.
   */
  async pick(turn: TurnRef, options: { id?: string } = {}): Promise<Turn> {
    const payload = { sessionId: this.id, from: turn, turnId: options.id ?? this.#manager.newId() };
    return unwrap(await this.#manager.dispatch({ type: 'turn:pick', payload }));
  }

  /** The versions of a turn this session can see, and which one it is on. */
  async branchInfo(turnId: string): Promise<BranchInfo> {
    await this.load();
    const info = new SessionView(this.#view(), this.record()).branchInfo(turnId);
    if (info === undefined) throw fail('TURN_NOT_FOUND', `session "${this.id}" has no turn with id "${turnId}"`, { turnId });
    return info;
  }

  /** Moves to the previous version of a turn on the path, continuing to that version's latest leaf. */
  async switchVersionLeft(turnId: string): Promise<TurnRef> {
    return this.#switchVersion(turnId, 'left');
  }

  /** Moves to the next version of a turn on the path, continuing to that version's latest leaf. */
  async switchVersionRight(turnId: string): Promise<TurnRef> {
    return this.#switchVersion(turnId, 'right');
  }

  /**
   * The turns from the root to the head (the ancestry walk of seed 001 section 6.1), along
   * first parents: a merge turn stands on it, and the turns it merged are not on it (the
   * prompt shows them before it: `buildPrompt`, `transcriptSnapshot`; `turn()` reads them).
   */
  async transcript(): Promise<Turn[]> {
    await this.load();
    return pathTo(this.#view(), this.head());
  }

  /**
   * The turn nodes this session sees (its own, the history it was forked from, what its merges
   * brought in), oldest first, each at the version it is on (on the path, else the newest it
   * sees); `{ versions: 'all' }` lists every version. Seed 001: "use `session.turns()` to list
   * current nodes" when an edit cannot find its turn.
   */
  async turns(options: TurnsOptions = {}): Promise<Turn[]> {
    await this.load();
    return sessionTurns(this.#view(), this.record(), options);
  }

  /**
   * Seed 001's `snapshot()`, "prepare prompt data": the session read at one moment and frozen,
   * its record, head, path, stage 1 of the prompt pipeline (what a prompt is made of), and
   * the branch info of every turn on the path.
   */
  async snapshot(): Promise<SessionSnapshot> {
    await this.load();
    const view = this.#view();
    const record = this.record();
    return sessionSnapshot(view, record, pathTo(view, record.head), this.#prompts.snapshot(record));
  }

  /**
   * One turn version this session sees (by default the one it is on, else the newest), or
   * undefined. A synchronous read of memory: throws SESSION_NOT_LOADED while the session's
   * turns are not loaded (after `ws.sessions.open`, `session.load()` or any async read they are).
   */
  turn(turnId: string, version?: number): Turn | undefined {
    requireLoaded(this.#view(), this.id);
    const view = new SessionView(this.#view(), this.record());
    return version === undefined ? view.currentVersion(turnId) : view.versions(turnId).find((t) => t.version === version);
  }

  /** Changes the label, topics or active preferences. */
  async update(updates: { label?: string | null; topics?: string[]; preferences?: string[] }): Promise<SessionRecord> {
    return unwrap(await this.#manager.dispatch<'session:update'>({ type: 'session:update', payload: { sessionId: this.id, updates } }));
  }

  /** Switches the persona, recording a role:transition turn (returns it; null when the role was already active). */
  async switchRole(role: string | null): Promise<Turn | null> {
    return unwrap(await this.#manager.dispatch<'session:role:switch'>({ type: 'session:role:switch', payload: { sessionId: this.id, role } })).turn;
  }

  async #switchVersion(turnId: string, direction: 'left' | 'right'): Promise<TurnRef> {
    const session = unwrap(await this.#manager.dispatch({ type: 'turn:switch', payload: { sessionId: this.id, turnId, direction } }));
    return session.head as TurnRef;
  }

  #withId(turn: NewTurn | ContentBlock[]): TurnInput {
    // Only blocks, as seed 001's API appendix has it: a user turn of them.
    if (Array.isArray(turn)) return { role: 'user', blocks: turn, id: this.#manager.newId() };
    // Anything that is not a turn goes to the command as it is, and is refused there with what is wrong.
    if (typeof turn !== 'object' || turn === null) return turn as unknown as TurnInput;
    return { ...turn, role: turn.role ?? 'user', id: turn.id ?? this.#manager.newId() };
  }

  #view() {
    return this.#manager.workspace();
  }
}
