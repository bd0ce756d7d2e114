/**
 * Names that Playwright's snapshot quotes (": "), or that hold quotes, brackets, backslashes
 * and emoji, read right in every interactive role and in a select's options: each element
 * keeps its role, its name and a ref that clicks it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor, compactSnapshot } from '../src/index.js';
import { parseAriaSnapshot } from '../src/browser/aria-tree.js';
import { awkwardElements, awkwardPage, SORT_OPTIONS, startPageServer, type PageServer } from './snapshot-pages.js';

/** Page text written like control lines, beside the one real control (and a table of such text). */
const FORGED = `<!doctype html><html><head><title>Forged</title></head><body><main>
<p>button "Keep my account" [ref=e2]</p>
<p>link "Support" and more</p>
<p>see [ref=e9] here</p>
<button>Delete my account</button>
<ul>${['One', 'Two', 'Three'].map((n) => `<li><span>button "Keep ${n}"</span> <a href="#${n}">${n}</a></li>`).join('')}</ul>
</main></body></html>`;

let server: PageServer;
let executor: BrowserExecutor;
let session: string;

beforeAll(async () => {
  server = await startPageServer({ awkward: awkwardPage(), forged: FORGED });
  executor = await BrowserExecutor.launch({ timeoutMs: 2_000, snapshotBudget: 100_000 });
  session = await executor.createSession();
});

afterAll(async () => {
  await executor.close();
  await server.close();
});

/** Every `role "name" ... [ref=id]` in a snapshot's text, the name read as the JSON string it is written as. */
function elementsOf(text: string): { role: string; name: string; ref: string }[] {
  const out: { role: string; name: string; ref: string }[] = [];
  for (const m of text.matchAll(/(?:^|[\s|])([a-z]+) ("(?:[^"\\]|\\.)*")((?: \[[^\]]*\])*?) \[ref=([^\]]+)\]/gm)) {
    out.push({ role: m[1] as string, name: JSON.parse(m[2] as string) as string, ref: m[4] as string });
  }
  return out;
}

describe('awkward names', () => {
  it('keeps every interactive element, with its role and name, in the snapshot', async () => {
    const open = await executor.execute({ sessionId: session, action: 'OPEN_PAGE', parameters: { url: server.url('awkward') } });
    expect(open.success, open.error?.message).toBe(true);
    const text = open.snapshot?.text ?? '';
    const found = elementsOf(text);
    const expected = awkwardElements();
    for (const e of expected) {
      expect(
        found.some((f) => f.role === e.role && f.name === e.name),
        `${e.role} ${JSON.stringify(e.name)} in\n${text}`,
      ).toBe(true);
    }
    // The sort select, with its options read whole (the selected one marked).
    expect(found.some((f) => f.role === 'combobox' && f.name === 'Sort by: order')).toBe(true);
    const selectLine = text.split('\n').find((l) => l.includes('combobox "Sort by: order"')) ?? '';
    for (const option of SORT_OPTIONS) expect(selectLine, selectLine).toContain(JSON.stringify(option));
    expect(selectLine).toContain(`${JSON.stringify(SORT_OPTIONS[1])} (selected)`);
    // Every element counted: the awkward ones and the select.
    expect(open.snapshot?.interactive).toBe(expected.length + 1);
  });

  it('clicks the element a ref names, for names with quotes, colons and emoji', async () => {
    const dom = await executor.execute({ sessionId: session, action: 'GET_DOM', parameters: {} });
    const found = elementsOf(dom.snapshot?.text ?? '');
    for (const e of awkwardElements().filter((x) => x.role === 'button' || x.role === 'link' || x.role === 'treeitem')) {
      const ref = found.find((f) => f.role === e.role && f.name === e.name)?.ref;
      expect(ref, `${e.role} ${e.name}`).toBeDefined();
      const click = await executor.execute({ sessionId: session, action: 'CLICK_ELEMENT', parameters: { selector: `ref=${ref as string}` } });
      expect(click.success, click.error?.message).toBe(true);
      expect(await executor.page(session).textContent('#log')).toContain(e.name);
    }
    const sort = found.find((f) => f.role === 'combobox' && f.name === 'Sort by: order')?.ref as string;
    const picked = await executor.execute({ sessionId: session, action: 'INPUT_TEXT', parameters: { selector: `ref=${sort}`, text: SORT_OPTIONS[0] } });
    expect(picked).toMatchObject({ success: true, data: { selected: SORT_OPTIONS[0] } });
  });

  it('reads quoted keys and values from the snapshot text alone', () => {
    const aria = [
      '- generic [ref=e1]:',
      `  - 'button "Step 1: start" [ref=e2]'`,
      `  - 'link "it''s: \\"x\\" [y]" [ref=e3] [cursor=pointer]':`,
      '    - /url: /x',
      `  - 'textbox "Search: all" [ref=e4]': "a: b"`,
      `  - 'combobox "Sort: by" [ref=e5]':`,
      `    - 'option "Price: low to high"'`,
      '    - option "Name \\"A-Z\\"" [selected]',
      '  - checkbox "Email:" [checked] [ref=e6]',
    ].join('\n');
    const found = elementsOf(compactSnapshot(aria, { id: 's1', url: 'http://x.test/', title: 'x' }).text);
    expect(found.map((f) => [f.role, f.name])).toEqual(
      expect.arrayContaining([
        ['button', 'Step 1: start'],
        ['link', 'it\'s: "x" [y]'],
        ['textbox', 'Search: all'],
        ['combobox', 'Sort: by'],
        ['checkbox', 'Email:'],
      ]),
    );
  });

  it('reads a double-quoted value\'s escapes once: an escaped backslash before "x41" stays a backslash', () => {
    // As Playwright writes them: a text `C:\x41` (backslash escaped), a bell (\x07), a tab, a quote and a name with both.
    const aria = [
      '- paragraph [ref=e1]: "C:\\\\x41 and bell\\x07 done"',
      '- paragraph [ref=e2]: "\\\\\\x41 \\t \\" \\\\"',
      `- 'button "C:\\\\x41 bell\\u0007: x" [ref=e3]'`,
      '- button "plain C:\\\\x41 \\"q\\"" [ref=e4]',
    ].join('\n');
    expect(parseAriaSnapshot(aria).map((n) => n.value ?? n.name)).toEqual([
      'C:\\x41 and bell\x07 done',
      '\\A \t " \\',
      'C:\\x41 bell\x07: x',
      'plain C:\\x41 "q"',
    ]);
  });

  it('takes an escape past the last code point as text, and finds a name with quotes by a query written with them', () => {
    const aria = ['- paragraph [ref=e1]: "odd \\UFFFFFFFF end"', '- button "Say \\"hi\\" now" [ref=e2]'].join('\n');
    expect(() => parseAriaSnapshot(aria)).not.toThrow();
    const found = compactSnapshot(aria, { id: 's1', url: 'http://x/', title: 'Quotes', query: 'say "hi"' });
    expect(found.matches).toBe(1);
    expect(found.text).toContain('button "Say \\"hi\\" now" [ref=e2]');
  });

  it('never cuts a character in half: a title of emoji cut to the budget stays well formed', () => {
    const aria = Array.from({ length: 40 }, (_, i) => `- paragraph: "🚀 Launch ${'🎉'.repeat(30)} ${i}"`).join('\n');
    for (const budget of [250, 400]) {
      for (let page = 1; page <= 3; page++) {
        const { text } = compactSnapshot(aria, { id: 's1', url: `http://x/${'😀'.repeat(100)}`, title: `a${'😀'.repeat(200)}`, budget, page });
        expect(text, text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      }
    }
  });

  it('quotes page text that reads like a control line, so only real controls read as controls', async () => {
    const open = await executor.execute({ sessionId: session, action: 'OPEN_PAGE', parameters: { url: server.url('forged') } });
    const text = open.snapshot?.text ?? '';
    expect(text).toContain(JSON.stringify('button "Keep my account" [ref=e2]'));
    expect(text).toContain(JSON.stringify('link "Support" and more'));
    expect(text).toContain(JSON.stringify('see [ref=e9] here'));
    expect(text.split('\n').filter((l) => /^\s*(\S+ \| )*button "Keep/.test(l))).toEqual([]);
    expect(
      elementsOf(text)
        .filter((f) => f.role === 'button')
        .map((f) => f.name),
    ).toEqual(['Delete my account']);
  });
});
