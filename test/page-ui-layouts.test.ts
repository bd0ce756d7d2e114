/**
 * How a model-built UI lays out its blocks on the page (issue 23), in the system Chromium
 * against `golem serve` and a scripted agent: a grid of three columns with spans (stacked on a
 * phone), a row, tabs (WAI-ARIA: arrow keys, aria-selected), a block's title, description and
 * own buttons, a block shown by a visibility rule, a modal block (a dialog: focus moved in,
 * Escape and its close button hide it on that page until the instance changes), and a button
 * with a handler that changes the state without the agent. Every text the model controls
 * carries `<script>`, `onerror` and `javascript:`. Light and dark, desktop and phone, axe-core.
 * Screenshots: test-results/screenshots/ui-layouts-*.
 */
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { checkAccessibility, pageHarness } from './helpers-page.js';
import { attack, buildInstance, everyView, instancePatches, MARKUP, pwned } from './page-ui-helpers.js';

const h = pageHarness();

/** Where each element matched is drawn. */
const boxes = async (locator: Locator) => Promise.all((await locator.all()).map(async (l) => (await l.boundingBox()) ?? { x: 0, y: 0, width: 0, height: 0 }));

const metricBlock = (id: string, title: string, span?: number) => ({
  id,
  type: 'form',
  bind: 'state.params',
  props: {
    title,
    ...(span !== undefined && { span }),
    fields: [{ label: `${title} total`, key: `${id}Total`, type: 'metric', value: { value: 42, change: 5 } }],
  },
});

describe('layouts, blocks and dialogs', () => {
  it('a grid with spans, block buttons, a handler, a block shown by a rule, and a modal', async () => {
    const built = await buildInstance(
      h,
      'grid',
      instancePatches({
        title: 'Dashboard',
        params: { clicks: 0, advanced: false },
        layout: { type: 'grid', columns: 3 },
        blocks: [
          { ...metricBlock('wide', attack('wide'), 2), props: { ...metricBlock('wide', attack('wide'), 2).props, description: attack('description') } },
          metricBlock('small', 'Small'),
          {
            id: 'counter',
            type: 'form',
            bind: 'state.params',
            props: {
              title: 'Clicked ${state.params.clicks} times',
              span: 3,
              fields: [
                { label: 'Clicks', key: 'clicks', type: 'badge' },
                { label: 'Advanced', key: 'advanced', type: 'switch' },
              ],
              actions: [
                { id: 'more', label: attack('more'), style: 'secondary', handler: { type: 'increment', path: 'state.params.clicks' } },
                { id: 'ask', label: 'Ask the agent', style: 'primary' },
              ],
            },
          },
          {
            id: 'advanced',
            type: 'form',
            bind: 'state.params',
            props: {
              title: 'Advanced settings',
              visible: { path: 'state.params.advanced', equals: true },
              fields: [{ label: 'Depth', key: 'depth', type: 'number' }],
            },
          },
          {
            id: 'welcome',
            type: 'form',
            bind: 'state.params',
            props: {
              title: attack('welcome'),
              modal: true,
              fields: [{ label: 'About', key: 'about', type: 'markdown', value: `Hello. ${attack('modal text')}` }],
              actions: [{ id: 'start', label: 'Start', style: 'primary', handler: { type: 'set', path: 'state.params.started', value: true } }],
            },
          },
        ],
      }),
    );
    const { ws, page, card, model } = built;

    // The modal: a dialog named by its title, focus inside, Escape hides it here.
    const dialog = page.getByRole('dialog', { name: attack('welcome') });
    await dialog.waitFor();
    expect(await dialog.getAttribute('aria-modal')).toBe('true');
    expect(await page.evaluate<boolean>(`document.activeElement?.closest('[role=dialog]') != null`)).toBe(true);
    expect(await dialog.locator(MARKUP).count()).toBe(0);
    await page.screenshot({ path: 'test-results/screenshots/ui-layouts-modal-desktop-light.png' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // The grid: three columns, the first block two wide.
    const layout = card.getByTestId('ui-layout');
    expect(await layout.getAttribute('data-layout')).toBe('grid');
    expect(await card.locator('.ui-cell').evaluateAll((cells) => cells.map((c) => (c as unknown as { dataset: { span: string } }).dataset.span))).toEqual([
      '2',
      '1',
      '3',
    ]);
    const [wide, small] = (await boxes(card.locator('.ui-cell'))).map((b) => b.width);
    expect(wide).toBeGreaterThan((small ?? 0) * 1.8);
    expect(await card.getByRole('group', { name: attack('wide'), exact: true }).count()).toBe(1);
    expect(await card.locator('.ui-block-desc').first().textContent()).toBe(attack('description'));
    expect(await card.locator('.ui-block-title').allTextContents()).toEqual([attack('wide'), 'Small', 'Clicked 0 times']);

    // A block's button with a handler: the state changes on the server, the agent is not asked.
    const calls = model.calls.length;
    await card.getByTestId('action-more').click();
    await expect.poll(() => ws.ui.get('grid')?.instance.state.params.clicks).toBe(1);
    await expect.poll(() => card.locator('.ui-block-title').nth(2).textContent()).toBe('Clicked 1 times');
    expect(await card.getByTestId('field-clicks-badge').textContent()).toBe('1');
    expect(await card.getByTestId('action-more').isEnabled()).toBe(true);
    // The instance changed, not the dialog's block: it stays closed (a live dashboard would bring it back each second).
    expect(await page.getByRole('dialog').count()).toBe(0);
    // The model changes the dialog's block: it shows again, and its button's handler runs from it.
    const welcome = ws.ui.get('grid')?.instance.blocks.find((b) => b.id === 'welcome');
    const changed = await ws.ui.patch({
      instanceId: 'grid',
      patches: [{ op: 'set', path: 'blocks["welcome"]', value: { ...welcome, props: { ...welcome?.props, description: 'Read this first.' } } }],
    });
    expect(changed.success).toBe(true);
    await dialog.waitFor();
    await dialog.getByTestId('action-start').click();
    await expect.poll(() => ws.ui.get('grid')?.instance.state.params.started).toBe(true);
    await dialog.waitFor();
    await dialog.getByTestId('ui-modal-close').click();
    await dialog.waitFor({ state: 'detached' });
    expect(model.calls.length).toBe(calls);

    // A block shown by a rule: the switch shows it at once, before anything is sent.
    expect(await card.locator('[data-block-id="advanced"]').count()).toBe(0);
    await card.getByTestId('field-advanced').check();
    await card.locator('[data-block-id="advanced"]').waitFor();
    await card.getByTestId('field-depth').fill('3');
    // A block's button without a handler goes to the agent, with the values.
    await card.getByTestId('action-ask').click();
    await page.getByTestId('message').filter({ hasText: 'Noted 1.' }).waitFor();
    expect(ws.ui.get('grid')?.instance.state.params).toMatchObject({ clicks: 1, advanced: true, depth: 3, started: true });

    // Each other view opens with the dialog (new on that page): shot, checked, then closed to see the grid.
    let views = 0;
    await everyView(h, built, 'grid', 'ui-layouts-grid', async (shown) => {
      const other = shown.page();
      const modal = other.getByRole('dialog');
      await modal.waitFor();
      const phone = (other.viewportSize()?.width ?? 0) < 800;
      await other.screenshot({ path: `test-results/screenshots/ui-layouts-modal-${['desktop-dark', 'phone-light', 'phone-dark'][views++] ?? 'other'}.png` });
      await checkAccessibility(other, 'body');
      expect((await modal.boundingBox())?.width).toBeLessThanOrEqual(phone ? 390 : 1400);
      await modal.getByTestId('ui-modal-close').click();
      await modal.waitFor({ state: 'detached' });
    });
    // On a phone, the grid is one column.
    const phone = await h.open(built.server, { viewport: { width: 390, height: 844 } });
    await phone.getByTestId('pane-forms').click();
    const cells = phone.getByTestId('ui-instance').locator('.ui-cell');
    await cells.first().waitFor();
    const lefts = (await boxes(cells)).map((b) => Math.round(b.x));
    expect(new Set(lefts).size).toBe(1);
    expect(await pwned(page)).toBeUndefined();
  });

  it('tabs and a row', async () => {
    const block = (id: string, title: string, label: string) => ({
      id,
      type: 'form',
      bind: 'state.params',
      props: { title, fields: [{ label, key: `${id}Note`, type: 'text' }] },
    });
    const built = await buildInstance(
      h,
      'tabs',
      instancePatches({
        title: 'Trip',
        params: { city: 'Lisbon' },
        layout: { type: 'tabs' },
        blocks: [
          block('where', attack('tab'), 'Where to?'),
          block('when', 'When (${state.params.city})', 'Dates'),
          { ...block('who', '', 'Who'), props: { fields: [{ label: 'Who', key: 'whoNote', type: 'text' }] } },
        ],
        actions: [{ id: 'go', label: 'Plan it', style: 'primary' }],
      }),
    );
    const { ws, page, card } = built;
    const tabs = card.getByRole('tab');
    expect(await tabs.allTextContents()).toEqual([attack('tab'), 'When (Lisbon)', 'who']);
    expect(await tabs.first().getAttribute('aria-selected')).toBe('true');
    expect(await card.getByRole('tabpanel').count()).toBe(1);
    await card.getByTestId('field-whereNote').fill('Porto');
    // Arrow keys move between tabs, as the tabs pattern says.
    await tabs.first().focus();
    await page.keyboard.press('ArrowRight');
    expect(await tabs.nth(1).getAttribute('aria-selected')).toBe('true');
    expect(await page.evaluate<string | undefined>('document.activeElement?.textContent')).toBe('When (Lisbon)');
    await page.keyboard.press('End');
    expect(await tabs.nth(2).getAttribute('aria-selected')).toBe('true');
    await card.getByTestId('field-whoNote').fill('Two of us');
    await card.getByTestId('tab-when').click();
    await card.getByTestId('field-whenNote').fill('May');
    await everyView(h, built, 'tabs', 'ui-layouts-tabs');
    // What was typed in every tab is sent.
    await card.getByTestId('action-go').click();
    await expect.poll(() => ws.ui.get('tabs')?.instance.state.params).toMatchObject({ whereNote: 'Porto', whenNote: 'May', whoNote: 'Two of us' });

    // The same blocks in a row: side by side on a desktop, stacked on a phone.
    await ws.ui.patch({ instanceId: 'tabs', patches: [{ op: 'set', path: 'layout', value: { type: 'row' } }] });
    await card.getByTestId('ui-layout').and(page.locator('[data-layout="row"]')).waitFor();
    const tops = (await boxes(card.locator('.ui-cell'))).map((b) => Math.round(b.y));
    expect(new Set(tops).size).toBe(1);
    await everyView(h, built, 'tabs', 'ui-layouts-row');
    expect(await pwned(page)).toBeUndefined();
  });
});
