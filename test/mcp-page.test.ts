/**
 * An MCP server's tool under golem serve's page (Chromium): a supervised tool asks in the
 * approval dialog, showing its server, the exact call and the tool's hints, and runs after yes.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import type { ElicitationAnswer, ElicitationRequest } from '../src/mcp/index.js';
import { scriptedModel } from '../src/test/index.js';
import { checkAccessibility, pageHarness, say, shot } from './helpers-page.js';

const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
const h = pageHarness();

describe('MCP tools on the page', () => {
  it('a supervised MCP tool asks in the dialog with its server, call and hints, and runs after yes', async () => {
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const conn = await ws.mcp.connect('everything', { command: process.execPath, args: [EVERYTHING, 'stdio'] });
    const model = scriptedModel([{ toolCalls: [{ name: 'everything__get-sum', input: { a: 20, b: 22 } }] }, { text: 'The sum is 42.' }]);
    const { server } = await h.started({ model, actions: conn.actions() }, ws);
    const page = await h.open(server);
    await say(page, 'Add 20 and 22');
    const dialog = page.getByTestId('approval-dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('approval-description').textContent()).toBe('everything · get-sum {"a":20,"b":22} (MCP; read-only)');
    expect(await dialog.getByTestId('approval-risk').textContent()).toContain('low');
    await checkAccessibility(page, 'body');
    await shot(page, 'mcp-approval');
    await dialog.getByTestId('approval-yes').click();
    await page.getByTestId('message').filter({ hasText: 'The sum is 42.' }).waitFor();
    expect(JSON.stringify(model.calls[1]?.messages.at(-1))).toContain('The sum of 20 and 22 is 42');
  });
});

describe('MCP elicitation on the page', () => {
  it("a server's request for input is a form on the page; the values go back typed, and the form goes", async () => {
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const page: { elicit?: (r: ElicitationRequest) => Promise<ElicitationAnswer> } = {};
    const conn = await ws.mcp.connect(
      'everything',
      { command: process.execPath, args: [EVERYTHING, 'stdio'], trust: { default: 'autonomous' } },
      { onElicitation: (r) => page.elicit?.(r) ?? Promise.resolve({ action: 'cancel' }) },
    );
    const model = scriptedModel([{ toolCalls: [{ name: 'everything__trigger-elicitation-request', input: {} }] }, { text: 'Thanks, Ada.' }]);
    const { server } = await h.started({ model, actions: conn.actions() }, ws);
    page.elicit = (r) => server.elicit(r);
    const tab = await h.open(server);
    await say(tab, 'Ask me');
    const form = tab.locator('[data-testid="ui-instance"][data-instance-id^="mcp-elicitation-"]');
    await form.waitFor();
    expect(await form.locator('h3').textContent()).toBe('everything asks: Please provide inputs for the following fields:');
    // Sent without its required name, it is asked again, saying what to fix.
    await form.getByTestId('action-accept').click();
    await form.getByTestId('field-__fix').waitFor();
    expect(await form.getByTestId('field-__fix').inputValue()).toBe('String is required.');
    await form.getByTestId('field-name').fill('Ada Lovelace');
    await form.getByTestId('field-check').check();
    await form.getByTestId('field-integer').fill('7');
    await form.getByTestId('field-untitledSingleSelectEnum').selectOption('Joey');
    await checkAccessibility(tab, 'body');
    await shot(tab, 'mcp-elicitation');
    await form.getByTestId('action-accept').click();
    await tab.getByTestId('message').filter({ hasText: 'Thanks, Ada.' }).waitFor();
    const told = JSON.stringify(model.calls[1]?.messages.at(-1));
    expect(told).toContain('User provided the requested information');
    expect(told).toContain('- Name: Ada Lovelace');
    expect(told).toContain('Agreed to terms: true');
    // Answered, the question's form goes.
    await expect.poll(() => form.count()).toBe(0);
    expect(ws.ui.list()).toEqual([]);
  });

  it('a question the server gives up on, or that golem serve closes on, leaves with its form and answers cancel', async () => {
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const { server } = await h.started(undefined, ws);
    const asked = {
      server: 'demo',
      mode: 'form' as const,
      message: 'Your name?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
    };
    const giveUp = new AbortController();
    const first = server.elicit(asked, giveUp.signal);
    await expect.poll(() => ws.ui.list().length).toBe(1);
    giveUp.abort();
    expect(await first).toEqual({ action: 'cancel' });
    expect(ws.ui.list()).toEqual([]);
    const second = server.elicit(asked);
    await expect.poll(() => ws.ui.list().length).toBe(1);
    await server.close();
    expect(await second).toEqual({ action: 'cancel' });
  });
});

describe('MCP prompts on the page', () => {
  it("a server's prompts are offered as slash commands while one is typed; the message sent is what the prompt expands to", async () => {
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    await ws.mcp.connect('everything', { command: process.execPath, args: [EVERYTHING, 'stdio'] });
    const model = scriptedModel([{ text: 'Sunny in Paris.' }]);
    const { server } = await h.started({ model }, ws);
    // The message without its argument is refused (400), on purpose.
    const page = await h.open(server, { expectedErrors: /status of 400/ });
    const input = page.getByTestId('chat-input');
    await input.fill('/mcp__everything__');
    const offered = page.getByTestId('composer-command');
    await expect.poll(() => offered.count()).toBe(4);
    expect(await page.getByTestId('composer-commands').textContent()).toContain('/mcp__everything__args-prompt <city> [state]');
    await checkAccessibility(page, 'body');
    await input.fill('/mcp__everything__ar');
    await input.press('Tab');
    expect(await input.inputValue()).toBe('/mcp__everything__args-prompt ');
    // A missing required argument is named, and nothing is sent.
    await input.press('Enter');
    await page.getByTestId('status-line').filter({ hasText: 'needs city' }).waitFor();
    expect(model.calls).toHaveLength(0);
    await input.fill('/mcp__everything__args-prompt Paris');
    await input.press('Enter');
    await page.getByTestId('message').filter({ hasText: 'Sunny in Paris.' }).waitFor();
    expect(JSON.stringify(model.calls[0]?.messages.at(-1))).toContain("What's weather in Paris?");
    await page.getByTestId('message').filter({ hasText: "What's weather in Paris?" }).waitFor();
    await shot(page, 'mcp-prompt');
  });
});
