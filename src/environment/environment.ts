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

/** The seed's IWorkspace, as a Golem Environment. */
export interface Environment {
  readonly info: EnvironmentInfo;
  /** Read-only status, derived from the editable fields. */
  readonly env: Record<string, JsonValue>;
  readonly editableStatus: Readonly<Record<string, EditableStatus>>;
  renderContext(): string;
  updateEditableStatus(fieldName: string, value: string | null): Promise<EditableStatusUpdateResult>;
  getEditableStatusSchema(): EditableStatusSchema;
  executeAction?(actionName: string, params: Record<string, JsonValue>): Promise<ActionResult>;
  /** Golem: the environment's own actions, with their schemas, offered to the model by the worker. */
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
