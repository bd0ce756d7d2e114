/**
 * Every interactive element addressable at any budget: a page too long for one snapshot
 * comes in pages, each saying what the others hold and the command that shows them, and a
 * query (GET_DOM's "query") shows only the matching elements, with refs and containers.
 * The prompt tells the model the parameters the executor takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compactSnapshot, countOpenAiTokens, createWorkspace, type LaunchedBrowser, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { MIN_SNAPSHOT_BUDGET } from '../src/browser/snapshot.js';
import { productListing, products, startPageServer, type PageServer } from './snapshot-pages.js';

/** A page title of 1,000 characters. */
const LONG_TITLE = 'A very long title of a shop page '.repeat(31).slice(0, 1_000);

let server: PageServer;
let ws: Workspace;
let browser: LaunchedBrowser;

beforeAll(async () => {
  server = await startPageServer({
    shop: productListing(),
    long: productListing().replace(/<title>[^<]*<\/title>/, `<title>${LONG_TITLE}</title>`),
  });
  ws = await createWorkspace();
  browser = await ws.browser.launch({ timeoutMs: 2_000, countTokens: countOpenAiTokens });
});

afterAll(async () => {
  await browser.close();
  await ws.close();
  await server.close();
});

const refsOf = (text: string): string[] => [...text.matchAll(/\[ref=(e\d+)\]/g)].map((m) => m[1] as string);

describe('a page over the budget', () => {
  it('comes in pages within the budget, each saying what the others hold: together they show every element once', async () => {
    const tab = await browser.open({ session: await ws.sessions.create() });
    try {
      const first = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: server.url('shop') } });
      const of = first.snapshot?.page.of ?? 0;
      expect(of).toBeGreaterThan(1);
      const texts: string[] = [];
      for (let page = 1; page <= of; page++) {
        const result = await tab.execute({ action: 'GET_DOM', parameters: { page } });
        const snapshot = result.snapshot;
        expect(snapshot?.tokens).toBeLessThanOrEqual(2_000);
        expect(snapshot?.text).toContain(` · page ${page} of ${of}`);
        // What is left out, and the command that shows the next page.
        const next = page < of ? page + 1 : 1;
        expect(snapshot?.text.split('\n').at(-1)).toMatch(
          new RegExp(
            `^\\(\\d+ more lines with \\d+ interactive elements are on the other .*: GET_DOM \\{"page":${next}\\} shows page ${next}; GET_DOM \\{"query": "<words>"\\}`,
          ),
        );
        texts.push(snapshot?.text ?? '');
      }
      const refs = texts.flatMap(refsOf);
      expect(new Set(refs).size).toBe(209);
      expect(refs).toHaveLength(209);
      for (const p of products()) expect(texts.some((t) => t.includes(`${p.title} [ref=`))).toBe(true);
      // A page past the last shows the last.
      expect((await tab.execute({ action: 'GET_DOM', parameters: { page: 99 } })).snapshot?.page).toEqual({ number: of, of });
    } finally {
      await tab.close();
    }
  });

  it('answers a query with the matching elements, their refs and containers, and a ref from it works', async () => {
    const tab = await browser.open({ session: await ws.sessions.create() });
    try {
      await tab.execute({ action: 'OPEN_PAGE', parameters: { url: server.url('shop') } });
      const sort = await tab.execute({ action: 'GET_DOM', parameters: { query: 'sort' } });
      expect(sort.snapshot?.text.split('\n').slice(1)).toEqual([
        'main',
        '  complementary "Filters"',
        expect.stringMatching(/^ {4}combobox "Sort by" \[ref=e\d+\]: options "Featured" \(selected\), "Price: low to high", /) as unknown,
      ]);
      expect(sort.snapshot?.matches).toBe(1);
      // A control's name in a table's header brings all its rows.
      const buttons = await tab.execute({ action: 'GET_DOM', parameters: { query: 'add to cart' } });
      expect(buttons.snapshot?.matches).toBe(81);
      // Words anywhere on a card's line (case aside): the cards that match, under their table's header.
      const blue = await tab.execute({ action: 'GET_DOM', parameters: { query: 'BLUE kettle' } });
      const lines = blue.snapshot?.text.split('\n') ?? [];
      expect(lines[2]).toMatch(/^ {2}80 items, each: link \|/);
      expect(lines.slice(3)).toEqual([expect.stringMatching(/^ {4}Blue kettle 1\.0 L \[ref=e\d+\] \| \$9\.00 \| 3\.0 \| 5 \| \[ref=(e\d+)\]$/) as unknown]);
      const add = /\[ref=(e\d+)\]$/.exec(lines[3] ?? '')?.[1] as string;
      expect(await tab.execute({ action: 'CLICK_ELEMENT', parameters: { selector: `ref=${add}` } })).toMatchObject({ success: true });
      expect(await tab.page().textContent('#cart-count')).toBe('1');
      const none = await tab.execute({ action: 'GET_DOM', parameters: { query: 'no such thing' } });
      expect(none.snapshot?.text).toContain('(nothing on the page matches "no such thing"; GET_DOM without a query shows the whole page)');
      // Parameters the schema refuses.
      for (const parameters of [{ page: 0 }, { page: 1.5 }, { query: '' }, { where: 'x' }])
        expect(await tab.execute({ action: 'GET_DOM', parameters })).toMatchObject({ success: false, error: { code: 'INVALID_ARGUMENT' } });
    } finally {
      await tab.close();
    }
  });

  it('keeps the header and the note within a small budget: a 1,000-character title and a long URL, every ref on some page', async () => {
    const tab = await browser.open({ session: await ws.sessions.create() });
    const page = tab.page();
    try {
      await page.goto(`${server.url('long')}?${'filter=blue&sort=price&'.repeat(40)}end=1`);
      expect(await page.title()).toBe(LONG_TITLE);
      const aria = await page.ariaSnapshot({ mode: 'ai' });
      const dom = await page.locator('a[href], button, input, select').count();
      for (const [budget, countTokens] of [
        [100, undefined], // below the least budget kept to: raised to it
        [MIN_SNAPSHOT_BUDGET, undefined],
        [300, undefined],
        [300, countOpenAiTokens],
        [1_000, countOpenAiTokens],
      ] as const) {
        const options = { id: 's9', url: page.url(), title: await page.title(), budget, ...(countTokens !== undefined && { countTokens }) };
        const count = countTokens ?? ((t: string) => Math.ceil(t.length / 4));
        const first = compactSnapshot(aria, options);
        const texts: string[] = [];
        for (let n = 1; n <= first.page.of; n++) {
          const snapshot = compactSnapshot(aria, { ...options, page: n });
          expect(snapshot.tokens, `page ${n} at ${budget}`).toBeLessThanOrEqual(Math.max(budget, MIN_SNAPSHOT_BUDGET));
          expect(count(snapshot.text)).toBe(snapshot.tokens);
          // The header names the page, its title and URL cut short.
          expect(snapshot.text.split('\n')[0]).toMatch(
            new RegExp(
              `^Snapshot s9: A very long title of a shop page .*… \\(http://127\\.0\\.0\\.1:\\d+/long\\?filter=blue.*…\\) · page ${n} of ${first.page.of}$`,
            ),
          );
          texts.push(snapshot.text);
        }
        const refs = texts.flatMap(refsOf);
        expect(new Set(refs).size, `at ${budget}`).toBe(dom);
        expect(refs, `at ${budget}`).toHaveLength(dom);
      }
    } finally {
      await tab.close();
    }
  });

  it('tells the model the parameters GET_DOM takes, and the loop runs a query the model writes', async () => {
    const step = (command?: { action: string; parameters: Record<string, unknown> }) => ({
      text: JSON.stringify({
        decision: { action: 'PROCEED', message: command === undefined ? 'done' : command.action },
        reasoning: { analysis: 'a', rationale: 'r', expectedOutcome: 'e' },
        ...(command !== undefined && { command }),
      }),
    });
    const model = scriptedModel([
      step({ action: 'OPEN_PAGE', parameters: { url: server.url('shop') } }),
      step({ action: 'GET_DOM', parameters: { query: 'Teal', page: 1 } }),
      step(),
    ]);
    const { outcome } = await browser.runTask({ goal: 'Find the teal things', model });
    expect(outcome.status).toBe('done');
    const system = model.calls[0]?.system ?? '';
    expect(system).toContain('- GET_DOM {"page"?: integer, "query"?: string}: The page as a snapshot');
    expect(system).toContain('"query": only the lines with all its words');
    const last = JSON.stringify(model.calls.at(-1)?.messages);
    expect(last).toContain('lines match \\"Teal\\"');
    expect(last).toContain('Teal kettle 1.8 L [ref=');
  });
});
