import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { showBidiControls } from '../../../src/core/text.js';
import type { ApprovalAnswerBody, ApprovalView } from '../../../src/serve/api-types.js';
import { useActivationGuard, type ActivationGuard } from '../use-activation-guard.js';
import { ApprovalToolChange } from './ApprovalToolChange.js';

interface Props {
  approval: ApprovalView;
  onAnswer: (body: ApprovalAnswerBody) => Promise<void>;
}

/** The answers that approve, as their buttons say them; the first is the primary one. */
const APPROVING_CHOICES = [
  { answer: 'yes', label: 'Yes', testId: 'approval-yes' },
  { answer: 'always', label: 'Always', testId: 'approval-always' },
  { answer: 'session', label: 'This session', testId: 'approval-session' },
] as const satisfies readonly { answer: ApprovalAnswerBody['answer']; label: string; testId: string }[];
type ApprovingChoice = (typeof APPROVING_CHOICES)[number];

const APPROVING = new Set<string>(APPROVING_CHOICES.map((c) => c.testId));
const isApproving = (target: EventTarget | null) => target instanceof HTMLElement && APPROVING.has(target.dataset.testid ?? '');

/**
 * The oldest approval the agent waits for, as a modal; the next state read closes it in every tab.
 * Golem's own: its system band (the shield, "Golem asks", the worker and the action) is drawn by
 * this component alone, never by the model's UI. Approving takes a deliberate act: focus opens
 * on the dialog, not a button, and Yes, Always and This session take no press for a moment after
 * it opens or its question changes, nor while keys are being typed (`useActivationGuard`).
 * It says why it asks: the reason for the risk beside its label, and what an MCP server changed
 * in a tool since it was trusted.
 */
export function ApprovalDialog({ approval, onAnswer }: Props) {
  const [refusing, setRefusing] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const dialog = useRef<HTMLDivElement>(null);
  const reasonInput = useRef<HTMLInputElement>(null);
  const guard = useActivationGuard(approval.id, isApproving);

  // Focus moves before the dialog is painted: no key typed once it shows reaches the page behind it.
  useLayoutEffect(() => {
    setRefusing(false);
    setReason('');
    setBusy(false);
    dialog.current?.focus();
  }, [approval.id]);
  useEffect(() => {
    if (refusing) reasonInput.current?.focus();
  }, [refusing]);

  const answer = async (body: ApprovalAnswerBody) => {
    setBusy(true);
    await onAnswer(body);
    setBusy(false);
  };
  const asker = approval.workerPath.at(-1);

  return (
    <div class="approval-overlay">
      <div
        ref={dialog}
        class="approval-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="approval-title"
        aria-describedby="approval-description"
        tabIndex={-1}
        data-testid="approval-dialog"
        data-armed={guard.armed ? 'true' : 'false'}
        onKeyDown={guard.onKeyDown}
      >
        <header class="approval-system" data-testid="approval-system">
          <GolemShield />
          <span class="approval-system-text">
            <span class="approval-brand">Golem asks</span>
            <span class="approval-who" data-testid="approval-who">
              {asker === undefined || approval.workerPath.length <= 1 ? 'for the agent' : `for worker “${showBidiControls(asker.task)}”`} ·{' '}
              <code>{showBidiControls(approval.action)}</code>
            </span>
            {approval.riskReason !== undefined && (
              <span class="approval-risk-reason" id="approval-risk-reason" data-testid="approval-risk-reason">
                Why: {showBidiControls(approval.riskReason)}
              </span>
            )}
          </span>
          <span
            class={`risk risk-${approval.risk}`}
            data-testid="approval-risk"
            aria-describedby={approval.riskReason === undefined ? undefined : 'approval-risk-reason'}
          >
            {approval.risk} risk
          </span>
        </header>
        <div class="approval-body">
          <h2 id="approval-title">Allow this {approval.type.replace('_', ' ')}?</h2>
          <p class="approval-description" id="approval-description" data-testid="approval-description">
            {showBidiControls(approval.description)}
          </p>
          <dl class="approval-facts">
            <dt>Asked by</dt>
            <dd data-testid="approval-path">{approval.workerPath.map((w) => showBidiControls(w.task)).join(' → ')}</dd>
          </dl>
          {approval.toolChange !== undefined && <ApprovalToolChange change={approval.toolChange} />}
          {/* Long details scroll: focusable, so a keyboard can scroll them too. */}
          <pre class="approval-details" tabIndex={0} aria-label="The call in full" data-testid="approval-details">
            {showBidiControls(pretty(approval.details))}
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
          <div class="approval-buttons">
            {APPROVING_CHOICES.map((choice, at) => (
              <ApproveButton key={choice.answer} choice={choice} primary={at === 0} busy={busy} guard={guard} onApprove={(body) => void answer(body)} />
            ))}
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
    </div>
  );
}

/**
 * One approving button (Yes, Always, This session), wired to the dialog's activation guard: a
 * press counts only when `guard` allows it, and the button is drawn as waiting until it is armed.
 */
function ApproveButton(props: {
  choice: ApprovingChoice;
  primary: boolean;
  busy: boolean;
  guard: ActivationGuard;
  onApprove: (body: ApprovalAnswerBody) => void;
}) {
  const { choice, primary, busy, guard, onApprove } = props;
  return (
    <button
      type="button"
      class={primary ? 'btn btn-primary' : 'btn btn-secondary'}
      data-testid={choice.testId}
      disabled={busy}
      aria-disabled={guard.armed ? 'false' : 'true'}
      onClick={(e) => {
        if (guard.allow(e)) onApprove({ answer: choice.answer });
      }}
    >
      {choice.label}
    </button>
  );
}

/** Golem's mark: a shield, drawn here and nowhere the model's UI can draw. */
function GolemShield() {
  return (
    <svg class="approval-shield" viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">
      <path d="M12 2 4 5v6c0 5 3.4 9.4 8 11 4.6-1.6 8-6 8-11V5l-8-3Z" fill="currentColor" />
      <path d="m8.5 12.2 2.4 2.4 4.6-4.8" fill="none" stroke="var(--approval-band)" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" />
    </svg>
  );
}

function pretty(details: unknown): string {
  try {
    return JSON.stringify(details, null, 2) ?? 'null';
  } catch {
    return String(details);
  }
}
