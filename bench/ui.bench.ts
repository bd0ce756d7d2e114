/**
 * Model-built UI benchmarks (part of `npm run bench`): a `patch_ui_state` call through
 * `ws.ui.patch` (engine, catalog checks, command, index) in memory and durable on SQLite, on a
 * seed form and on a dashboard of every display component; a click answered by an action's
 * handler; and a call's STATE_DELTA at each of 100 WebSocket clients on loopback.
 * Targets (issue 23): a call under 1 ms durable; its delta at 100 clients under 10 ms at p99.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createWorkspace, type PatchInput, type Workspace } from '../src/index.js';
import { applyUiAction, serve } from '../src/serve/index.js';
import { fmt, log, median, printTable, timeEach, type Row } from './lib.js';

const rows = (n: number, i: number) =>
  Array.from({ length: n }, (_, r) => ({ id: `#${r}`, customer: `Customer ${r}`, total: (r * 37 + i) % 500, paid: r % 3 === 0 }));
const series = (i: number) => Array.from({ length: 12 }, (_, m) => ({ month: `M${m + 1}`, sales: (m * 13 + i) % 90, costs: (m * 7 + i) % 60 }));

/** A seed form: 10 blocks of one text field. */
const FORM: PatchInput = {
  instanceId: 'form',
  patches: [
    {
      op: 'add',
      path: 'blocks+',
      items: Array.from({ length: 10 }, (_, i) => ({
        id: `b${i}`,
        type: 'form',
        bind: 'state.params',
        props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] },
      })),
    },
  ],
};
const formUpdate = (i: number): PatchInput => ({
  instanceId: 'form',
  patches: [
    { op: 'set', path: 'state.params.count', value: i },
    {
      op: 'set',
      path: 'blocks["b3"]',
      value: { id: 'b3', type: 'form', bind: 'state.params', props: { fields: [{ label: `Name ${i}`, key: 'name', type: 'text' }] } },
    },
  ],
});

/** A dashboard: metrics, a 200-row table, a chart, progress, a badge, markdown, code, and a form with rules and a handler, in tabs. */
const DASHBOARD: PatchInput = {
  instanceId: 'dash',
  patches: [
    { op: 'set', path: 'layout', value: { type: 'grid', columns: 3 } },
    {
      op: 'set',
      path: 'blocks',
      value: [
        {
          id: 'kpis',
          type: 'form',
          bind: 'state.runtime',
          props: {
            title: 'This month',
            span: 3,
            fields: [
              { label: 'Revenue', key: 'revenue', type: 'metric', unit: '€' },
              { label: 'Orders', key: 'orderCount', type: 'metric' },
              { label: 'State', key: 'state', type: 'badge', tones: { open: 'success', closed: 'neutral' } },
              { label: 'Import', key: 'done', type: 'progress' },
            ],
          },
        },
        {
          id: 'orders',
          type: 'form',
          bind: 'state.runtime',
          props: {
            title: 'Orders',
            span: 2,
            fields: [{ label: 'Orders', key: 'orders', type: 'table', columns: [{ key: 'id' }, { key: 'customer' }, { key: 'total' }, { key: 'paid' }] }],
          },
        },
        {
          id: 'trend',
          type: 'form',
          bind: 'state.runtime',
          props: { title: 'Trend', fields: [{ label: 'Sales', key: 'sales', type: 'chart', chart: 'line', x: 'month', y: ['sales', 'costs'] }] },
        },
        {
          id: 'notes',
          type: 'form',
          bind: 'state.runtime',
          props: {
            fields: [
              { label: 'Summary', key: 'summary', type: 'markdown' },
              { label: 'Query', key: 'query', type: 'code', language: 'sql' },
            ],
          },
        },
        {
          id: 'filters',
          type: 'form',
          bind: 'state.params',
          props: {
            title: 'Filters for ${state.params.owner}',
            fields: [
              { label: 'Owner', key: 'owner', type: 'text', required: true, min: 2 },
              { label: 'From', key: 'from', type: 'date' },
              { label: 'Min total', key: 'minTotal', type: 'slider', min: 0, max: 500, step: 10 },
              {
                label: 'Status',
                key: 'status',
                type: 'multiselect',
                options: [
                  { label: 'Paid', value: 'paid' },
                  { label: 'Open', value: 'open' },
                ],
              },
              { label: 'Live', key: 'live', type: 'switch' },
              { label: 'Tags', key: 'tags', type: 'tags', max: 5, visible: { path: 'state.params.live', truthy: true } },
            ],
            actions: [
              { id: 'more', label: 'Refresh ${state.params.refreshes}', style: 'secondary', handler: { type: 'increment', path: 'state.params.refreshes' } },
            ],
          },
        },
      ],
    },
    { op: 'set', path: 'actions', value: [{ id: 'apply', label: 'Apply', style: 'primary' }] },
  ],
};
const dashboardUpdate = (i: number): PatchInput => ({
  instanceId: 'dash',
  patches: [
    { op: 'set', path: 'state.runtime.orders', value: rows(200, i) },
    { op: 'set', path: 'state.runtime.sales', value: series(i) },
    { op: 'set', path: 'state.runtime.revenue', value: { value: 1000 + i, change: 4.2 } },
    { op: 'set', path: 'state.runtime.done', value: i % 101 },
  ],
});
/** The dashboard's live tick: one row, the progress. */
const dashboardTick = (i: number): PatchInput => ({
  instanceId: 'dash',
  patches: [
    { op: 'set', path: 'state.runtime.done', value: i % 101 },
    { op: 'set', path: 'state.runtime.orderCount', value: i },
  ],
});

async function create(ws: Workspace, call: PatchInput): Promise<boolean> {
  const made = await ws.ui.patch({ instanceId: '__CREATE__', newInstanceId: call.instanceId, patches: [] });
  const built = made.success ? await ws.ui.patch(call) : made;
  if (!built.success) log(`  (${call.instanceId} refused here: ${JSON.stringify(built.errors[0])})`);
  return built.success;
}

async function timeCalls(ws: Workspace, call: (i: number) => PatchInput, samples: number): Promise<number> {
  const times = await timeEach(samples, async (i) => {
    const r = await ws.ui.patch(call(i));
    if (!r.success) throw new Error(`the bench call was refused: ${JSON.stringify(r.errors[0])}`);
  });
  return median(times);
}

async function callRows(): Promise<Row[]> {
  log('patch_ui_state calls...');
  const out: Row[] = [];
  for (const durable of [false, true]) {
    const dir = durable ? mkdtempSync(join(tmpdir(), 'golem-bench-ui-')) : undefined;
    const ws = await createWorkspace(dir === undefined ? {} : { dir });
    const where = durable ? 'SQLite, durable' : 'in memory';
    const target = (t: number) =>
      durable ? `< 1 ms (${Math.round(1000 / t).toLocaleString('en')} calls/s)` : `${Math.round(1000 / t).toLocaleString('en')} calls/s`;
    if (await create(ws, FORM)) {
      const t = await timeCalls(ws, formUpdate, 2000);
      out.push({ measure: `patch_ui_state, seed form: 2 patches, 10 blocks (${where})`, value: fmt(t), target: target(t), ...(durable && { ok: t < 1 }) });
    }
    if (await create(ws, DASHBOARD)) {
      const t = await timeCalls(ws, dashboardUpdate, 500);
      out.push({
        measure: `patch_ui_state, dashboard: 200-row table, chart, metric, progress (${where})`,
        value: fmt(t),
        target: target(t),
        ...(durable && { ok: t < 1 }),
      });
      const tick = await timeCalls(ws, dashboardTick, 2000);
      out.push({
        measure: `patch_ui_state, dashboard tick: progress and a metric (${where})`,
        value: fmt(tick),
        target: target(tick),
        ...(durable && { ok: tick < 1 }),
      });
      const clicks = await timeEach(1000, async () => {
        const r = await applyUiAction(ws.ui, {
          type: 'UI_ACTION',
          instanceId: 'dash',
          actionId: 'more',
          values: { owner: 'Ada', minTotal: 120, live: true, tags: ['q3'] },
        });
        if (!r.ok) throw new Error(`the click was refused: ${r.message}`);
      });
      const c = median(clicks);
      out.push({
        measure: `a click with values and a handler, checked and applied (${where})`,
        value: fmt(c),
        target: target(c),
        ...(durable && { ok: c < 1 }),
      });
    }
    await ws.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

/** From a patch_ui_state call to its STATE_DELTA at each of 100 WebSocket clients on loopback. */
async function fanOutRows(): Promise<Row[]> {
  log('deltas to 100 WebSocket clients...');
  const ws = await createWorkspace();
  const server = await serve(ws);
  const CLIENTS = 100;
  const latencies: number[] = [];
  let sent = 0;
  let pending = 0;
  let done: () => void = () => undefined;
  const sockets = await Promise.all(
    Array.from(
      { length: CLIENTS },
      () =>
        new Promise<WebSocket>((resolve, reject) => {
          const socket = new WebSocket(server.socketUrl);
          socket.on('message', (data) => {
            if (!(data as Buffer).toString('utf8').includes('STATE_DELTA')) return;
            latencies.push(performance.now() - sent);
            if (--pending === 0) done();
          });
          socket.once('open', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
  const dashboard = await create(ws, DASHBOARD);
  if (!dashboard) await create(ws, FORM);
  await new Promise((resolve) => setTimeout(resolve, 200));
  latencies.length = 0;
  for (let i = 0; i < 300; i++) {
    const arrived = new Promise<void>((resolve) => (done = resolve));
    pending = CLIENTS;
    sent = performance.now();
    await ws.ui.patch(dashboard ? dashboardTick(i) : { instanceId: 'form', patches: [{ op: 'set', path: 'state.params.count', value: i }] });
    await arrived;
  }
  for (const socket of sockets) socket.close();
  await server.close();
  await ws.close();
  const sorted = [...latencies].sort((a, b) => a - b);
  const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  const what = dashboard ? 'a dashboard tick' : 'a seed form update';
  return [
    { measure: `${what} to STATE_DELTA at ${CLIENTS} WebSocket clients, p50`, value: fmt(p(0.5)), target: 'loopback, clients in-process' },
    { measure: `same, p99`, value: fmt(p(0.99)), target: `< 10 ms (${latencies.length.toLocaleString('en')} deliveries)`, ok: p(0.99) < 10 },
  ];
}

printTable(
  `Golem model-built UI benchmarks (medians; node ${process.version})`,
  [...(await callRows()), ...(await fanOutRows())],
  ['Issue 23 targets: a patch_ui_state call under 1 ms durable; its delta at 100 clients under 10 ms at p99.'],
);
