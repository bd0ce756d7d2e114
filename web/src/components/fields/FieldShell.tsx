import type { ComponentChildren } from 'preact';
import { descriptionId, errorId, type FieldProps } from './field-props.js';

/**
 * A field's frame: its label (a <label> for one control, a group's name for several), its
 * description, the control, and the reason the last click was not sent.
 */
export function FieldShell({
  props,
  children,
  group = false,
  requiredInName = false,
  className = '',
}: {
  props: FieldProps;
  children: ComponentChildren;
  /** Several controls (radio, multiselect): the label names the group by id, not one control. */
  group?: boolean;
  /** Say "required" in the group's name: its role (a group of checkboxes) takes no aria-required. */
  requiredInName?: boolean;
  className?: string;
}) {
  const { field, inputId, error } = props;
  return (
    <div class={`field ${className}`} data-field-type={field.type} data-invalid={error !== undefined}>
      {group ? (
        <div class="field-label" id={`${inputId}-label`}>
          {field.label}
          {field.required === true && <Required />}
          {field.required === true && requiredInName && <span class="visually-hidden"> (required)</span>}
        </div>
      ) : (
        <label class="field-label" for={inputId}>
          {field.label}
          {field.required === true && <Required />}
        </label>
      )}
      {field.description !== undefined && (
        <p class="field-desc" id={descriptionId(props)}>
          {field.description}
        </p>
      )}
      {children}
      <FieldError props={props} />
    </div>
  );
}

export function FieldError({ props }: { props: FieldProps }) {
  return props.error === undefined ? null : (
    <p class="field-error" id={errorId(props)} data-testid={`field-error-${props.field.key}`}>
      {props.error}
    </p>
  );
}

export function Required() {
  return (
    <span class="field-required" aria-hidden="true">
      {' '}
      *
    </span>
  );
}
