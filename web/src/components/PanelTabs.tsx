/** On a phone (under 800 px) one pane shows at a time: the chat, or one of the side panels. */
export type Pane = 'chat' | 'sessions' | 'workers' | 'forms' | 'clearance';

interface Props {
  pane: Pane;
  onPane: (pane: Pane) => void;
  /** What waits in each pane: forms to fill, items to clear, workers running. */
  counts: Partial<Record<Pane, number>>;
  /** Panes asking for the user (clearance waiting): their count stands out. */
  attention: Partial<Record<Pane, boolean>>;
  /** True while a modal dialog is open. */
  inert: boolean;
}

const PANES: { pane: Pane; label: string }[] = [
  { pane: 'chat', label: 'Chat' },
  { pane: 'sessions', label: 'Sessions' },
  { pane: 'workers', label: 'Workers' },
  { pane: 'forms', label: 'Forms' },
  { pane: 'clearance', label: 'Clearance' },
];

export function PanelTabs({ pane, onPane, counts, attention, inert }: Props) {
  return (
    <nav class="pane-tabs" aria-label="Panes" data-testid="pane-tabs" inert={inert}>
      {PANES.map(({ pane: p, label }) => {
        const count = counts[p] ?? 0;
        return (
          <button
            key={p}
            type="button"
            class={`pane-tab${p === pane ? ' current' : ''}`}
            data-testid={`pane-${p}`}
            aria-pressed={p === pane}
            onClick={() => onPane(p)}
          >
            {label}
            {count > 0 && <span class={`badge${attention[p] === true ? ' badge-attention' : ''}`}>{count}</span>}
          </button>
        );
      })}
    </nav>
  );
}
