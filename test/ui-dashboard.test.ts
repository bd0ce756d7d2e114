/**
 * The README's dashboard walkthrough (issue 23), over `golem serve`'s API and socket: the
 * scripted agent of examples/dashboard builds a dashboard with metrics, progress, a table, a
 * chart and a form; its data arrives live (the page's socket sees progress at 50 then 100);
 * the user's filters go back through a click, the agent reads them with get_ui_state and
 * redraws the dashboard for them; a handler action resets the filters without the agent.
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { BUILD, DASHBOARD_ID, dashboardAgent, filtered, ORDERS } from '../examples/dashboard/agent.js';
import { createWorkspace, type JsonObject } from '../src/index.js';
import { serve } from '../src/serve/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the dashboard walkthrough', () => {
  it('builds the dashboard, fills it live, reads back the filters the user sent and redraws for them', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const server = await serve(ws, { page: false, agent: { model: dashboardAgent({ pause: 20 }) } });
    cleanups.push(() => server.close());
    const headers = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };

    // The page's socket: every state event, in order.
    const events: JsonObject[] = [];
    const socket = new WebSocket(server.socketUrl);
    cleanups.push(async () => void socket.close());
    socket.on('message', (data) => events.push(JSON.parse((data as Buffer).toString('utf8')) as JsonObject));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));

    const session = await ws.sessions.create();
    const sent = await fetch(`${server.url}/api/sessions/${session.id}/messages`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ text: 'show me the sales dashboard' }),
    });
    expect(sent.status).toBe(202);
    await server.settled(session.id);

    const built = ws.ui.get(DASHBOARD_ID);
    expect(built?.instance.blocks.map((b) => b.id)).toEqual(['kpis', 'chart', 'table', 'filters']);
    expect(built?.instance.blocks.flatMap((b) => b.props?.fields ?? []).map((f) => f.type)).toEqual(
      expect.arrayContaining(['metric', 'badge', 'progress', 'table', 'chart', 'select', 'date', 'switch', 'slider', 'checkbox', 'textarea']),
    );
    expect(built?.instance.state.runtime).toMatchObject({ done: 100, stage: 'ready', count: ORDERS.length });
    // Live: the socket saw the progress at 50 before 100, each as a delta of its own.
    const progress = events
      .filter((e) => e.type === 'STATE_DELTA')
      .flatMap((e) => e.delta as { path: string; value?: unknown }[])
      .filter((op) => op.path === `/instances/${DASHBOARD_ID}/state/runtime/done`)
      .map((op) => op.value);
    expect(progress).toEqual([50, 100]);

    // The user's filters, through the click; a value the rules refuse is refused first, and nothing is written.
    const click = (values: JsonObject, actionId = 'apply') => socket.send(JSON.stringify({ type: 'UI_ACTION', instanceId: DASHBOARD_ID, actionId, values }));
    const version = ws.ui.get(DASHBOARD_ID)?.version;
    click({ region: 'north', large: true, minTotal: 225 });
    await expect
      .poll(() => events.find((e) => e.type === 'RUN_ERROR'))
      .toMatchObject({ code: 'INVALID_VALUE', message: expect.stringContaining('multiple of 50') });
    expect(ws.ui.get(DASHBOARD_ID)?.version).toBe(version);

    const filters = { region: 'north', large: true, minTotal: 200, onlyPaid: true, from: '2026-03-01', note: 'for the Q2 review' };
    click(filters);
    await expect.poll(() => ws.ui.get(DASHBOARD_ID)?.instance.state.runtime.stage).toBe('filtered');
    await server.settled(session.id);
    const expected = filtered(filters);
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(ORDERS.length);
    const state = ws.ui.get(DASHBOARD_ID)?.instance.state;
    expect(state?.params).toMatchObject(filters);
    expect((state?.runtime.orders as { order: string }[]).map((o) => o.order)).toEqual(expected.map((o) => o.order));
    expect(state?.runtime.count).toBe(expected.length);
    // The agent's answer says what the user entered, read back with get_ui_state.
    const said = (await session.transcript()).map((t) => t.blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''));
    expect(said.at(-1)).toContain('region north, totals from 200 €, paid only, from 2026-03-01, your note "for the Q2 review"');

    // Reset is a handler: the state changes in one call, and no run starts.
    const turns = (await session.transcript()).length;
    const before = ws.ui.get(DASHBOARD_ID)?.version ?? 0;
    click({}, 'reset');
    await expect.poll(() => ws.ui.get(DASHBOARD_ID)?.version).toBe(before + 1);
    expect(ws.ui.get(DASHBOARD_ID)?.instance.state.params).toMatchObject({ region: 'all', large: false, minTotal: 0, refreshes: 1 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await session.transcript()).length).toBe(turns);
  });

  it('builds with one patch_ui_state call the catalog accepts', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const made = await ws.ui.patch(BUILD as never);
    expect(made).toMatchObject({ success: true, kind: 'create', version: 1 });
  });
});
