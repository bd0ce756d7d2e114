/** A file field: the file is uploaded as soon as it is chosen, and its reference is the value the click sends. */
import { useContext, useState } from 'preact/hooks';
import { isFileRef } from '../../form-values.js';
import { UiContext } from '../../ui-context.js';
import { FieldShell } from './FieldShell.js';
import { described, numberProp, type FieldProps } from './field-props.js';

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1).replace(/\.0$/, '')} KB`;
  return `${(size / 1024 / 1024).toFixed(1).replace(/\.0$/, '')} MB`;
}

const DEFAULT_MAX = 5 * 1024 * 1024;

export function FileInput(props: FieldProps) {
  const { instanceId, field, inputId, value, set } = props;
  const { upload } = useContext(UiContext);
  const [state, setState] = useState<{ kind: 'idle' } | { kind: 'uploading'; name: string } | { kind: 'failed'; message: string }>({ kind: 'idle' });
  const accept = Array.isArray(field.accept) ? field.accept.filter((a): a is string => typeof a === 'string') : [];
  const maxBytes = Math.min(numberProp(field.maxBytes) ?? DEFAULT_MAX, DEFAULT_MAX);
  const choose = async (file: File | undefined) => {
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
        {...described(props)}
        onChange={(e) => void choose(e.currentTarget.files?.[0])}
      />
      <p class="file-status" aria-live="polite" data-testid={`field-${field.key}-status`} data-state={state.kind}>
        {state.kind === 'uploading'
          ? `Uploading ${state.name}…`
          : state.kind === 'failed'
            ? state.message
            : isFileRef(value)
              ? `${value.name} (${formatBytes(value.size)})`
              : `No file yet (at most ${formatBytes(maxBytes)}).`}
      </p>
    </FieldShell>
  );
}
