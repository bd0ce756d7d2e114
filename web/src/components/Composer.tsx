import { useState } from 'preact/hooks';

interface Props {
  disabledNote: string | null;
  running: boolean;
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
}

/** The message box: Enter sends, Shift+Enter is a new line. */
export function Composer({ disabledNote, running, onSend, onStop }: Props) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const disabled = disabledNote !== null;

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
      <p class="composer-hint muted small" id="composer-hint">
        {running ? 'Esc or Stop interrupts the answer.' : 'Enter sends, Shift+Enter starts a new line.'}
      </p>
    </div>
  );
}
