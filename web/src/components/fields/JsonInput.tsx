/** A JSON field: any JSON, typed as text; text that is not JSON is an error of the field, and is not sent. */
import { editProblem } from '../../form-values.js';
import { FieldShell } from './FieldShell.js';
import { ariaRequired, described, type FieldProps } from './field-props.js';

export function JsonInput(props: FieldProps) {
  const { field, inputId, text, set } = props;
  // Told as it is typed: the click would refuse it anyway.
  const problem = props.error ?? (text.trim() === '' ? undefined : editProblem(field, { [field.key]: text }));
  const shown = { ...props, error: problem };
  return (
    <FieldShell props={shown} className="field-json">
      <textarea
        id={inputId}
        class="json-input"
        data-testid={`field-${field.key}`}
        rows={Math.min(12, Math.max(3, text.split('\n').length))}
        spellcheck={false}
        value={text}
        {...ariaRequired(props)}
        {...described(shown)}
        onInput={(e) => set(e.currentTarget.value)}
      />
    </FieldShell>
  );
}
