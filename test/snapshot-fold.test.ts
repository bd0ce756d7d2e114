/**
 * Repeated structure folded, on a generated shop listing (80 cards, a nav, a search form,
 * filters, page links, a footer): each card a line with its title, price and rating and the
 * refs of its controls, every interactive element with a ref, in a quarter of the tokens of
 * Playwright's own snapshot of the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor, compactSnapshot, countOpenAiTokens } from '../src/index.js';
import { productListing, products, startPageServer, type PageServer } from './snapshot-pages.js';

let server: PageServer;
let executor: BrowserExecutor;
let session: string;

beforeAll(async () => {
  server = await startPageServer({ shop: productListing() });
  executor = await BrowserExecutor.launch({ timeoutMs: 2_000, snapshotBudget: 100_000, countTokens: countOpenAiTokens });
  session = await executor.createSession();
});

afterAll(async () => {
  await executor.close();
  await server.close();
});

describe('a product listing', () => {
  it('draws the 80 cards as a table: a line a card, with its title, price, rating and refs', async () => {
    const open = await executor.execute({ sessionId: session, action: 'OPEN_PAGE', parameters: { url: server.url('shop') } });
    const text = open.snapshot?.text ?? '';
    // Every interactive element, each with its own ref, once.
    const refs = [...text.matchAll(/\[ref=(e\d+)\]/g)].map((m) => m[1]);
    expect(open.snapshot?.interactive).toBe(209);
    expect(new Set(refs).size).toBe(209);
    expect(refs).toHaveLength(209);
    // The header names the columns once; each card is one line.
    expect(text).toMatch(/^ {2}80 items, each: link \| text \| img "Rated … out of 5" \| text "… reviews" \| button "Add to cart"$/m);
    for (const p of products()) {
      const line = new RegExp(
        `^ {4}${p.title.replace(/[.$]/g, '\\$&')} \\[ref=e\\d+\\] \\| ${p.price.replace('$', '\\$')} \\| ${p.rating} \\| ${p.reviews} \\| \\[ref=e\\d+\\]$`,
        'm',
      );
      expect(text, p.title).toMatch(line);
    }
    // The 38th card's "Add to cart", by the ref on its line.
    const card = products()[37] as { title: string };
    const add = new RegExp(`^ {4}${card.title.replace(/\./g, '\\.')} \\[ref=e\\d+\\] .* \\[ref=(e\\d+)\\]$`, 'm').exec(text)?.[1] as string;
    const click = await executor.execute({ sessionId: session, action: 'CLICK_ELEMENT', parameters: { selector: `ref=${add}` } });
    expect(click.success, click.error?.message).toBe(true);
    expect(await executor.page(session).textContent('#cart-count')).toBe('1');
    expect(await executor.page(session).locator('.product-card__add').nth(37).textContent()).toBe('Added: 1');
    // A quarter of Playwright's own snapshot of the page (what Playwright MCP's browser_snapshot shows), or less.
    const playwright = await executor.page(session).ariaSnapshot({ mode: 'ai' });
    expect(countOpenAiTokens(text)).toBeLessThanOrEqual(countOpenAiTokens(playwright) / 4);
  });

  it('folds a table under its header row, and leaves runs of one control as lines', () => {
    const aria = [
      '- table "Prices" [ref=e1]:',
      '  - rowgroup [ref=e2]:',
      '    - row [ref=e3]:',
      '      - columnheader "Product" [ref=e4]',
      '      - columnheader "Price" [ref=e5]',
      '  - rowgroup [ref=e6]:',
      ...['Lamp', 'Mug', 'Fan'].flatMap((name, i) => [
        `    - row [ref=e${10 + i * 3}]:`,
        `      - cell "${name}" [ref=e${11 + i * 3}]`,
        `      - cell "${i + 1}.50" [ref=e${12 + i * 3}]`,
      ]),
      '- list [ref=e30]:',
      ...['One', 'Two', 'Three'].flatMap((name, i) => [`  - listitem [ref=e${31 + i * 2}]:`, `    - link "${name}" [ref=e${32 + i * 2}]`]),
    ].join('\n');
    const { text } = compactSnapshot(aria, { id: 's1', url: 'http://x.test/', title: 'x' });
    expect(text.split('\n').slice(1)).toEqual([
      'table "Prices"',
      '  3 rows, each: Product | Price',
      '    Lamp [ref=e11] | 1.50 [ref=e12]',
      '    Mug [ref=e14] | 2.50 [ref=e15]',
      '    Fan [ref=e17] | 3.50 [ref=e18]',
      'link "One" [ref=e32]',
      'link "Two" [ref=e34]',
      'link "Three" [ref=e36]',
    ]);
  });
});
