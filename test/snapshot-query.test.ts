/**
 * GET_DOM's query on a real page: each word of it matches a line's text or its element's
 * role (a heading, shown as h1..h6, answers "heading"), every word must match, and the
 * lines come with their refs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor, compactSnapshot, type PageSnapshot } from '../src/index.js';
import { startPageServer, type PageServer } from './snapshot-pages.js';

const PLANS = `<!doctype html><html><head><title>Plans</title></head><body>
<header><h1>Pricing plans</h1><nav aria-label="Site"><a href="#terms">Terms</a> <a href="#help">Help</a></nav></header>
<main>
<p>Pricing is monthly.</p><p>Each heading of the page says more.</p>
<section aria-label="Basic plan"><h2>Basic</h2><p>For one person.</p><button>Buy Basic</button></section>
<section aria-label="Pro plan"><h2>Pro</h2><p>For a team.</p><button>Buy Pro</button></section>
<h3>Questions</h3><p>Ask us.</p><button>Contact</button>
</main></body></html>`;

let server: PageServer;
let executor: BrowserExecutor;
let session: string;
let aria: string;

beforeAll(async () => {
  server = await startPageServer({ plans: PLANS });
  executor = await BrowserExecutor.launch({ timeoutMs: 2_000 });
  session = await executor.createSession();
  const page = executor.page(session);
  await page.goto(server.url('plans'));
  aria = await page.ariaSnapshot({ mode: 'ai' });
});

afterAll(async () => {
  await executor.close();
  await server.close();
});

const query = (words: string): PageSnapshot => compactSnapshot(aria, { id: 's1', url: server.url('plans'), title: 'Plans', query: words });
/** The lines shown under the header. */
const linesOf = (snapshot: PageSnapshot): string[] => snapshot.text.split('\n').slice(1);
/** How many elements the page has, by the DOM. */
const count = (selector: string): Promise<number> => executor.page(session).locator(selector).count();

describe('a query', () => {
  it('"heading" finds the headings, shown as h1..h6', async () => {
    const found = query('heading');
    // The headings, and the one paragraph that has the word in its text.
    expect(found.matches).toBe((await count('h1, h2, h3, h4, h5, h6')) + 1);
    const headings = linesOf(found).filter((l) => /^\s*h\d "/.test(l));
    expect(headings.map((l) => l.trim())).toEqual(['h1 "Pricing plans"', 'h2 "Basic"', 'h2 "Pro"', 'h3 "Questions"']);
    expect(linesOf(found)).toContain('  Each heading of the page says more.');
  });

  it('"button" finds every button, each with its ref', async () => {
    const found = query('button');
    expect(found.matches).toBe(await count('button'));
    const buttons = linesOf(found).filter((l) => /^\s*button "[^"]+" \[ref=\w+\]$/.test(l));
    expect(buttons).toHaveLength(await count('button'));
    // Each ref clicks its button.
    for (const line of buttons) {
      const ref = /\[ref=(\w+)\]/.exec(line)?.[1] as string;
      expect(await executor.page(session).locator(`aria-ref=${ref}`).textContent()).toBe(/"([^"]+)"/.exec(line)?.[1]);
    }
  });

  it('needs every word: a role word and a name word find the one element that has both', () => {
    expect(linesOf(query('heading pricing')).map((l) => l.trim())).toEqual(['banner', 'h1 "Pricing plans"']);
    expect(query('heading pricing').matches).toBe(1);
    const pro = query('BUTTON pro');
    expect(pro.matches).toBe(1);
    expect(linesOf(pro).at(-1)).toMatch(/^ {4}button "Buy Pro" \[ref=\w+\]$/);
    // A word that is neither on a line nor its role: nothing.
    expect(query('heading nothing').matches).toBe(0);
    // A line's own text still matches as it did (the h2 of a heading line).
    expect(query('h2').matches).toBe(2);
  });
});
