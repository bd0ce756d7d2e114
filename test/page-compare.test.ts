/**
 * The page's Compare view (issue 37, compare): "Compare" in the session list opens two branches
 * side by side, from `GET /api/sessions/:a/diff/:b`: main and its what-if fork chosen first,
 * their turns since the common ancestor in two columns (stacked on a phone), the environment
 * value that differs, the UI instances that differ as RFC 6902, each side's clearance; the
 * sides swapped, an unrelated session chosen, one deleted meanwhile replaced. Checked
 * with axe-core at desktop and phone sizes, light and dark, with a screenshot of each.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { whatIfBranches } from './fixtures/session-branches.js';
import { text } from './helpers.js';
import { DESKTOP, PHONE, checkAccessibility, pageHarness, shot } from './helpers-page.js';

const h = pageHarness();

const texts = (page: Page, selector: string) => page.locator(selector).evaluateAll((els) => els.map((el) => (el.textContent ?? '').trim()));
const columnTurns = (page: Page, side: 'a' | 'b') => texts(page, `[data-testid="compare-turns-${side}"] [data-testid="compare-turn"]`);

describe('the Compare view', () => {
  it('shows two branches side by side: turns since they parted, environment, UI ops and clearance; swaps, compares unrelated sessions and says why it cannot', async () => {
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const b = await whatIfBranches(ws);
    const other = await ws.sessions.create({ label: 'Unrelated' });
    await other.addTurn({ role: 'user', blocks: [text('what is **RFC 6902**?')] });
    const { server } = await h.started(undefined, ws);
    const page = await h.open(server, { expectedErrors: /status of 404/ });
    await page.locator(`[data-testid="session-item"][data-session-id="${b.main}"]`).click();

    await shot(page, 'compare-entry-desktop-light');
    await page.setViewportSize(PHONE);
    await page.getByTestId('pane-sessions').click();
    await checkAccessibility(page, 'body');
    await shot(page, 'compare-entry-phone-light');
    await page.setViewportSize(DESKTOP);

    await page.getByTestId('compare-open').click();
    const view = page.getByTestId('compare-view');
    await view.getByTestId('compare-turns-a').waitFor();
    // The open session first, its fork beside it.
    expect(await view.getByTestId('compare-a').inputValue()).toBe(b.main);
    expect(await view.getByTestId('compare-b').inputValue()).toBe(b.whatIf);
    expect(await columnTurns(page, 'a')).toEqual(['Youyes, Porto']);
    expect(await columnTurns(page, 'b')).toEqual(['Youwhat about Lisbon?', 'GolemLisbon for three nights.']);
    expect(await texts(page, '[data-testid="compare-env-row"]')).toEqual(['reader.current_page1300']);
    expect(await texts(page, '[data-testid="compare-ui"] h4')).toEqual(['chart only in what if Lisbon', 'trip changed']);
    expect(await texts(page, '[data-testid="compare-ui"][data-instance-id="trip"] [data-testid="compare-op"]')).toEqual([
      '{"op":"replace","path":"/state/params/nights","value":3}',
      '{"op":"replace","path":"/state/params/city","value":"Lisbon"}',
    ]);
    expect(await texts(page, '[data-testid="compare-clearance-b"] [data-testid="compare-clearance-item"]')).toEqual(['book the Lisbon hotel (pending)']);
    expect(await texts(page, '[data-testid="compare-clearance-a"] p')).toEqual(['Nothing waiting.']);

    // Desktop: the two columns side by side; a phone: stacked.
    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      const [left, right] = await Promise.all([view.getByTestId('compare-turns-a').boundingBox(), view.getByTestId('compare-turns-b').boundingBox()]);
      if (left === null || right === null) throw new Error('the columns are not shown');
      if (size === 'desktop') {
        expect(right.y).toBe(left.y);
        expect(right.x).toBeGreaterThan(left.x + left.width);
      } else expect(right.y).toBeGreaterThanOrEqual(left.y + left.height);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await view.getByTestId('compare-turns-a').scrollIntoViewIfNeeded();
        await checkAccessibility(page, 'body');
        await shot(page, `compare-${size}-${scheme}`);
        await view.getByTestId('compare-clearance-b').scrollIntoViewIfNeeded();
        await shot(page, `compare-rest-${size}-${scheme}`);
      }
    }
    await page.setViewportSize(DESKTOP);
    await page.emulateMedia({ colorScheme: 'light' });

    // Swapped: the fork first, and its chart is what main lacks.
    await view.getByTestId('compare-swap').click();
    await expect.poll(() => columnTurns(page, 'a')).toEqual(['Youwhat about Lisbon?', 'GolemLisbon for three nights.']);
    expect(await columnTurns(page, 'b')).toEqual(['Youyes, Porto']);
    expect(await texts(page, '[data-testid="compare-ui"] h4')).toEqual(['chart only in what if Lisbon', 'trip changed']);
    expect(await texts(page, '[data-testid="compare-ui"][data-instance-id="chart"] [data-testid="compare-op"]')).toEqual(['{"op":"remove","path":""}']);
    expect(await texts(page, '[data-testid="compare-env-row"]')).toEqual(['reader.current_page3001']);

    // A session of no shared history: each side's whole conversation, its markdown rendered.
    await view.getByTestId('compare-b').selectOption(other.id);
    await view.getByText('These sessions share no history').waitFor();
    expect(await columnTurns(page, 'b')).toEqual(['Youwhat is RFC 6902?']);
    expect(await view.locator('[data-testid="compare-turns-b"] strong').textContent()).toBe('RFC 6902');
    expect(await columnTurns(page, 'a')).toEqual(['Youplan a trip', 'GolemPorto for two nights?', 'Youwhat about Lisbon?', 'GolemLisbon for three nights.']);
    expect(await view.getByTestId('compare-merge-button').getAttribute('aria-disabled')).toBe('true');
    expect(await view.locator('#compare-merge-why').textContent()).toBe('Unrelated sessions cannot be merged.');

    // Deleted meanwhile: the side is replaced, as when the view opened (the fork's own parent), and compared again.
    await ws.sessions.delete(other.id);
    await expect.poll(() => view.getByTestId('compare-b').inputValue()).toBe(b.main);
    await expect.poll(() => columnTurns(page, 'b')).toEqual(['Youyes, Porto']);
    expect(await view.getByRole('alert').count()).toBe(0);

    // Escape closes it, and the chat is there as it was.
    await page.keyboard.press('Escape');
    await expect.poll(() => view.count()).toBe(0);
    expect(await page.getByTestId('session-item').count()).toBe(2);

    // Opened again on main: the fork merged into it, then nothing is left to bring.
    await page.getByTestId('compare-open').click();
    // A turn the fork gets while the view is open is shown before anything is merged.
    await (await ws.sessions.open(b.whatIf))?.addTurn({ role: 'user', blocks: [text('and a tram pass')] });
    await expect.poll(() => columnTurns(page, 'b')).toEqual(['Youwhat about Lisbon?', 'GolemLisbon for three nights.', 'Youand a tram pass']);
    const merge = view.getByTestId('compare-merge-button');
    expect(await merge.textContent()).toBe('Merge what if Lisbon into main');
    await merge.click();
    await expect.poll(() => texts(page, '[data-testid="compare-turns-b"] p')).toEqual(['No turns since.']);
    expect(await merge.getAttribute('aria-disabled')).toBe('true');
    expect(await view.getByTestId('compare-merge-status').textContent()).toBe('Merged what if Lisbon into main.');
    // The merge turn in words, without the session's id the model reads.
    expect(await columnTurns(page, 'a')).toEqual(['Youyes, Porto', 'NoticeMerged 3 turns from the branch "what if Lisbon" into this conversation.']);
    expect(await view.locator('#compare-merge-why').textContent()).toBe('main already has everything what if Lisbon has.');
    await ws.manager.refresh();
    const head = ws.sessions.get(b.main)?.head();
    const fromHead = ws.sessions.get(b.whatIf)?.head();
    expect(head === null || head === undefined ? undefined : ws.manager.workspace().turn(head)?.merge).toEqual({
      from: fromHead,
      base: { id: b.parted.id, version: 0 },
      as: 'turns',
    });
    await checkAccessibility(page, 'body');
    await shot(page, 'compare-merged-desktop-light');
  });

  it('is offered only once there are two sessions', async () => {
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const only = await ws.sessions.create({ label: 'alone' });
    const { server } = await h.started(undefined, ws);
    const page = await h.open(server);
    await page.getByTestId('session-item').waitFor();
    expect(await page.getByTestId('compare-open').count()).toBe(0);
    await ws.sessions.fork(only.id, undefined, { label: 'alone, what if' });
    await page.getByTestId('compare-open').waitFor();
  });
});
