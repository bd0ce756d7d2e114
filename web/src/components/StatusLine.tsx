import type { ConnectionState } from '../socket.js';

export interface Notice {
  text: string;
  level: 'info' | 'warning' | 'error';
  code?: string;
}

export function StatusLine({ notice, onDismiss }: { notice: Notice | null; onDismiss: () => void }) {
  return (
    <div class={`status-line${notice === null ? ' empty' : ` level-${notice.level}`}`} data-testid="status-line" role="status" aria-live="polite">
      {notice !== null && (
        <>
          {notice.code !== undefined && <code class="status-code">{notice.code}</code>}
          <span class="status-text">{notice.text}</span>
          <button type="button" class="icon-btn" aria-label="Dismiss" onClick={onDismiss}>
            ×
          </button>
        </>
      )}
    </div>
  );
}

const LABELS: Record<ConnectionState, string> = { connecting: 'Connecting…', open: 'Live', closed: 'Disconnected' };

export function ConnectionBadge({ state }: { state: ConnectionState }) {
  return (
    <span class={`connection conn-${state}`} data-testid="connection" data-state={state} title={`Live updates: ${state}`}>
      <span class="dot" />
      {LABELS[state]}
    </span>
  );
}
