/**
 * An MCP server asking the user for input (elicitation), on the page: a form built as a UI
 * instance (seed 004's, so every page shows it live), answered by its Submit, Decline or
 * Cancel. The values go back typed as the server's schema says; the form then goes (and when the
 * server gives up on its question, or golem serve closes).
 * A link to open (URL mode) is the form's heading and description, with Done and Cancel.
 */
import type { JsonValue } from '../core/blocks.js';
import type { ElicitationAnswer, ElicitationRequest } from '../mcp/connection.js';
import { elicitationContent, elicitationFields, type ElicitField } from '../mcp/elicitation.js';
import type { FieldConfig } from '../ui/schema.js';
import type { UIApi } from '../ui/ui-api.js';
import type { UIActionEvent } from './ui-actions.js';

let next = 0;

/** Shows the request as a form and resolves with the user's answer. */
export async function elicitOnPage(
  ui: UIApi,
  onUiAction: (listener: (event: UIActionEvent) => void) => () => void,
  request: ElicitationRequest,
  signal?: AbortSignal,
): Promise<ElicitationAnswer> {
  const instanceId = `mcp-elicitation-${Date.now().toString(36)}-${++next}`;
  const asked = elicitationFields(request);
  const fields: FieldConfig[] = asked.map(fieldOf);
  const heading = `${request.server} asks: ${request.message}`;
  const description = request.mode === 'url' ? `Open ${request.url} to go on, then press Done.` : heading.length > 100 ? request.message : undefined;
  if (description !== undefined) fields.unshift({ label: 'About this request', key: '__about', type: 'textarea', value: description, description });
  const actions =
    request.mode === 'url'
      ? [
          { id: 'accept', label: 'Done', style: 'primary' as const },
          { id: 'cancel', label: 'Cancel', style: 'secondary' as const },
        ]
      : [
          { id: 'accept', label: 'Submit', style: 'primary' as const },
          { id: 'decline', label: 'Decline', style: 'secondary' as const },
          { id: 'cancel', label: 'Cancel', style: 'danger' as const },
        ];
  // Clicks on this form, in order (one that is not answerable yet waits for the next).
  const clicks: UIActionEvent[] = [];
  let wake: (() => void) | undefined;
  const off = onUiAction((event) => {
    if (event.instanceId !== instanceId) return;
    clicks.push(event);
    wake?.();
  });
  // The server gave up (its request timed out or was cancelled) or golem serve is closing: the form goes, the answer is cancel.
  const stopped = () => signal?.aborted === true;
  const onAbort = () => wake?.();
  signal?.addEventListener('abort', onAbort, { once: true });
  const nextClick = async (): Promise<UIActionEvent | undefined> => {
    while (clicks.length === 0 && !stopped()) await new Promise<void>((resolve) => (wake = resolve));
    return stopped() ? undefined : (clicks.shift() as UIActionEvent);
  };
  const title = (text: string) => (text.length > 100 ? `${text.slice(0, 99)}…` : text);
  try {
    const created = await ui.patch({
      instanceId: '__CREATE__',
      newInstanceId: instanceId,
      patches: [
        { op: 'set', path: 'meta', value: { pageKey: title(heading), step: { current: 1, total: 1 }, status: 'idle' } },
        { op: 'set', path: 'state', value: { params: {}, runtime: {} } },
        { op: 'set', path: 'blocks', value: [{ id: 'request', type: 'form', bind: 'state.params', props: { fields } }] as unknown as JsonValue },
        { op: 'set', path: 'actions', value: actions },
      ],
    });
    if (!created.success) return { action: 'decline' };
    for (;;) {
      const event = await nextClick();
      if (event === undefined) return { action: 'cancel' };
      let answer: ElicitationAnswer;
      if (event.actionId !== 'accept') answer = { action: event.actionId === 'decline' ? 'decline' : 'cancel' };
      else if (request.mode === 'url') answer = { action: 'accept' };
      else {
        // The page checks each field as it is typed; what the server's schema asks beyond that (a required field) is checked here.
        const checked = elicitationContent(asked, event.values);
        if (checked.problems.length > 0) {
          // Asked again, saying what to fix, at the top of the form.
          const fix = `${checked.problems.join('; ')}.`;
          const shown = [{ label: 'Please fix', key: '__fix', type: 'textarea' as const, value: fix, description: fix }, ...fields];
          await ui
            .patch({
              instanceId,
              patches: [
                { op: 'set', path: 'blocks', value: [{ id: 'request', type: 'form', bind: 'state.params', props: { fields: shown } }] as unknown as JsonValue },
              ],
            })
            .catch(() => undefined);
          continue;
        }
        answer = checked.answer;
      }
      return answer;
    }
  } finally {
    off();
    signal?.removeEventListener('abort', onAbort);
    // Answered or given up, the form goes: it was the server's question, not a UI of the conversation.
    await ui.patch({ instanceId: '__DELETE__', targetInstanceId: instanceId, patches: [] }).catch(() => undefined);
  }
}

/** A field the form shows for one the server asks. */
function fieldOf(field: ElicitField): FieldConfig {
  const hint =
    field.kind === 'list' ? ` (several${field.choices === undefined ? '' : ` of: ${field.choices.map((c) => c.value).join(', ')}`}; separated by commas)` : '';
  const description = `${field.description ?? ''}${hint}${field.required ? ' (required)' : ''}`.trim();
  const base = { label: field.label, key: field.key, ...(description !== '' && { description }) };
  const value = field.default === undefined ? {} : { value: Array.isArray(field.default) ? field.default.join(', ') : field.default };
  if (field.kind === 'choice') return { ...base, type: 'select', options: field.choices ?? [], ...value };
  if (field.kind === 'boolean') return { ...base, type: 'checkbox', ...value };
  if (field.kind === 'number' || field.kind === 'integer') return { ...base, type: 'number', ...value };
  return { ...base, type: 'text', ...value };
}
