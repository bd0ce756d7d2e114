/**
 * The catalog's display fields on the page (issue 23), in the system Chromium against `golem
 * serve` and a scripted agent: markdown, table (sorted by a header's button), progress, badge,
 * metric, image (a blob, a data URL; an image elsewhere named in markdown is never reached),
 * line, bar and pie charts as SVG, code, a registered component without a renderer (its value
 * as JSON) and one with a renderer the page runs in a sandboxed frame. Every text the model controls carries
 * `<script>`, `onerror` and `javascript:`. Light and dark, desktop and phone, axe-core.
 * Screenshots: test-results/screenshots/ui-displays-*.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkspace } from '../src/index.js';
import { pageHarness, stripes } from './helpers-page.js';
import { attack, buildInstance, everyView, instancePatches, MARKUP, pwned, STARS_RENDERER } from './page-ui-helpers.js';

const h = pageHarness();

/** A small PNG of one colour. */
const png = (width: number, height: number, rgb: [number, number, number]): Buffer => stripes(width, height, rgb, rgb);

const sales = [
  { month: attack('Jan'), north: 12, south: 7 },
  { month: 'Feb', north: 18, south: 11 },
  { month: 'Mar', north: 9, south: 15 },
  { month: 'Apr', north: 22, south: 13 },
];

describe('the catalog’s display fields', () => {
  it('markdown, table, progress, badge, metric, image, charts and code: drawn as text, sorted, images only from here', async () => {
    // A site the model names: no request may reach it.
    let hits = 0;
    const elsewhere = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'image/png' }).end(png(4, 4, [255, 0, 0]));
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    h.cleanups.push(() => new Promise((resolve) => elsewhere.close(() => resolve())));
    const site = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;

    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const blob = await ws.blobs.register(png(80, 48, [59, 91, 219]), { mediaType: 'image/png', hold: true });
    const dataUrl = `data:image/png;base64,${png(48, 48, [43, 122, 58]).toString('base64')}`;

    const built = await buildInstance(
      h,
      'dash',
      instancePatches({
        title: 'Sales',
        params: {
          who: attack('who'),
          rows: [
            { name: attack('cell'), units: 30, ok: true },
            { name: 'Basil', units: 4, ok: false },
            { name: 'Chili', units: 120, ok: null },
          ],
          late: 'late',
          latency: { value: 1234.5, change: -3.2, unit: 'ms' },
          signups: { value: 87, change: 12 },
          logo: { blob: { sha256: blob.sha256 } },
          sales,
        },
        blocks: [
          {
            id: 'text',
            type: 'form',
            bind: 'state.params',
            props: {
              title: 'Text',
              fields: [
                {
                  label: attack('markdown'),
                  key: 'notes',
                  type: 'markdown',
                  value: `**Bold** for \${state.params.who} ${attack('md')} [safe](https://example.com) ![far](${site}/far.png)`,
                },
                { label: 'Code', key: 'snippet', type: 'code', language: 'typescript', value: `const x = '${attack('code')}';` },
                { label: attack('badge'), key: 'late', type: 'badge', tones: { late: 'danger', ok: 'success' } },
                { label: 'Plain', key: 'plain', type: 'badge', value: attack('badge value'), tone: 'info' },
              ],
            },
          },
          {
            id: 'numbers',
            type: 'form',
            bind: 'state.params',
            props: {
              title: 'Numbers',
              fields: [
                {
                  label: attack('table'),
                  key: 'rows',
                  type: 'table',
                  columns: [
                    { key: 'name', label: attack('column') },
                    { key: 'units', label: 'Units' },
                    { key: 'ok', label: 'OK' },
                  ],
                },
                { label: 'Done', key: 'done', type: 'progress', value: 40 },
                { label: 'Chapters', key: 'chapters', type: 'progress', value: { value: 3, max: 4, label: attack('progress') } },
                { label: attack('latency'), key: 'latency', type: 'metric' },
                { label: 'Sign-ups', key: 'signups', type: 'metric', unit: 'people' },
              ],
            },
          },
          {
            id: 'pictures',
            type: 'form',
            bind: 'state.params',
            props: {
              title: 'Pictures',
              fields: [
                { label: 'Logo', key: 'logo', type: 'image', alt: attack('alt') },
                { label: 'Dot', key: 'dot', type: 'image', value: dataUrl, alt: 'A green square' },
              ],
            },
          },
          {
            id: 'charts',
            type: 'form',
            bind: 'state.params',
            props: {
              title: 'Charts',
              fields: [
                { label: attack('line'), key: 'sales', type: 'chart', chart: 'line', x: 'month', y: ['north', 'south'] },
                { label: 'Bars', key: 'bars', type: 'chart', chart: 'bar', x: 'month', y: 'north', value: sales },
                { label: 'Share', key: 'pie', type: 'chart', chart: 'pie', x: 'month', y: 'south', value: sales },
              ],
            },
          },
        ],
      }),
      { ws },
    );
    const { page, card } = built;
    const field = (key: string) => card.getByTestId(`field-${key}`);

    // Markdown: drawn by the safe renderer, the template filled, HTML as text, only the https link a link.
    const markdown = field('notes');
    expect(await markdown.locator('strong').textContent()).toBe('Bold');
    // The markup as text; the javascript: link as its words only.
    expect(await markdown.locator('.markdown').textContent()).toContain(
      'for who <script>window.__pwned=1</script><img src=x onerror=window.__pwned=1> x md <script>',
    );
    expect(await markdown.locator('.md-link-off').count()).toBe(2);
    expect(await markdown.locator('a').evaluateAll((links) => links.map((a) => (a as unknown as { href: string }).href))).toEqual([
      'https://example.com/',
      `${site}/far.png`,
    ]);
    // Code: highlighted, as text.
    expect(await field('snippet').locator('code').textContent()).toBe(`const x = '${attack('code')}';`);
    expect(await field('snippet').locator('code span').count()).toBeGreaterThan(0);
    // Badges: the value's tone, else the field's.
    expect(await field('late-badge').getAttribute('data-tone')).toBe('danger');
    expect(await field('plain-badge').textContent()).toBe(attack('badge value'));
    expect(await field('plain-badge').getAttribute('data-tone')).toBe('info');

    // Table: the columns given, then sorted by a header's button.
    const table = field('rows-table');
    expect(await table.locator('th').allTextContents()).toEqual([`${attack('column')}↕`, 'Units↕', 'OK↕']);
    const names = () => table.locator('tbody tr td:first-child').allTextContents();
    expect(await names()).toEqual([attack('cell'), 'Basil', 'Chili']);
    await table.getByTestId('sort-units').click();
    expect(await table.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(['4', '30', '120']);
    expect(await table.locator('th').nth(1).getAttribute('aria-sort')).toBe('ascending');
    await table.getByTestId('sort-units').click();
    expect(await table.locator('tbody tr td:nth-child(2)').allTextContents()).toEqual(['120', '30', '4']);
    expect(await table.locator('th').nth(1).getAttribute('aria-sort')).toBe('descending');
    expect(await table.locator('th').first().getAttribute('aria-sort')).toBe('none');

    // Progress and metrics.
    expect(await field('done').getByRole('progressbar').getAttribute('aria-valuenow')).toBe('40');
    expect(await field('chapters').getByRole('progressbar').getAttribute('aria-valuetext')).toBe('3 / 4 (75%)');
    expect(await field('chapters').locator('.field-label').textContent()).toBe(attack('progress'));
    expect(await field('latency-value').textContent()).toBe('1,234.5 ms');
    expect(await field('latency-change').getAttribute('data-direction')).toBe('down');
    expect(await field('latency-change').textContent()).toBe('▼ down −3.2');
    expect(await field('signups-value').textContent()).toBe('87 people');
    expect(await field('signups-change').getAttribute('data-direction')).toBe('up');

    // Images: the blob through the server, the data URL as given, the site named and never asked.
    await field('logo').locator('img[data-blob]').waitFor();
    expect(await field('logo').locator('img').getAttribute('alt')).toBe(attack('alt'));
    expect(await field('dot').locator('img').getAttribute('src')).toBe(dataUrl);
    // An image in markdown from a site is a link, not loaded.
    expect(await markdown.locator('img').count()).toBe(0);

    // Charts: SVG with a name, as many points, bars and slices as the data has, the numbers in a table.
    const line = field('sales-chart');
    expect(await line.locator('svg[role="img"]').count()).toBe(1);
    expect(await line.locator('svg title').textContent()).toBe(`${attack('line')}: line chart of north, south by month, 4 points`);
    expect(await line.getByTestId('chart-point').count()).toBe(8);
    expect(await line.locator('.chart-line').count()).toBe(2);
    expect(await line.locator('table tbody tr').count()).toBe(4);
    expect(await line.locator('table tbody tr').first().textContent()).toBe(`${attack('Jan')}127`);
    expect(await field('bars-chart').getByTestId('chart-bar').count()).toBe(4);
    expect(await field('pie-chart').getByTestId('chart-slice').count()).toBe(4);
    expect(await field('pie-chart').locator('.chart-legend li').first().textContent()).toBe(attack('Jan'));

    expect(await card.locator(MARKUP).count()).toBe(0);
    await everyView(h, built, 'dash', 'ui-displays', async (shown) => {
      await shown.getByTestId('field-logo').locator('img[data-blob]').waitFor();
    });
    expect(hits).toBe(0);
    expect(await pwned(page)).toBeUndefined();
  });

  it('a registered component: its renderer draws it and sets its value; without one, or when it throws, its value as JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'golem-renderer-'));
    const renderer = join(dir, 'rating.js');
    writeFileSync(renderer, STARS_RENDERER);
    const broken = join(dir, 'broken.js');
    writeFileSync(broken, `export function render() { throw new Error('no canvas here'); }\n`);
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    ws.ui.catalog.register({
      type: 'gauge',
      kind: 'display',
      description: 'a gauge that fails to draw',
      props: {},
      value: z.number(),
      example: { label: 'Load', key: 'load', type: 'gauge' },
      renderer: broken,
    });
    ws.ui.catalog.register({
      type: 'rating',
      kind: 'input',
      description: 'stars from 1 to max',
      props: { max: z.number().int().min(2).max(10) },
      value: z.number().int().min(1),
      example: { label: 'How was it?', key: 'stars', type: 'rating', max: 5 },
      renderer,
    });
    ws.ui.catalog.register({
      type: 'weather',
      kind: 'display',
      description: 'a forecast',
      props: {},
      value: z.object({ city: z.string(), temperature: z.number() }),
      example: { label: 'Forecast', key: 'forecast', type: 'weather' },
    });
    const built = await buildInstance(
      h,
      'custom',
      instancePatches({
        title: 'Feedback',
        params: { forecast: { city: attack('city'), temperature: 21 }, load: 0.75 },
        blocks: [
          {
            id: 'main',
            type: 'form',
            bind: 'state.params',
            props: {
              fields: [
                { label: attack('stars'), key: 'stars', type: 'rating', max: 5 },
                { label: attack('forecast'), key: 'forecast', type: 'weather' },
                { label: 'Load', key: 'load', type: 'gauge' },
              ],
            },
          },
        ],
        actions: [{ id: 'send', label: 'Send', style: 'primary' }],
      }),
      { ws },
    );
    const { page, card } = built;
    const json = card.getByTestId('field-forecast-json');
    expect(JSON.parse((await json.textContent()) ?? '')).toEqual({ city: attack('city'), temperature: 21 });
    expect(await card.getByTestId('field-forecast').locator('.field-label').textContent()).toBe(attack('forecast'));
    // A renderer that throws: the value as JSON, and why.
    await card.getByTestId('field-load-json').waitFor();
    expect(await card.getByTestId('field-load-json').textContent()).toBe('0.75');
    expect(await card.getByTestId('field-load').getByTestId('field-fallback-note').textContent()).toBe('Shown as JSON: its renderer failed (no canvas here).');
    // Drawn in its sandboxed frame (page-ui-renderer-frame.test.ts tests the frame itself).
    const stars = page.frameLocator('[data-testid="field-stars"] iframe').getByTestId('stars');
    await stars.waitFor();
    expect(await stars.getAttribute('data-theme')).toBe('light');
    await stars.getByRole('button', { name: '4 of 5' }).click();
    expect(await stars.locator('button').allTextContents()).toEqual(['★', '★', '★', '★', '☆']);
    await card.getByTestId('action-send').click();
    await expect.poll(() => ws.ui.get('custom')?.instance.state.params.stars).toBe(4);
    await page.getByTestId('message').filter({ hasText: 'Noted 1.' }).waitFor();
    await everyView(h, built, 'custom', 'ui-displays-custom', async (shown) => {
      await shown.getByTestId('field-stars').locator('iframe').contentFrame().getByTestId('stars').waitFor();
    });
    expect(await pwned(page)).toBeUndefined();
  });
});
