/**
 * Secrets typed into a page never show in its snapshots or changes, nor in what a query
 * matches: the lines are redacted before they are matched, paged, truncated or compared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor, countOpenAiTokens } from '../src/index.js';
import { startPageServer, type PageServer } from './snapshot-pages.js';

const LONG = 'An account note, long enough to be cut off here:';
/** A field whose value the page echoes into a list item (a container, with a button), and many lines after it. */
const PAGE = `<!doctype html><html><head><title>Echo</title></head><body>
<main>
  <label>Code <input type="text" id="code" oninput="document.getElementById('echo').textContent = '${LONG} ' + this.value"></label>
</main>
<section aria-labelledby="echo"><h2 id="echo">${LONG}</h2>
  ${Array.from({ length: 150 }, (_, i) => `<p>Paragraph ${i} of filler text ${'word '.repeat(i % 7)}</p><a href="#p${i}">Go ${i}</a>`).join('\n')}
</section></body></html>`;

let server: PageServer;
let executor: BrowserExecutor;

beforeAll(async () => {
  server = await startPageServer({
    echo: PAGE,
    // A page whose script replaces what reading the password fields would use (an old polyfill's Array.from, say).
    meddled: `<!doctype html><title>Meddled</title><label>Password <input type="password" value="prefilled-Pa55"></label>
<script>Array.from = function (x) { return Array.prototype.slice.call(x); }; document.querySelectorAll = () => { throw new Error('no'); };</script>`,
    buttons: `<!doctype html><title>Buttons</title><button id="long">${'x'.repeat(45)}correct-horse-battery-staple</button>
<input type="password" id="bare" value="attr-secret-2">`,
  });
  executor = await BrowserExecutor.launch({ timeoutMs: 2_000, countTokens: countOpenAiTokens });
});

afterAll(async () => {
  await executor.close();
  await server.close();
});

describe('secrets in snapshots', () => {
  it('a query cannot tell a secret from a guess, and no part of a secret shows in a cut-short name', async () => {
    const sessionId = await executor.createSession({ secrets: { code: 'sesame42' } });
    const run = (action: string, parameters: Record<string, string | number>) =>
      executor.execute({ sessionId, action, parameters: parameters as Record<string, string> });
    await run('OPEN_PAGE', { url: server.url('echo') });
    const typed = await run('INPUT_TEXT', { selector: '#code', text: 'sesame42' });
    expect(JSON.stringify(typed)).not.toMatch(/sesam/);
    // A name cut short (where the rest of the page is) shows no part of the secret.
    const whole = await run('GET_DOM', { page: 2 });
    expect(whole.snapshot?.page.of).toBeGreaterThan(1);
    expect(whole.snapshot?.text).toMatch(/cut off here: /);
    expect(whole.snapshot?.text).not.toMatch(/here: s/);
    // A part of the secret, or the whole of it, matches no more lines than a wrong guess does.
    for (const [guess, wrong] of [
      ['sesame4', 'sesame5'],
      ['sesame42', 'sesame43'],
    ] as const) {
      const a = await run('GET_DOM', { query: guess });
      const b = await run('GET_DOM', { query: wrong });
      expect(a.snapshot?.matches).toBe(b.snapshot?.matches);
      const same = (text = '') => text.replace(/^Snapshot s\d+/, '').replace(/"(sesame\d+|\$\{code\})"/g, '');
      expect(same(a.snapshot?.text)).toBe(same(b.snapshot?.text));
    }
    await executor.closeSession(sessionId);
  });

  it('hides password fields even on a page that replaces the functions reading them', async () => {
    const sessionId = await executor.createSession();
    const open = await executor.execute({ sessionId, action: 'OPEN_PAGE', parameters: { url: server.url('meddled') } });
    expect(open.success, open.error?.message).toBe(true);
    expect(open.snapshot?.text).toMatch(/textbox "Password" \[ref=e\d+\]: ••••••/);
    expect(JSON.stringify(open)).not.toContain('prefilled-Pa55');
    await executor.closeSession(sessionId);
  });

  it('never shows part of a secret, nor a password value, in what a click reached', async () => {
    const secret = 'correct-horse-battery-staple';
    const sessionId = await executor.createSession({ secrets: { pass: secret } });
    await executor.execute({ sessionId, action: 'OPEN_PAGE', parameters: { url: server.url('buttons') } });
    const long = await executor.execute({ sessionId, action: 'CLICK_ELEMENT', parameters: { selector: '#long' } });
    expect(long.data.clicked).toBe(`button "${'x'.repeat(45)}\${pass}"`);
    expect(JSON.stringify(long)).not.toContain(secret.slice(0, 8));
    const bare = await executor.execute({ sessionId, action: 'CLICK_ELEMENT', parameters: { selector: '#bare' } });
    expect(bare.data.clicked).toBe('input[type=password]');
    await executor.closeSession(sessionId);
  });
});
