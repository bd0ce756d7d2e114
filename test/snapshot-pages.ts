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

/** One card of the product listing. */
export interface Product {
  title: string;
  price: string;
  rating: string;
  reviews: number;
}

const COLOURS = ['Blue', 'Red', 'Green', 'Black', 'White', 'Yellow', 'Grey', 'Orange', 'Teal', 'Pink'];
const ITEMS = ['kettle', 'toaster', 'lamp', 'mug', 'chair', 'clock', 'fan', 'blender'];

/** The listing's 80 products: distinct titles, prices and ratings from the index (no randomness). */
export function products(count = 80): Product[] {
  return Array.from({ length: count }, (_, i) => ({
    title: `${COLOURS[i % COLOURS.length] as string} ${ITEMS[Math.floor(i / COLOURS.length) % ITEMS.length] as string} ${1 + (i % 4)}.${i % 10} L`,
    price: `$${(9 + ((i * 37) % 190) + ((i * 13) % 100) / 100).toFixed(2)}`,
    rating: `${(3 + ((i * 7) % 21) / 10).toFixed(1)}`,
    reviews: 5 + ((i * 53) % 900),
  }));
}

const NAV = ['Home', 'New in', 'Kitchen', 'Living room', 'Lighting', 'Furniture', 'Garden', 'Gifts', 'Sale', 'Help'];
const FOOTER = Array.from(
  { length: 20 },
  (_, i) =>
    ['About us', 'Careers', 'Press', 'Stores', 'Delivery', 'Returns', 'Warranty', 'Contact', 'FAQ', 'Gift cards'][i % 10] + (i >= 10 ? ' (business)' : ''),
);
export const BRANDS = ['Acme', 'Brio', 'Calder', 'Dune', 'Elko', 'Fjord'];
const PRICES = ['Under $25', '$25 to $50', '$50 to $100', 'Over $100'];
export const SORTS = ['Featured', 'Price: low to high', 'Price: high to low', 'Rating: best first', 'Newest'];

/**
 * A shop's product listing, marked up as shops do (classes, data attributes, icons): a nav
 * of 10 links, a search form, filters (6 brands, 4 price ranges, a sort select, Apply),
 * 80 cards (image, title link, price, rating, "Add to cart"), 5 page links, a footer of
 * 20 links: 209 interactive elements. "Add to cart" counts clicks in #cart-count.
 */
export function productListing(count = 80): string {
  const icon = '<svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16"><path d="M1 1h14v14H1z" fill="currentColor"/></svg>';
  const cards = products(count)
    .map(
      (p, i) => `<li class="product-grid__item" data-product-id="sku-${1000 + i}" data-position="${i + 1}">
  <article class="product-card product-card--${i % 3 === 0 ? 'featured' : 'standard'}">
    <div class="product-card__media"><img class="product-card__image" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="${esc(p.title)}" width="240" height="240" loading="lazy"></div>
    <div class="product-card__body">
      <h3 class="product-card__title"><a class="product-card__link" href="/p/sku-${1000 + i}?ref=listing&amp;pos=${i + 1}">${esc(p.title)}</a></h3>
      <div class="product-card__price" data-currency="USD"><span class="price__amount">${p.price}</span></div>
      <div class="product-card__rating" role="img" aria-label="Rated ${p.rating} out of 5">${icon}</div>
      <span class="product-card__reviews">${p.reviews} reviews</span>
      <button class="button button--primary product-card__add" type="button" data-sku="sku-${1000 + i}">${icon}Add to cart</button>
    </div>
  </article>
</li>`,
    )
    .join('\n');
  const checks = BRANDS.map((b) => `<label class="filter__option"><input type="checkbox" name="brand" value="${b}"> ${b}</label>`).join('');
  const radios = PRICES.map((r) => `<label class="filter__option"><input type="radio" name="price" value="${esc(r)}"> ${esc(r)}</label>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Kitchen &amp; home: all products</title>
<style>.product-grid{display:grid;grid-template-columns:repeat(4,1fr);gap:16px;list-style:none}.product-card__image{width:100%;height:auto}</style></head><body>
<header class="site-header"><span class="logo">Homestore</span>
<nav aria-label="Main"><ul class="nav">${NAV.map((n) => `<li class="nav__item"><a class="nav__link" href="/c/${n.toLowerCase().replace(/\W+/g, '-')}">${esc(n)}</a></li>`).join('')}</ul></nav>
<form role="search" class="search" action="/search"><input type="search" name="q" aria-label="Search products" placeholder="Search"><button type="submit">${icon}Search</button></form></header>
<main><h1>All products</h1><p class="result-count"><span id="cart-count">0</span> in cart · ${count} products</p>
<aside class="filters" aria-label="Filters"><fieldset><legend>Brand</legend>${checks}</fieldset><fieldset><legend>Price</legend>${radios}</fieldset>
<label>Sort by <select name="sort">${SORTS.map((s) => `<option>${esc(s)}</option>`).join('')}</select></label><button type="button" class="filters__apply">Apply filters</button></aside>
<ul class="product-grid">${cards}</ul>
<nav aria-label="Pages" class="pagination">${[1, 2, 3, 4, 5].map((n) => `<a href="?page=${n}">Page ${n}</a>`).join(' ')}</nav></main>
<footer class="site-footer"><ul>${FOOTER.map((f, i) => `<li><a href="/info/${i}">${esc(f)}</a></li>`).join('')}</ul><p>© Homestore</p></footer>
<script>
let n = 0;
for (const b of document.querySelectorAll('.product-card__add')) b.addEventListener('click', () => { document.getElementById('cart-count').textContent = String(++n); b.textContent = 'Added: ' + n; });
</script></body></html>`;
}
