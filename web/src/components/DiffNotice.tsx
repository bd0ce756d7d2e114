import { DiffView } from './DiffView.js';

/** The last diff the agent showed (`golem.diff`). */
export function DiffNotice({ title, diff, onClose }: { title: string; diff: string; onClose: () => void }) {
  return (
    <section class="panel diff-notice">
      <div class="section-head">
        <h2>{title}</h2>
        <button type="button" class="icon-btn" aria-label="Close the diff" onClick={onClose}>
          ×
        </button>
      </div>
      <DiffView diff={diff} testId="diff-viewer" />
    </section>
  );
}
