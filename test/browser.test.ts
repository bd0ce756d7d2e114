/**
 * The browser executor in a real Chromium, command by command: results, typed errors,
 * snapshots and what they hide, and the browser state kept in the workspace.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor, compactSnapshot, createWorkspace, GolemError, redactSecrets, type LaunchedBrowser, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { startTaskServer, type TaskServer } from './web-tasks/server.js';
import { tempDir } from './helpers.js';

let server: TaskServer;
let ws: Workspace;
let browser: LaunchedBrowser;

beforeAll(async () => {
  server = await startTaskServer();
  ws = await createWorkspace();
  browser = await ws.browser.launch({ timeoutMs: 1_000 });
});

afterAll(async () => {
  await browser.close();
  await ws.close();
  await server.close();
});

async function openTab(secrets?: Record<string, string>) {
  const session = await ws.sessions.create();
  return browser.open({ session, ...(secrets !== undefined && { secrets }) });
}

describe('the executor', () => {
  it('answers each command with its result, the page after it and its timing', async () => {
    const tab = await openTab();
    try {
      const open = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: server.taskUrl('table-lookup', 4, 'cmd') } });
      expect(open).toMatchObject({ success: true, action: 'OPEN_PAGE', data: { status: 200 }, page: { title: 'Price list' } });
      expect(open.timing.durationMs).toBeGreaterThan(0);
      expect(Date.parse(open.timing.startedAt)).not.toBeNaN();
      expect(open.snapshot?.id).toBe('s1');
      expect(open.snapshot?.text).toMatch(/^ {2}textbox "Price" \[ref=e\d+\]$/m);
      // The product named in the query, and its price in the next cell.
      const product = /Find the price of "([^"]+)"/.exec(open.snapshot?.text ?? '')?.[1] as string;
      const price = new RegExp(`^\\s*${product} \\[ref=[^\\]]+\\] \\| ([^|\\n]+) \\[ref=([^\\]]+)\\]`, 'm').exec(open.snapshot?.text ?? '');
      expect(price).not.toBeNull();
      const saved = await tab.execute({ action: 'SAVE_VARIABLE', parameters: { selector: `ref=${price?.[2] as string}`, variableName: 'price' } });
      expect(saved).toMatchObject({ success: true, data: { variableName: 'price', value: price?.[1] } });
      expect(tab.variables()).toEqual({ price: price?.[1] });
      const typed = await tab.execute({ action: 'INPUT_TEXT', parameters: { selector: '#price', text: '${price}' } });
      expect(typed.success).toBe(true);
      expect(await tab.page().inputValue('#price')).toBe(price?.[1]);
      // On the same page, INPUT_TEXT answers with what changed: the field, with the ref it had.
      const field = /textbox "Price" \[ref=(e\d+)\]/.exec(open.snapshot?.text ?? '')?.[1] as string;
      expect(typed.snapshot).toBeUndefined();
      expect(typed.changes?.text).toBe(`Changes since s1, now s2:\n~ textbox "Price" [ref=${field}]: ${price?.[1] as string}`);
      const dom = await tab.execute({ action: 'GET_DOM', parameters: {} });
      expect(dom).toMatchObject({ success: true, snapshot: { id: 's3' } });
      expect(dom.snapshot?.text).toMatch(/^Snapshot s3: Price list \(/);
      // The field shows what was typed, with the same ref as before (the element is the same).
      expect(dom.snapshot?.text).toContain(`textbox "Price" [ref=${field}]: ${price?.[1] as string}\n`);
    } finally {
      await tab.close();
    }
  });

  it('gives every failure on the page a typed error, and throws for none of them', async () => {
    const tab = await openTab({ token: 'hunter22' });
    const closedPort = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    try {
      await tab.execute({ action: 'OPEN_PAGE', parameters: { url: server.taskUrl('checkboxes', 2, 'errors') } });
      const cases: [Record<string, string>, string, string][] = [
        [{ action: 'CLICK_ELEMENT', selector: '#nothing-here' }, 'ELEMENT_NOT_FOUND', 'no element matches the selector "#nothing-here" (waited 1000 ms)'],
        [{ action: 'CLICK_ELEMENT', selector: 'input[type=checkbox]' }, 'ELEMENT_AMBIGUOUS', 'matches 6 elements'],
        [{ action: 'CLICK_ELEMENT', selector: 'ref=e9999' }, 'INVALID_ARGUMENT', 'no snapshot of this session showed e9999'],
        [{ action: 'CLICK_ELEMENT', selector: 'ref=s1/e3' }, 'INVALID_ARGUMENT', 'refs look like ref=e7'],
        [{ action: 'CLICK_ELEMENT', selector: 'ref=e2 >> css=span' }, 'SELECTOR_NOT_ALLOWED', 'not chained'],
        [{ action: 'CLICK_ELEMENT', selector: '*internal:control=enter-frame' }, 'SELECTOR_NOT_ALLOWED', 'not allowed'],
        [{ action: 'OPEN_PAGE', url: 'http://127.0.0.1/?t=${token}' }, 'INVALID_ARGUMENT', 'secrets are typed into fields with INPUT_TEXT'],
        [{ action: 'CLICK_ELEMENT', selector: 'x'.repeat(1_001) }, 'SELECTOR_NOT_ALLOWED', '1000'],
        [{ action: 'INPUT_TEXT', selector: '#nothing', text: '${missing}' }, 'VARIABLE_NOT_FOUND', 'missing'],
        [{ action: 'OPEN_PAGE', url: 'file:///etc/passwd' }, 'URL_NOT_ALLOWED', 'file'],
        [{ action: 'OPEN_PAGE', url: `http://127.0.0.1:${closedPort}/` }, 'BROWSER_ERROR', 'ERR_CONNECTION_REFUSED'],
        [{ action: 'TELEPORT' }, 'INVALID_ARGUMENT', 'the browser has no command "TELEPORT"'],
        [{ action: 'INPUT_TEXT', selector: '#x' }, 'INVALID_ARGUMENT', 'INPUT_TEXT parameters are not valid: text:'],
        [{ action: 'SAVE_VARIABLE', selector: 'h1', variableName: 'token' }, 'INVALID_ARGUMENT', 'the name of a secret'],
      ];
      for (const [{ action, ...parameters }, code, message] of cases) {
        const result = await tab.execute({ action: action as 'CLICK_ELEMENT', parameters });
        expect(result, `${action} ${JSON.stringify(parameters).slice(0, 80)}`).toMatchObject({ success: false, action, error: { code } });
        expect(result.error?.message).toContain(message);
        expect(result.page.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tasks\/checkboxes|^chrome-error:/);
      }
      // Nothing was saved by the failures.
      expect(tab.variables()).toEqual({});
    } finally {
      await tab.close();
    }
  });

  it('refuses a command for a session that is not open, and a session id taken twice', async () => {
    await expect(browser.executor.execute({ sessionId: 'nope', action: 'GET_DOM', parameters: {} })).rejects.toMatchObject({
      code: 'BROWSER_SESSION_NOT_FOUND',
    });
    const id = await browser.executor.createSession({ id: 'twice' });
    await expect(browser.executor.createSession({ id })).rejects.toMatchObject({ code: 'DUPLICATE_ID' });
    await browser.executor.closeSession(id);
    expect(browser.executor.sessions()).not.toContain(id);
  });

  it('hides password values and secrets in every snapshot, and never saves a secret', async () => {
    const tab = await openTab({ pass: 'sesame42' });
    try {
      await tab.execute({ action: 'OPEN_PAGE', parameters: { url: server.taskUrl('login', 8, 'hide') } });
      await tab.execute({ action: 'INPUT_TEXT', parameters: { selector: '#username', text: 'sesame42' } });
      await tab.execute({ action: 'INPUT_TEXT', parameters: { selector: '#password', text: 'not-a-secret-but-a-password' } });
      const dom = await tab.execute({ action: 'GET_DOM', parameters: {} });
      const text = dom.snapshot?.text ?? '';
      expect(text).toMatch(/textbox "Password" \[ref=e\d+\]: ••••••/);
      expect(text).not.toContain('not-a-secret-but-a-password');
      expect(text).toMatch(/textbox "Username" \[ref=e\d+\]: \$\{pass\}/);
      expect(text).not.toContain('sesame42');
      const saved = await tab.execute({ action: 'SAVE_VARIABLE', parameters: { selector: '#username', variableName: 'user' } });
      expect(saved).toMatchObject({
        success: false,
        error: { code: 'INVALID_ARGUMENT', message: 'the element holds a secret; secrets cannot be saved as variables' },
      });
      expect(tab.variables()).toEqual({});
    } finally {
      await tab.close();
    }
  });

  it('refuses flags that would undo the allowlist', async () => {
    const error = await BrowserExecutor.launch({ security: { allowedDomains: ['127.0.0.1'] }, args: ['--host-resolver-rules=MAP app.test 127.0.0.1'] }).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringContaining('--host-resolver-rules cannot be given with allowedDomains') as unknown,
    });
  });

  it('hides secrets in one pass: a placeholder is never redacted again', () => {
    const secrets = { user: 'admin', admin_password: 'hunter2' };
    const once = redactSecrets('admin logs in with hunter2 (hunter%202? no: hunter2)', secrets);
    expect(once).toBe('${user} logs in with ${admin_password} (hunter%202? no: ${admin_password})');
    expect(redactSecrets(once, secrets)).toBe(once);
  });

  it('is unavailable, with a clear error, when Chromium cannot be started', async () => {
    const error = await BrowserExecutor.launch({ executablePath: '/nonexistent/chromium' }).catch((e: unknown) => e);
    expect(GolemError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'BROWSER_UNAVAILABLE', message: expect.stringContaining('/nonexistent/chromium could not be started') as unknown });
  });
});

describe('compact snapshots', () => {
  const aria = [
    '- generic [ref=e1]:',
    '  - banner [ref=e2]:',
    '    - heading "Shop" [level=1] [ref=e3]',
    '  - main [ref=e4]:',
    '    - generic [ref=e5]:',
    '      - link "Home" [ref=e6] [cursor=pointer]:',
    '        - /url: /home',
    '      - combobox "Size" [ref=e7]:',
    '        - option "Small" [selected]',
    '        - option "Large"',
    ...Array.from({ length: 200 }, (_, i) => `      - paragraph [ref=e${100 + i}]: Line ${i} of the terms and conditions`),
    '      - button "Buy" [ref=e8]',
  ].join('\n');

  it('shows each element once, in its place, drops wrappers and keeps within the budget, the rest on later pages', () => {
    const snapshot = compactSnapshot(aria, { id: 's4', url: 'http://shop.test/', title: 'Shop', budget: 300 });
    const lines = snapshot.text.split('\n');
    expect(lines.slice(0, 7)).toEqual([
      expect.stringMatching(/^Snapshot s4: Shop \(http:\/\/shop\.test\/\) · page 1 of \d+$/) as unknown,
      'banner',
      '  h1 "Shop"',
      'main',
      '  link "Home" [ref=e6]',
      '  combobox "Size" [ref=e7]: options "Small" (selected), "Large"',
      '  Line 0 of the terms and conditions',
    ]);
    expect(snapshot.text).not.toContain('generic');
    expect(snapshot.text).not.toContain('/url');
    expect(snapshot.text.match(/\[ref=e6\]/g)).toHaveLength(1);
    expect(snapshot.interactive).toBe(3);
    expect(snapshot.tokens).toBeLessThanOrEqual(300);
    expect(snapshot.omitted).toBeGreaterThan(150);
    expect(lines.at(-1)).toMatch(
      /^\(\d+ more lines with 1 interactive elements are on the other \d+ pages, in main \(part\): GET_DOM \{"page":2\} shows page 2/,
    );
    // The last page has the button, under its container.
    const last = compactSnapshot(aria, { id: 's4', url: 'http://shop.test/', title: 'Shop', budget: 300, page: snapshot.page.of });
    expect(last.text).toMatch(/\nmain\n(?: {2}Line \d+ of the terms and conditions\n)* {2}button "Buy" \[ref=e8\]\n/);
    // With room, all of it is there.
    const full = compactSnapshot(aria, { id: 's4', url: 'http://shop.test/', title: 'Shop', budget: 10_000 });
    expect(full.omitted).toBe(0);
    expect(full.text).toContain('Line 199 of the terms');
  });
});

describe('browser state in the workspace', () => {
  it('keeps sessions and saved variables as browser:* state, through a reopen', async () => {
    const dir = tempDir();
    const first = await createWorkspace({ dir });
    const session = await first.sessions.create();
    const chromium = await first.browser.launch();
    try {
      const tab = await chromium.open({ session });
      await tab.execute({ action: 'OPEN_PAGE', parameters: { url: server.taskUrl('late-content', 2, 'state') } });
      expect(await tab.execute({ action: 'SAVE_VARIABLE', parameters: { selector: 'h1', variableName: 'title' } })).toMatchObject({ success: true });
      expect((await tab.execute({ action: 'SAVE_VARIABLE', parameters: { selector: 'h1', variableName: 'bad name!' } })).error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('variableName') as unknown,
      });
      await tab.close();
    } finally {
      await chromium.close();
      await first.close();
    }
    const again = await createWorkspace({ dir });
    expect(again.browser.variables(session.id)).toEqual({ title: 'Secret code' });
    expect(again.browser.sessions(session.id)).toMatchObject([{ sessionId: session.id, status: 'closed' }]);
    await again.close();
  });

  it('closes the browsers a workspace launched when it closes, and records the sessions a crash left open as closed when asked', async () => {
    const dir = tempDir();
    const first = await createWorkspace({ dir });
    const session = await first.sessions.create();
    const chromium = await first.browser.launch();
    const tab = await chromium.open({ session });
    // A session recorded as open by a process that ended without closing it.
    const orphan = await first.manager.dispatch({ type: 'browser:session_open', payload: { sessionId: session.id } });
    expect(orphan.ok).toBe(true);
    await first.close();
    expect(chromium.executor.sessions()).toEqual([]);
    const again = await createWorkspace({ dir });
    expect(again.browser.sessions(session.id).map((r) => [r.id, r.status])).toEqual([
      [tab.id, 'closed'],
      [orphan.ok ? orphan.value.id : '', 'open'],
    ]);
    const relaunched = await again.browser.launch();
    try {
      const live = await relaunched.open({ session });
      expect(await again.browser.closeOrphans()).toEqual([orphan.ok ? orphan.value.id : '']);
      expect(again.browser.sessions(session.id).map((r) => [r.id, r.status])).toEqual([
        [tab.id, 'closed'],
        [orphan.ok ? orphan.value.id : '', 'closed'],
        [live.id, 'open'],
      ]);
    } finally {
      await again.close();
    }
    await tab.close(); // closing twice does nothing
  });

  it('puts a supervised command to the user, and runs it only when approved', async () => {
    const session = await ws.sessions.create();
    const url = server.taskUrl('modal', 6, 'supervised');
    const command = (action: string, parameters: Record<string, string>) => ({
      text: JSON.stringify({
        decision: { action: 'PROCEED', message: action },
        reasoning: { analysis: 'a', rationale: 'r', expectedOutcome: 'e' },
        command: { action, parameters },
      }),
    });
    const model = scriptedModel([
      command('OPEN_PAGE', { url }),
      command('CLICK_ELEMENT', { selector: 'role=button[name="Reject"]' }),
      command('CLICK_ELEMENT', { selector: 'role=button[name="Accept"]' }),
      { text: JSON.stringify({ decision: { action: 'PROCEED', message: 'done' }, reasoning: { analysis: 'a', rationale: 'r', expectedOutcome: 'e' } }) },
    ]);
    const asked: string[] = [];
    const { outcome } = await browser.runTask({
      goal: `Open ${url}`,
      session,
      model,
      trust: { CLICK_ELEMENT: 'supervised' },
      requestApproval: (request) => {
        asked.push(request.description);
        return Promise.resolve(request.description.includes('Reject') ? { approved: true } : { approved: false, reason: 'not that one' });
      },
    });
    expect(outcome.status).toBe('done');
    expect(asked).toEqual(['CLICK_ELEMENT "role=button[name=\\"Reject\\"]"', 'CLICK_ELEMENT "role=button[name=\\"Accept\\"]"']);
    expect(outcome.actions.map((a) => [a.name, a.ok])).toEqual([
      ['OPEN_PAGE', true],
      ['CLICK_ELEMENT', true],
      ['CLICK_ELEMENT', false],
    ]);
    const last = (await session.transcript()).filter((t) => t.role === 'user').at(-1);
    expect(JSON.stringify(last?.blocks)).toContain('not that one');
    // A browser task is a run of its session like any other (ws.runs): recorded, and one at a time.
    expect(ws.runs.list({ sessionId: session.id }).runs).toEqual([
      expect.objectContaining({
        status: 'succeeded',
        outcome: 'done',
        by: expect.stringContaining('browser task'),
        usage: expect.objectContaining({ modelCalls: 4 }),
      }),
    ]);
    const held = await ws.runs.claim(session.id);
    await expect(browser.runTask({ goal: 'again', session, model })).rejects.toMatchObject({ code: 'SESSION_BUSY' });
    await held.drop();
    expect(ws.browser.sessions(session.id).filter((r) => r.status === 'open')).toEqual([]);
  });
});
