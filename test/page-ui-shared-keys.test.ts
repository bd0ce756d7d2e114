/**
 * Display fields of one block sharing a key on the page (issue 37, section 4): a table and a
 * chart of the same rows in one block, with a block that leaves bind out (state.params), drawn
 * both, each with ids of its own (no duplicate id for a label to point at), in the system
 * Chromium against `golem serve` and a scripted agent. Light and dark, desktop and phone, axe-core.
 * Screenshots: test-results/screenshots/ui-shared-keys-*.
 */
import { describe, expect, it } from 'vitest';
import { pageHarness } from './helpers-page.js';
import { buildInstance, everyView } from './page-ui-helpers.js';

const h = pageHarness();

const rows = [
  { month: 'Jan', total: 12 },
  { month: 'Feb', total: 18 },
  { month: 'Mar', total: 9 },
];

describe('display fields that share a key', () => {
  it('draws a table and a chart of the same rows in one block, each with its own ids', async () => {
    const built = await buildInstance(h, 'orders', [
      { op: 'set', path: 'state.params.rows', value: rows },
      {
        op: 'add',
        path: 'blocks+',
        value: {
          id: 'view',
          type: 'form',
          props: {
            title: 'Orders',
            fields: [
              {
                label: 'Orders by month',
                key: 'rows',
                type: 'table',
                columns: [
                  { key: 'month', label: 'Month' },
                  { key: 'total', label: 'Total' },
                ],
              },
              { label: 'Orders chart', key: 'rows', type: 'chart', chart: 'bar', x: 'month', y: 'total' },
            ],
          },
        },
      },
    ]);
    const { card, page } = built;
    const shared = card.getByTestId('field-rows');
    await expect.poll(() => shared.count()).toBe(2);
    expect(await card.getByTestId('field-rows-table').locator('tbody tr td:first-child').allTextContents()).toEqual(['Jan', 'Feb', 'Mar']);
    expect(await card.getByTestId('field-rows-chart').locator('svg title').textContent()).toBe('Orders chart: bar chart of total by month, 3 points');
    // Every id in the card is its own, and each label an element names is the field's.
    const ids = await card.locator('[id]').evaluateAll((elements) => elements.map((e) => e.id));
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    const labelled = await card
      .locator('[aria-labelledby]')
      .evaluateAll((elements) =>
        elements.flatMap((e) => (e.getAttribute('aria-labelledby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '')),
      );
    expect(labelled).toEqual(['Orders', 'Orders by month', 'Orders chart: bar chart of total by month, 3 points']);
    expect(await page.locator('[data-testid="field-bad"]').count()).toBe(0);
    await everyView(h, built, 'orders', 'ui-shared-keys', (c) => c.getByTestId('field-rows-chart').locator('svg').waitFor());
  });
});
