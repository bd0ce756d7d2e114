import { useEffect, useRef } from 'preact/hooks';
import type { SessionDetail } from '../../../src/serve/api-types.js';
import type { LiveItem } from '../live-runs.js';
import { Composer } from './Composer.js';
import { Message } from './Message.js';
import { ToolCall } from './ToolCall.js';

interface Props {
  detail: SessionDetail | null;
  loading: boolean;
  /** The composer shows once the server's state is read (with no session open, the first message starts one). */
  canCompose: boolean;
  /** What runs of this session streamed since the last read; null: no run streaming. */
  streaming: LiveItem[] | null;
  running: boolean;
  disabledNote: string | null;
  onSend: (text: string) => Promise<boolean>;
  onStop: () => void;
  onEdit: (turnId: string, text: string) => Promise<boolean>;
  onFork: (turnId: string) => void;
  onSwitch: (turnId: string, direction: 'left' | 'right') => void;
  /** True while a modal dialog is open: nothing here takes focus or clicks. */
  inert: boolean;
}

export function Chat(props: Props) {
  const { detail, streaming } = props;
  const log = useRef<HTMLDivElement>(null);
  // Follow the conversation as it grows, unless the reader scrolled up.
  const size = (detail?.turns.length ?? 0) + (streaming?.reduce((n, i) => n + (i.kind === 'text' ? i.text.length : 1), 0) ?? 0);
  const sessionId = detail?.session.id;
  const stuck = useRef(true);
  useEffect(() => {
    const el = log.current;
    if (el !== null && stuck.current) el.scrollTop = el.scrollHeight;
  }, [size, sessionId]);

  return (
    <main class="chat" inert={props.inert}>
      <header class="chat-head">
        <h1>{detail === null ? (props.loading ? 'Loading…' : 'New conversation') : (detail.session.label ?? 'Untitled')}</h1>
        {detail !== null && <span class="muted small">{detail.session.turns} turns</span>}
      </header>
      <div
        class="chat-log"
        data-testid="chat-log"
        ref={log}
        aria-live="polite"
        onScroll={(e) => {
          const el = e.currentTarget;
          stuck.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        {!props.loading && (detail?.turns.length ?? 0) === 0 && streaming === null && (
          <p class="muted empty-chat">
            {props.canCompose && props.disabledNote === null ? 'Nothing here yet. Write the first message below.' : 'Nothing here yet.'}
          </p>
        )}
        {detail?.turns.map((turn) => (
          <Message
            key={`${turn.id}@${turn.version}`}
            turn={turn}
            canEdit={props.disabledNote === null}
            onEdit={props.onEdit}
            onFork={props.onFork}
            onSwitch={props.onSwitch}
          />
        ))}
        {streaming !== null && <Streaming items={streaming} />}
      </div>
      {props.canCompose && <Composer disabledNote={props.disabledNote} running={props.running} onSend={props.onSend} onStop={props.onStop} />}
    </main>
  );
}

function Streaming({ items }: { items: LiveItem[] }) {
  return (
    <article class="message role-assistant streaming" data-testid="streaming" aria-busy="true">
      <div class="bubble">
        {items.length === 0 && (
          <span class="typing" aria-label="thinking">
            <i />
            <i />
            <i />
          </span>
        )}
        {items.map((item) =>
          item.kind === 'text' ? (
            <div key={item.id} class="message-text">
              {item.text}
            </div>
          ) : (
            <ToolCall key={item.id} name={item.name} args={item.args} result={item.result === null ? null : { text: item.result, isError: false }} pending />
          ),
        )}
      </div>
    </article>
  );
}
