import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApprovalAnswerBody, ApprovalView } from '../../../src/serve/api-types.js';

interface Props {
  approval: ApprovalView;
  onAnswer: (body: ApprovalAnswerBody) => Promise<void>;
}

/** The oldest approval the agent waits for, as a modal; the next state read closes it in every tab. */
export function ApprovalDialog({ approval, onAnswer }: Props) {
  const [refusing, setRefusing] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLButtonElement>(null);
  const reasonInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    setRefusing(false);
    setReason('');
    setBusy(false);
    first.current?.focus();
  }, [approval.id]);
  useEffect(() => {
    if (refusing) reasonInput.current?.focus();
  }, [refusing]);

  const answer = async (body: ApprovalAnswerBody) => {
    setBusy(true);
    await onAnswer(body);
    setBusy(false);
  };

  return (
    <div class="overlay">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="approval-title" data-testid="approval-dialog">
        <header class="dialog-head">
          <h2 id="approval-title">Approval required</h2>
          <span class={`risk risk-${approval.risk}`} data-testid="approval-risk">
            {approval.risk} risk
          </span>
        </header>
        <p class="approval-description" data-testid="approval-description">
          {approval.description}
        </p>
        <dl class="approval-facts">
          <dt>Action</dt>
          <dd>
            <code>{approval.action}</code> <span class="muted">({approval.type.replace('_', ' ')})</span>
          </dd>
          <dt>Asked by</dt>
          <dd data-testid="approval-path">{approval.workerPath.map((w) => w.task).join(' → ')}</dd>
        </dl>
        {/* Long details scroll: focusable, so a keyboard can scroll them too. */}
        <pre class="approval-details" tabIndex={0} aria-label="The call in full">
          {pretty(approval.details)}
        </pre>
        {refusing && (
          <label class="reason">
            <span>Reason (optional)</span>
            <input
              ref={reasonInput}
              type="text"
              data-testid="approval-reason"
              value={reason}
              onInput={(e) => setReason(e.currentTarget.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter') void answer(reason.trim() === '' ? { answer: 'no' } : { answer: 'no', reason: reason.trim() });
              }}
            />
          </label>
        )}
        <div class="dialog-buttons">
          <button ref={first} type="button" class="btn btn-primary" data-testid="approval-yes" disabled={busy} onClick={() => void answer({ answer: 'yes' })}>
            Yes
          </button>
          <button type="button" class="btn btn-secondary" data-testid="approval-always" disabled={busy} onClick={() => void answer({ answer: 'always' })}>
            Always
          </button>
          <button type="button" class="btn btn-secondary" data-testid="approval-session" disabled={busy} onClick={() => void answer({ answer: 'session' })}>
            This session
          </button>
          <span class="spacer" />
          {refusing ? (
            <button
              type="button"
              class="btn btn-danger"
              data-testid="approval-send-no"
              disabled={busy}
              onClick={() => void answer(reason.trim() === '' ? { answer: 'no' } : { answer: 'no', reason: reason.trim() })}
            >
              Send no
            </button>
          ) : (
            <button type="button" class="btn btn-danger-outline" data-testid="approval-no" disabled={busy} onClick={() => setRefusing(true)}>
              No
            </button>
          )}
        </div>
      </div>
    </div>
  );
}

function pretty(details: unknown): string {
  try {
    return JSON.stringify(details, null, 2) ?? 'null';
  } catch {
    return String(details);
  }
}
