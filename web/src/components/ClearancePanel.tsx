import { useState } from 'preact/hooks';
import type { ClearanceDecisionBody, ClearanceView } from '../../../src/serve/api-types.js';
import { relativeTime } from '../time.js';
import { DiffView } from './DiffView.js';

interface Props {
  items: ClearanceView[];
  loadDiff: (id: string) => Promise<string | null>;
  decide: (id: string, action: ClearanceDecisionBody['action']) => Promise<void>;
}

const TYPE_LABELS: Record<ClearanceView['type'], string> = { staged_commit: 'staged commit', pending_export: 'pending export', binary_output: 'binary output' };

/** What waits for the user's clearance before it leaves the workspace. */
export function ClearancePanel({ items, loadDiff, decide }: Props) {
  return (
    <section class="panel clearance" data-testid="clearance-panel">
      <div class="section-head">
        <h2>Clearance</h2>
        <span class={`badge${items.length > 0 ? ' badge-attention' : ''}`} data-testid="clearance-count">
          {items.length}
        </span>
      </div>
      {items.length === 0 && <p class="muted small">Nothing waiting.</p>}
      {items.map((item) => (
        <ClearanceItem key={item.id} item={item} loadDiff={loadDiff} decide={decide} />
      ))}
    </section>
  );
}

function ClearanceItem({ item, loadDiff, decide }: { item: ClearanceView } & Omit<Props, 'items'>) {
  const [open, setOpen] = useState(false);
  const [diff, setDiff] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [busy, setBusy] = useState(false);

  const toggle = async () => {
    const next = !open;
    setOpen(next);
    if (next && diff === null && !loading) {
      setLoading(true);
      setDiff(await loadDiff(item.id));
      setLoading(false);
    }
  };
  const act = async (action: ClearanceDecisionBody['action']) => {
    setBusy(true);
    await decide(item.id, action);
    setBusy(false);
  };

  return (
    <div class={`clearance-item${open ? ' open' : ''}`} data-testid="clearance-item" data-item-id={item.id}>
      <button type="button" class="clearance-head" data-testid="clearance-open" aria-expanded={open} onClick={() => void toggle()}>
        <span class="chevron">{open ? '▾' : '▸'}</span>
        <span class="clearance-desc" id={`clearance-${item.id}`}>
          {item.description}
        </span>
        <span class="clearance-meta">
          <span class="tag">{TYPE_LABELS[item.type] ?? item.type}</span>
          <span class={`tag status-${item.status}`}>{item.status}</span>
          <span class="muted small">{relativeTime(item.createdAt)}</span>
        </span>
      </button>
      {/* The decisions are always in view, the diff a click away. */}
      <div class="clearance-actions">
        <button
          type="button"
          class="btn btn-secondary btn-small"
          data-testid="clearance-defer"
          aria-describedby={`clearance-${item.id}`}
          disabled={busy}
          onClick={() => void act('defer')}
        >
          Defer
        </button>
        <button
          type="button"
          class="btn btn-danger-outline btn-small"
          data-testid="clearance-discard"
          aria-describedby={`clearance-${item.id}`}
          disabled={busy}
          onClick={() => void act('discard')}
        >
          Discard
        </button>
        <button
          type="button"
          class="btn btn-primary btn-small"
          data-testid="clearance-push"
          aria-describedby={`clearance-${item.id}`}
          disabled={busy}
          onClick={() => void act('push')}
        >
          Push
        </button>
      </div>
      {open && <div class="clearance-body">{loading ? <p class="muted small">Loading the diff…</p> : diff !== null && <DiffView diff={diff} />}</div>}
    </div>
  );
}
