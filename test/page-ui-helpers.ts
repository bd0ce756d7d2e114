/**
 * What the catalog's page tests (test/page-ui-*.test.ts) share: a scripted agent that builds
 * one instance with patch_ui_state and answers every later turn, the instance's card opened
 * in Chromium, the model's attack strings, and the round of views (desktop and phone, light
 * and dark) each screenshotted and checked with axe-core.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { JsonObject, Workspace } from '../src/index.js';
import type { GolemServer } from '../src/serve/index.js';
import { scriptedModel, type ScriptedModel } from '../src/test/index.js';
import { DESKTOP, PHONE, SHOTS, checkAccessibility, say, shot, type PageHarness } from './helpers-page.js';

/** Markup and a link a model may write into any text: each must show as text and do nothing. */
export const attack = (where: string): string =>
  `${where} <script>window.__pwned=1</script><img src=x onerror=window.__pwned=1> [x](javascript:window.__pwned=1)`;

export const pwned = (page: Page): Promise<unknown> => page.evaluate<unknown>('window.__pwned');

/** A rating renderer as a user would write one (DOM calls, text only, a cleanup): stars from 1 to field.max, a click sets the value. */
export const STARS_RENDERER = `export function render(element, { field, value, setValue, theme }) {
  element.replaceChildren();
  const row = document.createElement('div');
  row.dataset.testid = 'stars';
  row.dataset.theme = theme;
  for (let i = 1; i <= field.max; i++) {
    const star = document.createElement('button');
    star.type = 'button';
    star.textContent = i <= (value ?? 0) ? '★' : '☆';
    star.setAttribute('aria-label', i + ' of ' + field.max);
    star.addEventListener('click', () => setValue(i));
    row.append(star);
  }
  element.append(row);
  return () => element.replaceChildren();
}
`;

/** Elements the attacks would make if model text were drawn as HTML (a registered renderer's own sandboxed frame aside). */
export const MARKUP = 'script, iframe:not(.custom-frame[sandbox="allow-scripts"]), object, embed, [onerror], [onclick], a[href^="javascript:"], img[src="x"]';

export interface Built {
  ws: Workspace;
  server: GolemServer;
  page: Page;
  card: Locator;
  model: ScriptedModel;
}

/**
 * golem serve with an agent whose first answer builds the instance `id` from `patches` (one
 * patch_ui_state call) then says "It is ready.", and whose answers to the clicks say "Noted 1.", "Noted 2."...; the page opened and the card drawn.
 */
export async function buildInstance(h: PageHarness, id: string, patches: JsonObject[], options: { ws?: Workspace } = {}): Promise<Built> {
  const model = scriptedModel((_prompt, call) =>
    call === 0
      ? { text: 'Building it.', toolCalls: [{ name: 'patch_ui_state', input: { instanceId: '__CREATE__', newInstanceId: id, patches } }] }
      : { text: call === 1 ? 'It is ready.' : `Noted ${call - 1}.` },
  );
  const { ws, server } = await h.started({ model }, options.ws);
  const page = await h.open(server);
  await say(page, 'Build it');
  const card = page.getByTestId('ui-instance').and(page.locator(`[data-instance-id="${id}"]`));
  try {
    await card.waitFor({ timeout: 10_000 });
  } catch (error) {
    // The engine refused the call: say why, not only that nothing came.
    throw new Error(`the instance was not drawn; the model was told: ${JSON.stringify(model.calls[1]?.messages.at(-1)).slice(0, 1500)}`, { cause: error });
  }
  return { ws, server, page, card, model };
}

/** The instance's opening patches: meta, state, blocks, actions and layout. */
export function instancePatches(parts: {
  title: string;
  params?: JsonObject;
  runtime?: JsonObject;
  blocks: JsonObject[];
  actions?: JsonObject[];
  layout?: JsonObject;
}): JsonObject[] {
  return [
    { op: 'set', path: 'meta', value: { pageKey: parts.title, step: { current: 1, total: 1 }, status: 'idle' } },
    { op: 'set', path: 'state', value: { params: parts.params ?? {}, runtime: parts.runtime ?? {} } },
    { op: 'set', path: 'blocks', value: parts.blocks },
    { op: 'set', path: 'actions', value: parts.actions ?? [] },
    ...(parts.layout === undefined ? [] : [{ op: 'set', path: 'layout', value: parts.layout }]),
  ];
}

/** The whole card, however tall (the window made taller for it), beside the page's own screenshot. */
export async function cardShot(page: Page, card: Locator, name: string): Promise<void> {
  const size = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize({ width: size.width, height: 4000 });
  await card.screenshot({ path: join(SHOTS, `${name}-card.png`) });
  await page.setViewportSize(size);
}

/**
 * The instance as it is now, at desktop and phone size, light and dark: screenshots of the page
 * and the card, nothing wider than the screen, axe-core, and no attack run. `ready` waits for
 * what must be drawn before the shot.
 */
export async function everyView(h: PageHarness, built: Built, id: string, name: string, ready?: (card: Locator) => Promise<void>): Promise<void> {
  await shot(built.page, `${name}-desktop-light`);
  await cardShot(built.page, built.card, `${name}-desktop-light`);
  await checkAccessibility(built.page, 'body');
  expect(await pwned(built.page)).toBeUndefined();
  for (const [viewport, view] of [
    [DESKTOP, 'desktop-dark'],
    [PHONE, 'phone-light'],
    [PHONE, 'phone-dark'],
  ] as const) {
    const page = await h.open(built.server, { viewport, colorScheme: view.endsWith('dark') ? 'dark' : 'light' });
    await expect.poll(() => page.getByTestId('session-item').first().getAttribute('aria-current')).toBe('true');
    if (viewport === PHONE) await page.getByTestId('pane-forms').click();
    const card = page.getByTestId('ui-instance').and(page.locator(`[data-instance-id="${id}"]`));
    await card.waitFor();
    await ready?.(card);
    await card.scrollIntoViewIfNeeded();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
    await shot(page, `${name}-${view}`);
    await cardShot(page, card, `${name}-${view}`);
    await checkAccessibility(page, 'body');
    expect(await card.locator(MARKUP).count()).toBe(0);
    expect(await pwned(page)).toBeUndefined();
  }
}
