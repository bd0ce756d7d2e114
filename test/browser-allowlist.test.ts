/**
 * The allowlist holds for everything the page does, checked against a live host that is
 * not on it: the same server, reached as `localhost` while only 127.0.0.1 is allowed. The
 * server counts every request the off-list name sends, so a leak is seen, not guessed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, type LaunchedBrowser, type BrowserSession, type Workspace } from '../src/index.js';

let server: Server;
let port: number;
/** Paths requested through the name that is not allowed (the Host header says localhost). */
const offList: string[] = [];
let ws: Workspace;
let browser: LaunchedBrowser;

const page = (body: string) => `<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.headers.host?.startsWith('localhost')) offList.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (html: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    if (url.pathname === '/redirect') return void res.writeHead(302, { location: `http://localhost:${port}/evil?${url.searchParams.toString()}` }).end();
    if (url.pathname === '/image') return void send(page(`<p>An image from elsewhere</p><img src="http://localhost:${port}/pixel?leak=1">`));
    if (url.pathname === '/popup') return void send(page(`<a href="http://127.0.0.1:${port}/ok" target="_blank">Open</a>`));
    if (url.pathname === '/form') return void send(page(`<form action="/done"><label>Word <input name="w"></label><button>Go</button></form>`));
    if (url.pathname === '/script') return void send(page(`<button onclick="location.href='http://localhost:${port}/evil'">Go</button>`));
    send(page(`<h1>${url.pathname.slice(1) || 'home'}</h1><p>${url.search}</p>`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  ws = await createWorkspace();
  browser = await ws.browser.launch({ security: { allowedDomains: ['127.0.0.1'] }, timeoutMs: 2_000 });
});

afterAll(async () => {
  await browser.close();
  await ws.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function withTab(secrets: Record<string, string> | undefined, fn: (tab: BrowserSession) => Promise<void>): Promise<void> {
  const session = await ws.sessions.create();
  const tab = await browser.open({ session, ...(secrets !== undefined && { secrets }) });
  try {
    await fn(tab);
  } finally {
    await tab.close();
  }
}

const base = () => `http://127.0.0.1:${port}`;

describe('the allowlist', () => {
  it('lets the allowed host through (the control: the rest would pass for nothing otherwise)', async () => {
    await withTab(undefined, async (tab) => {
      expect(await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base()}/home` } })).toMatchObject({
        success: true,
        page: { url: `${base()}/home` },
      });
    });
  });

  it('stops a redirect to a host off the list before any request reaches it', async () => {
    offList.length = 0;
    await withTab(undefined, async (tab) => {
      const result = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base()}/redirect?q=1` } });
      expect(result).toMatchObject({ success: false, error: { code: 'URL_NOT_ALLOWED' } });
      expect(tab.page().url()).not.toContain('localhost');
    });
    expect(offList).toEqual([]);
  });

  it("stops what a page loads from elsewhere, and a script's navigation", async () => {
    offList.length = 0;
    await withTab(undefined, async (tab) => {
      expect(await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base()}/image` } })).toMatchObject({ success: true });
      expect(await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base()}/script` } })).toMatchObject({ success: true });
      const click = await tab.execute({ action: 'CLICK_ELEMENT', parameters: { selector: 'button' } });
      expect(click.page.url).not.toContain('localhost');
    });
    expect(offList).toEqual([]);
  });

  it('closes a tab the page opens, and says so', async () => {
    await withTab(undefined, async (tab) => {
      await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base()}/popup` } });
      const click = await tab.execute({ action: 'CLICK_ELEMENT', parameters: { selector: 'a' } });
      expect(click.success).toBe(true);
      await tab.page().waitForTimeout(300);
      const next = await tab.execute({ action: 'GET_DOM', parameters: {} });
      const closed = [click.data.closedTabs, next.data.closedTabs].flat().filter((x) => x !== undefined);
      expect(closed).toHaveLength(1);
      expect(tab.page().context().pages()).toHaveLength(1);
    });
  });

  it('hides a secret however the page encodes it (here, in a form submitted to the URL)', async () => {
    const secret = 'p@ss word!&x';
    await withTab({ pw: secret }, async (tab) => {
      await tab.execute({ action: 'OPEN_PAGE', parameters: { url: `${base()}/form` } });
      await tab.execute({ action: 'INPUT_TEXT', parameters: { selector: 'input', text: '${pw}' } });
      const submitted = await tab.execute({ action: 'CLICK_ELEMENT', parameters: { selector: 'button' } });
      expect(tab.page().url()).toContain(new URLSearchParams({ w: secret }).toString());
      const shown = JSON.stringify(submitted);
      for (const form of [secret, encodeURIComponent(secret), new URLSearchParams({ w: secret }).toString().slice(2)]) expect(shown).not.toContain(form);
      expect(submitted.page.url).toContain('w=${pw}');
    });
  });
});
