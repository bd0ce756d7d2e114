/** The input fields that hold a list: multiselect (checkboxes of the options) and tags (typed, each removable). */
import { useState } from 'preact/hooks';
import { FieldShell } from './FieldShell.js';
import { ariaRequired, described, type FieldProps } from './field-props.js';

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

export function MultiselectInput(props: FieldProps) {
  const { field, inputId, value, set } = props;
  const chosen = strings(value);
  const toggle = (option: string, on: boolean) => {
    // Kept in the options' order, whatever order they were ticked in.
    const next = new Set(chosen);
    if (on) next.add(option);
    else next.delete(option);
    set((field.options ?? []).map((o) => o.value).filter((v) => next.has(v)));
  };
  return (
    <FieldShell props={props} group requiredInName>
      <div class="check-group" role="group" aria-labelledby={`${inputId}-label`} data-testid={`field-${field.key}`} {...described(props)}>
        {(field.options ?? []).map((option) => (
          <label key={option.value}>
            <input
              type="checkbox"
              value={option.value}
              checked={chosen.includes(option.value)}
              onChange={(e) => toggle(option.value, e.currentTarget.checked)}
            />
            <span>{option.label}</span>
          </label>
        ))}
      </div>
    </FieldShell>
  );
}

export function TagsInput(props: FieldProps) {
  const { field, inputId, value, set } = props;
  const tags = strings(value);
  const [typed, setTyped] = useState('');
  const add = () => {
    const fresh = typed
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '' && !tags.includes(t));
    setTyped('');
    if (fresh.length > 0) set([...tags, ...new Set(fresh)]);
  };
  return (
    <FieldShell props={props} className="field-tags">
      <div class="tags-box" data-testid={`field-${field.key}`}>
        {tags.length > 0 && (
          <ul class="tag-list" aria-label={`${field.label}: ${tags.length} ${tags.length === 1 ? 'tag' : 'tags'}`}>
            {tags.map((tag) => (
              <li key={tag} class="tag-chip" data-testid="tag">
                <span>{tag}</span>
                <button type="button" class="tag-remove" aria-label={`Remove ${tag}`} onClick={() => set(tags.filter((t) => t !== tag))}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <input
          id={inputId}
          type="text"
          data-testid={`field-${field.key}-input`}
          value={typed}
          placeholder={typeof field.placeholder === 'string' ? field.placeholder : 'Type and press Enter'}
          {...ariaRequired(props)}
          {...described(props)}
          onInput={(e) => setTyped(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' || e.key === ',') {
              e.preventDefault();
              add();
            } else if (e.key === 'Backspace' && typed === '' && tags.length > 0) set(tags.slice(0, -1));
          }}
          onBlur={add}
        />
      </div>
    </FieldShell>
  );
}
