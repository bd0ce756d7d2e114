import { useState } from 'preact/hooks';
import { argsOf, diffOf, gist, outputOf, prettyArgs, reasonOf, statusOf, type ToolResultText, type ToolStatus } from '../tool-view.js';
import { CodeBlock } from './Markdown.js';
import { DiffView } from './DiffView.js';

interface Props {
  name: string;
  /** The arguments: parsed (a recorded call) or JSON text (a streamed one). */
  input: unknown;
  result: ToolResultText | null;
  /** The run is going: a call with no result yet is running (else it was never answered). */
  running?: boolean;
}

const MARKS: Record<ToolStatus, { mark: string; label: string }> = {
  running: { mark: '', label: 'running' },
  ok: { mark: '✓', label: 'done' },
  staged: { mark: '◷', label: 'staged for review' },
  failed: { mark: '✗', label: 'failed' },
  stopped: { mark: '■', label: 'stopped' },
  unanswered: { mark: '–', label: 'no result' },
};

/**
 * A tool call on one line (status mark, name, what it works on, why it failed), opening
 * onto its whole arguments and its output: a command as a terminal block with its exit
 * code, a file edit as a diff, other output pretty-printed.
 */
export function ToolCall({ name, input, result, running = false }: Props) {
  const [open, setOpen] = useState(false);
  const status = statusOf(result, running);
  const { mark, label } = MARKS[status];
  const failed = status === 'failed' || status === 'stopped';
  return (
    <details
      class={`tool-call status-${status}`}
      data-testid="tool-call"
      data-name={name}
      data-status={status}
      open={open}
      onToggle={(e) => setOpen(e.currentTarget.open)}
    >
      <summary>
        <span class={`tool-mark ${status}`} role="img" aria-label={label}>
          {status === 'running' ? <span class="spinner" /> : mark}
        </span>
        <span class="tool-name">{name}</span>
        <span class="tool-gist">{gist(input)}</span>
        {status === 'staged' && <span class="tool-tag">staged for review</span>}
        {failed && (
          <span class="tool-reason" data-testid="tool-reason">
            {reasonOf(name, result)}
          </span>
        )}
      </summary>
      {open && <ToolBody input={input} result={result} status={status} />}
    </details>
  );
}

function ToolBody({ input, result, status }: { input: unknown; result: ToolResultText | null; status: ToolStatus }) {
  const output = outputOf(result);
  const diff = diffOf(input);
  const args = prettyArgs(input);
  return (
    <div class="tool-body">
      {diff !== null ? (
        <DiffView diff={diff} testId="tool-diff" />
      ) : output.kind === 'command' ? null : (
        args !== '' && (
          <section aria-label="Arguments">
            <h3 class="tool-section">Arguments</h3>
            <CodeBlock code={args} lang="json" />
          </section>
        )
      )}
      <section aria-label="Result" data-testid="tool-result" data-status={status}>
        {output.kind === 'command' ? (
          <Terminal command={commandOf(input)} exitCode={output.exitCode} output={output.output} timedOut={output.timedOut} />
        ) : output.kind === 'none' ? (
          <p class="muted small tool-section">{status === 'running' ? 'Running…' : status === 'unanswered' ? 'No result was recorded.' : '(no output)'}</p>
        ) : output.kind === 'staged' ? (
          <p class="tool-staged">Staged for your review in the clearance panel.</p>
        ) : output.kind === 'json' ? (
          <>
            <h3 class="tool-section">Result</h3>
            <CodeBlock code={JSON.stringify(output.value, null, 2)} lang="json" />
          </>
        ) : (
          <pre class={`tool-output${status === 'failed' ? ' error' : ''}`} tabIndex={0}>
            {output.text}
          </pre>
        )}
      </section>
    </div>
  );
}

function Terminal({ command, exitCode, output, timedOut }: { command: string; exitCode: number | null; output: string; timedOut: boolean }) {
  const ok = exitCode === 0 && !timedOut;
  return (
    <div class="terminal" data-testid="terminal">
      <pre tabIndex={0}>
        {command !== '' && <span class="terminal-prompt">{`$ ${command}\n`}</span>}
        {output.replace(/\n$/, '')}
      </pre>
      <div class={`terminal-exit ${ok ? 'ok' : 'failed'}`} data-testid="exit-code">
        {timedOut ? 'timed out' : `exit code ${exitCode ?? 'none'}`}
      </div>
    </div>
  );
}

function commandOf(input: unknown): string {
  const command = argsOf(input)?.command;
  return typeof command === 'string' ? command : '';
}
