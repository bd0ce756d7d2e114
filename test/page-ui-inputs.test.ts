/**
 * The catalog's input fields on the page (issue 23), in the system Chromium against `golem
 * serve` and a scripted agent: every input type built by patch_ui_state, filled as a user
 * would, checked in the page before the click is sent (required, pattern, JSON), hidden fields
 * left out, templates and visibility following what is typed, and the values read back from
 * the server's state in their types' shapes; a file uploaded and sent as its reference. Every
 * text the model controls carries `<script>`, `onerror` and `javascript:`. Light and dark,
 * desktop and phone, axe-core. Screenshots: test-results/screenshots/ui-inputs-*.
 */
import { describe, expect, it } from 'vitest';
import { pageHarness } from './helpers-page.js';
import { attack, buildInstance, everyView, instancePatches, MARKUP, pwned } from './page-ui-helpers.js';

const h = pageHarness();

const options = (...values: string[]) => values.map((value, i) => ({ label: i === 0 ? attack(`option ${value}`) : `Option ${value}`, value }));

describe('the catalog’s input fields', () => {
  it('every input type: drawn as text, checked before the click, sent in its shape, hidden fields left out', async () => {
    const built = await buildInstance(
      h,
      'inputs',
      instancePatches({
        title: 'Book <img src=x onerror=window.__pwned=1>',
        params: { volume: 3 },
        blocks: [
          {
            id: 'profile',
            type: 'form',
            bind: 'state.params',
            props: {
              title: attack('block'),
              description: attack('block description'),
              fields: [
                {
                  label: attack('name'),
                  key: 'name',
                  type: 'text',
                  required: true,
                  pattern: '[A-Za-z ]+',
                  placeholder: attack('placeholder'),
                  description: attack('description'),
                },
                { label: 'Notes', key: 'notes', type: 'textarea', rows: 4 },
                { label: 'Guests', key: 'guests', type: 'number', min: 1, max: 12 },
                { label: 'Size', key: 'size', type: 'select', options: options('s', 'm', 'l') },
                { label: 'Plan', key: 'plan', type: 'radio', options: options('free', 'pro') },
                { label: 'Subscribe', key: 'subscribe', type: 'checkbox' },
                { label: 'Why not?', key: 'reason', type: 'text', visible: { path: 'state.params.subscribe', notEquals: true } },
              ],
            },
          },
          {
            id: 'extras',
            type: 'form',
            bind: 'state.params',
            props: {
              title: 'Extras',
              fields: [
                { label: 'Toppings', key: 'toppings', type: 'multiselect', options: options('olives', 'basil', 'chili'), max: 2 },
                { label: 'Arrival', key: 'arrival', type: 'date', min: '2026-01-01' },
                { label: 'Volume', key: 'volume', type: 'slider', min: 0, max: 10, step: 1 },
                { label: 'Dark mode', key: 'dark', type: 'switch' },
                { label: 'Hello ${state.params.name}', key: 'greeting', type: 'text', visible: { path: 'state.params.dark', equals: true } },
                { label: 'Labels', key: 'labels', type: 'tags', max: 5 },
                { label: 'Settings', key: 'settings', type: 'json' },
              ],
            },
          },
        ],
        actions: [
          { id: 'submit', label: 'Send ${state.params.name}', style: 'primary' },
          { id: 'cancel', label: 'Cancel', style: 'secondary', validate: false },
        ],
      }),
    );
    const { ws, page, card } = built;
    const field = (key: string) => card.getByTestId(`field-${key}`);
    const state = () => ws.ui.get('inputs')?.instance.state.params;

    // Every text of the model's, as written.
    expect(await card.locator('h3').textContent()).toBe('Book <img src=x onerror=window.__pwned=1>');
    expect(await card.locator('.ui-block-title').first().textContent()).toBe(attack('block'));
    expect(await card.locator('label[for]').first().textContent()).toBe(`${attack('name')} *`);
    expect(await field('name').getAttribute('placeholder')).toBe(attack('placeholder'));
    expect(await field('size').locator('option').allTextContents()).toEqual(['Choose…', attack('option s'), 'Option m', 'Option l']);
    expect(await field('plan').locator('label').allTextContents()).toEqual([attack('option free'), 'Option pro']);
    expect(await field('toppings').locator('input[type=checkbox]').count()).toBe(3);
    expect(await field('volume').inputValue()).toBe('3');
    expect(await field('dark').getAttribute('role')).toBe('switch');
    expect(await card.locator('[data-testid="field-greeting"]').count()).toBe(0);
    expect(await card.locator(MARKUP).count()).toBe(0);

    // An empty required field: the click is not sent, and the field says why.
    const version = ws.ui.get('inputs')?.version;
    await card.getByTestId('action-submit').click();
    expect(await card.getByTestId('field-error-name').textContent()).toBe('Required.');
    expect(await field('name').getAttribute('aria-invalid')).toBe('true');
    expect((await field('name').getAttribute('aria-describedby'))?.split(' ')).toContain(await card.getByTestId('field-error-name').getAttribute('id'));
    expect(ws.ui.get('inputs')?.version).toBe(version);

    // Filled as a user would; the template and the visibility rules follow as they type.
    await field('name').fill('Ada 1815');
    await field('reason').fill('not now');
    await field('notes').fill('Window seat');
    await field('guests').fill('4');
    await field('size').selectOption('m');
    await field('plan').getByRole('radio', { name: 'Option pro' }).check();
    await field('subscribe').check();
    expect(await card.locator('[data-testid="field-reason"]').count()).toBe(0);
    await field('toppings').getByRole('checkbox', { name: 'Option chili' }).check();
    await field('toppings')
      .getByRole('checkbox', { name: attack('option olives') })
      .check();
    await field('arrival').fill('2026-03-14');
    await field('volume').fill('7');
    expect(await card.getByTestId('field-volume-value').textContent()).toBe('7');
    await field('dark').check();
    await card.getByTestId('field-labels-input').fill('alpha');
    await card.getByTestId('field-labels-input').press('Enter');
    await card.getByTestId('field-labels-input').fill('beta, gamma');
    await card.getByTestId('field-labels-input').press('Enter');
    await card.getByRole('button', { name: 'Remove gamma' }).click();
    expect(await card.getByTestId('tag').allTextContents()).toEqual(['alpha×', 'beta×']);
    await field('settings').fill('{"theme": [1');
    expect(await card.getByTestId('field-error-settings').textContent()).toMatch(/^Not valid JSON/);
    expect(await field('greeting').count()).toBe(1);
    expect(await card.locator('label', { hasText: 'Hello Ada 1815' }).count()).toBe(1);
    expect(await card.getByTestId('action-submit').textContent()).toBe('Send Ada 1815');

    // The pattern and the JSON stop the click, each under its field.
    await card.getByTestId('action-submit').click();
    expect(await card.getByTestId('field-error-name').textContent()).toBe('The text does not match the pattern [A-Za-z ]+.');
    expect(await card.getByTestId('field-error-settings').textContent()).toMatch(/^Not valid JSON/);
    expect(await card.locator('.ui-error').textContent()).toBe('2 fields need a change: see the notes under them.');
    expect(ws.ui.get('inputs')?.version).toBe(version);
    await everyView(h, built, 'inputs', 'ui-inputs-invalid');

    await field('name').fill('Ada Lovelace');
    await field('settings').fill('{"theme": [1, 2], "on": true}');
    await field('greeting').fill('hi');
    await card.getByTestId('action-submit').click();
    await expect.poll(state).toMatchObject({ name: 'Ada Lovelace', notes: 'Window seat', guests: 4, size: 'm', plan: 'pro', subscribe: true });
    expect(state()).toEqual({
      name: 'Ada Lovelace',
      notes: 'Window seat',
      guests: 4,
      size: 'm',
      plan: 'pro',
      subscribe: true,
      toppings: ['olives', 'chili'],
      arrival: '2026-03-14',
      volume: 7,
      dark: true,
      greeting: 'hi',
      labels: ['alpha', 'beta'],
      settings: { theme: [1, 2], on: true },
    });
    await page.getByTestId('message').filter({ hasText: 'Noted 1.' }).waitFor();
    await expect.poll(() => card.getAttribute('data-sent')).toBe('true');
    await everyView(h, built, 'inputs', 'ui-inputs-sent');
    expect(await pwned(page)).toBeUndefined();
  });

  it('a cancel skips the rules; a file is uploaded first and sent as its reference', async () => {
    const built = await buildInstance(
      h,
      'upload',
      instancePatches({
        title: 'Receipt',
        blocks: [
          {
            id: 'main',
            type: 'form',
            bind: 'state.params',
            props: {
              fields: [
                { label: attack('file'), key: 'receipt', type: 'file', accept: ['text/plain', 'image/*'], maxBytes: 1024 },
                { label: 'Amount', key: 'amount', type: 'number', required: true },
              ],
            },
          },
        ],
        actions: [
          { id: 'send', label: 'Send', style: 'primary' },
          { id: 'cancel', label: 'Cancel', style: 'secondary', validate: false },
        ],
      }),
    );
    const { ws, page, card } = built;
    const input = card.getByTestId('field-receipt');
    const status = card.getByTestId('field-receipt-status');
    // Too big for the field: told, not uploaded.
    await input.setInputFiles({ name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(2048, 'a') });
    expect(await status.textContent()).toBe('big.txt is 2 KB: at most 1 KB.');
    // A file's name is the user's (no '/': the browser keeps what follows the last one).
    const name = 'bill <img src=x onerror=window.__pwned=1> [x](javascript:alert(1)).txt';
    await input.setInputFiles({ name, mimeType: 'text/plain', buffer: Buffer.from('twelve euros') });
    await expect.poll(() => status.textContent()).toBe(`${name} (12 B)`);
    await everyView(h, built, 'upload', 'ui-inputs-file');

    // Cancel: the missing amount does not stop it.
    await card.getByTestId('action-cancel').click();
    await page.getByTestId('message').filter({ hasText: 'Noted 1.' }).waitFor();
    const sent = ws.ui.get('upload')?.instance.state.params.receipt as { sha256: string; name: string; mediaType: string; size: number };
    expect(sent).toMatchObject({ name, mediaType: 'text/plain', size: 12 });
    expect(sent.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await card.locator(MARKUP).count()).toBe(0);
    expect(await pwned(page)).toBeUndefined();
  });
});
