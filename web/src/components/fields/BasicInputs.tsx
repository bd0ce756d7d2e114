/**
 * The one-control input fields: text, textarea, password, number, date, select, radio,
 * checkbox, switch and slider. Every text is the model's, drawn as text.
 */
import { FieldError, FieldShell, Required } from './FieldShell.js';
import { ariaRequired, described, descriptionId, numberProp, stringProp, type FieldProps } from './field-props.js';

const testId = (props: FieldProps) => `field-${props.field.key}`;

export function TextInput(props: FieldProps) {
  const { field, inputId, text, set } = props;
  const min = numberProp(field.min);
  const max = numberProp(field.max);
  const common = {
    id: inputId,
    'data-testid': testId(props),
    value: text,
    placeholder: stringProp(field.placeholder),
    required: field.required === true,
    ...(min !== undefined && { minLength: min }),
    ...(max !== undefined && { maxLength: max }),
    ...described(props),
  };
  return (
    <FieldShell props={props}>
      {field.type === 'textarea' ? (
        <textarea {...common} rows={Math.min(20, Math.max(2, numberProp(field.rows) ?? 3))} onInput={(e) => set(e.currentTarget.value)} />
      ) : (
        <input {...common} type="text" onInput={(e) => set(e.currentTarget.value)} />
      )}
    </FieldShell>
  );
}

/** A password (the catalog's `password`): masked, never filled from the browser's saved passwords, and sent only with a click. */
export function PasswordInput(props: FieldProps) {
  const { field, inputId, text, set } = props;
  return (
    <FieldShell props={props}>
      <input
        id={inputId}
        type="password"
        autoComplete="new-password"
        data-testid={testId(props)}
        value={text}
        placeholder={stringProp(field.placeholder)}
        required={field.required === true}
        {...described(props)}
        onInput={(e) => set(e.currentTarget.value)}
      />
    </FieldShell>
  );
}

export function NumberInput(props: FieldProps) {
  const { field, inputId, text, set } = props;
  return (
    <FieldShell props={props}>
      <input
        id={inputId}
        type="number"
        data-testid={testId(props)}
        value={text}
        min={numberProp(field.min)}
        max={numberProp(field.max)}
        step={numberProp(field.step) ?? 'any'}
        required={field.required === true}
        {...described(props)}
        onInput={(e) => set(e.currentTarget.value)}
      />
    </FieldShell>
  );
}

export function DateInput(props: FieldProps) {
  const { field, inputId, text, set } = props;
  return (
    <FieldShell props={props}>
      <input
        id={inputId}
        type="date"
        data-testid={testId(props)}
        value={/^\d{4}-\d{2}-\d{2}$/.test(text) ? text : ''}
        min={stringProp(field.min)}
        max={stringProp(field.max)}
        required={field.required === true}
        {...described(props)}
        onInput={(e) => set(e.currentTarget.value)}
      />
    </FieldShell>
  );
}

export function SelectInput(props: FieldProps) {
  const { field, inputId, text, set } = props;
  const options = field.options ?? [];
  const known = options.some((o) => o.value === text);
  return (
    <FieldShell props={props}>
      <select
        id={inputId}
        data-testid={testId(props)}
        value={known ? text : ''}
        required={field.required === true}
        {...described(props)}
        onChange={(e) => set(e.currentTarget.value)}
      >
        {!known && (
          <option value="" disabled>
            Choose…
          </option>
        )}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

export function RadioInput(props: FieldProps) {
  const { field, inputId, text, set } = props;
  return (
    <FieldShell props={props} group>
      <div
        class="radio-group"
        role="radiogroup"
        aria-labelledby={`${inputId}-label`}
        aria-required={field.required === true}
        data-testid={testId(props)}
        {...described(props)}
      >
        {(field.options ?? []).map((option) => (
          <label key={option.value}>
            <input type="radio" name={inputId} value={option.value} checked={text === option.value} onChange={() => set(option.value)} />
            <span>{option.label}</span>
          </label>
        ))}
      </div>
    </FieldShell>
  );
}

/** A checkbox, or a switch (the same control drawn as a toggle, role="switch"). */
export function CheckInput(props: FieldProps) {
  const { field, inputId, value, set } = props;
  const isSwitch = field.type === 'switch';
  return (
    <div class={`field field-checkbox${isSwitch ? ' field-switch' : ''}`} data-field-type={field.type} data-invalid={props.error !== undefined}>
      <label>
        <input
          id={inputId}
          type="checkbox"
          role={isSwitch ? 'switch' : undefined}
          data-testid={testId(props)}
          checked={value === true}
          {...described(props)}
          onChange={(e) => set(e.currentTarget.checked)}
        />
        <span>
          {field.label}
          {field.required === true && <Required />}
        </span>
      </label>
      {field.description !== undefined && (
        <p class="field-desc" id={descriptionId(props)}>
          {field.description}
        </p>
      )}
      <FieldError props={props} />
    </div>
  );
}

export function SliderInput(props: FieldProps) {
  const { field, inputId, value, set } = props;
  const min = numberProp(field.min) ?? 0;
  const max = numberProp(field.max) ?? 100;
  const step = numberProp(field.step) ?? 1;
  const shown = typeof value === 'number' && Number.isFinite(value) ? value : min;
  return (
    <FieldShell props={props} className="field-slider">
      <div class="slider-row">
        <input
          id={inputId}
          type="range"
          data-testid={testId(props)}
          min={min}
          max={max}
          step={step}
          value={shown}
          {...ariaRequired(props)}
          {...described(props)}
          onInput={(e) => set(e.currentTarget.value)}
        />
        <output for={inputId} class="slider-value" data-testid={`${testId(props)}-value`}>
          {shown}
        </output>
      </div>
    </FieldShell>
  );
}
