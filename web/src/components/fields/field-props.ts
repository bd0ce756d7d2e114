/**
 * What each field component of a model-built UI is given: its field (templates filled), its
 * value and text now, its ids, its error, and the way to change it.
 */
import type { RawEdit } from '../../form-values.js';
import type { FieldConfig, Json, UIBlock } from '../../types.js';

export interface FieldProps {
  instanceId: string;
  block: UIBlock;
  /** The field as the model wrote it, with its label, description and placeholder's templates filled. */
  field: FieldConfig;
  /** The value now (the user's edit, else the state's, else the default). */
  value: Json | undefined;
  /** The text an input shows for it. */
  text: string;
  inputId: string;
  /** Why the last click was not sent, for this field. */
  error: string | undefined;
  set: (value: RawEdit) => void;
}

/** The ids of the field's description and error, for aria-describedby. */
export const descriptionId = (props: FieldProps) => `${props.inputId}-desc`;
export const errorId = (props: FieldProps) => `${props.inputId}-error`;

/** aria-invalid and aria-describedby for a field's control. */
export function described(props: FieldProps): { 'aria-invalid'?: true; 'aria-describedby'?: string } {
  const ids = [props.field.description !== undefined ? descriptionId(props) : '', props.error !== undefined ? errorId(props) : ''].filter((id) => id !== '');
  return { ...(props.error !== undefined && { 'aria-invalid': true as const }), ...(ids.length > 0 && { 'aria-describedby': ids.join(' ') }) };
}

/** A number prop of the field (min, max, step, rows) when it is one. */
export const numberProp = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
export const stringProp = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** An id safe in an id attribute and an ARIA id list (no spaces), one to one with the text. */
export const domId = (text: string): string => text.replace(/[^A-Za-z0-9-]/g, (c) => `_${c.codePointAt(0)?.toString(16) ?? ''}_`);

/** aria-required on a required field's control (or group) that has no native `required`. */
export const ariaRequired = (props: FieldProps): { 'aria-required'?: 'true' } => (props.field.required === true ? { 'aria-required': 'true' } : {});
