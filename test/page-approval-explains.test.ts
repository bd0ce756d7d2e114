/**
 * The approval dialog says why it asks (issue 35, findings 3 and 12), in the system Chromium:
 * a `run_command` of a program the rules do not know, asked by a real `golem serve` process,
 * shows its "unknown" risk with the reason next to it; an MCP tool its server changed after
 * the user trusted it (a real Streamable HTTP server on loopback) shows what the server
 * changed, the description and the input schema before and now. Both are photographed at
 * desktop and phone size, light and dark, and checked with axe-core.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { tempDir } from './helpers.js';
import { NOTES_AFTER, NOTES_BEFORE, notesServer } from './helpers-mcp-notes.js';
import { checkEverywhere, pageHarness, say } from './helpers-page.js';
import { golemServe, killServe } from './helpers-serve-process.js';

const h = pageHarness();

describe('the approval dialog says why it asks', () => {
  it("shows a command's unknown risk with its reason next to the label", async () => {
    const dir = tempDir();
    const command = 'frobnicate --all';
    writeFileSync(join(dir, 'script.json'), JSON.stringify([{ toolCalls: [{ name: 'run_command', input: { command } }] }, { text: 'Not run.' }]));
    const server = await golemServe(dir);
    h.cleanups.push(() => killServe(server));
    const page = await h.open({ pageUrl: `http://127.0.0.1:${server.port}/#token=${server.token}`, token: server.token });
    await say(page, 'Frobnicate everything');
    const dialog = page.getByTestId('approval-dialog');
    await dialog.waitFor();
    const risk = dialog.getByTestId('approval-risk');
    expect(await risk.getAttribute('class')).toContain('risk-unknown');
    expect(await risk.textContent()).toBe('unknown risk');
    // The reason is the one the server judged (read back from its state), shown beside the label and tied to it.
    const { approvals } = (await server.call('GET', '/api/state')).json as { approvals: { details: { riskReason: string } }[] };
    const reason = approvals[0]?.details.riskReason;
    expect(reason).toBe('runs frobnicate, a program the rules do not know');
    const shown = dialog.getByTestId('approval-risk-reason');
    expect(await shown.textContent()).toBe(`Why: ${reason}`);
    expect(await shown.isVisible()).toBe(true);
    expect(await risk.getAttribute('aria-describedby')).toBe(await shown.getAttribute('id'));
    await checkEverywhere(page, 'approval-risk-reason');
    await dialog.getByTestId('approval-no').click();
    await dialog.getByTestId('approval-send-no').click();
    await page.getByTestId('message').filter({ hasText: 'Not run.' }).waitFor();
    expect(existsSync(join(dir, 'frobnicate'))).toBe(false);
  });

  it('shows what the MCP server changed in the tool: its description and input schema, before and now', async () => {
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const notes = await notesServer(h.cleanups);
    const conn = await ws.mcp.connect('notes', { type: 'http', url: notes.url, trust: { tools: { add_note: 'autonomous' } } });
    // The server changes the tool, and says so: the tool trusted as it was now asks.
    notes.change(NOTES_AFTER, 'told');
    await expect.poll(() => conn.actions()[0]?.description ?? '').toContain('mails it to everyone');
    const model = scriptedModel([{ toolCalls: [{ name: 'notes__add_note', input: { text: 'lunch at noon' } }] }, { text: 'Not noted.' }]);
    const { server } = await h.started({ model, actions: conn.actions() }, ws);
    const page = await h.open(server);
    await say(page, 'Note lunch at noon');
    const dialog = page.getByTestId('approval-dialog');
    await dialog.waitFor();
    const change = dialog.getByTestId('approval-change');
    expect(await change.locator('h3').textContent()).toBe('What the server changed');
    expect(await change.getByTestId('approval-change-description-before').textContent()).toBe(NOTES_BEFORE);
    expect(await change.getByTestId('approval-change-description-now').textContent()).toBe(NOTES_AFTER);
    // The input schema as a line diff: the added `to` is marked added.
    const added = await change.locator('[data-testid="approval-change-schema"] .diff-line.add').allTextContents();
    const removed = await change.locator('[data-testid="approval-change-schema"] .diff-line.del').allTextContents();
    const kept = await change.locator('[data-testid="approval-change-schema"] .diff-line.ctx').allTextContents();
    expect(added.join('\n')).toContain('"to": {');
    // What stayed is shown once, as kept: neither taken away nor added again.
    expect(kept.join('\n')).toContain('"$schema"');
    expect(kept.join('\n')).toContain('"text": {');
    for (const line of [...added, ...removed]) expect(line).not.toMatch(/"\$schema"|"text"/);
    await checkEverywhere(page, 'approval-tool-change');
    await dialog.getByTestId('approval-no').click();
    await dialog.getByTestId('approval-send-no').click();
    await page.getByTestId('message').filter({ hasText: 'Not noted.' }).waitFor();
    expect(notes.calls).toEqual([]);
  });
});
