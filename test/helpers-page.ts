/**
 * What the page's tests share: the system Chromium (playwright-core), `golem serve` on
 * loopback, a connected tab, axe-core run inside the page, and screenshots to look at
 * (test-results/screenshots/). `pageHarness()` registers its hooks in the calling file.
 */
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { CHROMIUM_ARGS } from '../src/browser/executor.js';
import { createWorkspace, type Workspace } from '../src/index.js';
import { serve, type GolemServer, type ServeAgentOptions } from '../src/serve/index.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const SHOTS = join(import.meta.dirname, '..', 'test-results', 'screenshots');
export const DESKTOP = { width: 1400, height: 900 } as const;
export const PHONE = { width: 390, height: 844 } as const;

export interface OpenOptions {
  /** The server is taken down meanwhile: failed reads in the console are expected. */
  outage?: boolean;
  viewport?: { width: number; height: number };
  /** Console errors the test causes on purpose (a request the server refuses). */
  expectedErrors?: RegExp;
  colorScheme?: 'light' | 'dark';
}

export interface PageHarness {
  readonly browser: Browser;
  /** Runs after the test, in reverse order of registration. */
  cleanups: (() => Promise<void>)[];
  started(agent: ServeAgentOptions | undefined, ws?: Workspace): Promise<{ ws: Workspace; server: GolemServer }>;
  /** A tab on the page, connected (an in-process server, or a `golem serve` process's address); the test fails if the page logs an error. */
  open(server: Pick<GolemServer, 'pageUrl' | 'token'>, options?: OpenOptions): Promise<Page>;
}

export function pageHarness(): PageHarness {
  let browser: Browser | undefined;
  const cleanups: (() => Promise<void>)[] = [];
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS] });
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const harness: PageHarness = {
    get browser() {
      if (browser === undefined) throw new Error('the browser starts in beforeAll');
      return browser;
    },
    cleanups,
    async started(agent, ws) {
      const workspace = ws ?? (await createWorkspace());
      const server = await serve(workspace, agent === undefined ? {} : { agent });
      if (ws === undefined) cleanups.push(() => workspace.close());
      cleanups.push(() => server.close());
      return { ws: workspace, server };
    },
    async open(server, options = {}) {
      const context = await harness.browser.newContext({ viewport: options.viewport ?? DESKTOP, colorScheme: options.colorScheme ?? 'light' });
      cleanups.push(() => context.close());
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => {
        // A test that takes the server down sees the page's reads fail meanwhile (the browser logs each).
        if (
          message.type() === 'error' &&
          options.expectedErrors?.test(message.text()) !== true &&
          !(
            options.outage === true &&
            /^Failed to load resource: net::ERR_(CONNECTION_REFUSED|CONNECTION_RESET|INTERNET_DISCONNECTED|EMPTY_RESPONSE)/.test(message.text())
          )
        )
          problems.push(message.text());
      });
      cleanups.push(async () => expect(problems).toEqual([]));
      await page.goto(server.pageUrl);
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
      // The token left the address bar (it stays in the tab's session storage).
      expect(page.url()).not.toContain(server.token);
      return page;
    },
  };
  return harness;
}

/** axe-core run inside the page on `selector`: no serious or critical violation. */
export async function checkAccessibility(page: Page, selector: string): Promise<void> {
  // Evaluated through the debugging protocol: the page's own CSP (rightly) refuses inline scripts.
  await page.evaluate(axeSource);
  const results = await page.evaluate(async (include) => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown): Promise<{ violations: { id: string; impact: string; help: string }[] }> } }).axe;
    return (await axe.run({ include: [include] })).violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: (v as unknown as { nodes: { html: string }[] }).nodes.map((n) => n.html.slice(0, 160)),
    }));
  }, selector);
  expect(results.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`) });
}

/** axe-core on the whole page, and a screenshot `<name>-<desktop|phone>-<light|dark>`, at each size and scheme. */
export async function checkEverywhere(page: Page, name: string): Promise<void> {
  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    for (const scheme of ['light', 'dark'] as const) {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme: scheme });
      await checkAccessibility(page, 'body');
      await shot(page, `${name}-${size}-${scheme}`);
    }
  }
}

export async function say(page: Page, text: string): Promise<void> {
  await page.getByTestId('chat-input').fill(text);
  await page.getByTestId('send').click();
}

/** A PNG of `width` x `height`, in stripes of two colours (to see it drawn). */
export function stripes(width: number, height: number, a: [number, number, number], b: [number, number, number]): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const rows = Array.from({ length: height }, (_, y) =>
    Buffer.from([0, ...Array.from({ length: width }, (_, x) => (Math.floor((x + y) / 8) % 2 === 0 ? a : b)).flat()]),
  );
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
