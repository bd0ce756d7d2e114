/**
 * The README's dashboard walkthrough in the system Chromium (issue 23): the scripted agent of
 * examples/dashboard builds the dashboard (metrics, a badge, progress, a sortable table, a bar
 * chart, a form of filters), its data arrives live, the user's filters are checked on the page,
 * sent, read back by the agent with get_ui_state and drawn; Reset is a handler that needs no
 * agent. Desktop and phone, light and dark, axe-core. Screenshots: test-results/screenshots/dashboard-*.
 */
import { describe, expect, it } from 'vitest';
import { DASHBOARD_ID, dashboardAgent, filtered, ORDERS } from '../examples/dashboard/agent.js';
import { DESKTOP, PHONE, checkAccessibility, pageHarness, say, shot } from './helpers-page.js';
import { cardShot } from './page-ui-helpers.js';

const h = pageHarness();

describe('the dashboard walkthrough on the page', () => {
  it('builds, fills live, takes the filters the page checked, and redraws for them', async () => {
    const { ws, server } = await h.started({ model: dashboardAgent({ pause: 400 }) });
    const page = await h.open(server);
    await say(page, 'show me the sales dashboard');
    const card = page.getByTestId('ui-instance').and(page.locator(`[data-instance-id="${DASHBOARD_ID}"]`));
    await card.waitFor();
    const rows = card.getByTestId('field-orders').locator('tbody tr');
    // Live: half the orders at 50 %, then all of them at 100 %, drawn as they come.
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(12);
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(ORDERS.length);
    await expect.poll(() => card.getByTestId('field-stage-badge').textContent()).toBe('ready');
    expect(await card.getByTestId('field-sales').getByTestId('chart-bar').count()).toBe(6);
    expect(await card.getByTestId('field-revenue-value').textContent()).toContain(ORDERS.reduce((s, o) => s + o.total, 0).toLocaleString('en'));
    await expect.poll(() => page.getByTestId('message').and(page.locator('[data-role="assistant"]')).last().textContent()).toContain('The dashboard is ready');
    await shot(page, 'dashboard-desktop-light');
    await cardShot(page, card, 'dashboard-desktop-light');
    await checkAccessibility(page, 'body');

    // The table sorts on the page.
    await card.getByTestId('sort-total').click();
    const totals = async () => (await rows.locator('td:nth-child(4)').allTextContents()).map((t) => Number(t.replace(/[^\d.-]/g, '')));
    const sorted = await totals();
    expect(sorted).toEqual([...sorted].sort((a, b) => a - b));

    // The slider shows once "Large orders only" is on; its step is checked before anything is sent.
    const field = (key: string) => card.getByTestId(`field-${key}`);
    expect(await field('minTotal').count()).toBe(0);
    await field('region').selectOption('north');
    await field('large').check();
    await field('minTotal').fill('200');
    await field('onlyPaid').check();
    await field('from').fill('2026-03-01');
    await field('note').fill('for the Q2 review');
    await expect.poll(() => card.locator('h3, h4').filter({ hasText: 'Filters (region: north)' }).count()).toBe(1);
    await card.getByTestId('action-apply').click();
    await expect.poll(() => card.getByTestId('field-stage-badge').textContent(), { timeout: 10_000 }).toBe('filtered');
    const expected = filtered({ region: 'north', minTotal: 200, onlyPaid: true, from: '2026-03-01' });
    await expect.poll(() => rows.count()).toBe(expected.length);
    // Still sorted by total, as the user chose.
    expect(await rows.locator('td:first-child').allTextContents()).toEqual([...expected].sort((a, b) => a.total - b.total).map((o) => o.order));
    await expect
      .poll(() => page.getByTestId('message').and(page.locator('[data-role="assistant"]')).last().textContent(), { timeout: 10_000 })
      .toContain('region north, totals from 200 €, paid only, from 2026-03-01, your note "for the Q2 review"');
    expect(ws.ui.get(DASHBOARD_ID)?.instance.state.params).toMatchObject({ region: 'north', large: true, minTotal: 200, onlyPaid: true, from: '2026-03-01' });
    await shot(page, 'dashboard-desktop-light-filtered');
    await cardShot(page, card, 'dashboard-desktop-light-filtered');

    // Reset is the form's own handler: the filters go back at once, and the agent is not asked.
    const messages = await page.getByTestId('message').count();
    await card.getByTestId('action-reset').click();
    await expect.poll(() => ws.ui.get(DASHBOARD_ID)?.instance.state.params.region).toBe('all');
    await expect.poll(() => field('region').inputValue()).toBe('all');
    expect(await field('minTotal').count()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await page.getByTestId('message').count()).toBe(messages);

    for (const [viewport, view] of [
      [DESKTOP, 'desktop-dark'],
      [PHONE, 'phone-light'],
      [PHONE, 'phone-dark'],
    ] as const) {
      const other = await h.open(server, { viewport, colorScheme: view.endsWith('dark') ? 'dark' : 'light' });
      await expect.poll(() => other.getByTestId('session-item').first().getAttribute('aria-current')).toBe('true');
      if (viewport === PHONE) await other.getByTestId('pane-forms').click();
      const mine = other.getByTestId('ui-instance').and(other.locator(`[data-instance-id="${DASHBOARD_ID}"]`));
      await mine.waitFor();
      expect(await other.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      await shot(other, `dashboard-${view}`);
      await cardShot(other, mine, `dashboard-${view}`);
      await checkAccessibility(other, 'body');
    }
  });
});
