/**
 * The seed's block properties on the page (issue 23), in the system Chromium against `golem
 * serve` and a scripted agent: a block with all six (progress, status, images, table, count
 * input, task id) built by patch_ui_state, its progress, status and table updated live while
 * the run goes on, the count and a field sent back through the click path, in light and dark,
 * at desktop and phone size, with axe-core. Every text the model controls carries `<script>`,
 * `onerror` and `javascript:` and is drawn as text; images come from data URLs and the
 * server's own blobs, and a site the model names (a live server here) is never reached.
 * Screenshots: test-results/screenshots/blocks-*.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createWorkspace, type JsonObject } from '../src/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { DESKTOP, PHONE, SHOTS, checkAccessibility, pageHarness, say, shot, stripes } from './helpers-page.js';

const h = pageHarness();

/** A promise the test opens, for the scripted agent to wait on. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

const pwned = (page: Page) => page.evaluate<unknown>('window.__pwned');

/** The whole instance, however tall (the window made taller for it, so its panel does not clip it), beside the page's own screenshot. */
async function cardShot(page: Page, card: Locator, name: string): Promise<void> {
  const size = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize({ width: size.width, height: 2400 });
  await card.screenshot({ path: join(SHOTS, `${name}-card.png`) });
  await page.setViewportSize(size);
}

describe('the page draws the block properties’ data', () => {
  it('progress, status, table, images, count and task id: live, as text, images only from here, the count through the click path', async () => {
    // A site the model names: no request may reach it.
    let hits = 0;
    const elsewhere = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { 'content-type': 'image/png' }).end(stripes(4, 4, [255, 0, 0], [0, 0, 0]));
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    h.cleanups.push(() => new Promise((resolve) => elsewhere.close(() => resolve())));
    const site = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
    const attack = (where: string) =>
      `${where} <script>window.__pwned=1</script><img src="${site}/${where}.png" onerror="window.__pwned=1"> [x](javascript:window.__pwned=1)`;

    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const chart = await ws.blobs.register(stripes(96, 64, [59, 91, 219], [232, 237, 255]), { mediaType: 'image/png', hold: true });
    const dot = `data:image/png;base64,${stripes(48, 48, [43, 122, 58], [230, 244, 234]).toString('base64')}`;

    // The first state carries the attacks in every text; the live updates read as a user would see them.
    const table = (rows: number, attacked: boolean) => ({
      columns: [
        { key: 'page', label: attacked ? attack('column') : 'Chapter' },
        { key: 'words', label: 'Words' },
        { key: 'done', label: 'Read' },
      ],
      rows: Array.from({ length: rows }, (_, i) => ({
        page: i === 0 && attacked ? attack('cell') : `Chapter ${i + 1}`,
        words: 400 + i * 310,
        done: i < rows - 1,
      })),
    });
    const runtime = (step: number, status: JsonObject) => [
      { op: 'set', path: 'state.runtime.progress', value: { value: step, max: 4, label: step === 1 ? attack('progress') : 'Chapters read' } },
      { op: 'set', path: 'state.runtime.status', value: status },
      { op: 'set', path: 'state.runtime.table', value: table(step + 1, step === 1) },
    ];
    const call = (input: JsonObject) => ({ name: 'patch_ui_state', input });
    const firstPage = gate();
    const lastPage = gate();
    const steps: ScriptStep[] = [
      {
        text: 'Building the report.',
        toolCalls: [
          call({
            instanceId: '__CREATE__',
            newInstanceId: 'report',
            patches: [
              { op: 'set', path: 'meta', value: { pageKey: 'Weekly report', step: { current: 1, total: 2 }, status: 'idle' } },
              {
                op: 'set',
                path: 'state',
                value: {
                  params: {},
                  runtime: {
                    images: [
                      { blob: { sha256: chart.sha256 }, alt: attack('alt'), caption: attack('caption') },
                      { src: dot, alt: 'Green stripes', caption: 'javascript:window.__pwned=1' },
                    ],
                    count: 3,
                    taskId: 'javascript:window.__pwned=1',
                  },
                },
              },
              {
                op: 'set',
                path: 'blocks',
                value: [
                  {
                    id: 'main',
                    type: 'form',
                    bind: 'state.params',
                    props: {
                      fields: [{ label: 'Note', key: 'note', type: 'text' }],
                      showProgress: true,
                      showStatus: true,
                      showImages: true,
                      showTable: true,
                      showCountInput: true,
                      showTaskId: true,
                    },
                  },
                ],
              },
              { op: 'set', path: 'actions', value: [{ id: 'again', label: 'Run again', style: 'primary' }] },
              ...runtime(1, { text: attack('status'), level: 'info' }),
            ],
          }),
          // An image from a site: refused, nothing of the call applied.
          call({ instanceId: 'report', patches: [{ op: 'set', path: 'state.runtime.images', value: [{ src: `${site}/off-site.png`, alt: 'off site' }] }] }),
        ],
      },
      async () => {
        await firstPage.opened;
        return {
          text: 'Page 2 read.',
          toolCalls: [call({ instanceId: 'report', patches: runtime(2, { text: 'Half way: a slow chapter', level: 'warning' }) })],
        };
      },
      async () => {
        await lastPage.opened;
        return { text: 'All pages read.', toolCalls: [call({ instanceId: 'report', patches: runtime(4, { text: 'Report ready', level: 'success' }) })] };
      },
      { text: 'The report is up to date.' },
      (prompt) => {
        const told = JSON.stringify(prompt.messages.at(-1));
        const count = /The count \(state\.runtime\.count\): (\d+)/.exec(told)?.[1] ?? 'none';
        return {
          text: `Running ${count} more.`,
          toolCalls: [
            call({
              instanceId: 'report',
              patches: [{ op: 'set', path: 'state.runtime.status', value: { text: `Could not run ${count}: ${attack('error')}`, level: 'error' } }],
            }),
          ],
        };
      },
      { text: 'Told you why.' },
    ];
    const model = scriptedModel(steps);
    const { server } = await h.started({ model }, ws);
    const page = await h.open(server);
    await say(page, 'Build me the report');

    const card = page.getByTestId('ui-instance').and(page.locator('[data-instance-id="report"]'));
    const progress = card.getByTestId('block-progress');
    await progress.waitFor();
    const bar = progress.getByRole('progressbar');
    expect(await bar.getAttribute('aria-valuenow')).toBe('1');
    expect(await bar.getAttribute('aria-valuemax')).toBe('4');
    expect(await progress.getByTestId('block-progress-amount').textContent()).toBe('1 / 4');
    // Every text of the model's, as written.
    expect(await progress.locator('.field-label').textContent()).toBe(attack('progress'));
    expect(await card.getByTestId('block-status').textContent()).toBe(`Status${attack('status')}`);
    expect(await card.getByTestId('block-status').getAttribute('data-level')).toBe('info');
    expect(await card.getByTestId('block-task-id-value').textContent()).toBe('javascript:window.__pwned=1');
    expect(await card.locator('th').allTextContents()).toEqual([attack('column'), 'Words', 'Read']);
    expect(await card.locator('tbody tr').first().locator('td').allTextContents()).toEqual([attack('cell'), '400', 'yes']);
    expect(await card.getByTestId('count-input').inputValue()).toBe('3');
    // The images: the blob through the server, the data URL as given, captions as text.
    const images = card.getByTestId('block-images').locator('img');
    await expect.poll(() => images.count()).toBe(2);
    await card.locator('img[data-blob]').waitFor();
    expect(await images.evaluateAll((els) => els.map((el) => (el as unknown as { src: string }).src.slice(0, 22)))).toEqual([
      'data:image/png;base64,',
      'data:image/png;base64,',
    ]);
    expect(await images.first().getAttribute('alt')).toBe(attack('alt'));
    expect(await card.locator('figcaption').allTextContents()).toEqual([attack('caption'), 'javascript:window.__pwned=1']);
    // Nothing of the markup is an element: no script, handler, link or other image.
    expect(await card.locator('script, iframe, a, [onerror], [href^="javascript:"], img:not([src^="data:image/"])').count()).toBe(0);
    // The image from a site was refused, with the path named to the model.
    expect(JSON.stringify(model.calls[1]?.messages.at(-1))).toMatch(/INVALID_STRUCTURE.*state\.runtime\.images\.0\.src/);
    await shot(page, 'blocks-desktop-light');
    await cardShot(page, card, 'blocks-desktop-light');
    await checkAccessibility(page, 'body');

    // Live: the run goes on, and each update shows as it is made.
    firstPage.open();
    await expect.poll(() => bar.getAttribute('aria-valuenow')).toBe('2');
    expect(await card.getByTestId('block-status').getAttribute('data-level')).toBe('warning');
    expect(await card.getByTestId('block-table').getAttribute('data-rows')).toBe('3');
    await shot(page, 'blocks-desktop-light-live');
    await cardShot(page, card, 'blocks-desktop-light-live');
    lastPage.open();
    await expect.poll(() => bar.getAttribute('aria-valuenow')).toBe('4');
    expect(await progress.getByTestId('block-progress-amount').textContent()).toBe('4 / 4');
    expect(await card.getByTestId('block-status').textContent()).toBe('DoneReport ready');
    expect(await card.locator('tbody tr').count()).toBe(5);
    expect(await card.locator('th').allTextContents()).toEqual(['Chapter', 'Words', 'Read']);
    expect(await card.locator('tbody tr').last().locator('td').allTextContents()).toEqual(['Chapter 5', '1640', 'no']);
    expect(await progress.locator('.field-label').textContent()).toBe('Chapters read');
    await page.getByTestId('message').filter({ hasText: 'The report is up to date.' }).waitFor();
    await cardShot(page, card, 'blocks-desktop-light-done');

    // A count that is no whole number is not sent: the user is told, and nothing changes.
    const version = ws.ui.get('report')?.version;
    await card.getByTestId('count-input').fill('2.5');
    await card.getByTestId('action-again').click();
    expect(await card.locator('.ui-error').textContent()).toBe('The count is a whole number, 0 or more.');
    expect(ws.ui.get('report')?.version).toBe(version);
    // The count and the field go through the click: one patch_ui_state call, then the agent is told.
    await card.getByTestId('count-input').fill('7');
    await card.getByTestId('field-note').fill('Ship it');
    await card.getByTestId('action-again').click();
    await page.getByTestId('message').filter({ hasText: 'Running 7 more.' }).waitFor();
    await expect.poll(() => card.getByTestId('block-status').getAttribute('data-level')).toBe('error');
    expect(ws.ui.get('report')?.instance.state).toMatchObject({ params: { note: 'Ship it' }, runtime: { count: 7 } });
    expect(await card.getByTestId('count-input').inputValue()).toBe('7');
    expect(await card.locator('script, iframe, a, [onerror], img:not([src^="data:image/"])').count()).toBe(0);
    await shot(page, 'blocks-desktop-light-error');
    await cardShot(page, card, 'blocks-desktop-light-error');
    await checkAccessibility(page, 'body');

    // Dark, on a desktop and on a phone (the forms' pane), from the state as it is now.
    for (const [viewport, name] of [
      [DESKTOP, 'blocks-desktop-dark'],
      [PHONE, 'blocks-phone-dark'],
      [PHONE, 'blocks-phone-light'],
    ] as const) {
      const other = await h.open(server, { viewport, colorScheme: name.endsWith('dark') ? 'dark' : 'light' });
      // The latest conversation opens by itself.
      await expect.poll(() => other.getByTestId('session-item').first().getAttribute('aria-current')).toBe('true');
      if (viewport === PHONE) await other.getByTestId('pane-forms').click();
      const shown = other.getByTestId('ui-instance').and(other.locator('[data-instance-id="report"]'));
      await shown.locator('img[data-blob]').waitFor();
      await shown.getByTestId('block-progress').scrollIntoViewIfNeeded();
      // Nothing wider than the screen: the table scrolls in its own box.
      expect(await other.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
      await shot(other, name);
      await cardShot(other, shown, name);
      await checkAccessibility(other, 'body');
      expect(await pwned(other)).toBeUndefined();
    }
    expect(await pwned(page)).toBeUndefined();
    expect(hits).toBe(0);
  });
});
