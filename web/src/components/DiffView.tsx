import { useMemo } from 'preact/hooks';
import { highlightDiff } from '../../../src/project/unified-diff.js';

/**
 * A unified diff, line by line: additions and removals on their tint with their sign colored,
 * hunks blue, file headers bold; the code highlighted in the language of each file's extension
 * (or `language`, for a diff without file headers). `label` names the region.
 */
export function DiffView({ diff, testId = 'clearance-diff', label = 'Diff', language }: { diff: string; testId?: string; label?: string; language?: string }) {
  const lines = useMemo(() => highlightDiff(diff, language), [diff, language]);
  return (
    // Focusable: a long diff scrolls, by keyboard too.
    <pre class="diff" data-testid={testId} tabIndex={0} role="region" aria-label={label}>
      {diff.trim() === '' ? (
        <span class="muted">(empty diff)</span>
      ) : (
        lines.map((line, i) => (
          <span key={i} class={`diff-line ${line.kind}`}>
            {line.tokens === undefined ? (
              line.text === '' ? (
                ' '
              ) : (
                line.text
              )
            ) : (
              <>
                <span class="diff-sign">{line.sign}</span>
                {line.tokens.map((token, j) =>
                  token.className === undefined ? (
                    token.text
                  ) : (
                    <span key={j} class={token.className}>
                      {token.text}
                    </span>
                  ),
                )}
              </>
            )}
            {'\n'}
          </span>
        ))
      )}
    </pre>
  );
}
