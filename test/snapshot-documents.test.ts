/**
 * Refs belong to the document they were shown in: an iframe that loads another document,
 * or a snapshot taken while a navigation is still loading, never lets a ref of one
 * document click an element of another. Only what the model is shown moves the baseline of
 * the next action's changes, and refs still shown are the last to be forgotten.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor } from '../src/index.js';
import { RefTable } from '../src/browser/ref-table.js';

/** Text the pages share (lines without refs, the same in both documents: a diff of them is short). */
const SHARED = Array.from({ length: 30 }, (_, i) => `<p>Shared paragraph number ${i + 1} of the site</p>`).join('\n');
/** Sets #log (in this document or, from an iframe, in its parent) to what was clicked. */
const LOG = `function logClick(el) { (window.parent ?? window).document.getElementById('log').textContent = 'clicked ' + el.textContent; }`;

const PAGES: Readonly<Record<string, string>> = {
  '/plain': `<!doctype html><title>Plain</title><button>Plain button</button>`,
  '/host': `<!doctype html><title>Host</title><script>${LOG}</script><p id="log">none</p>
<button onclick="logClick(this)">Host button</button><iframe src="/inner?doc=Old"></iframe>`,
  '/start': `<!doctype html><title>Start</title><script>${LOG}</script><p id="log">none</p>
<button onclick="logClick(this)">Stay here</button><a href="/slow">Go slow</a>\n${SHARED}`,
  '/two-frames': `<!doctype html><title>Two frames</title><script>${LOG}</script><p id="log">none</p>
<iframe id="pay" src="/inner?doc=Pay"></iframe><iframe id="ad" src="/inner?doc=Ad1"></iframe>`,
  // Page script that breaks or fakes what a document token could be read from: the refs must still be told apart.
  '/no-performance': `<!doctype html><title>No performance</title><script>${LOG}; window.performance = null;</script><p id="log">none</p>
<button onclick="logClick(this)">First doc</button><a href="/fake-performance">Next</a>`,
  '/fake-performance': `<!doctype html><title>Fake performance</title><script>${LOG}; Object.defineProperty(window, 'performance', { value: { now: () => 0, timeOrigin: 1 } });</script>
<p id="log">none</p><button onclick="logClick(this)">Second doc</button><a href="/no-performance">Back</a>`,
  // A page too large to read in the executor's time (its snapshot takes seconds): what opening it did cannot be read.
  '/huge': `<!doctype html><title>Huge</title><body><script>for (let i = 0; i < 50000; i++) document.body.append(Object.assign(document.createElement('button'), { textContent: 'Button ' + i }));</script>`,
  '/counter': `<!doctype html><title>Counter</title>
<button onclick="this.textContent = 'Clicked ' + (++window.clicks)">Click me</button><ul id="list"></ul>\n${SHARED}
<script>window.clicks = 0;</script>`,
};

let executor: BrowserExecutor;
let base: string;
/** Lets the held rest of /slow go. */
let release: () => void = () => undefined;
const server = createServer((req, res: ServerResponse) => {
  const url = new URL(req.url ?? '/', 'http://x');
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  if (url.pathname === '/inner') {
    const doc = url.searchParams.get('doc') ?? '';
    res.end(`<!doctype html><script>${LOG}</script><button onclick="logClick(this)">${doc} A</button>`);
  } else if (url.pathname === '/slow') {
    // The head and the first elements now (the navigation commits and they are shown), the rest when the test says:
    // DOMContentLoaded waits for it.
    res.write(`<!doctype html><title>Slow</title><script>${LOG}</script><p id="log">none</p>
<button onclick="logClick(this)">Slow one</button>\n${SHARED}\n`);
    const timer = setTimeout(() => res.end(), 20_000);
    release = () => {
      clearTimeout(timer);
      res.end('<p>The rest</p>');
    };
  } else res.end(PAGES[url.pathname] ?? 'not found');
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  executor = await BrowserExecutor.launch({ timeoutMs: 1_000, snapshotBudget: 100_000 });
});

afterAll(async () => {
  release();
  await executor.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** What the page's #log says was clicked. */
const logOf = (page: Page): Promise<string> =>
  page.evaluate(
    () => (globalThis as unknown as { document: { getElementById(id: string): { textContent: string } } }).document.getElementById('log').textContent,
  );

/** A fresh browser session: its id, a command runner, its page and what its #log says. */
async function openTab() {
  const sessionId = await executor.createSession();
  const page = executor.page(sessionId);
  const run = (action: string, parameters: Record<string, string>) => executor.execute({ sessionId, action, parameters });
  return { sessionId, page, run, log: () => logOf(page) };
}

/** Loads /inner?doc=<doc> into the page's iframe `selector`, and waits for its button. */
async function loadFrame(page: Page, selector: string, doc: string): Promise<void> {
  await page.evaluate(
    ([s, d]) => {
      (globalThis as unknown as { document: { querySelector(q: string): { src: string } } }).document.querySelector(s as string).src =
        `/inner?doc=${d as string}`;
    },
    [selector, doc],
  );
  await page.frameLocator(selector).getByText(`${doc} A`).waitFor();
}

/** The ref on the first line matching `line`. */
const refOf = (text: string | undefined, line: RegExp): string => {
  const found = (text ?? '').split('\n').find((l) => line.test(l));
  const ref = found === undefined ? undefined : /\[ref=(e\d+)\]/.exec(found)?.[1];
  if (ref === undefined) throw new Error(`no line ${String(line)} with a ref in:\n${text}`);
  return ref;
};

describe('refs and documents', () => {
  it('refuses a ref of an iframe document since replaced, gives the new one new refs, and keeps the main frame refs', async () => {
    const { sessionId, run, page, log } = await openTab();
    // Not the first page of the tab: Playwright's refs of the main frame's later documents start with `f` too.
    await run('OPEN_PAGE', { url: `${base}/plain` });
    await run('OPEN_PAGE', { url: `${base}/host` });
    await page.frameLocator('iframe').getByText('Old A').waitFor();
    const before = await run('GET_DOM', {});
    const old = refOf(before.snapshot?.text, /button "Old A"/);
    const host = refOf(before.snapshot?.text, /button "Host button"/);

    await loadFrame(page, 'iframe', 'New');
    const after = await run('GET_DOM', {});
    const fresh = refOf(after.snapshot?.text, /button "New A"/);

    const stale = await run('CLICK_ELEMENT', { selector: `ref=${old}` });
    expect({ success: stale.success, code: stale.error?.code, log: await log() }).toEqual({ success: false, code: 'SNAPSHOT_STALE', log: 'none' });
    expect(fresh).not.toBe(old);
    expect(await run('CLICK_ELEMENT', { selector: `ref=${fresh}` })).toMatchObject({ success: true });
    expect(await log()).toBe('clicked New A');
    // The main frame's document is the same: its refs still work.
    expect(await run('CLICK_ELEMENT', { selector: `ref=${host}` })).toMatchObject({ success: true });
    expect(await log()).toBe('clicked Host button');
    await executor.closeSession(sessionId);
  });

  it('keeps the refs of one iframe when another navigates (an ad that rotates), and refuses only the navigated one', async () => {
    const { sessionId, run, page, log } = await openTab();
    await run('OPEN_PAGE', { url: `${base}/two-frames` });
    await page.frameLocator('#pay').getByText('Pay A').waitFor();
    await page.frameLocator('#ad').getByText('Ad1 A').waitFor();
    const shot = await run('GET_DOM', {});
    const pay = refOf(shot.snapshot?.text, /button "Pay A"/);
    const ad = refOf(shot.snapshot?.text, /button "Ad1 A"/);
    await loadFrame(page, '#ad', 'Ad2');
    // A snapshot of the new ad first: Playwright's refs of that document then exist, and one may be the old ref's twin.
    await run('GET_DOM', {});
    const staleAd = await run('CLICK_ELEMENT', { selector: `ref=${ad}` });
    expect({ success: staleAd.success, code: staleAd.error?.code, log: await log() }).toEqual({ success: false, code: 'SNAPSHOT_STALE', log: 'none' });
    expect(await run('CLICK_ELEMENT', { selector: `ref=${pay}` })).toMatchObject({ success: true });
    expect(await log()).toBe('clicked Pay A');
    await executor.closeSession(sessionId);
  });

  it('tells documents apart on pages that replace or fake window.performance', async () => {
    const { sessionId, run } = await openTab();
    const first = await run('OPEN_PAGE', { url: `${base}/no-performance` });
    expect(first.success, first.error?.message).toBe(true);
    const old = refOf(first.snapshot?.text, /button "First doc"/);
    expect(await run('CLICK_ELEMENT', { selector: `ref=${old}` })).toMatchObject({ success: true });
    const next = await run('CLICK_ELEMENT', { selector: `ref=${refOf(first.snapshot?.text, /link "Next"/)}` });
    expect(next.success, next.error?.message).toBe(true);
    expect(next.snapshot?.text).toContain('button "Second doc"');
    // Back to the first page: a new document of the same page, where Playwright's refs start again.
    const back = await run('CLICK_ELEMENT', { selector: `ref=${refOf(next.snapshot?.text, /link "Back"/)}` });
    expect(back.snapshot?.text).toContain('button "First doc"');
    const stale = await run('CLICK_ELEMENT', { selector: `ref=${old}` });
    expect({ success: stale.success, code: stale.error?.code }).toEqual({ success: false, code: 'SNAPSHOT_STALE' });
    await executor.closeSession(sessionId);
  });

  it('reports an action that ran as done when the page after it cannot be read, so it is not done twice', async () => {
    const sessionId = await executor.createSession();
    const open = await executor.execute({ sessionId, action: 'OPEN_PAGE', parameters: { url: `${base}/huge` } });
    expect(open.success, open.error?.message).toBe(true);
    expect(open.data).toMatchObject({ status: 200, snapshot: expect.stringMatching(/^not read \(BROWSER_TIMEOUT: .*\); GET_DOM reads it again$/) as unknown });
    expect(open.snapshot).toBeUndefined();
    expect(open.page.url).toBe(`${base}/huge`);
    await executor.closeSession(sessionId);
  });

  it('credits a snapshot taken before the new document finished loading to that document', async () => {
    const { sessionId, run, page, log } = await openTab();
    const open = await run('OPEN_PAGE', { url: `${base}/start` });
    const stay = refOf(open.snapshot?.text, /button "Stay here"/);
    // The click commits the navigation; the result is read before DOMContentLoaded (the server holds the rest).
    const go = await run('CLICK_ELEMENT', { selector: `ref=${refOf(open.snapshot?.text, /link "Go slow"/)}` });
    expect(await page.evaluate(() => (globalThis as unknown as { document: { readyState: string } }).document.readyState)).toBe('loading');
    expect(go.page.url).toBe(`${base}/slow`);
    // Another document: the whole snapshot, not changes from the one left.
    expect(go.changes).toBeUndefined();
    const slow = refOf(go.snapshot?.text, /button "Slow one"/);
    // The page left: its ref is refused.
    expect((await run('CLICK_ELEMENT', { selector: `ref=${stay}` })).error?.code).toBe('SNAPSHOT_STALE');

    release();
    await page.waitForLoadState('domcontentloaded');
    // The ref shown while it loaded is of this document, and clicks its element; the same document answers with changes.
    const click = await run('CLICK_ELEMENT', { selector: `ref=${slow}` });
    expect({ success: click.success, error: click.error, log: await log() }).toEqual({ success: true, error: undefined, log: 'clicked Slow one' });
    expect(click.changes?.text).toContain('clicked Slow one');
    // A navigation within the document (history.pushState) keeps it: its refs still work.
    await page.evaluate(() =>
      (globalThis as unknown as { history: { pushState(s: unknown, t: string, u: string): void } }).history.pushState({}, '', '/slow#moved'),
    );
    expect(await run('CLICK_ELEMENT', { selector: `ref=${slow}` })).toMatchObject({ success: true });
    await executor.closeSession(sessionId);
  });

  it("diffs the model's next action from the last snapshot the model was shown, not one taken for someone else", async () => {
    const { sessionId, run } = await openTab();
    await run('OPEN_PAGE', { url: `${base}/counter` });
    const shown = await run('GET_DOM', {});
    // The page changes on its own; a human (or the UI) looks at it.
    await executor.page(sessionId).evaluate(() => {
      const doc = (globalThis as unknown as { document: { getElementById(id: string): { innerHTML: string } } }).document;
      doc.getElementById('list').innerHTML = '<li>Arrived on its own</li>';
    });
    expect((await executor.snapshot(sessionId)).text).toContain('Arrived on its own');
    const click = await run('CLICK_ELEMENT', { selector: `ref=${refOf(shown.snapshot?.text, /button "Click me"/)}` });
    expect(click.changes?.since).toBe(shown.snapshot?.id);
    expect(click.changes?.text).toContain('Clicked 1');
    expect(click.changes?.text).toContain('Arrived on its own');
    await executor.closeSession(sessionId);
  });
});

describe('the ref table', () => {
  const target = (playwrightRef: string) => ({ document: 'd1', playwrightRef, role: 'button', url: 'http://x/', snapshot: 's1' });

  it('forgets the refs shown longest ago, not the ones shown again', () => {
    const refs = new RefTable({ limit: 3 });
    const [a, b, c] = ['e1', 'e2', 'e3'].map((r) => refs.idFor(target(r))) as [string, string, string];
    // a is shown again (it is still on the page), then a fourth ref: b is the one shown longest ago.
    expect(refs.idFor(target('e1'))).toBe(a);
    const d = refs.idFor(target('e4'));
    expect(refs.lookup(b)).toBe('forgotten');
    for (const id of [a, c, d]) expect(refs.lookup(id)).not.toBe('forgotten');
    expect(refs.lookup(a)).toMatchObject({ playwrightRef: 'e1' });
    // The same element shown again keeps its id; a forgotten one gets a new id.
    expect(refs.idFor(target('e1'))).toBe(a);
    expect(refs.idFor(target('e2'))).not.toBe(b);
  });
});
