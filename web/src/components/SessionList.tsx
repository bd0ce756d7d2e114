import { useEffect, useState } from 'preact/hooks';
import { plainText } from '../markdown.js';
import type { SessionSummary } from '../../../src/serve/api-types.js';
import { relativeTime } from '../time.js';

interface Props {
  sessions: SessionSummary[];
  openId: string | null;
  running: string[];
  onOpen: (id: string) => void;
  onNew: () => void;
  /** Opens the Compare view (offered once there are two sessions). */
  onCompare: () => void;
}

export function SessionList({ sessions, openId, running, onOpen, onNew, onCompare }: Props) {
  // Relative times age: redraw every half minute.
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <section class="sessions">
      <div class="section-head">
        <h2>Sessions</h2>
        <span class="session-actions">
          {sessions.length > 1 && (
            <button type="button" class="btn btn-secondary btn-small" data-testid="compare-open" onClick={onCompare} title="Compare two branches side by side">
              Compare
            </button>
          )}
          <button type="button" class="btn btn-primary btn-small" data-testid="new-session" onClick={onNew}>
            New session
          </button>
        </span>
      </div>
      <ul class="session-list" data-testid="session-list">
        {sessions.length === 0 && <li class="muted empty">No sessions yet.</li>}
        {sessions.map((s) => (
          <li key={s.id}>
            <button
              type="button"
              class={`session-item${s.id === openId ? ' current' : ''}`}
              data-testid="session-item"
              data-session-id={s.id}
              aria-current={s.id === openId ? 'true' : undefined}
              onClick={() => onOpen(s.id)}
            >
              <span class="session-label">
                {running.includes(s.id) && <span class="dot running" title="running" aria-label="running" />}
                {plainText(s.label ?? 'Untitled')}
              </span>
              <span class="session-meta">
                {s.turns} {s.turns === 1 ? 'turn' : 'turns'} · {relativeTime(s.updatedAt, now)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
