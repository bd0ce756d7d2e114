/**
 * An MCP server's tool under golem serve's page (Chromium): a supervised tool asks in the
 * approval dialog, showing its server, the exact call and the tool's hints, and runs after yes.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
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
