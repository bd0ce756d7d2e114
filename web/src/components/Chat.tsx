import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { CommandView, SendMessageBody, SessionDetail } from '../../../src/serve/api-types.js';
import { conversationOf, usageText, type Entry, type Unanswered } from '../conversation.js';
import type { LiveItem } from '../live-runs.js';
import type { UIInstance } from '../types.js';
import { streamedResult } from '../tool-view.js';
import { Composer } from './Composer.js';
import { plainText } from '../markdown.js';
import { Markdown } from './Markdown.js';
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
  onSend: (text: string, policy?: SendMessageBody['policy']) => Promise<boolean>;
  /** Takes back a message waiting for the run (the session's inbox, listed under the composer). */
  onUnsend: (messageId: string) => void;
  onStop: () => void;
  onEdit: (turnId: string, text: string) => Promise<boolean>;
  onFork: (turnId: string) => void;
  onSwitch: (turnId: string, direction: 'left' | 'right') => void;
  /** The model-built UIs the page holds: a click on one is shown in its words. */
  instances?: Readonly<Record<string, UIInstance>>;
  /** Slash commands a message may start with (the MCP servers' prompts). */
  commands?: readonly CommandView[];
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
  const shownSession = useRef(sessionId);
  useEffect(() => {
    const el = log.current;
    // Another conversation opens at its end, wherever the last one was read.
    if (shownSession.current !== sessionId) stuck.current = true;
    shownSession.current = sessionId;
    if (el !== null && stuck.current) el.scrollTop = el.scrollHeight;
  }, [size, sessionId]);
  // The log shrinks when the on-screen keyboard opens (or the window does): the latest message stays in view.
  useEffect(() => {
    const el = log.current;
    if (el === null) return;
    const observer = new ResizeObserver(() => {
      if (stuck.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  // The turn the user stopped a run at, here: a run stopped before it answered leaves no record saying so.
  const [stoppedAt, setStoppedAt] = useState<string | null>(null);
  const conversation = useMemo(() => conversationOf(detail?.turns ?? [], props.running, stoppedAt), [detail, props.running, stoppedAt]);
  const stop = () => {
    setStoppedAt(detail?.turns.at(-1)?.id ?? null);
    props.onStop();
  };
  const { totals } = conversation;
  const canEdit = props.disabledNote === null;

  return (
    <main class="chat" inert={props.inert}>
      <header class="chat-head">
        <h1>{detail === null ? (props.loading ? 'Loading…' : 'New conversation') : plainText(detail.session.label ?? 'Untitled')}</h1>
        {detail !== null && (
          <span class="muted small" data-testid="session-usage">
            {`${detail.session.turns} ${detail.session.turns === 1 ? 'turn' : 'turns'}`}
            {totals.answers > 0 && ` · ${usageText(totals.inputTokens, totals.outputTokens, totals.cost)}`}
          </span>
        )}
      </header>
      <div
        class="chat-log"
        data-testid="chat-log"
        ref={log}
        // Not a live region: each streamed word would be read out. The typing indicator (a status) says when Golem works.
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
        {conversation.entries.map((entry, i) => (
          <ChatEntry
            key={`${entry.turn.id}@${entry.turn.version}`}
            entry={entry}
            canEdit={canEdit}
            running={props.running}
            last={i === conversation.entries.length - 1}
            props={props}
          />
        ))}
        {conversation.unanswered !== null && <UnansweredNote unanswered={conversation.unanswered} canRetry={canEdit} onEdit={props.onEdit} />}
        {streaming !== null && <Streaming items={streaming} />}
      </div>
      {props.canCompose && (
        <Composer
          disabledNote={props.disabledNote}
          running={props.running}
          commands={props.commands ?? []}
          queued={detail?.inbox ?? []}
          onSend={props.onSend}
          onUnsend={props.onUnsend}
          onStop={stop}
        />
      )}
    </main>
  );
}

function ChatEntry({ entry, canEdit, running, last, props }: { entry: Entry; canEdit: boolean; running: boolean; last: boolean; props: Props }) {
  if (entry.type === 'notice') {
    return (
      <p class="chat-notice" data-testid="notice" data-turn-id={entry.turn.id}>
        {entry.turn.text}
      </p>
    );
  }
  if (entry.type === 'results') {
    return (
      <div class="message role-tool kind-results" data-testid="orphan-results">
        <div class="bubble">
          {entry.results.length === 0 ? (
            <Markdown text={entry.turn.text} />
          ) : (
            entry.results.map((r) => <ToolCall key={r.callId} name="result" input={undefined} result={{ text: r.text, isError: r.isError }} />)
          )}
        </div>
      </div>
    );
  }
  return (
    <Message
      turn={entry.turn}
      results={entry.results}
      replyTo={entry.replyTo}
      uiInstance={entry.turn.uiAction === null ? undefined : props.instances?.[entry.turn.uiAction.instanceId]}
      canEdit={canEdit}
      running={running}
      callsRunning={running && last}
      onEdit={props.onEdit}
      onFork={props.onFork}
      onSwitch={props.onSwitch}
    />
  );
}

/** The last message has no answer (the run stopped or failed before one): say so, and offer to ask again. */
function UnansweredNote({ unanswered, canRetry, onEdit }: { unanswered: Unanswered; canRetry: boolean; onEdit: Props['onEdit'] }) {
  const { retry } = unanswered;
  return (
    <div class="chat-notice unanswered" data-testid="unanswered" data-status={unanswered.status}>
      <span>{unanswered.status === 'stopped' ? 'Stopped before an answer.' : 'No answer to this message.'}</span>
      {canRetry && retry !== null && (
        <button type="button" class="link-btn" data-testid="retry" onClick={() => void onEdit(retry.id, retry.text)}>
          Retry
        </button>
      )}
    </div>
  );
}

/** What the run streams before it is recorded: text as markdown, calls as they run, and a typing mark while nothing new comes. */
function Streaming({ items }: { items: LiveItem[] }) {
  const last = items.at(-1);
  // No text streaming now (no item yet, the last text ended, or a call was asked for: it runs, or the model reads its result).
  const waiting = last === undefined || last.kind !== 'text' || last.endedAt !== null;
  return (
    <article class="message role-assistant streaming" data-testid="streaming" aria-busy="true" aria-label="Golem, answering">
      <div class="bubble">
        {items.map((item) =>
          item.kind === 'text' ? (
            <Markdown key={item.id} text={item.text} testId="streaming-text" />
          ) : (
            <ToolCall key={item.id} name={item.name} input={item.args} result={item.result === null ? null : streamedResult(item.name, item.result)} running />
          ),
        )}
        {waiting && (
          <span class="typing" data-testid="typing" role="status">
            <span class="sr-only">Golem is working…</span>
            <i aria-hidden="true" />
            <i aria-hidden="true" />
            <i aria-hidden="true" />
          </span>
        )}
      </div>
    </article>
  );
}
