/** A unified diff, line by line: additions green, removals red, hunks blue, file headers bold; `label` names the region. */
export function DiffView({ diff, testId = 'clearance-diff', label = 'Diff' }: { diff: string; testId?: string; label?: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  return (
    // Focusable: a long diff scrolls, by keyboard too.
    <pre class="diff" data-testid={testId} tabIndex={0} role="region" aria-label={label}>
      {diff.trim() === '' ? (
        <span class="muted">(empty diff)</span>
      ) : (
        lines.map((line, i) => (
          <span key={i} class={`diff-line ${lineClass(line)}`}>
            {line === '' ? ' ' : line}
            {'\n'}
          </span>
        ))
      )}
    </pre>
  );
}

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'ctx';
}
