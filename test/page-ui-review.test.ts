/**
 * What a cold review of the page's model-built UIs found (issue 23), in the system Chromium
 * against `golem serve` and a scripted agent: chained visibility rules read as the server
 * reads them (a choice undone hides what it showed, and what that showed); a click the server
 * refuses keeps what the user typed and names its field; a click stopped by a field in a
 * closed dialog or another tab opens it and focuses the field; display fields keep working
 * while a click is out; required list, file, slider and JSON fields say so, and a file can be
 * removed and chosen again. Screenshots: test-results/screenshots/ui-review-*.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { pageHarness } from './helpers-page.js';
import { buildInstance, cardShot, everyView, instancePatches } from './page-ui-helpers.js';

const h = pageHarness();

const options = (...values: string[]) => values.map((value) => ({ label: value.toUpperCase(), value }));

/**
 * The page's socket made to send what the server will refuse (as if the page and the server
 * disagreed): after `tamper(page, key, value)`, the next UI_ACTION carries that value; the
 * frames the socket receives from then on are listed in `window.__frames`. (A script, as
 * the page runs it: this project's tests have no DOM types.)
 */
const TAMPERABLE = `(() => {
  window.__frames = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === 'string' && window.__tamper !== undefined) {
      const message = JSON.parse(data);
      if (message.type === 'UI_ACTION') {
        if (window.__heard !== this) {
          this.addEventListener('message', (event) => window.__frames.push(JSON.parse(String(event.data)).type));
          window.__heard = this;
        }
        message.values = { ...message.values, [window.__tamper.key]: window.__tamper.value };
        window.__tamper = undefined;
        data = JSON.stringify(message);
      }
    }
    return send.call(this, data);
  };
})()`;

const tamper = (page: Page, key: string, value: unknown) => page.evaluate(`window.__tamper = ${JSON.stringify({ key, value })}`);
const frames = (page: Page) => page.evaluate<string[]>('window.__frames');

/** Waits for the snapshot the server sends after a refusal, and for the page to have drawn it. */
async function snapshotDrawn(page: Page, refusals: number): Promise<void> {
  await expect.poll(async () => (await frames(page)).join(' ').split('RUN_ERROR STATE_SNAPSHOT').length - 1).toBe(refusals);
  await page.evaluate('new Promise((done) => setTimeout(() => requestAnimationFrame(() => requestAnimationFrame(done)), 50))');
}

const focusedTestId = (page: Page) =>
  page.evaluate<string | undefined>(`document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName`);

describe('the page, after review', () => {
  it('chained rules as the server reads them; a refused click keeps what was typed and names its field', async () => {
    const built = await buildInstance(
      h,
      'chain',
      instancePatches({
        title: 'Order',
        params: { notes: 'old' },
        blocks: [
          {
            id: 'main',
            type: 'form',
            bind: 'state.params',
            props: {
              fields: [
                { label: 'Kind', key: 'a', type: 'select', options: options('x', 'y') },
                { label: 'Detail', key: 'b', type: 'text', visible: { path: 'state.params.a', equals: 'x' } },
                { label: 'More', key: 'c', type: 'text', required: true, visible: { path: 'state.params.b', truthy: true } },
                { label: 'Name', key: 'name', type: 'text', max: 5 },
                { label: 'Notes', key: 'notes', type: 'text' },
                { label: 'Guests', key: 'guests', type: 'number' },
              ],
            },
          },
        ],
        actions: [
          { id: 'save', label: 'Save', style: 'secondary', handler: { type: 'set', path: 'state.params.saved', value: true } },
          { id: 'submit', label: 'Submit', style: 'primary' },
        ],
      }),
    );
    const { ws, page, card } = built;
    const field = (key: string) => card.getByTestId(`field-${key}`);
    const params = () => ws.ui.get('chain')?.instance.state.params;

    // A shows B; B typed shows C; A set back hides B, and C with it.
    await field('a').selectOption('x');
    await field('b').fill('typed');
    await field('c').waitFor();
    await field('a').selectOption('y');
    expect(await field('b').count()).toBe(0);
    expect(await field('c').count()).toBe(0);

    await field('name').fill('Ada');
    await field('notes').fill('hello');
    await field('guests').fill('3');
    const version = ws.ui.get('chain')?.version;

    // A handler's click the server refuses (a name too long): nothing is lost, and the name says why.
    await page.evaluate(TAMPERABLE);
    await tamper(page, 'name', 'Adalovelace');
    await card.getByTestId('action-save').click();
    await snapshotDrawn(page, 1);
    expect(await card.locator('.ui-error').textContent()).toBe('INVALID_VALUE: Name (name): at most 5 characters');
    expect(await card.getByTestId('field-error-name').textContent()).toBe('At most 5 characters.');
    expect(await field('name').getAttribute('aria-invalid')).toBe('true');
    expect(await focusedTestId(page)).toBe('field-name');
    expect([await field('name').inputValue(), await field('notes').inputValue(), await field('guests').inputValue()]).toEqual(['Ada', 'hello', '3']);
    expect(ws.ui.get('chain')?.version).toBe(version);
    await cardShot(page, card, 'ui-review-refused-desktop-light');

    // A value of the wrong shape (INVALID_STRUCTURE names the key alone).
    await tamper(page, 'guests', 'many');
    await card.getByTestId('action-submit').click();
    await snapshotDrawn(page, 2);
    expect(await card.getByTestId('field-error-guests').textContent()).toBe('A number field takes a number.');
    expect(await field('notes').inputValue()).toBe('hello');
    expect(await card.getAttribute('data-sent')).toBe('false');

    // Sent as typed: neither B nor C, which were hidden.
    await card.getByTestId('action-submit').click();
    await page.getByTestId('message').filter({ hasText: 'Noted 1.' }).waitFor();
    expect(params()).toEqual({ a: 'y', name: 'Ada', notes: 'hello', guests: 3 });
  });

  it('a click stopped by a field in a closed dialog opens it and focuses the field', async () => {
    const built = await buildInstance(
      h,
      'dialog',
      instancePatches({
        title: 'Sign up',
        blocks: [
          { id: 'intro', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Nickname', key: 'nick', type: 'text' }] } },
          {
            id: 'details',
            type: 'form',
            bind: 'state.params',
            props: { title: 'Your details', modal: true, fields: [{ label: 'Email', key: 'email', type: 'text', required: true }] },
          },
        ],
        actions: [{ id: 'go', label: 'Sign up', style: 'primary' }],
      }),
    );
    const { page, card } = built;
    const dialog = page.getByRole('dialog', { name: 'Your details' });
    await dialog.waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await card.getByTestId('action-go').click();
    await dialog.waitFor();
    expect(await dialog.getByTestId('field-error-email').textContent()).toBe('Required.');
    await expect.poll(() => focusedTestId(page)).toBe('field-email');
    await page.screenshot({ path: 'test-results/screenshots/ui-review-dialog-reopened-desktop-light.png' });
  });

  it('a click stopped by a field in another tab chooses that tab and focuses the field', async () => {
    const built = await buildInstance(
      h,
      'tabs',
      instancePatches({
        title: 'Trip',
        layout: { type: 'tabs' },
        blocks: [
          { id: 'where', type: 'form', bind: 'state.params', props: { title: 'Where', fields: [{ label: 'City', key: 'city', type: 'text' }] } },
          {
            id: 'who',
            type: 'form',
            bind: 'state.params',
            props: { title: 'Who', fields: [{ label: 'Party', key: 'party', type: 'radio', required: true, options: options('solo', 'group') }] },
          },
        ],
        actions: [{ id: 'go', label: 'Plan it', style: 'primary' }],
      }),
    );
    const { page, card } = built;
    expect(await card.getByTestId('tab-where').getAttribute('aria-selected')).toBe('true');
    await card.getByTestId('action-go').click();
    await expect.poll(() => card.getByTestId('tab-who').getAttribute('aria-selected')).toBe('true');
    expect(await card.getByTestId('field-error-party').textContent()).toBe('Required.');
    // A group's first control takes the focus.
    await expect.poll(() => page.evaluate<string | undefined>('document.activeElement?.value')).toBe('solo');
  });

  it('while a click is out, only input fields are disabled: a table still sorts, code is still copied', async () => {
    const built = await buildInstance(
      h,
      'live',
      instancePatches({
        title: 'Report',
        params: {
          rows: [
            { name: 'b', n: 2 },
            { name: 'a', n: 1 },
          ],
        },
        blocks: [
          {
            id: 'main',
            type: 'form',
            bind: 'state.params',
            props: {
              fields: [
                { label: 'Question', key: 'q', type: 'text' },
                {
                  label: 'Rows',
                  key: 'rows',
                  type: 'table',
                  columns: [
                    { key: 'name', label: 'Name' },
                    { key: 'n', label: 'N' },
                  ],
                },
                { label: 'Query', key: 'query', type: 'code', language: 'sql', value: 'select 1;' },
              ],
            },
          },
        ],
        actions: [{ id: 'ask', label: 'Ask', style: 'primary' }],
      }),
    );
    const { page, card } = built;
    await card.getByTestId('field-q').fill('why?');
    await card.getByTestId('action-ask').click();
    await page.getByTestId('message').filter({ hasText: 'Noted 1.' }).waitFor();
    await expect.poll(() => card.getAttribute('data-sent')).toBe('true');
    expect(await card.getByTestId('field-q').isDisabled()).toBe(true);
    expect(await card.getByTestId('action-ask').isDisabled()).toBe(true);
    const sort = card.getByTestId('sort-n');
    expect(await sort.isEnabled()).toBe(true);
    await sort.click();
    await expect.poll(() => card.locator('th[aria-sort="ascending"]').count()).toBe(1);
    expect(await card.locator('tbody tr td:first-child').allTextContents()).toEqual(['a', 'b']);
    const copy = card.getByTestId('copy-code');
    expect(await copy.isEnabled()).toBe(true);
    await copy.click();
    await expect.poll(() => copy.getAttribute('data-state')).not.toBe('idle');
    await cardShot(page, card, 'ui-review-sent-desktop-light');
  });

  it('required list, tags, file, slider and JSON fields say so; a file can be removed and chosen again', async () => {
    const built = await buildInstance(
      h,
      'required',
      instancePatches({
        title: 'Application',
        blocks: [
          {
            id: 'main',
            type: 'form',
            bind: 'state.params',
            props: {
              fields: [
                { label: 'Topics', key: 'topics', type: 'multiselect', required: true, options: options('art', 'maths') },
                { label: 'Skills', key: 'skills', type: 'tags', required: true },
                { label: 'CV', key: 'cv', type: 'file', required: true, accept: ['text/plain'] },
                { label: 'Years', key: 'years', type: 'slider', required: true, min: 0, max: 40 },
                { label: 'Extra', key: 'extra', type: 'json', required: true },
              ],
            },
          },
        ],
        actions: [{ id: 'send', label: 'Send', style: 'primary' }],
      }),
    );
    const { ws, page, card } = built;
    const field = (key: string) => card.getByTestId(`field-${key}`);
    for (const control of [field('skills-input'), field('cv'), field('years'), field('extra')])
      expect(await control.getAttribute('aria-required')).toBe('true');
    // A group of checkboxes takes no aria-required (axe: aria-allowed-attr): its name says it.
    expect(await card.getByRole('group', { name: 'Topics (required)', exact: true }).count()).toBe(1);

    const cv = { name: 'cv.txt', mimeType: 'text/plain', buffer: Buffer.from('twelve years') };
    const status = field('cv-status');
    await field('cv').setInputFiles(cv);
    await expect.poll(() => status.textContent()).toBe('cv.txt (12 B)');
    // The input forgets the file once read: choosing it again is a change.
    expect(await field('cv').inputValue()).toBe('');
    const cvSha = ws.ui.uploads.list()[0]?.sha256 ?? '';
    expect(await ws.manager.blobStorage.has(cvSha)).toBe(true);
    await field('cv-remove').click();
    expect(await status.textContent()).toBe('No file yet (at most 5 MB).');
    expect(await field('cv-remove').count()).toBe(0);
    // Removed before any click sent it: the server holds it no more, and its bytes are gone (issue 35, finding 9).
    await expect.poll(() => ws.ui.uploads.list().length).toBe(0);
    expect(await ws.manager.blobStorage.has(cvSha)).toBe(false);

    await field('topics').getByRole('checkbox', { name: 'ART' }).check();
    await field('skills-input').fill('writing');
    await field('skills-input').press('Enter');
    await field('extra').fill('{"ok": true}');
    // Removed: the required file is missing.
    await card.getByTestId('action-send').click();
    expect(await card.getByTestId('field-error-cv').textContent()).toBe('Required.');
    await expect.poll(() => focusedTestId(page)).toBe('field-cv');
    await cardShot(page, card, 'ui-review-required-desktop-light');

    await field('cv').setInputFiles(cv);
    await expect.poll(() => status.textContent()).toBe('cv.txt (12 B)');
    await card.getByTestId('action-send').click();
    await page.getByTestId('message').filter({ hasText: 'Noted 1.' }).waitFor();
    expect(ws.ui.get('required')?.instance.state.params).toMatchObject({
      topics: ['art'],
      skills: ['writing'],
      cv: { name: 'cv.txt', mediaType: 'text/plain', size: 12 },
      years: 0,
      extra: { ok: true },
    });
    await everyView(h, built, 'required', 'ui-review-required-sent');
  });
});
