/**
 * The dashboard walkthrough's agent (README, "Model-built UIs"): a scripted model, a test
 * double that plays the model, which builds a sales dashboard with `patch_ui_state` (metrics,
 * progress, a sortable table, a chart, a form with rules and a handler), fills it live as its
 * data "loads", and when the user presses Apply reads back what they entered with
 * `get_ui_state` and redraws the table, the chart and the metrics for it.
 */
import type { JsonObject, JsonValue, ModelAdapter, Prompt, PromptPart } from '../../src/index.js';
import { scriptedModel, type ScriptedResponse } from '../../src/test/index.js';

export const DASHBOARD_ID = 'sales';
const REGIONS = ['north', 'south', 'east', 'west'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun'] as const;

export interface Order {
  order: string;
  customer: string;
  region: string;
  month: string;
  total: number;
  paid: boolean;
}

/** The orders the dashboard shows: 24, the same every time. */
export const ORDERS: Order[] = Array.from({ length: 24 }, (_, i) => ({
  order: `#${1001 + i}`,
  customer: ['Ada', 'Grace', 'Linus', 'Barbara', 'Edsger', 'Margaret'][i % 6] as string,
  region: REGIONS[(i * 3) % 4] as string,
  month: MONTHS[i % 6] as string,
  total: 40 + ((i * 73) % 460),
  paid: i % 3 !== 0,
}));

export interface Filters {
  region: string;
  minTotal: number;
  onlyPaid: boolean;
  from?: string;
  note?: string;
}

/** The orders the filters let through (an order's date is its month, of 2026). */
export function filtered(filters: Filters): Order[] {
  const from = typeof filters.from === 'string' && filters.from !== '' ? Number(filters.from.slice(5, 7)) : 1;
  return ORDERS.filter(
    (o) =>
      (filters.region === 'all' || o.region === filters.region) &&
      o.total >= filters.minTotal &&
      (!filters.onlyPaid || o.paid) &&
      MONTHS.indexOf(o.month as (typeof MONTHS)[number]) + 1 >= from,
  );
}

/** What the dashboard's data keys hold for a list of orders. */
function data(orders: readonly Order[]) {
  const revenue = orders.reduce((sum, o) => sum + o.total, 0);
  return {
    orders: orders.map((o) => ({ order: o.order, customer: o.customer, region: o.region, total: o.total, paid: o.paid })),
    sales: MONTHS.map((month) => ({ month, total: orders.filter((o) => o.month === month).reduce((sum, o) => sum + o.total, 0) })),
    revenue: { value: revenue, change: 12.5 },
    count: orders.length,
  };
}

const set = (key: string, value: unknown) => ({ op: 'set', path: `state.runtime.${key}`, value: value as JsonValue });

/** The call that builds the dashboard (nothing loaded yet). */
export const BUILD: JsonObject = {
  instanceId: '__CREATE__',
  newInstanceId: DASHBOARD_ID,
  patches: [
    { op: 'set', path: 'meta', value: { pageKey: 'Sales dashboard', step: { current: 1, total: 1 }, status: 'idle' } },
    { op: 'set', path: 'layout', value: { type: 'grid', columns: 2 } },
    { op: 'set', path: 'state', value: { params: { region: 'all', minTotal: 0, onlyPaid: false, refreshes: 0 }, runtime: { stage: 'loading', done: 0 } } },
    {
      op: 'set',
      path: 'blocks',
      value: [
        {
          id: 'kpis',
          type: 'form',
          bind: 'state.runtime',
          props: {
            title: 'At a glance',
            fields: [
              { label: 'Revenue', key: 'revenue', type: 'metric', unit: '€' },
              { label: 'Orders', key: 'count', type: 'metric' },
              { label: 'Data', key: 'stage', type: 'badge', tones: { loading: 'warning', ready: 'success', filtered: 'info' } },
              { label: 'Loading orders', key: 'done', type: 'progress' },
            ],
          },
        },
        {
          id: 'chart',
          type: 'form',
          bind: 'state.runtime',
          props: { fields: [{ label: 'Sales by month', key: 'sales', type: 'chart', chart: 'bar', x: 'month', y: 'total' }] },
        },
        {
          id: 'table',
          type: 'form',
          bind: 'state.runtime',
          props: {
            span: 2,
            fields: [
              {
                label: 'Orders',
                key: 'orders',
                type: 'table',
                columns: [
                  { key: 'order', label: 'Order' },
                  { key: 'customer', label: 'Customer' },
                  { key: 'region', label: 'Region' },
                  { key: 'total', label: 'Total (€)' },
                  { key: 'paid', label: 'Paid' },
                ],
              },
            ],
          },
        },
        {
          id: 'filters',
          type: 'form',
          bind: 'state.params',
          props: {
            title: 'Filters (region: ${state.params.region})',
            span: 2,
            fields: [
              {
                label: 'Region',
                key: 'region',
                type: 'select',
                required: true,
                options: [{ label: 'All', value: 'all' }, ...REGIONS.map((r) => ({ label: r[0]?.toUpperCase() + r.slice(1), value: r }))],
              },
              { label: 'Orders from', key: 'from', type: 'date', min: '2026-01-01', max: '2026-12-31' },
              { label: 'Large orders only', key: 'large', type: 'switch' },
              {
                label: 'Smallest total (€)',
                key: 'minTotal',
                type: 'slider',
                min: 0,
                max: 500,
                step: 50,
                visible: { path: 'state.params.large', truthy: true },
              },
              { label: 'Paid only', key: 'onlyPaid', type: 'checkbox' },
              { label: 'A note for the agent', key: 'note', type: 'textarea', max: 200, placeholder: 'optional' },
            ],
            actions: [
              {
                id: 'reset',
                label: 'Reset filters',
                style: 'secondary',
                validate: false,
                handler: [
                  { type: 'set', path: 'state.params.region', value: 'all' },
                  { type: 'set', path: 'state.params.from', value: null },
                  { type: 'set', path: 'state.params.large', value: false },
                  { type: 'set', path: 'state.params.minTotal', value: 0 },
                  { type: 'set', path: 'state.params.onlyPaid', value: false },
                  { type: 'increment', path: 'state.params.refreshes' },
                ],
              },
            ],
          },
        },
      ],
    },
    { op: 'set', path: 'actions', value: [{ id: 'apply', label: 'Apply filters', style: 'primary' }] },
  ],
};

/** The agent; `pause` is how long it waits between the data's parts (to see them arrive). */
export function dashboardAgent(options: { pause?: number } = {}): ModelAdapter {
  const pause = options.pause ?? 600;
  const half = data(ORDERS.slice(0, 12));
  const all = data(ORDERS);
  return scriptedModel(async (prompt: Prompt): Promise<ScriptedResponse> => {
    const last = prompt.messages.at(-1)?.content.at(-1);
    const result = last?.type === 'tool-result' && last.output.type === 'text' ? (JSON.parse(last.output.text) as Record<string, unknown>) : undefined;
    if (result === undefined) {
      // A click on Apply reaches the agent as a message; anything else asks for the dashboard.
      if (userText(last).startsWith('[UI action]'))
        return { text: 'Let me read your filters.', toolCalls: [{ name: 'get_ui_state', input: { instanceId: DASHBOARD_ID } }] };
      return { text: 'Building your sales dashboard.', toolCalls: [{ name: 'patch_ui_state', input: BUILD }] };
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    // What the last call wrote says where the loading is.
    const loaded = (lastCall(prompt)?.patches as { path: string; value: unknown }[] | undefined)?.find((p) => p.path === 'state.runtime.done')?.value;
    if (result.kind === 'create')
      return {
        toolCalls: [{ name: 'patch_ui_state', input: { instanceId: DASHBOARD_ID, patches: Object.entries({ ...half, done: 50 }).map(([k, v]) => set(k, v)) } }],
      };
    if (loaded === 50)
      return {
        toolCalls: [
          {
            name: 'patch_ui_state',
            input: { instanceId: DASHBOARD_ID, patches: Object.entries({ ...all, done: 100, stage: 'ready' }).map(([k, v]) => set(k, v)) },
          },
        ],
      };
    if (loaded === 100) return { text: 'The dashboard is ready: choose your filters below and press Apply filters.' };
    const filters = filtersRead(prompt);
    if (filters === undefined) return { text: 'I could not read your filters.' };
    const shown = data(filtered(filters));
    if (result.instance !== undefined)
      return {
        text: 'Redrawing for your filters.',
        toolCalls: [
          { name: 'patch_ui_state', input: { instanceId: DASHBOARD_ID, patches: Object.entries({ ...shown, stage: 'filtered' }).map(([k, v]) => set(k, v)) } },
        ],
      };
    return { text: `You chose ${describe(filters)}: ${shown.count} of ${ORDERS.length} orders.` };
  });
}

/** The filters as the last get_ui_state read them (the slider counts only for large orders). */
function filtersRead(prompt: Prompt): Filters | undefined {
  for (const message of [...prompt.messages].reverse())
    for (const part of [...message.content].reverse()) {
      if (part.type !== 'tool-result' || part.output.type !== 'text') continue;
      const read = JSON.parse(part.output.text) as { instance?: { state: { params: Filters & { large?: boolean } } } };
      if (read.instance === undefined) continue;
      const params = read.instance.state.params;
      return { ...params, minTotal: params.large === true ? params.minTotal : 0 };
    }
  return undefined;
}

/** The input of the model's last tool call. */
function lastCall(prompt: Prompt): Record<string, unknown> | undefined {
  for (const message of [...prompt.messages].reverse()) for (const part of [...message.content].reverse()) if (part.type === 'tool-call') return part.input;
  return undefined;
}

function userText(part: PromptPart | undefined): string {
  return part?.type === 'text' ? part.text : '';
}

function describe(filters: Filters): string {
  return [
    `region ${filters.region}`,
    `totals from ${filters.minTotal} €`,
    filters.onlyPaid ? 'paid only' : 'paid or not',
    ...(filters.from !== undefined && filters.from !== '' ? [`from ${filters.from}`] : []),
    ...(filters.note !== undefined && filters.note !== '' ? [`your note "${filters.note}"`] : []),
  ].join(', ');
}
