import type { TurnView } from '../../../src/serve/api-types.js';
import { usageText } from '../conversation.js';
import { CopyButton } from './CopyButton.js';

interface Props {
  turn: TurnView;
  /** What Copy puts on the clipboard. */
  copyText: string;
  replyTo: TurnView | null;
  canEdit: boolean;
  running: boolean;
  onStartEdit: () => void;
  onEdit: (turnId: string, text: string) => Promise<boolean>;
  onFork: (turnId: string) => void;
  onSwitch: (turnId: string, direction: 'left' | 'right') => void;
}

/**
 * Under a message: its versions, copy, edit (the user's), regenerate or retry (an answer: its
 * question asked again, as a new version of it), fork from here, and an answer's tokens and cost.
 */
export function MessageActions({ turn, copyText, replyTo, canEdit, running, onStartEdit, onEdit, onFork, onSwitch }: Props) {
  const { branch } = turn;
  const again = turn.role === 'assistant' && replyTo !== null && canEdit;
  return (
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
      {copyText !== '' && <CopyButton text={copyText} what={turn.role === 'user' ? 'your message' : 'the answer'} testId="copy-message" />}
      {turn.role === 'user' && turn.kind === 'message' && canEdit && (
        <button type="button" class="link-btn" data-testid="edit-message" onClick={onStartEdit} disabled={running}>
          Edit
        </button>
      )}
      {again && (
        <button
          type="button"
          class="link-btn"
          data-testid={turn.ended === null ? 'regenerate' : 'retry'}
          disabled={running}
          title={running ? 'Wait for the answer in progress' : 'Ask the question again (a new version of it)'}
          onClick={() => void onEdit(replyTo.id, replyTo.text)}
        >
          {turn.ended === null ? 'Regenerate' : 'Retry'}
        </button>
      )}
      <button type="button" class="link-btn" data-testid="fork-here" onClick={() => onFork(turn.id)}>
        Fork from here
      </button>
      {turn.usage !== null && (
        <span class="usage muted small" data-testid="answer-usage" title={`${turn.usage.inputTokens} in, ${turn.usage.outputTokens} out`}>
          {usageText(turn.usage.inputTokens, turn.usage.outputTokens, turn.usage.cost)}
        </span>
      )}
    </div>
  );
}
