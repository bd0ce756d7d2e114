/**
 * Only what changed: an action that leaves the page the same document answers with the
 * lines added, changed and removed since the previous snapshot, with their refs (which can
 * be clicked); a new document, or GET_DOM, gives the whole snapshot.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor, countOpenAiTokens } from '../src/index.js';
import { productListing, startPageServer, type PageServer } from './snapshot-pages.js';

/** A page whose buttons add, remove and change things, without leaving it. */
const PAGE = `<!doctype html><html><head><title>Changes</title></head><body>
<main>
  <h1>Basket</h1>
  <ul id="items"><li>Tea <button onclick="this.parentNode.remove()">Remove tea</button></li><li>Rice</li></ul>
  <label><input type="checkbox" id="gift"> Gift wrap</label>
  <label>Note <input type="text" id="note"></label>
  <button id="add" onclick="const li = document.createElement('li'); li.innerHTML = 'Plums <button onclick=&quot;document.getElementById(\\'out\\').textContent = \\'Plums chosen\\'&quot;>Choose plums</button>'; document.getElementById('items').append(li)">Add plums</button>
  <p id="out">Nothing chosen</p>
  <a href="#top">To the top</a>
  <a href="/shop">Shop</a>
</main></body></html>`;

/** A run of items alike, each with a checkbox (a table, if folded), and a list whose order a button changes. */
const STATEFUL = `<!doctype html><html><head><title>Chores</title></head><body><main>
<ul>${['Dishes', 'Laundry', 'Floors', 'Windows'].map((n) => `<li><span>${n}</span> <label><input type="checkbox"> Done with ${n}</label> <a href="#${n}">About ${n}</a></li>`).join('')}</ul>
<ol id="queue"><li>First in line</li><li>Second in line</li><li>Third in line</li></ol>
<button onclick="const q = document.getElementById('queue'); q.append(q.firstElementChild)">Rotate the queue</button>
</main></body></html>`;

let server: PageServer;
let executor: BrowserExecutor;

beforeAll(async () => {
  server = await startPageServer({ basket: PAGE, shop: productListing(20), chores: STATEFUL });
  executor = await BrowserExecutor.launch({ timeoutMs: 2_000, countTokens: countOpenAiTokens });
});

afterAll(async () => {
  await executor.close();
  await server.close();
});

const refOf = (text: string, line: RegExp): string => {
  const found = text.split('\n').find((l) => line.test(l));
  const ref = found === undefined ? undefined : /\[ref=(e\d+)\]/.exec(found)?.[1];
  if (ref === undefined) throw new Error(`no line ${String(line)} with a ref in:\n${text}`);
  return `ref=${ref}`;
};

describe('changes after an action', () => {
  it('shows the lines added, changed and removed since the previous snapshot, and a ref among them can be clicked', async () => {
    const sessionId = await executor.createSession();
    const run = (action: string, parameters: Record<string, string>) => executor.execute({ sessionId, action, parameters });
    const open = await run('OPEN_PAGE', { url: server.url('basket') });
    const page = open.snapshot?.text ?? '';
    expect(open.changes).toBeUndefined();
    expect(page).toMatch(/^Snapshot s1: Changes/);

    // Added: the new item and its button, with a ref, and where they went (once for the run).
    const add = await run('CLICK_ELEMENT', { selector: refOf(page, /button "Add plums"/) });
    expect(add.snapshot).toBeUndefined();
    const added = add.changes?.text ?? '';
    expect(added).toMatch(/^Changes since s1, now s2:$/m);
    expect(added).toMatch(/^\+ Plums \(in /m);
    expect(added).toMatch(/^\+ button "Choose plums" \[ref=e\d+\]$/m);
    expect(add.changes).toMatchObject({ id: 's2', since: 's1', added: 2, changed: 0, removed: 0 });
    expect(add.changes?.tokens).toBeLessThan(countOpenAiTokens(page) / 2);

    // A ref shown only in the changes is clicked; the text it changes is a removed line and an added one (text has no ref).
    const choose = await run('CLICK_ELEMENT', { selector: refOf(added, /button "Choose plums"/) });
    expect(choose.success, choose.error?.message).toBe(true);
    expect(choose.changes?.text).toMatch(/^Changes since s2, now s3/m);
    expect(choose.changes?.text).toMatch(/^\+ Plums chosen/m);
    expect(choose.changes?.text).toMatch(/^- Nothing chosen$/m);

    // Changed: the checkbox keeps its ref and shows its new state; INPUT_TEXT's value is a changed line too.
    const gift = refOf(page, /checkbox "Gift wrap"/);
    const check = await run('CLICK_ELEMENT', { selector: gift });
    expect(check.changes).toMatchObject({ added: 0, changed: 1, removed: 0 });
    expect(check.changes?.text).toContain(`~ checkbox "Gift wrap" [checked] [${gift}]`);
    const note = await run('INPUT_TEXT', { selector: refOf(page, /textbox "Note"/), text: 'leave at the door' });
    expect(note.changes?.text).toMatch(/^~ textbox "Note" \[ref=e\d+\]: leave at the door$/m);

    // Removed: the item and its button, with the button's ref.
    const removeTea = refOf(page, /button "Remove tea"/);
    const remove = await run('CLICK_ELEMENT', { selector: removeTea });
    expect(remove.changes?.removed).toBeGreaterThanOrEqual(1);
    expect(remove.changes?.text).toContain(`- button "Remove tea" [${removeTea}]`);

    // Nothing changed (a #fragment on the same page): said in one line.
    const top = await run('CLICK_ELEMENT', { selector: refOf(page, /link "To the top"/) });
    expect(top.changes?.text).toMatch(/^No change since s\d+, now s\d+ \(now at http:.*#top\)$/);

    // The whole snapshot is one command away, and a new page comes whole.
    const whole = await run('GET_DOM', {});
    expect(whole.snapshot?.text).toMatch(/checkbox "Gift wrap" \[checked\]/);
    expect(whole.snapshot?.text).not.toContain('Remove tea');
    const shop = await run('CLICK_ELEMENT', { selector: refOf(page, /link "Shop"/) });
    expect(shop.changes).toBeUndefined();
    expect(shop.snapshot?.text).toMatch(/^Snapshot s\d+: /);
    await executor.closeSession(sessionId);
  });

  it('on a folded listing, shows the one row that changed, its control named on it, and that ref works', async () => {
    const sessionId = await executor.createSession();
    const run = (action: string, parameters: Record<string, string>) => executor.execute({ sessionId, action, parameters });
    const open = await run('OPEN_PAGE', { url: server.url('shop') });
    const add = await run('CLICK_ELEMENT', { selector: '[data-sku="sku-1000"]' });
    const text = add.changes?.text ?? '';
    expect(add.changes).toMatchObject({ added: 1, changed: 2, removed: 1 });
    expect(text).toMatch(/^~ 20 items, each: .* \| button "Add to cart" \(unless named\)$/m);
    expect(text).toMatch(/^~ Blue kettle 1\.0 L \[ref=e\d+\] \| .* \| Added: 1 \[ref=e\d+\]$/m);
    expect(text).toMatch(/^\+ 1 in cart · 20 products/m);
    expect(text).toMatch(/^- 0 in cart · 20 products$/m);
    expect(add.changes?.tokens).toBeLessThan((open.snapshot?.tokens ?? 0) / 5);
    const again = await run('CLICK_ELEMENT', { selector: `ref=${/Added: 1 \[ref=(e\d+)\]/.exec(text)?.[1] ?? ''}` });
    expect(again.changes?.text).toMatch(/\| Added: 2 \[ref=e\d+\]$/m);
    await executor.closeSession(sessionId);
  });

  it('gives the whole snapshot when the changes would be no shorter', async () => {
    const sessionId = await executor.createSession();
    await executor.execute({ sessionId, action: 'OPEN_PAGE', parameters: { url: server.url('basket') } });
    // Everything replaced by a script: as long as the page, so the page comes whole.
    await executor.page(sessionId).evaluate(() => {
      const doc = (globalThis as unknown as { document: { body: { innerHTML: string } } }).document;
      doc.body.innerHTML = '<main><h1>Other</h1><button>One</button><button>Two</button></main>';
    });
    const after = await executor.execute({ sessionId, action: 'OPEN_PAGE', parameters: { url: `${server.url('basket')}#x` } });
    expect(after.changes).toBeUndefined();
    expect(after.snapshot?.text).toMatch(/button "One" \[ref=e\d+\]/);
    await executor.closeSession(sessionId);
  });

  it('sees a state change in a run of items alike (stateful controls are not folded into rows)', async () => {
    const sessionId = await executor.createSession();
    const run = (action: string, parameters: Record<string, string>) => executor.execute({ sessionId, action, parameters });
    await run('OPEN_PAGE', { url: server.url('chores') });
    const check = await run('CLICK_ELEMENT', { selector: 'li:nth-child(2) input' });
    expect(check.changes?.text).toMatch(/^Changes since/);
    expect(check.changes?.text).toMatch(/checkbox "Done with Laundry" \[checked\] \[ref=e\d+\]/);
    await executor.closeSession(sessionId);
  });

  it('gives the whole snapshot when lines moved (a reorder), which changes cannot say', async () => {
    const sessionId = await executor.createSession();
    const run = (action: string, parameters: Record<string, string>) => executor.execute({ sessionId, action, parameters });
    const open = await run('OPEN_PAGE', { url: server.url('chores') });
    const rotate = await run('CLICK_ELEMENT', { selector: refOf(open.snapshot?.text ?? '', /button "Rotate the queue"/) });
    expect(rotate.changes).toBeUndefined();
    const text = rotate.snapshot?.text ?? '';
    expect(text.indexOf('Second in line')).toBeGreaterThan(-1);
    expect(text.indexOf('Second in line')).toBeLessThan(text.indexOf('First in line'));
    await executor.closeSession(sessionId);
  });
});
