/**
 * Environments (seed 000): state a model reads in its context and changes directly, one
 * validated field at a time, through `updateEditableStatus`, instead of a wrapper tool per
 * field. Seed 000 calls them workspaces; in Golem the workspace is the state engine, so
 * these are Environments. Their members keep the seed's names.
 */
import type { JsonValue } from '../core/blocks.js';
import type { Action } from '../action/action.js';
import type { WorkspaceManager } from '../core/manager.js';

/** The kinds of value a field holds. Values travel as strings (or null), as in the seed. */
export type EditableFieldType = 'string' | 'number' | 'boolean' | 'enum';

/** A field's own check, beyond its type. */
export type FieldValidation = (value: string | null) => { valid: boolean; error?: string };

/** One editable field and its current value (the seed's EditableStatus, with its validation). */
export interface EditableStatus {
  value: string | null;
  /** The rule in words, shown to the model. */
  constraint: string;
  description: string;
  type: EditableFieldType;
  enumValues?: string[];
  /** Fields this field depends on: when one changes, this one is checked again and reset if no longer valid. */
  dependsOn?: string[];
  /** The model cannot change a read-only field. */
  readonly: boolean;
  validation?: FieldValidation;
}

/** The seed's EditableFieldDefinition: a field as the model is told about it. */
export interface EditableFieldDefinition {
  description: string;
  type: EditableFieldType;
  constraint: string;
  enumValues?: string[];
  dependsOn?: string[];
  readonly: boolean;
  value: string | null;
}

export interface EditableStatusSchema {
  fields: Record<string, EditableFieldDefinition>;
}

/** What `updateEditableStatus` answers (the seed's shape, plus the dependent fields it reset). */
export interface EditableStatusUpdateResult {
  success: boolean;
  error?: string;
  updatedField?: string;
  previousValue?: string | null;
  newValue?: string | null;
  /**
   * Fields that depend on this one and changed with it: reset to their initial value (or null) because theirs
   * was no longer valid, or filled in with their initial value now that it is valid (a new book opens at page 1).
   */
  reset?: { field: string; previousValue: string | null }[];
}

export interface ActionResult {
  success: boolean;
  data?: JsonValue;
  error?: string;
}

/** Who an environment is, for the model and for the workspace. */
export interface EnvironmentInfo {
  /** A stable id: the key its values are kept under in the workspace. */
  id: string;
  name: string;
  description: string;
}

/**
 * How the model asks for an action, as the worker that shows the context runs it: a phrase
 * such as `call the update_editable_status tool with {...}`, or, in text mode (the seed's
 * way, and the default), `write in your answer {"action": "update_editable_status", ...}`.
 */
export type HowToCall = (name: string, params: Record<string, JsonValue>) => string;

/** What the worker tells `renderContext` (every field is optional: without them, the context is the seed's own). */
export interface RenderContextOptions {
  /** How the model asks for an action in the worker's mode. */
  howToCall?: HowToCall;
  /** Where a worker has several environments: the parameter naming this one, which every call of its actions takes. */
  environmentParam?: { name: string; value: string };
}

/** The seed's IWorkspace, as a Golem Environment. */
export interface Environment {
  readonly info: EnvironmentInfo;
  /** Read-only status, derived from the editable fields. */
  readonly env: Record<string, JsonValue>;
  readonly editableStatus: Readonly<Record<string, EditableStatus>>;
  /**
   * The context block the model reads. A worker passes `options` so that what it tells the
   * model matches how the worker runs its calls; an environment that ignores them still works
   * (the worker also carries out instructions written in text, in every mode).
   */
  renderContext(options?: RenderContextOptions): string;
  updateEditableStatus(fieldName: string, value: string | null): Promise<EditableStatusUpdateResult>;
  getEditableStatusSchema(): EditableStatusSchema;
  executeAction?(actionName: string, params: Record<string, JsonValue>): Promise<ActionResult>;
  /**
   * Golem: the environment's own actions, with their schemas, offered to the model by the
   * worker. Without it, an environment with `executeAction` is offered through one action,
   * `execute_action`, that takes the action's name and params (the seed's way).
   */
  actions?(): Action[];
  /** Golem: binds the environment to a workspace, so its values load and persist (the worker calls it). */
  mount?(manager: WorkspaceManager): Promise<unknown>;
}

/** Checks a value against a field's type, enum and own validation; the error says why in words. */
export function validateFieldValue(name: string, field: EditableStatus, value: string | null): { valid: true } | { valid: false; error: string } {
  if (value !== null) {
    switch (field.type) {
      case 'number':
        // Written plainly (no spaces, hex or exponents): what is stored is what the model and a person read.
        if (!/^-?\d+(\.\d+)?$/.test(value)) return { valid: false, error: `Field '${name}' takes a number written like 42 or 3.5, not "${value}"` };
        break;
      case 'boolean':
        if (value !== 'true' && value !== 'false') return { valid: false, error: `Field '${name}' takes true or false, not "${value}"` };
        break;
      case 'enum':
        if (!(field.enumValues ?? []).includes(value)) {
          return { valid: false, error: `Field '${name}' must be one of ${JSON.stringify(field.enumValues ?? [])}, not "${value}"` };
        }
        break;
      case 'string':
        break;
    }
  }
  const own = field.validation?.(value);
  if (own !== undefined && !own.valid) return { valid: false, error: own.error ?? `"${value}" is not a valid value for '${name}' (${field.constraint})` };
  return { valid: true };
}

/** JSON on one line, spaced as people write it: `{"action": "x", "params": {"a": 1}}`. */
export function inlineJson(value: unknown): string {
  // Newlines only stand between tokens (JSON escapes those inside strings).
  return (JSON.stringify(value, null, 1) ?? 'null')
    .replace(/([{[])\n\s*/g, '$1')
    .replace(/\n\s*([}\]])/g, '$1')
    .replace(/\n\s*/g, ' ');
}

/** The seed's instruction for a call, in its short form `{"action": name, ...params}` (with `params` when a parameter's name would clash). */
export function textInstruction(name: string, params: Record<string, JsonValue>): string {
  const short = !('action' in params) && !('type' in params);
  return inlineJson(short ? { action: name, ...params } : { action: name, params });
}

/** The seed's way, and what `renderContext()` says without a worker: an instruction written in the answer. */
export const writeInstruction: HowToCall = (name, params) => `write in your answer ${textInstruction(name, params)}`;

/**
 * The editable fields as the model needs them (seed 000's EditableStatusSchema, in words):
 * each field's value and rule, then its description, type, choices, the fields it depends
 * on, and whether it is read-only.
 */
export function renderFields(schema: EditableStatusSchema): string {
  return Object.entries(schema.fields)
    .map(([name, f]) => {
      const head = `  ${name}: ${f.value === null ? '(not set)' : f.value} [${f.constraint}]${f.readonly ? ' (read-only)' : ''}`;
      const type = f.type === 'enum' ? `one of ${(f.enumValues ?? []).map((v) => JSON.stringify(v)).join(', ')}` : f.type;
      const facts = [
        // A description of its own, ended, before the facts that follow it.
        f.description === '' || /[.!?]$/.test(f.description) ? f.description : `${f.description}.`,
        `Type: ${type}.`,
        ...(f.dependsOn !== undefined && f.dependsOn.length > 0 ? [`Depends on: ${f.dependsOn.join(', ')}.`] : []),
        ...(f.readonly ? ['Read-only: only the app sets it.'] : []),
      ].filter((line) => line !== '');
      return `${head}\n    ${facts.join(' ')}`;
    })
    .join('\n');
}

/**
 * How to change a field, and (with `execute`) how to run one of the environment's actions by
 * name, as `options` say the worker runs calls. `execute.environmentParam`: the parameter
 * naming the environment, where several take actions by name (execute_action takes no other).
 */
export function renderHowTo(options: RenderContextOptions, execute: false | { environmentParam?: { name: string; value: string } }): string {
  const how = options.howToCall ?? writeInstruction;
  const param = (p: { name: string; value: string } | undefined) => (p === undefined ? {} : { [p.name]: p.value });
  return [
    `To update a field, ${how('update_editable_status', { ...param(options.environmentParam), fieldName: '<field_name>', value: '<new_value>' })}`,
    ...(execute === false
      ? []
      : [
          `To run one of its actions, ${how('execute_action', { ...param(execute.environmentParam), actionName: '<action_name>', params: { '<param>': '<value>' } })}`,
        ]),
  ].join('\n');
}
