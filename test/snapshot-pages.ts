/**
 * Pages the snapshot tests and bench/snapshot.bench.ts generate, served from 127.0.0.1:
 * names that need quoting in every interactive role, and a product listing like a real
 * shop's (a nav, a search form, filters, 80 cards, a footer).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local server of fixed pages: `GET /<name>`. */
export interface PageServer {
  url(name: string): string;
  close(): Promise<void>;
}

export async function startPageServer(pages: Readonly<Record<string, string>>): Promise<PageServer> {
  const server = createServer((req, res) => {
    const page = pages[(req.url ?? '/').slice(1).split('?')[0] ?? ''];
    res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/** Names a YAML writer must quote, or that hold quotes, brackets, backslashes and emoji. */
export const AWKWARD_NAMES = [
  'Step 1: start',
  'Sort: newest',
  'Say "hi"',
  "it's [beta]",
  '🚀 Launch: now',
  'a: "b" [c] \'d\' 🎉',
  '- dash first',
  '#hash {brace}',
  'C:\\path\\file',
  'Email:',
  'yes',
  '[x] done: 100%',
] as const;

/** One element of each interactive role, named `<role> <awkward name>` (each name its own). */
export interface AwkwardElement {
  role: string;
  name: string;
  html: string;
}

/** The interactive elements of the awkward page, in page order. */
export function awkwardElements(): AwkwardElement[] {
  const names = [...AWKWARD_NAMES];
  const next = (i: number) => names[i % names.length] as string;
  const roles: [string, (name: string, i: number) => string][] = [
    ['button', (n) => `<button>${esc(n)}</button>`],
    ['link', (n, i) => `<a href="#l${i}">${esc(n)}</a>`],
    ['textbox', (n) => `<input aria-label="${esc(n)}">`],
    ['searchbox', (n) => `<input type="search" aria-label="${esc(n)}">`],
    ['checkbox', (n) => `<label><input type="checkbox">${esc(n)}</label>`],
    ['radio', (n) => `<label><input type="radio" name="r">${esc(n)}</label>`],
    ['combobox', (n) => `<select aria-label="${esc(n)}"><option>One</option></select>`],
    ['slider', (n) => `<input type="range" aria-label="${esc(n)}">`],
    ['spinbutton', (n) => `<input type="number" aria-label="${esc(n)}">`],
    ['switch', (n) => `<button role="switch" aria-checked="false">${esc(n)}</button>`],
    ['tab', (n) => `<div role="tablist"><button role="tab" aria-selected="true">${esc(n)}</button></div>`],
    ['menuitem', (n) => `<div role="menu"><button role="menuitem">${esc(n)}</button></div>`],
    ['menuitemcheckbox', (n) => `<div role="menu"><button role="menuitemcheckbox" aria-checked="false">${esc(n)}</button></div>`],
    ['menuitemradio', (n) => `<div role="menu"><button role="menuitemradio" aria-checked="false">${esc(n)}</button></div>`],
    ['treeitem', (n) => `<div role="tree"><div role="treeitem" tabindex="0">${esc(n)}</div></div>`],
  ];
  const out: AwkwardElement[] = [];
  let i = 0;
  for (const [role, html] of roles) {
    for (let k = 0; k < 2; k++, i++) out.push({ role, name: next(i), html: html(next(i), i) });
  }
  return out;
}

/** Options of the page's sort select, awkward too. */
export const SORT_OPTIONS = ['Price: low to high', 'Name "A-Z"', '[new] 🚀 first', "Rating: 4+ ''stars''"] as const;

/** The awkward page: every element of `awkwardElements()`, and a select of `SORT_OPTIONS` (clicks are logged in #log). */
export function awkwardPage(): string {
  const elements = awkwardElements()
    .map((e) => `<div>${e.html}</div>`)
    .join('\n');
  const options = SORT_OPTIONS.map((o, i) => `<option${i === 1 ? ' selected' : ''}>${esc(o)}</option>`).join('');
  return `<!doctype html><html><head><title>Awkward: names</title></head><body>
<h1>Names: "quoted" [and] 🚀</h1>
${elements}
<div><select aria-label="Sort by: order">${options}</select></div>
<p id="log">none</p>
<script>
for (const el of document.querySelectorAll('button, a, [role=treeitem]'))
  el.addEventListener('click', (e) => { e.preventDefault(); document.getElementById('log').textContent = 'clicked ' + (el.getAttribute('role') || el.tagName.toLowerCase()) + ' ' + el.textContent; });
</script></body></html>`;
}
