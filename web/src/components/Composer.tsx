import { useState } from 'preact/hooks';
import type { CommandView, InboxMessageView, SendMessageBody } from '../../../src/serve/api-types.js';

interface Props {
  disabledNote: string | null;
  running: boolean;
  /** Slash commands a message may start with (the MCP servers' prompts): offered while one is typed. */
  commands: readonly CommandView[];
  /** Messages waiting for the run (the session's inbox), oldest first. */
  queued: readonly InboxMessageView[];
  onSend: (text: string, policy?: SendMessageBody['policy']) => Promise<boolean>;
  onUnsend: (messageId: string) => void;
  onStop: () => void;
}

/**
 * The message box: Enter sends, Shift+Enter is a new line; a slash command typed is offered with
 * its arguments, Tab completes it. During a run Enter queues the message for the run's end, and
 * Steer sends it to the running agent, which reads it before its next model call; the messages
 * waiting are listed below, each with a button that takes it back.
 */
export function Composer({ disabledNote, running, commands, queued, onSend, onUnsend, onStop }: Props) {
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const disabled = disabledNote !== null;
  // While the first word is being typed as a command, the commands it may be.
  const offered = /^\/\S*$/.test(text) ? commands.filter((c) => c.command.startsWith(text)) : [];
  const choose = (command: CommandView) => setText(`${command.command} `);

  // No run: a run starts on it (a run the page has not heard of yet gets it in its inbox, as the server's default says).
  const send = async (policy: SendMessageBody['policy'] = running ? 'enqueue' : undefined) => {
    const message = text.trim();
    if (message === '' || sending || disabled) return;
    setSending(true);
    const ok = await onSend(message, policy);
    setSending(false);
    // What was typed meanwhile (the next message, while this one was queued) stays.
    if (ok) setText((now) => (now.trim() === message ? '' : now));
  };
  const empty = disabled || sending || text.trim() === '';

  return (
    <div class="composer">
      {disabledNote !== null && <p class="note">{disabledNote}</p>}
      <div class={`composer-row${running ? ' running' : ''}`}>
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
          {running && (
            <button
              type="button"
              class="btn btn-secondary"
              data-testid="steer"
              disabled={empty}
              title="Show this message to the agent now, before its next step"
              onClick={() => void send('steer')}
            >
              Steer
            </button>
          )}
          <button type="button" class="btn btn-primary" data-testid="send" disabled={empty} onClick={() => void send()}>
            {running ? 'Queue' : 'Send'}
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
      {queued.length > 0 && <QueuedMessages queued={queued} onUnsend={onUnsend} />}
      <p class={`composer-hint muted small${running ? ' running' : ''}`} id="composer-hint">
        {running ? (
          <>
            Enter queues your message for when this answer ends; Steer shows it to the agent before its next step.
            <span class="hint-keys"> Esc or Stop interrupts.</span>
          </>
        ) : (
          'Enter sends, Shift+Enter starts a new line.'
        )}
      </p>
    </div>
  );
}

/** What each policy means for a waiting message, in a word. */
const WHEN: Record<InboxMessageView['policy'], string> = { enqueue: 'Queued', steer: 'Steering', interrupt: 'Next' };

/** The messages waiting for the run: one line each, and a button that takes it back. */
function QueuedMessages({ queued, onUnsend }: { queued: readonly InboxMessageView[]; onUnsend: (messageId: string) => void }) {
  return (
    <ul class="composer-queue" aria-label="Messages waiting for the agent" data-testid="queued">
      {queued.map((m) => {
        const line = m.text.replace(/\s+/g, ' ').trim();
        return (
          <li key={m.id} data-testid="queued-message" data-policy={m.policy}>
            <span class={`queued-when policy-${m.policy}`}>{WHEN[m.policy]}</span>
            <span class="queued-text" title={m.text}>
              {line}
            </span>
            <button
              type="button"
              class="icon-btn queued-remove"
              data-testid="queued-remove"
              aria-label={`Remove queued message: ${line}`}
              onClick={() => onUnsend(m.id)}
            >
              ×
            </button>
          </li>
        );
      })}
    </ul>
  );
}
