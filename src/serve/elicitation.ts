/**
 * An MCP server asking the user for input (elicitation), on the page: a form built as a UI
 * instance (seed 004's, so every page shows it live), answered by its Submit, Decline or
 * Cancel. The values go back typed as the server's schema says; the form is then marked sent.
 * A link to open (URL mode) is the form's heading and description, with Done and Cancel.
 */
import type { JsonValue } from '../core/blocks.js';
import type { ElicitationAnswer, ElicitationRequest } from '../mcp/connection.js';
import type { FieldConfig } from '../ui/schema.js';
import type { UIApi } from '../ui/ui-api.js';
import type { UIActionEvent } from './ui-actions.js';

interface Property {
  type?: string;
  title?: string;
  description?: string;
  default?: JsonValue;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const?: unknown; title?: string }[];
  items?: { enum?: unknown[]; anyOf?: { const?: unknown; title?: string }[] };
}

let next = 0;

/** Shows the request as a form and resolves with the user's answer. */
export async function elicitOnPage(
  ui: UIApi,
  onUiAction: (listener: (event: UIActionEvent) => void) => () => void,
  request: ElicitationRequest,
): Promise<ElicitationAnswer> {
  const instanceId = `mcp-elicitation-${Date.now().toString(36)}-${++next}`;
  const properties = request.mode === 'form' ? ((request.requestedSchema.properties ?? {}) as Record<string, Property>) : {};
  const fields: FieldConfig[] = Object.entries(properties).map(([key, p]) => fieldOf(key, p));
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
  const answered = new Promise<UIActionEvent>((resolve) => {
    const off = onUiAction((event) => {
      if (event.instanceId !== instanceId) return;
      off();
      resolve(event);
    });
  });
  const created = await ui.patch({
    instanceId: '__CREATE__',
    newInstanceId: instanceId,
    patches: [
      {
        op: 'set',
        path: 'meta',
        value: { pageKey: heading.length > 100 ? `${heading.slice(0, 99)}…` : heading, step: { current: 1, total: 1 }, status: 'idle' },
      },
      { op: 'set', path: 'state', value: { params: {}, runtime: {} } },
      { op: 'set', path: 'blocks', value: [{ id: 'request', type: 'form', bind: 'state.params', props: { fields } }] as unknown as JsonValue },
      { op: 'set', path: 'actions', value: actions },
    ],
  });
  if (!created.success) return { action: 'decline' };
  const event = await answered;
  await ui.patch({ instanceId, patches: [{ op: 'set', path: 'meta.status', value: 'submitted' }] }).catch(() => undefined);
  if (event.actionId !== 'accept') return { action: event.actionId === 'decline' ? 'decline' : 'cancel' };
  if (request.mode === 'url') return { action: 'accept' };
  const content: NonNullable<ElicitationAnswer['content']> = {};
  for (const [key, p] of Object.entries(properties)) {
    const value = event.values[key];
    if (value === undefined || value === null || value === '') continue;
    if (p.type === 'number' || p.type === 'integer') content[key] = Number(value);
    else if (p.type === 'boolean') content[key] = value === true || value === 'true';
    else if (p.type === 'array') content[key] = listOf(value);
    else content[key] = String(value as string);
  }
  return { action: 'accept', content };
}

/** A list typed as "a, b, c" (a field of several choices). */
function listOf(value: JsonValue): string[] {
  return (Array.isArray(value) ? value.map(String) : String(value as string).split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

function fieldOf(key: string, p: Property): FieldConfig {
  const label = p.title ?? key;
  const initial =
    p.default === undefined
      ? {}
      : { value: Array.isArray(p.default) ? p.default.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ') : p.default };
  const several = p.items?.anyOf?.flatMap((o) => (o.const === undefined ? [] : [String(o.const as string)])) ?? p.items?.enum?.map(String);
  const hint = p.type === 'array' && several !== undefined ? ` (several of: ${several.join(', ')}; separated by commas)` : '';
  const description = p.description === undefined && hint === '' ? {} : { description: `${p.description ?? ''}${hint}`.trim() };
  const choices =
    p.oneOf?.flatMap((o) => (o.const === undefined ? [] : [{ label: o.title ?? String(o.const as string), value: String(o.const as string) }])) ??
    p.enum?.map((v, i) => ({ label: p.enumNames?.[i] ?? String(v as string), value: String(v as string) }));
  if (choices !== undefined && choices.length > 0) return { label, key, type: 'select', options: choices, ...description, ...initial };
  if (p.type === 'boolean') return { label, key, type: 'checkbox', ...description, ...initial };
  if (p.type === 'number' || p.type === 'integer') return { label, key, type: 'number', ...description, ...initial };
  return { label, key, type: 'text', ...description, ...initial };
}
