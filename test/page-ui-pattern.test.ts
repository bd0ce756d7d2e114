/**
 * A field's pattern is matched in linear time in the page too (issue 35, finding 10). Before,
 * the page ran a model's pattern with the browser's backtracking engine: `(a+){30}` against
 * forty a's and a "!" froze the tab on the click. Now the page (and the server after it)
 * match with RE2 (re2js): the tab keeps answering and shows the verdict under the field.
 */
import { describe, expect, it } from 'vitest';
import { pageHarness } from './helpers-page.js';
import { buildInstance, everyView, instancePatches } from './page-ui-helpers.js';

const h = pageHarness();

describe('a field pattern that backtracks without end, on the page', () => {
  it('(a+){30} against a hostile value: the page stays responsive and shows the verdict; a matching value is sent', async () => {
    const built = await buildInstance(
      h,
      'codes',
      instancePatches({
        title: 'Codes',
        blocks: [{ id: 'f', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Code', key: 'code', type: 'text', pattern: '(a+){30}' }] } }],
        actions: [{ id: 'save', label: 'Save', style: 'primary', handler: { type: 'set', path: 'state.params.saved', value: true } }],
      }),
    );
    const { ws, page, card } = built;
    const field = card.getByTestId('field-code');
    await field.fill(`${'a'.repeat(40)}!`);
    await card.getByTestId('action-save').click({ timeout: 10_000 });
    expect(await card.getByTestId('field-error-code').textContent({ timeout: 10_000 })).toBe('The text does not match the pattern (a+){30}.');
    // The tab answers (a frozen one never runs this).
    expect(await page.evaluate('1 + 1')).toBe(2);
    expect(ws.ui.get('codes')?.instance.state.params.saved).toBeUndefined();
    await everyView(h, built, 'codes', 'ui-pattern-invalid');

    await field.fill('a'.repeat(40));
    await card.getByTestId('action-save').click();
    await expect.poll(() => ws.ui.get('codes')?.instance.state.params).toEqual({ code: 'a'.repeat(40), saved: true });
    expect(await card.getByTestId('field-error-code').count()).toBe(0);
  });
});
