import { unwrap } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Session as SessionRecord } from '../core/records.js';
import { Session } from './session.js';
import type { PromptBuilder } from './prompt-builder.js';

/** `ws.sessions`: creates, forks, finds and deletes sessions. */
export class SessionManager {
  readonly #manager: WorkspaceManager;
  readonly #prompts: PromptBuilder;

  constructor(manager: WorkspaceManager, prompts: PromptBuilder) {
    this.#manager = manager;
    this.#prompts = prompts;
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

  /** The session, or undefined when there is none with that id. */
  get(sessionId: string): Session | undefined {
    return this.#manager.workspace().sessions.has(sessionId) ? new Session(this.#manager, this.#prompts, sessionId) : undefined;
  }

  /** Every session's record, most recently updated first. */
  list(): SessionRecord[] {
    return [...this.#manager.workspace().sessions.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  }
}
