import { useState } from 'preact/hooks';

interface Props {
  name: string;
  args: string;
  result: { text: string; isError: boolean } | null;
  /** Shown while the call has no result yet. */
  pending?: boolean;
}

const MAX_ARGS = 120;

/** A tool call, compact: "→ name(args)", its result underneath (open at first; the reader can fold it). */
export function ToolCall({ name, args, result, pending = false }: Props) {
  const [open, setOpen] = useState(true);
  const shown = args.length > MAX_ARGS ? `${args.slice(0, MAX_ARGS)}…` : args;
  return (
    <details class="tool-call" data-testid="tool-call" data-name={name} open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <span class="tool-arrow">→</span> <span class="tool-name">{name}</span>
        <span class="tool-args">({shown})</span>
        {pending && result === null && <span class="muted small"> running…</span>}
        {result?.isError === true && <span class="tag tag-danger">error</span>}
      </summary>
      {result !== null && (
        <pre class={`tool-result${result.isError ? ' error' : ''}`} data-testid="tool-result">
          {result.text === '' ? '(no output)' : result.text}
        </pre>
      )}
    </details>
  );
}

export function argsText(input: unknown): string {
  if (input === undefined) return '';
  try {
    return JSON.stringify(input) ?? '';
  } catch {
    return '(input not shown)';
  }
}
