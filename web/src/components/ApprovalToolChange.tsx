import { showBidiControls } from '../../../src/core/text.js';
import type { ToolChangeView } from '../../../src/serve/api-types.js';
import { lineDiff, sortedJson } from '../line-diff.js';
import { DiffView } from './DiffView.js';

/**
 * What an MCP server changed in the tool an approval asks about, since the user trusted it: the
 * description before and now, and the input schema as a line diff; what did not change says so.
 * Bidi controls are shown as their codes, as everywhere in the dialog.
 */
export function ApprovalToolChange({ change }: { change: ToolChangeView }) {
  const [schemaBefore, schemaNow] = [sortedJson(change.before.inputSchema), sortedJson(change.now.inputSchema)];
  const descriptionChanged = change.before.description !== change.now.description;
  return (
    <section class="approval-change" data-testid="approval-change" aria-labelledby="approval-change-title">
      <h3 id="approval-change-title">What the server changed</h3>
      {descriptionChanged ? (
        <dl class="approval-change-description">
          <dt>Description before</dt>
          <dd class="approval-change-before" data-testid="approval-change-description-before">
            {showBidiControls(change.before.description)}
          </dd>
          <dt>Description now</dt>
          <dd class="approval-change-now" data-testid="approval-change-description-now">
            {showBidiControls(change.now.description)}
          </dd>
        </dl>
      ) : (
        <p class="approval-change-same">The description is the same.</p>
      )}
      {schemaBefore === schemaNow ? (
        <p class="approval-change-same">The input schema is the same.</p>
      ) : (
        <DiffView
          diff={showBidiControls(lineDiff(schemaBefore, schemaNow))}
          testId="approval-change-schema"
          label="Input schema, before and now"
          language="json"
        />
      )}
    </section>
  );
}
