/**
 * A base for environments: the seed's update path, in its order, with dependent fields
 * checked again, and every change persisted in the workspace as an `environment:update`
 * command before it is applied (so values survive a restart and sit in the command log).
 */
import type { JsonValue } from '../core/blocks.js';
import { Serializer } from '../core/serializer.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Action } from '../action/action.js';
import {
  renderFields,
  renderHowTo,
  validateFieldValue,
  writeInstruction,
  type ActionResult,
  type EditableFieldDefinition,
  type EditableStatus,
  type EditableStatusSchema,
  type EditableStatusUpdateResult,
  type Environment,
  type EnvironmentInfo,
  type HowToCall,
  type RenderContextOptions,
} from './environment.js';

/** A field as an environment declares it: its status without the value, and the value it starts with (and resets to). */
export type FieldSpec = Omit<EditableStatus, 'value' | 'readonly'> & { readonly?: boolean; initial?: string | null };

export abstract class BaseEnvironment<F extends string = string> implements Environment {
  abstract readonly info: EnvironmentInfo;
  abstract get env(): Record<string, JsonValue>;
  // No prototype: a field name the model sends ("__proto__", "toString") finds no field, never Object.prototype.
  readonly #fields: Record<string, EditableStatus> = Object.create(null) as Record<string, EditableStatus>;
  readonly #initial: Record<string, string | null> = Object.create(null) as Record<string, string | null>;
  #manager: WorkspaceManager | undefined;

  protected constructor(fields: Record<F, FieldSpec>) {
    for (const [name, spec] of Object.entries<FieldSpec>(fields)) {
      const { initial = null, readonly = false, ...rest } = spec;
      this.#fields[name] = { ...rest, readonly, value: initial };
      this.#initial[name] = initial;
    }
  }

  #settled = false;

  /**
   * An initial value that is not valid yet (a page before any book) starts unset, and is filled
   * in once it is. Done on first use: a subclass's validation may read the subclass, which is
   * not there while this constructor runs.
   */
  #settle(): Record<string, EditableStatus> {
    if (!this.#settled) {
      this.#settled = true;
      for (const [name, field] of Object.entries(this.#fields)) {
        if (!validateFieldValue(name, field, field.value).valid) field.value = null;
      }
    }
    return this.#fields;
  }

  /** The fields and their values, to read: change them only with updateEditableStatus. */
  get editableStatus(): { readonly [K in F]: Readonly<EditableStatus> } {
    return this.#settle() as { readonly [K in F]: Readonly<EditableStatus> };
  }

  /** A field's definition, for a subclass that learns its choices late (the books on a shelf). */
  protected field(name: string): EditableStatus | undefined {
    return this.#fields[name];
  }

  /** Called after a field changes (the seed's refreshEnvStatus): recompute whatever `env` derives from it. */
  protected async refreshEnvStatus(_field: string, _value: string | null): Promise<void> {}

  /**
   * Binds the environment to a workspace: its stored values are loaded, and every later
   * change is a command there. Without a workspace, values live in memory only.
   */
  async mount(manager: WorkspaceManager): Promise<{ ignored: { field: string; value: string | null; error: string }[] }> {
    this.#settle();
    this.#manager = manager;
    const stored = manager.workspace().collection('environment').get(this.info.id);
    // Stored values are checked as they are loaded, fields others depend on first: a value no longer valid
    // (a book gone from the folder since) is ignored, and the field keeps its starting value.
    const ignored: { field: string; value: string | null; error: string }[] = [];
    const entries = Object.entries(stored?.values ?? {}).sort(([a], [b]) => this.#depth(a) - this.#depth(b));
    for (const [name, value] of entries) {
      const field = this.#fields[name];
      if (field === undefined) continue;
      const check = validateFieldValue(name, field, value);
      if (!check.valid) {
        ignored.push({ field: name, value, error: check.error });
        continue;
      }
      field.value = value;
      await this.refreshEnvStatus(name, value);
    }
    return { ignored };
  }

  /** How many fields stand between a field and the ones with no dependencies (cycles count once). */
  #depth(name: string, seen = new Set<string>()): number {
    if (seen.has(name)) return 0;
    seen.add(name);
    const deps = this.#fields[name]?.dependsOn ?? [];
    return deps.length === 0 ? 0 : 1 + Math.max(...deps.map((d) => this.#depth(d, seen)));
  }

  /** Updates run one at a time: each is validated against the state the one before it left. */
  readonly #updates = new Serializer();

  updateEditableStatus(fieldName: string, value: string | null): Promise<EditableStatusUpdateResult> {
    return this.#updates.run(() => this.#update(fieldName, value));
  }

  async #update(fieldName: string, value: string | null): Promise<EditableStatusUpdateResult> {
    this.#settle();
    // 1. The field exists
    const field = this.#fields[fieldName];
    if (field === undefined) return { success: false, error: `Unknown editable field: ${fieldName}. The fields are: ${Object.keys(this.#fields).join(', ')}` };
    // 2. It is not read-only
    if (field.readonly) return { success: false, error: `Field '${fieldName}' is read-only` };
    // 3. The value is valid (type, enum, the field's own validation, which may read the fields it depends on)
    const check = validateFieldValue(fieldName, field, value);
    if (!check.valid) return { success: false, error: check.error };
    // 4. The previous value, and the dependent fields this change invalidates
    const previousValue = field.value;
    const changes: Record<string, string | null> = { [fieldName]: value };
    const reset = this.#invalidated(fieldName, changes);
    // The state the change would leave must be valid as a whole (dependencies can run in a cycle,
    // and a read-only field cannot be reset by someone else's change).
    const broken = this.#brokenWith(changes);
    if (broken !== undefined) return { success: false, error: broken };
    // 5. Apply: persisted first, so a failure leaves everything as it was
    if (this.#manager !== undefined) {
      const saved = await this.#manager.dispatch({ type: 'environment:update', payload: { environmentId: this.info.id, values: changes } });
      if (!saved.ok) return { success: false, error: `the change could not be saved (${saved.error.code}): ${saved.error.message}` };
    }
    for (const [name, v] of Object.entries(changes)) (this.#fields[name] as EditableStatus).value = v;
    // 6. Refresh the env status
    for (const [name, v] of Object.entries(changes)) await this.refreshEnvStatus(name, v);
    // 7. The result
    return { success: true, updatedField: fieldName, previousValue, newValue: value, ...(reset.length > 0 && { reset }) };
  }

  /** Fields depending (directly or not) on `changed` that the changes make invalid: reset to their initial value, or null. */
  #invalidated(changed: string, changes: Record<string, string | null>): { field: string; previousValue: string | null }[] {
    const reset: { field: string; previousValue: string | null }[] = [];
    const queue = [changed];
    while (queue.length > 0) {
      const cause = queue.shift() as string;
      for (const [name, field] of Object.entries(this.#fields)) {
        if (!(field.dependsOn ?? []).includes(cause) || name in changes) continue;
        // Checked as it would stand with the changes applied.
        const saved = this.#swap(changes);
        try {
          const fallback = this.#initial[name] ?? null;
          const valid = validateFieldValue(name, field, field.value).valid;
          // Still valid: kept, unless it is unset and its initial value has become valid (a new book opens at page 1).
          if (valid && (field.value !== null || fallback === null || !validateFieldValue(name, field, fallback).valid)) continue;
          changes[name] = validateFieldValue(name, field, fallback).valid ? fallback : null;
        } finally {
          this.#swap(saved);
        }
        reset.push({ field: name, previousValue: field.value });
        queue.push(name);
      }
    }
    return reset;
  }

  /** Why the fields would not all be valid with `changes` applied, or undefined when they would. */
  #brokenWith(changes: Record<string, string | null>): string | undefined {
    const saved = this.#swap(changes);
    try {
      for (const [name, field] of Object.entries(this.#fields)) {
        if (name in changes && field.readonly) return `this change would reset '${name}', which is read-only`;
        const check = validateFieldValue(name, field, field.value);
        if (!check.valid) return `this change would leave '${name}' invalid: ${check.error}`;
      }
      return undefined;
    } finally {
      this.#swap(saved);
    }
  }

  /** Puts `values` into the fields and returns what they held (for checking dependents against a change not yet made). */
  #swap(values: Record<string, string | null>): Record<string, string | null> {
    const before: Record<string, string | null> = {};
    for (const [name, v] of Object.entries(values)) {
      const field = this.#fields[name] as EditableStatus;
      before[name] = field.value;
      field.value = v;
    }
    return before;
  }

  getEditableStatusSchema(): EditableStatusSchema {
    this.#settle();
    const fields: Record<string, EditableFieldDefinition> = {};
    for (const [name, f] of Object.entries(this.#fields)) {
      fields[name] = {
        description: f.description,
        type: f.type,
        constraint: f.constraint,
        readonly: f.readonly,
        value: f.value,
        ...(f.enumValues !== undefined && { enumValues: [...f.enumValues] }),
        ...(f.dependsOn !== undefined && { dependsOn: [...f.dependsOn] }),
      };
    }
    return { fields };
  }

  /**
   * The seed's context block: the env status, the editable fields with their schema (rule,
   * description, type, choices, dependencies, read-only), how to change them and the actions,
   * said the way the worker showing it runs calls (`options`; the seed's text instructions without).
   */
  renderContext(options: RenderContextOptions = {}): string {
    this.#settle();
    const title = `------${this.info.name}-------`;
    const bar = '#'.repeat(title.length);
    const actions = this.actionsHelp(options.howToCall ?? writeInstruction);
    return [
      bar,
      title,
      bar,
      '',
      '## Environment Status:',
      JSON.stringify(this.env, null, 2),
      '',
      '## Editable Status:',
      renderFields(this.getEditableStatusSchema()),
      '',
      renderHowTo(options, false),
      ...(actions === '' ? [] : ['', '## Actions:', actions]),
    ].join('\n');
  }

  /** The environment's own actions (beyond updating fields); the worker offers them to the model. */
  actions(): Action[] {
    return [];
  }

  /** The seed's executeAction: runs one of `actions()` by name, its input validated first. */
  async executeAction(actionName: string, params: Record<string, JsonValue>): Promise<ActionResult> {
    const action = this.actions().find((a) => a.name === actionName);
    if (action === undefined) return { success: false, error: `Unknown action: ${actionName}` };
    const input = action.validate(params);
    if (!input.ok) return { success: false, error: input.error.message };
    try {
      const output = (await action.run(input.value, {})) as ActionResult | JsonValue;
      if (typeof output === 'object' && output !== null && 'success' in output && typeof output.success === 'boolean') return output as ActionResult;
      return { success: true, data: (output ?? null) as JsonValue };
    } catch (error) {
      return { success: false, error: (error as Error).message };
    }
  }

  /** Lines describing the environment's own actions, for renderContext, each saying how to call it with `how` (none by default). */
  protected actionsHelp(_how: HowToCall): string {
    return '';
  }
}
