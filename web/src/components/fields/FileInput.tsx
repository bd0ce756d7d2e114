/**
 * A file field: the file is uploaded as soon as it is chosen, and its reference is the value
 * the click sends; Remove takes it back (the server lets an unsent upload go, and null is sent:
 * the field is cleared). Another file chosen replaces it on the server too. The input is
 * emptied once the file is read, so the same file can be chosen again.
 */
import { useContext, useState } from 'preact/hooks';
import { isFileRef } from '../../form-values.js';
import { UiContext } from '../../ui-context.js';
import { FieldShell } from './FieldShell.js';
import { ariaRequired, described, numberProp, type FieldProps } from './field-props.js';

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1).replace(/\.0$/, '')} KB`;
  return `${(size / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB`;
}

const DEFAULT_MAX = 5 * 1024 * 1024;

export function FileInput(props: FieldProps) {
  const { instanceId, field, inputId, value, set } = props;
  const { upload, discard } = useContext(UiContext);
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'uploading'; name: string } | { kind: 'failed'; message: string }>({ kind: 'idle' });
  const accept = Array.isArray(field.accept) ? field.accept.filter((a): a is string => typeof a === 'string') : [];
  const maxBytes = Math.min(numberProp(field.maxBytes) ?? DEFAULT_MAX, DEFAULT_MAX);
  const choose = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    // Read: the input forgets it, so choosing the same file again is a change too.
    input.value = '';
    if (file === undefined) return;
    if (file.size > maxBytes) {
      setState({ kind: 'failed', message: `${file.name} is ${formatBytes(file.size)}: at most ${formatBytes(maxBytes)}.` });
      return;
    }
    setState({ kind: 'uploading', name: file.name });
    try {
      set({ ...(await upload(instanceId, field.key, file)) });
      setState({ kind: 'idle' });
    } catch (error) {
      setState({ kind: 'failed', message: `${file.name} was not uploaded: ${(error as Error).message}` });
    }
  };
  return (
    <FieldShell props={props} className="field-file">
      <input
        id={inputId}
        type="file"
        data-testid={`field-${field.key}`}
        accept={accept.length > 0 ? accept.join(',') : undefined}
        {...ariaRequired(props)}
        {...described(props)}
        onChange={(e) => void choose(e.currentTarget)}
      />
      <div class="file-row">
        <p class="file-status" aria-live="polite" data-testid={`field-${field.key}-status`} data-state={state.kind}>
          {state.kind === 'uploading'
            ? `Uploading ${state.name}…`
            : state.kind === 'failed'
              ? state.message
              : isFileRef(value)
                ? `${value.name} (${formatBytes(value.size)})`
                : `No file yet (at most ${formatBytes(maxBytes)}).`}
        </p>
        {isFileRef(value) && state.kind !== 'uploading' && (
          <button
            type="button"
            class="btn btn-secondary btn-small"
            data-testid={`field-${field.key}-remove`}
            aria-label={`Remove ${value.name}`}
            onClick={() => {
              setState({ kind: 'idle' });
              // Not yet sent: the server lets it go now (one a click sent goes when the next click sends the empty field).
              void discard(instanceId, value.sha256).catch(() => undefined);
              set(null);
            }}
          >
            Remove
          </button>
        )}
      </div>
    </FieldShell>
  );
}
