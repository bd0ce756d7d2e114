import { unwrap } from './errors.js';
import type { CommandMap, WorkspaceManager } from './manager.js';
import type { ContextEntry, Preference, Role } from './records.js';

type PayloadOf<K extends keyof CommandMap> = CommandMap[K]['payload'];

/** `ws.roles`: personas. */
export class RoleApi {
  readonly #manager: WorkspaceManager;
  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
  }
  async add(role: PayloadOf<'role:add'>): Promise<Role> {
    return unwrap(await this.#manager.dispatch({ type: 'role:add', payload: role }));
  }
  async update(name: string, updates: PayloadOf<'role:update'>['updates']): Promise<Role> {
    return unwrap(await this.#manager.dispatch({ type: 'role:update', payload: { name, updates } }));
  }
  /** Refused with ROLE_IN_USE while a session uses the role. */
  async delete(name: string): Promise<Role> {
    return unwrap(await this.#manager.dispatch({ type: 'role:delete', payload: { name } }));
  }
  get(name: string): Role | undefined {
    return this.#manager.workspace().roles.get(name);
  }
  list(): Role[] {
    return [...this.#manager.workspace().roles.values()];
  }
}

/** `ws.preferences`: standing user instructions. */
export class PreferenceApi {
  readonly #manager: WorkspaceManager;
  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
  }
  async add(preference: PayloadOf<'preference:add'>): Promise<Preference> {
    const payload = { ...preference, id: preference.id ?? this.#manager.newId() };
    return unwrap(await this.#manager.dispatch({ type: 'preference:add', payload }));
  }
  async update(id: string, updates: PayloadOf<'preference:update'>['updates']): Promise<Preference> {
    return unwrap(await this.#manager.dispatch({ type: 'preference:update', payload: { id, updates } }));
  }
  /** Refused with PREFERENCE_IN_USE while a role or session uses it. */
  async delete(id: string): Promise<Preference> {
    return unwrap(await this.#manager.dispatch({ type: 'preference:delete', payload: { id } }));
  }
  get(id: string): Preference | undefined {
    return this.#manager.workspace().preferences.get(id);
  }
  list(): Preference[] {
    return [...this.#manager.workspace().preferences.values()];
  }
}

/** `ws.context`: knowledge snippets for retrieval. */
export class ContextApi {
  readonly #manager: WorkspaceManager;
  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
  }
  async add(entry: PayloadOf<'context:add'>): Promise<ContextEntry> {
    return unwrap(await this.#manager.dispatch({ type: 'context:add', payload: entry }));
  }
  async update(key: string, updates: PayloadOf<'context:update'>['updates']): Promise<ContextEntry> {
    return unwrap(await this.#manager.dispatch({ type: 'context:update', payload: { key, updates } }));
  }
  async delete(key: string): Promise<ContextEntry> {
    return unwrap(await this.#manager.dispatch({ type: 'context:delete', payload: { key } }));
  }
  get(key: string): ContextEntry | undefined {
    return this.#manager.workspace().context.get(key);
  }
  list(): ContextEntry[] {
    return [...this.#manager.workspace().context.values()];
  }
}
