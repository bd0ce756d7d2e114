/**
 * Layout on real pages: a folded table's columns named by the header cell they sit in
 * (also when a cell holds a link or a button), and selects and listboxes (sized, multiple,
 * ARIA, with option groups, alone and in repeated items) with every option once, with its
 * ref. Interactive elements are counted from the DOM, not by Golem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor, compactSnapshot } from '../src/index.js';
import { startPageServer, type PageServer } from './snapshot-pages.js';

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body><main>${body}</main></body></html>`;

const FRUITS = [
  ['Lamp', '1.50'],
  ['Mug', '2.50'],
  ['Fan', '3.50'],
  ['Kettle', '4.50'],
] as const;

/** A table whose cells hold links and buttons, under a header row. */
const TABLE = page(
  'Table',
  `<table><thead><tr><th>Name</th><th>Price</th><th>Action</th></tr></thead><tbody>
${FRUITS.map(([n, p]) => `<tr><td><a href="#${n}">${n}</a></td><td>${p}</td><td><button>Buy</button></td></tr>`).join('\n')}
</tbody></table>`,
);

/** A table with no header row: its first row (another shape) is data, not the columns' names. */
const HEADLESS = page(
  'Headless',
  `<table><tbody><tr><td>Summary</td><td>4 items</td><td>in stock</td></tr>
${FRUITS.map(([n, p]) => `<tr><td>${n}</td><td>${p}</td></tr>`).join('\n')}
</tbody></table>`,
);

const opts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `<option>${prefix}${i + 1}</option>`).join('');
const ariaOpts = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `<div role="option">${prefix}${i + 1}</div>`).join('');

/** Selects and listboxes of every kind, alone and inside repeated items. */
const LISTBOXES = page(
  'Listboxes',
  `<select size="4" aria-label="Sized">${opts('Sized ', 3)}</select>
<select multiple aria-label="Multiple">${opts('Multi ', 3)}</select>
<select aria-label="Grouped">${['G', 'H', 'K'].map((g) => `<optgroup label="${g}">${opts(`${g}opt `, 2)}</optgroup>`).join('')}</select>
<select size="6" aria-label="Grouped list">${['P', 'Q', 'R'].map((g) => `<optgroup label="${g}">${opts(`${g}opt `, 2)}</optgroup>`).join('')}</select>
<div role="listbox" aria-label="Aria">${ariaOpts('Aria ', 3)}</div>
<div role="listbox" aria-label="Aria groups">${['X', 'Y', 'Z'].map((g) => `<div role="group" aria-label="${g}">${ariaOpts(`${g}opt `, 2)}</div>`).join('')}</div>
<ul>${[1, 2, 3].map((i) => `<li><a href="#c${i}">Card ${i}</a><p>About ${i}</p><select size="3" aria-label="Qty ${i}">${opts(`Card ${i} qty `, 2)}</select></li>`).join('')}</ul>
<ul>${[1, 2, 3].map((i) => `<li><a href="#d${i}">Deal ${i}</a><div role="listbox" aria-label="Pick ${i}">${ariaOpts(`Deal ${i} pick `, 2)}</div></li>`).join('')}</ul>`,
);

let server: PageServer;
let executor: BrowserExecutor;
let session: string;

beforeAll(async () => {
  server = await startPageServer({ table: TABLE, headless: HEADLESS, listboxes: LISTBOXES });
  executor = await BrowserExecutor.launch({ timeoutMs: 2_000, snapshotBudget: 100_000 });
  session = await executor.createSession();
});

afterAll(async () => {
  await executor.close();
  await server.close();
});

const refsOf = (text: string): string[] => [...text.matchAll(/\[ref=(\w+)\]/g)].map((m) => m[1] as string);

/**
 * Opens a page: its snapshot (refs as Playwright gives them, so `aria-ref=` finds them), and its interactive
 * elements as the DOM has them (links, buttons, selects, and the options Playwright gives a ref: not a combobox's).
 */
async function open(name: string): Promise<{ text: string; interactive: number; dom: number }> {
  const page = executor.page(session);
  await page.goto(server.url(name));
  const snapshot = compactSnapshot(await page.ariaSnapshot({ mode: 'ai' }), { id: 's1', url: page.url(), title: await page.title(), budget: 100_000 });
  const dom = await page
    .locator('a[href], button, select, select[size]:not([size="1"]) option, select[multiple] option, [role=listbox], [role=option]')
    .count();
  return { text: snapshot.text, interactive: snapshot.interactive, dom };
}

/** Every ref once, and as many as the DOM has interactive elements. */
function expectEveryRefOnce(text: string, interactive: number, dom: number): void {
  const refs = refsOf(text);
  expect(new Set(refs).size, text).toBe(refs.length);
  expect(interactive, text).toBe(dom);
}

describe('a folded table', () => {
  it('names each column by the header of the cell it is in, when cells hold a link or a button', async () => {
    const { text, interactive, dom } = await open('table');
    const lines = text.split('\n');
    expect(lines, text).toContain('    4 rows, each: Name: link | Price | Action: button "Buy"');
    for (const [n, p] of FRUITS)
      expect(lines.filter((l) => new RegExp(`^ {6}${n} \\[ref=\\w+\\] \\| ${p} \\[ref=\\w+\\] \\| \\[ref=\\w+\\]$`).test(l))).toHaveLength(1);
    expect(text).not.toContain('columnheader');
    // Every link and button once, with its ref: the rows' refs are the clickable ones.
    expect(interactive).toBe(dom);
    expectEveryRefOnce(text, interactive, dom);
    const buy = /^ {6}Mug .*\[ref=(\w+)\]$/m.exec(text)?.[1] as string;
    await executor.page(session).locator(`aria-ref=${buy}`).click();
    expect(await executor.page(session).locator('tr:has(button:focus)').textContent()).toContain('Mug');
  });

  it('takes no data row as the header: a row just before the run is shown as a row', async () => {
    const { text } = await open('headless');
    const lines = text.split('\n');
    const header = lines.find((l) => / rows, each: /.test(l)) ?? '';
    expect(header.trim(), text).toBe('4 rows, each: cell | cell');
    expect(lines.filter((l) => l.includes('Summary'))).toHaveLength(1);
    expect(text).toMatch(/^ {4}row\n {6}cell "Summary" \[ref=\w+\]\n/m);
  });
});

describe('selects and listboxes', () => {
  it('shows each option once, on its listbox line with its ref, and counts each option with a ref', async () => {
    const { text, interactive, dom } = await open('listboxes');
    expectEveryRefOnce(text, interactive, dom);
    expect(refsOf(text)).toHaveLength(dom);
    // Every option's name once in the text: none left out, none twice (an option group shows no option again).
    const names = [
      ...['Sized ', 'Multi '].flatMap((p) => [1, 2, 3].map((i) => `${p}${i}`)),
      ...['G', 'H', 'K', 'P', 'Q', 'R', 'X', 'Y', 'Z'].flatMap((g) => [1, 2].map((i) => `${g}opt ${i}`)),
      ...['Aria '].flatMap((p) => [1, 2, 3].map((i) => `${p}${i}`)),
      ...[1, 2, 3].flatMap((c) => [1, 2].flatMap((i) => [`Card ${c} qty ${i}`, `Deal ${c} pick ${i}`])),
    ];
    for (const name of names) expect(text.split(JSON.stringify(name)).length - 1, `${name} in\n${text}`).toBe(1);
    // An option with a ref is on its listbox's line, right after its name; a combobox's options have none.
    const lines = text.split('\n');
    for (const name of names.filter((n) => !/^[GHK]opt/.test(n))) {
      const line = lines.find((l) => l.includes(JSON.stringify(name))) ?? '';
      expect(line, name).toMatch(/^\s*listbox "[^"]+" \[ref=\w+\]: options /);
      expect(line, name).toContain(`${JSON.stringify(name)} [ref=`);
    }
    expect(lines.find((l) => l.includes('combobox "Grouped"'))).toMatch(
      /^\s*combobox "Grouped" \[ref=\w+\]: options "Gopt 1" \(selected\), "Gopt 2", "Hopt 1"/,
    );
    expect(lines.filter((l) => /^\s*(option|group)\b/.test(l) || / items, each: /.test(l))).toEqual([]);
    // A named group's options after its name, on the listbox's line.
    expect(text).toMatch(/listbox "Aria groups" \[ref=\w+\]: options group "X": "Xopt 1" \[ref=\w+\], "Xopt 2" \[ref=\w+\]; group "Y": "Yopt 1"/);
  });
});
