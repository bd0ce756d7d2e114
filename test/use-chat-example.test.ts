/**
 * The useChat example (examples/use-chat/): its page, built with vite, served by its own
 * serve.ts (run as the README says), and driven in Chromium as a user would: a message, the
 * streamed answer, a call approved (it runs, its object output shown as JSON, the model
 * answers its result; Send waits while it asks), another denied (the model is told no), a
 * failed request sent again; screenshots at desktop and phone size, light and dark, and axe-core.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS } from '../src/browser/executor.js';
import { checkAccessibility, DESKTOP, PHONE, shot } from './helpers-page.js';
import { tempDir } from './helpers.js';

const root = join(import.meta.dirname, '..');
let browser: Browser;
let server: ChildProcess;
let address: string;

beforeAll(async () => {
  const built = tempDir();
  const { build } = await import('vite');
  await build({ configFile: join(root, 'examples/use-chat/vite.config.ts'), build: { outDir: built, emptyOutDir: true }, logLevel: 'error' });
  server = spawn(process.execPath, ['--import', 'tsx', 'examples/use-chat/serve.ts', built], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  address = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      const url = /Open (http\S+)/.exec(out)?.[1];
      if (url !== undefined) resolve(url);
    });
    server.once('exit', (code) => reject(new Error(`serve.ts exited (${code}) before printing its address: ${out}`)));
  });
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS] });
});

afterAll(async () => {
  await browser?.close();
  if (server?.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
});

/** A tab on the example; `problems`: what the page logged as errors (none expected). */
async function open(viewport: { width: number; height: number }, colorScheme: 'light' | 'dark'): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport, colorScheme });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => void (message.type() === 'error' && problems.push(message.text())));
  await page.goto(address);
  // The token left the address bar.
  expect(page.url()).not.toContain('token');
  return { page, problems };
}

async function say(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

describe('examples/use-chat: useChat on golem serve', () => {
  it('chats, and a call asks for approval: approved it runs, denied the model is told', async () => {
    const { page, problems } = await open(DESKTOP, 'light');
    await say(page, 'Hi');
    await page.getByText('Hello! Ask me to deploy the site to staging.').waitFor();

    await say(page, 'Please deploy the site to staging');
    await page.getByText('I will deploy the site to staging.').waitFor();
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await expect.poll(() => page.getByText('deploy {"target":"staging"}').count()).toBe(1);
    // While the call asks, Golem takes no new message: Send waits for the answer.
    await page.getByLabel('Message').fill('And the weather?');
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    await page.getByLabel('Message').fill('');
    await shot(page, 'use-chat-approval');
    await checkAccessibility(page, 'main');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('✓ {"deployed":"staging","url":"https://staging.example.com"}').waitFor();
    await page.getByText('Done: the site is live at https://staging.example.com.').waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);

    await say(page, 'Now deploy to prod');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('✗ denied').waitFor();
    await page.getByText('Done: The user declined deploy: the user said no.').waitFor();
    await shot(page, 'use-chat-answered');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('sends again after a failed request, one message a request', async () => {
    const { page, problems } = await open(DESKTOP, 'light');
    const sent: number[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().endsWith('/api/chat'))
        sent.push((JSON.parse(request.postData() ?? '{}') as { messages: unknown[] }).messages.length);
    });
    // The first request fails (the network, a proxy): the chat is left in status 'error'.
    await page.route('**/api/chat', (route) => route.fulfill({ status: 503, contentType: 'text/plain', body: 'Service Unavailable' }), { times: 1 });
    await say(page, 'Hi');
    await page.getByRole('alert').waitFor();
    await say(page, 'Hi again');
    await page.getByText('Hello! Ask me to deploy the site to staging.').waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(sent).toEqual([1, 1]);
    expect(problems.filter((problem) => !problem.includes('503'))).toEqual([]);
    await page.context().close();
  });

  it('reads on a phone in the dark', async () => {
    const { page, problems } = await open(PHONE, 'dark');
    await say(page, 'deploy to qa');
    await page.getByRole('button', { name: 'Approve' }).waitFor();
    await shot(page, 'use-chat-phone-dark');
    await checkAccessibility(page, 'main');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
