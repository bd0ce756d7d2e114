import { useState } from 'preact/hooks';
import type { TurnView } from '../../../src/serve/api-types.js';
import { ToolCall, argsText } from './ToolCall.js';

interface Props {
  turn: TurnView;
  /** Read-only (no model): no edit. */
  canEdit: boolean;
  onEdit: (turnId: string, text: string) => Promise<boolean>;
  onFork: (turnId: string) => void;
  onSwitch: (turnId: string, direction: 'left' | 'right') => void;
}

/** One turn on the session's path, with its actions (edit, fork, version switcher). */
export function Message({ turn, canEdit, onEdit, onFork, onSwitch }: Props) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [saving, setSaving] = useState(false);
  const { branch } = turn;

  const save = async () => {
    setSaving(true);
    const ok = await onEdit(turn.id, draft);
    setSaving(false);
    if (ok) setEditing(false);
  };

  const results = new Map(turn.toolResults.map((r) => [r.callId, r]));
  const orphanResults = turn.toolResults.filter((r) => !turn.toolCalls.some((c) => c.callId === r.callId));

  return (
    <article
      class={`message role-${turn.role}${editing ? ' editing' : ''}`}
      data-testid="message"
      data-role={turn.role}
      data-turn-id={turn.id}
      data-version={turn.version}
    >
      <div class="bubble">
        {editing ? (
          <div class="edit-box">
            <textarea
              data-testid="edit-input"
              value={draft}
              rows={Math.min(10, Math.max(2, draft.split('\n').length))}
              onInput={(e) => setDraft(e.currentTarget.value)}
              aria-label="Edit message"
            />
            <div class="row end">
              <button type="button" class="btn btn-secondary btn-small" data-testid="edit-cancel" onClick={() => setEditing(false)} disabled={saving}>
                Cancel
              </button>
              <button
                type="button"
                class="btn btn-primary btn-small"
                data-testid="edit-save"
                onClick={() => void save()}
                disabled={saving || draft.trim() === ''}
              >
                {saving ? 'Saving…' : 'Save'}
              </button>
            </div>
          </div>
        ) : (
          turn.text !== '' && (
            <div class="message-text" data-testid="message-text">
              {turn.text}
            </div>
          )
        )}
        {turn.toolCalls.map((call) => (
          <ToolCall key={call.callId} name={call.name} args={argsText(call.input)} result={results.get(call.callId) ?? null} />
        ))}
        {orphanResults.map((r) => (
          <pre key={r.callId} class={`tool-result${r.isError ? ' error' : ''}`} data-testid="tool-result">
            {r.text}
          </pre>
        ))}
      </div>
      <div class="message-actions">
        {branch.total > 1 && (
          <span class="versions">
            <button
              type="button"
              class="icon-btn"
              data-testid="version-prev"
              disabled={!branch.hasPrev}
              onClick={() => onSwitch(turn.id, 'left')}
              aria-label="Previous version"
            >
              ‹
            </button>
            <span data-testid="version-label">{`${branch.currentIndex + 1} / ${branch.total}`}</span>
            <button
              type="button"
              class="icon-btn"
              data-testid="version-next"
              disabled={!branch.hasNext}
              onClick={() => onSwitch(turn.id, 'right')}
              aria-label="Next version"
            >
              ›
            </button>
          </span>
        )}
        {turn.role === 'user' && !editing && canEdit && (
          <button
            type="button"
            class="link-btn"
            data-testid="edit-message"
            onClick={() => {
              setDraft(turn.text);
              setEditing(true);
            }}
          >
            Edit
          </button>
        )}
        <button type="button" class="link-btn" data-testid="fork-here" onClick={() => onFork(turn.id)}>
          Fork from here
        </button>
      </div>
    </article>
  );
}
