/**
 * The approval dialog takes a deliberate act (issue 35, finding 1): in the system Chromium
 * against a real `golem serve` process and the scripted model. A read of a named pipe holds
 * the run while the user types a follow-up, so the dialog comes mid-sentence. Keys typed on
 * do not approve, nor does a press of Yes while the dialog's short wait lasts; a press after
 * it does. The dialog's own look (finding 7) is photographed at desktop and phone size,
 * light and dark, and checked with axe-core.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { checkEverywhere, DESKTOP, pageHarness, say, shot } from './helpers-page.js';
import { golemServe, killServe, until, type ServeProcess } from './helpers-serve-process.js';

const h = pageHarness();

type ApprovalState = { approvals: { id: string; action: string; details: unknown }[] };

/** `golem serve` in a folder holding a named pipe and the model's script; the page open on it. */
async function served(script: unknown[], viewport: { width: number; height: number } = DESKTOP, colorScheme: 'light' | 'dark' = 'light') {
  const dir = tempDir();
  execFileSync('mkfifo', [join(dir, 'pipe')]);
  writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
  const server = await golemServe(dir);
  // Killed after the tab closes (the harness runs its cleanups last first): the page sees no reset connection.
  h.cleanups.push(() => killServe(server));
  const page = await h.open({ pageUrl: `http://127.0.0.1:${server.port}/#token=${server.token}`, token: server.token }, { viewport, colorScheme });
  return { dir, server, page };
}

/** The test id of the element that has focus. */
const focused = (page: Page) => page.locator(':focus').getAttribute('data-testid');

const pending = async (server: ServeProcess) => ((await server.call('GET', '/api/state')).json as ApprovalState).approvals;

/** Types `text` while the dialog is not there yet; true once it is. */
async function typeUntilDialog(page: Page, text: string): Promise<void> {
  const dialog = page.getByTestId('approval-dialog');
  for (let i = 0; !(await dialog.isVisible()); i++) {
    if (i > 400) throw new Error('the approval dialog never came');
    await page.keyboard.type(text);
  }
}

const readPipe = { toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] };
const runCommand = (command: string) => ({ toolCalls: [{ name: 'run_command', input: { command } }] });

describe('the approval dialog in the page, against golem serve', () => {
  it('takes no keys typed as it opens, nor a press of Yes during its wait; a press after the wait approves', async () => {
    const { dir, server, page } = await served([readPipe, runCommand('echo ran > ran.txt'), { text: 'Ran it.' }]);
    await say(page, 'Tidy up the notes');
    await page.getByTestId('stop').waitFor();
    // The user writes a follow-up while the run reads; the run goes on and asks to run a command.
    await page.getByTestId('chat-input').focus();
    await page.keyboard.type('and also');
    await writeFile(join(dir, 'pipe'), 'go');
    await typeUntilDialog(page, ' the');
    const dialog = page.getByTestId('approval-dialog');
    // Focus is not on an approving button: the keys typed on (space and Enter among them) answer nothing.
    expect(await focused(page)).toBe('approval-dialog');
    await page.keyboard.type(' README please ');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Space');
    // A keyboard user who goes straight to Yes and presses it while still typing: the dialog is still waiting.
    const yes = dialog.getByTestId('approval-yes');
    for (let i = 0; (await focused(page)) !== 'approval-yes'; i++) {
      if (i > 10) throw new Error('Tab never reached Yes');
      await page.keyboard.press('Tab');
    }
    await page.keyboard.type('x');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Space');
    // And a click of a real pointer right after a key: ignored too (as Chrome ignores a click right after its prompt shows).
    await page.keyboard.type('x');
    await yes.click({ force: true });
    await dialog.getByTestId('approval-always').click({ force: true });
    expect(await yes.getAttribute('aria-disabled')).toBe('true');
    const [waiting] = await pending(server);
    expect(waiting).toMatchObject({ action: 'run_command' });
    await shot(page, 'approval-guard-waiting');
    expect(existsSync(join(dir, 'ran.txt'))).toBe(false);

    // Once the keys stop, the buttons take a press: a deliberate Enter on Yes approves.
    await until('Yes to take a press', async () => ((await yes.getAttribute('aria-disabled')) === 'false' ? true : undefined));
    expect(await pending(server)).toEqual([waiting]);
    await yes.focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('message').filter({ hasText: 'Ran it.' }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(readFileSync(join(dir, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(await pending(server)).toEqual([]);
  });

  it("is Golem's own: a system band with the shield, who asks and the action; a command's hidden direction controls shown", async () => {
    // A right-to-left override turns "cat notes<RLO>hs.txt" into what reads as "cat notestxt.sh".
    const command = 'cat notes\u202ehs.txt';
    const { dir, server, page } = await served([runCommand(command), { text: 'Not run.' }]);
    await say(page, 'Show me the notes');
    const dialog = page.getByTestId('approval-dialog');
    await dialog.waitFor();
    const band = dialog.getByTestId('approval-system');
    expect(await band.textContent()).toContain('Golem asks');
    expect(await band.textContent()).toContain('run_command');
    expect(await band.locator('svg.approval-shield').count()).toBe(1);
    // What the user approves shows each control as its code; none is left in the text to turn it round.
    for (const what of [dialog.getByTestId('approval-description'), dialog.getByTestId('approval-details')]) {
      const text = (await what.textContent()) ?? '';
      expect(text).toContain('cat notes⟨U+202E⟩hs.txt');
      expect(text).not.toContain('\u202e');
    }
    // The call's line in the chat behind says the same.
    expect(await page.getByTestId('tool-call').and(page.locator('[data-name="run_command"]')).first().locator('.tool-gist').textContent()).toBe(
      'cat notes⟨U+202E⟩hs.txt',
    );
    // The server holds the command as the model wrote it: only its showing changed.
    expect((await pending(server))[0]?.details).toMatchObject({ command });
    await checkEverywhere(page, 'approval-own');
    await dialog.getByTestId('approval-no').click();
    await dialog.getByTestId('approval-send-no').click();
    await page.getByTestId('message').filter({ hasText: 'Not run.' }).waitFor();
    expect(existsSync(join(dir, 'notes\u202ehs.txt'))).toBe(false);
  });
});
