import { decodeCursor, encodeCursor, newestFirst, type CursorPoint } from '../core/page-cursor.js';
import { fail, unwrap } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Session as SessionRecord } from '../core/records.js';
import { Session } from './session.js';
import type { PromptBuilder } from './prompt-builder.js';
import type { EffectiveSession, ResolveOptions } from './effective-session.js';
import { diffSessions, type SessionDiff, type SessionDiffLayer } from './session-diff.js';

/** `ws.sessions`: creates, forks, finds and deletes sessions. */
export class SessionManager {
  readonly #manager: WorkspaceManager;
  readonly #prompts: PromptBuilder;
  readonly #diffLayers: readonly SessionDiffLayer[];

  /** `diffLayers`: what `diff` compares besides the turns (the parts' layers: environment, UI, clearance). */
  constructor(manager: WorkspaceManager, prompts: PromptBuilder, options: { diffLayers?: readonly SessionDiffLayer[] } = {}) {
    this.#manager = manager;
    this.#prompts = prompts;
    this.#diffLayers = options.diffLayers ?? [];
  }

  /** Creates an empty session. */
  async create(options: { id?: string; label?: string | null; topics?: string[]; role?: string | null; preferences?: string[] } = {}): Promise<Session> {
    const payload = { ...options, id: options?.id ?? this.#manager.newId() };
    const session = unwrap(await this.#manager.dispatch({ type: 'session:create', payload }));
    return new Session(this.#manager, this.#prompts, session.id);
  }

  /**
   * Forks a session at one of its turns (default: its head). O(1): the new session
   * shares the history and no turn is copied.
   */
  async fork(sessionId: string, turnId?: string, options: { version?: number; id?: string; label?: string | null } = {}): Promise<Session> {
    const payload = { sessionId, ...(turnId !== undefined && { turnId }), ...options, id: options?.id ?? this.#manager.newId() };
    const fork = unwrap(await this.#manager.dispatch({ type: 'session:fork', payload }));
    return new Session(this.#manager, this.#prompts, fork.id);
  }

  /** Deletes a session and the turns no other session needs; returns what was removed. */
  async delete(sessionId: string) {
    return unwrap(await this.#manager.dispatch({ type: 'session:delete', payload: { sessionId } }));
  }

  /**
   * Compares two sessions (branches of one conversation, or any two): the common ancestor of
   * their heads and each one's turns since it, then per layer what differs (environment values
   * and UI instances as each side last saw them, clearance items waiting on each side).
   * SESSION_NOT_FOUND when either is unknown; sessions that share no history compare with base null.
   *
   * @example
   * const d = await ws.sessions.diff(main.id, whatIf.id)
   * d.turns.b            // what the what-if branch said since they parted
   * d.ui[0]?.patch       // RFC 6902 from main's instance to the branch's
   */
  async diff(a: string, b: string): Promise<SessionDiff> {
    return diffSessions(this.#manager, a, b, this.#diffLayers);
  }

  /**
   * Seed 001's `resolveSession`: the session as the prompt pipeline sees it, without a model:
   * its role, persona and constraints, the preferences in force (the role's defaults, those its
   * topics and latest turns bring in, its own, in the conflict rule's order), the context
   * retrieved, its transcript and the system instruction, before any token budget. The same
   * stages `session.respond` runs. SESSION_NOT_FOUND for an unknown id.
   *
   * @example
   * const effective = await ws.sessions.resolve(session.id)
   * effective.preferences.map((p) => `${p.tier}: ${p.preference.content}`)
   */
  async resolve(sessionId: string, options: ResolveOptions = {}): Promise<EffectiveSession> {
    const session = await this.open(sessionId);
    if (session === undefined) throw fail('SESSION_NOT_FOUND', `no session with id "${sessionId}"`, { sessionId });
    return this.#prompts.resolve(session.record(), options);
  }

  /** The session, or undefined when there is none with that id. Its turns load on the first async read (or `session.load()`). */
  get(sessionId: string): Session | undefined {
    return this.#manager.workspace().sessions.has(sessionId) ? new Session(this.#manager, this.#prompts, sessionId) : undefined;
  }

  /** The session with its turns in memory, or undefined when there is none with that id. */
  async open(sessionId: string): Promise<Session | undefined> {
    return this.get(sessionId)?.load();
  }

  /**
   * Sessions' records, most recently updated first: every one, or with `limit` one page
   * of them, and a `cursor` for the next page (`list({ limit, cursor })`; no cursor: the last page).
   */
  list(): SessionRecord[];
  list(page: { limit: number; cursor?: string }): { sessions: SessionRecord[]; cursor: string | undefined };
  list(page?: { limit: number; cursor?: string }): SessionRecord[] | { sessions: SessionRecord[]; cursor: string | undefined } {
    const all = [...this.#manager.workspace().sessions.values()].sort((a, b) => newestFirst(pointOf(a), pointOf(b)));
    if (page === undefined) return all;
    if (!Number.isInteger(page.limit) || page.limit < 1) throw fail('INVALID_ARGUMENT', `limit is a whole number of at least 1, not ${String(page.limit)}`);
    let from = 0;
    if (page.cursor !== undefined) {
      const after = decodeCursor(page.cursor);
      from = all.findIndex((s) => newestFirst(pointOf(s), after) > 0);
      if (from === -1) from = all.length;
    }
    const sessions = all.slice(from, from + page.limit);
    const last = sessions.at(-1);
    return { sessions, cursor: from + page.limit < all.length && last !== undefined ? encodeCursor(pointOf(last)) : undefined };
  }
}

/** Most recently updated first. */
function pointOf(session: SessionRecord): CursorPoint {
  return { at: session.updatedAt, id: session.id };
}
