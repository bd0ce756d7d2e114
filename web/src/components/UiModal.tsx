/**
 * A block drawn as a dialog over the page (props.modal): named by its title, focus moved into
 * it and kept there, closed by its button or Escape (on this page, until the instance changes).
 * Framed and labelled as built by the agent, and drawn under Golem's approval dialog.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { AgentLabel } from './AgentLabel.js';

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function UiModal({ title, titleId, onClose, children }: { title: string; titleId: string; onClose: () => void; children: ComponentChildren }) {
  const dialog = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const first = dialog.current?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? dialog.current)?.focus();
    return () => before?.focus();
  }, []);
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      e.preventDefault();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || dialog.current === null) return;
    // Tab goes round inside the dialog.
    const focusable = [...dialog.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (first === undefined || last === undefined) return;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  // Marked as the agent's, in a strip above what the model wrote (which scrolls under it): never Golem's own prompt.
  return (
    <div class="overlay ui-modal-overlay">
      <div
        ref={dialog}
        class="agent-frame ui-modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${titleId}-by ${titleId}`}
        tabIndex={-1}
        data-testid="ui-modal"
        onKeyDown={onKeyDown}
      >
        <AgentLabel id={`${titleId}-by`} />
        <div class="ui-modal-body">
          <header class="dialog-head">
            <h2 id={titleId}>{title}</h2>
            <button
              type="button"
              class="btn btn-secondary btn-small ui-modal-close"
              data-testid="ui-modal-close"
              aria-label={`Close ${title}`}
              onClick={onClose}
            >
              ×
            </button>
          </header>
          {children}
        </div>
      </div>
    </div>
  );
}
