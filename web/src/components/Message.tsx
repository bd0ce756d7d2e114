import { useState } from 'preact/hooks';
import type { TurnView } from '../../../src/serve/api-types.js';
import { uiActionText, uiActionView, type UiActionView } from '../conversation.js';
import type { ToolResultText } from '../tool-view.js';
import type { UIInstance } from '../types.js';
import { Markdown } from './Markdown.js';
import { MessageActions } from './MessageActions.js';
import { PlanProposal } from './PlanView.js';
import { ToolCall } from './ToolCall.js';

interface Props {
  turn: TurnView;
  /** Results of the session's calls, by call id (recorded in later turns). */
  results: ReadonlyMap<string, ToolResultText>;
  /** The user's message an answer replies to: regenerating the answer asks it again. */
  replyTo: TurnView | null;
  /** The model-built UI a click was on (its field labels), when the page has it. */
  uiInstance: UIInstance | undefined;
  /** Read-only (no model): no edit, no regenerate. */
  canEdit: boolean;
  /** A run is going on the session: changes wait for it. */
  running: boolean;
  /** Its calls without a result are running (the last turn of a run going); else they were never answered. */
  callsRunning: boolean;
  onEdit: (turnId: string, text: string) => Promise<boolean>;
  onFork: (turnId: string) => void;
  onSwitch: (turnId: string, direction: 'left' | 'right') => void;
}

/** One turn on the session's path: its text as markdown, its tool calls with their results, its actions. */
export function Message({ turn, results, replyTo, uiInstance, canEdit, running, callsRunning, onEdit, onFork, onSwitch }: Props) {
  const click = turn.uiAction === null ? null : uiActionView(turn.uiAction, uiInstance);
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const [saving, setSaving] = useState(false);

  const save = async () => {
    setSaving(true);
    const ok = await onEdit(turn.id, draft);
    setSaving(false);
    if (ok) setEditing(false);
  };
  const ended = turn.ended;

  return (
    <article
      class={`message role-${turn.role} kind-${turn.kind}${editing ? ' editing' : ''}${ended === null ? '' : ` ended-${ended.status}`}`}
      data-testid="message"
      data-role={turn.role}
      data-kind={turn.kind}
      data-turn-id={turn.id}
      data-version={turn.version}
      aria-label={turn.role === 'user' ? 'You' : turn.role === 'assistant' ? 'Golem' : turn.role}
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
        ) : click !== null ? (
          <UiAction view={click} />
        ) : (
          turn.text !== '' && <Markdown text={turn.text} />
        )}
        {turn.toolCalls.length > 0 && (
          <div class="tool-calls">
            {turn.toolCalls.map((call) => (
              <ToolCall key={call.callId} name={call.name} input={call.input} result={results.get(call.callId) ?? null} running={callsRunning} />
            ))}
          </div>
        )}
        {turn.plans.map((plan) => (
          <PlanProposal key={plan.taskId} taskId={plan.taskId} title={plan.title} />
        ))}
        {ended !== null && (
          <p class={`ended ${ended.status}`} data-testid="answer-ended" data-status={ended.status}>
            {ended.status === 'stopped' ? 'Stopped: the answer was cut short.' : `Failed: ${ended.message}`}
          </p>
        )}
      </div>
      {!editing && (
        <MessageActions
          turn={turn}
          copyText={click === null ? turn.text : uiActionText(click)}
          replyTo={replyTo}
          canEdit={canEdit}
          running={running}
          onStartEdit={() => {
            setDraft(turn.text);
            setEditing(true);
          }}
          onEdit={onEdit}
          onFork={onFork}
          onSwitch={onSwitch}
        />
      )}
    </article>
  );
}

/** A click on a model-built UI, as what the user did. */
function UiAction({ view }: { view: UiActionView }) {
  return (
    <div class="ui-action" data-testid="ui-action-turn">
      <p>
        Clicked <strong>{view.action}</strong> on <span class="ui-action-form">{view.form}</span>
      </p>
      {view.values.length > 0 && (
        <dl class="ui-action-values">
          {view.values.map(({ label, value }) => (
            <div key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </div>
          ))}
        </dl>
      )}
    </div>
  );
}
