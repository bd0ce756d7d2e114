import { useState } from 'preact/hooks';
import type { CommandView } from '../../../src/serve/api-types.js';

interface Props {
  disabledNote: string | null;
  running: boolean;
  /** Slash commands a message may start with (the MCP servers' prompts): offered while one is typed. */
  commands: readonly CommandView[];
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
}

/** The message box: Enter sends, Shift+Enter is a new line; a slash command typed is offered with its arguments, Tab completes it. */
export function Composer({ disabledNote, running, commands, onSend, onStop }: Props) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const disabled = disabledNote !== null;
  // While the first word is being typed as a command, the commands it may be.
  const offered = /^\/\S*$/.test(text) ? commands.filter((c) => c.command.startsWith(text)) : [];
  const choose = (command: CommandView) => setText(`${command.command} `);

  const send = async () => {
    const message = text.trim();
    if (message === '' || sending || disabled) return;
    setSending(true);
    const ok = await onSend(message);
    setSending(false);
    if (ok) setText('');
  };

  return (
    <div class="composer">
      {disabledNote !== null && <p class="note">{disabledNote}</p>}
      <div class="composer-row">
        <textarea
          data-testid="chat-input"
          placeholder={disabled ? '' : 'Message the agent…'}
          rows={Math.min(8, Math.max(2, text.split('\n').length))}
          value={text}
          disabled={disabled}
          aria-label="Message"
          aria-describedby="composer-hint"
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={(e) => {
            const first = offered[0];
            if (e.key === 'Tab' && !e.shiftKey && first !== undefined) {
              e.preventDefault();
              choose(first);
              return;
            }
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              void send();
            }
          }}
        />
        <div class="composer-buttons">
          {running && (
            <button type="button" class="btn btn-danger" data-testid="stop" onClick={onStop}>
              Stop
            </button>
          )}
          <button type="button" class="btn btn-primary" data-testid="send" disabled={disabled || sending || text.trim() === ''} onClick={() => void send()}>
            Send
          </button>
        </div>
      </div>
      {offered.length > 0 && (
        <ul class="composer-commands" aria-label="Commands" data-testid="composer-commands">
          {offered.map((c) => (
            <li key={c.command}>
              <button type="button" class="link-btn" data-testid="composer-command" onClick={() => choose(c)}>
                <code>{c.command}</code>
                {c.usage !== '' && <span class="muted"> {c.usage}</span>}
              </button>
              {c.description !== '' && <span class="muted small"> {c.description}</span>}
            </li>
          ))}
        </ul>
      )}
      <p class="composer-hint muted small" id="composer-hint">
        {running ? 'Esc or Stop interrupts the answer.' : 'Enter sends, Shift+Enter starts a new line.'}
      </p>
    </div>
  );
}
