/**
 * The page's layout (issue 20) in the system Chromium against `golem serve` and the scripted
 * model: one pane at a time on a phone with the chat first, dark mode (the system's, or the
 * user's choice kept), the open session in the address, clearance decisions in view, a sent
 * form no longer live, forms shown only with their own conversation, and Esc stopping an
 * answer. Screenshots go to test-results/screenshots/ (layout-*).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createWorkspace, projectActions, type PatchInput } from '../src/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { deployAction, tempDir } from './helpers.js';
import { DESKTOP, PHONE, checkAccessibility, pageHarness, say, shot, type OpenOptions } from './helpers-page.js';

const h = pageHarness();

function buildForm(id: string, title: string): PatchInput[] {
  return [
    {
      instanceId: '__CREATE__',
      newInstanceId: id,
      patches: [{ op: 'set', path: 'meta', value: { pageKey: title, step: { current: 1, total: 2 }, status: 'idle' } }],
    },
    {
      instanceId: id,
      patches: [
        {
          op: 'add',
          path: 'blocks+',
          items: [
            {
              id: 'details',
              type: 'form',
              bind: 'state.params',
              props: {
                fields: [
                  { label: 'Name', key: 'name', type: 'text' },
                  { label: 'Send me news', key: 'news', type: 'checkbox' },
                ],
              },
            },
          ],
        },
        { op: 'add', path: 'actions+', items: [{ id: 'submit', label: 'Send', style: 'primary' }] },
      ],
    },
  ];
}
const patchCalls = (inputs: PatchInput[]) => inputs.map((input) => ({ name: 'patch_ui_state', input: input as never }));

const LONG_ANSWER = Array.from(
  { length: 24 },
  (_, i) => `Paragraph ${i + 1}: the plan goes on, step by step, so the conversation is longer than the screen.`,
).join('\n\n');

/**
 * A workspace as a user has it after a while: a conversation longer than the screen, a sub-worker
 * done, three clearance items waiting (a staged commit, two binary outputs), and three forms open.
 */
async function busyScene(options: OpenOptions = {}): Promise<{ page: Page; sessionId: string }> {
  const root = tempDir();
  execFileSync('git', ['init', '-q', root]);
  writeFileSync(join(root, 'README.md'), '# Demo\n');
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'guide.md'), '# Guide\n');
  execFileSync('git', ['-C', root, 'add', '.']);
  execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'start']);
  const ws = await createWorkspace({ dir: join(root, '.golem') });
  h.cleanups.push(() => ws.close());
  const steps: ScriptStep[] = [
    { text: 'Let me hand the README check to a helper.', toolCalls: [{ name: 'spawn_worker', input: { task: 'Check the README' } }] },
    { text: 'The README is fine.' },
    {
      text: 'Staging three changes.',
      toolCalls: [
        { name: 'write_file', input: { path: 'README.md', content: '# Demo\n\nInstall with npm.\n' } },
        { name: 'write_file', input: { path: 'docs/guide.md', content: '# Guide\n\nStart here.\n' } },
        // Files that are not text wait on their own: three items in all.
        { name: 'write_file', input: { path: 'logo.bin', content: 'PNG\u0000\u0001\u0002' } },
        { name: 'write_file', input: { path: 'data.bin', content: 'DAT\u0000\u0003\u0004' } },
      ],
    },
    {
      text: 'And three forms.',
      toolCalls: patchCalls([...buildForm('signup', 'Sign-up'), ...buildForm('survey', 'Survey'), ...buildForm('settings', 'Settings')]),
    },
    { text: LONG_ANSWER },
  ];
  const { server } = await h.started({ model: scriptedModel(steps), actions: projectActions(), project: { root }, subWorkers: true }, ws);
  const page = await h.open(server, options);
  await say(page, 'Set up the project');
  await page.getByTestId('message').filter({ hasText: 'Paragraph 24' }).waitFor();
  await expect.poll(() => page.getByTestId('clearance-item').count()).toBe(3);
  await expect.poll(() => page.getByTestId('ui-instance').count()).toBe(3);
  await expect.poll(() => page.getByTestId('worker-node').getAttribute('data-status')).toMatch(/^(done|complete)$/);
  const sessionId = (await page.getByTestId('session-item').first().getAttribute('data-session-id')) as string;
  return { page, sessionId };
}

// In-page code as text: the tests are compiled without the DOM's types.

/** Each element matching `selector` is drawn inside the window, and a click at its centre reaches it (nothing covers or clips it). */
async function reachable(page: Page, selector: string): Promise<boolean[]> {
  return page.evaluate<boolean[]>(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((el) => {
    const r = el.getBoundingClientRect();
    const inside = r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return inside && hit !== null && (hit === el || el.contains(hit));
  })`);
}

/** The page's background is dark: each channel under 64 (rgb(15, 18, 23) in dark, rgb(246, 247, 249) in light). */
async function isDark(page: Page): Promise<boolean> {
  const color = await page.evaluate<string>('getComputedStyle(document.documentElement).backgroundColor');
  const rgb = color.match(/\d+/g)?.map(Number) ?? [];
  return rgb.length >= 3 && rgb.slice(0, 3).every((c) => c < 64);
}

/** How far the conversation is scrolled from its end, in pixels. */
function fromEnd(page: Page): Promise<number> {
  return page.evaluate<number>(
    `(() => { const el = document.querySelector('[data-testid="chat-log"]'); return el.scrollHeight - el.scrollTop - el.clientHeight; })()`,
  );
}

/** The message box's placeholder, its width in the box's font, and the room the box gives it. */
function placeholderFit(page: Page): Promise<{ text: string; width: number; room: number }> {
  return page.evaluate(`(() => {
    const el = document.querySelector('[data-testid="chat-input"]');
    const style = getComputedStyle(el);
    const context = document.createElement('canvas').getContext('2d');
    context.font = style.fontSize + ' ' + style.fontFamily;
    const room = el.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    return { text: el.placeholder, width: context.measureText(el.placeholder).width, room };
  })()`);
}

describe('the page: layout, dark mode, phone, address', () => {
  it('on a phone shows one pane at a time, the chat first and whole, the others through tabs, the message box above the keyboard', async () => {
    const { page } = await busyScene({ viewport: PHONE });
    const tabs = page.getByTestId('pane-tabs');
    expect(await tabs.isVisible()).toBe(true);
    expect(await page.getByTestId('pane-chat').getAttribute('aria-pressed')).toBe('true');
    // The chat takes the screen; nothing else is drawn beside or under it.
    const chat = await page.locator('.chat').boundingBox();
    expect(chat?.x).toBe(0);
    expect(chat?.width).toBe(PHONE.width);
    expect(await page.locator('.sidebar').isVisible()).toBe(false);
    expect(await page.locator('.side-panel').isVisible()).toBe(false);
    // Nothing wider than the screen, and the message box's placeholder fits in it.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    const fits = await placeholderFit(page);
    expect(fits.text).not.toBe('');
    expect(fits.width).toBeLessThanOrEqual(fits.room);
    expect(await reachable(page, '[data-testid="chat-input"], [data-testid="send"]')).toEqual([true, true]);
    // The counts tell what waits in the other panes.
    expect(await page.getByTestId('pane-forms').textContent()).toContain('3');
    await shot(page, 'layout-phone-chat');

    // Clearance: its decisions in view without scrolling.
    await page.getByTestId('pane-clearance').click();
    expect(await page.locator('.chat').isVisible()).toBe(false);
    expect(await page.getByTestId('clearance-panel').isVisible()).toBe(true);
    expect(await reachable(page, '[data-testid="clearance-push"]')).not.toContain(false);
    expect(await reachable(page, '[data-testid="clearance-discard"]')).not.toContain(false);
    await shot(page, 'layout-phone-clearance');
    await page.getByTestId('pane-forms').click();
    await page.getByTestId('ui-instance').first().waitFor({ state: 'visible' });
    expect(await page.getByTestId('clearance-panel').isVisible()).toBe(false);
    await shot(page, 'layout-phone-forms');
    await page.getByTestId('pane-workers').click();
    await page.getByTestId('worker-tree').waitFor({ state: 'visible' });
    await shot(page, 'layout-phone-workers');
    // Back to the chat: where the reader left it, at the latest message.
    await page.getByTestId('pane-chat').click();
    await page.locator('.chat').waitFor({ state: 'visible' });
    expect(await fromEnd(page)).toBeLessThan(2);
    // Scrolled back to read, then away to another pane and back: still there.
    const chatLog = `document.querySelector('[data-testid="chat-log"]')`;
    await page.evaluate(`${chatLog}.scrollTo({ top: 300 })`);
    await page.getByTestId('chat-log').dispatchEvent('scroll');
    await page.getByTestId('pane-forms').click();
    await page.getByTestId('pane-chat').click();
    expect(await page.evaluate<number>(`${chatLog}.scrollTop`)).toBe(300);
    await page.evaluate(`${chatLog}.scrollTo({ top: ${chatLog}.scrollHeight })`);
    await page.getByTestId('chat-log').dispatchEvent('scroll');
    // Choosing a session goes back to its chat.
    await page.getByTestId('pane-sessions').click();
    await page.getByTestId('session-item').first().click();
    await page.locator('.chat').waitFor({ state: 'visible' });
    expect(await page.getByTestId('pane-chat').getAttribute('aria-pressed')).toBe('true');

    // The on-screen keyboard takes half the screen: the box and the send button stay in view, the conversation above them.
    await page.getByTestId('chat-input').focus();
    await page.setViewportSize({ width: PHONE.width, height: 420 });
    await expect.poll(() => reachable(page, '[data-testid="chat-input"], [data-testid="send"]')).toEqual([true, true]);
    const log = await page.getByTestId('chat-log').boundingBox();
    expect(log?.height ?? 0).toBeGreaterThan(120);
    // Still at the end of the conversation: the latest message in view above the box.
    await expect.poll(() => fromEnd(page)).toBeLessThan(2);
    await shot(page, 'layout-phone-keyboard');
  });

  it('keeps clearance decisions in view at desktop size, with a long conversation, three forms and several items', async () => {
    const { page } = await busyScene({ viewport: DESKTOP });
    expect(await reachable(page, '[data-testid="clearance-push"]')).toEqual([true, true, true]);
    expect(await reachable(page, '[data-testid="clearance-discard"]')).toEqual([true, true, true]);
    await shot(page, 'layout-desktop-clearance');
    // A tablet: the panels share the left column, and the chat keeps a readable width.
    await page.setViewportSize({ width: 820, height: 1180 });
    expect((await page.locator('.chat').boundingBox())?.width ?? 0).toBeGreaterThanOrEqual(500);
    expect(await reachable(page, '[data-testid="clearance-push"]')).toEqual([true, true, true]);
    await shot(page, 'layout-tablet');
  });

  it('passes axe-core at desktop and phone size, light and dark, in every pane, and looks right in each', async () => {
    const { page } = await busyScene({ viewport: DESKTOP });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await isDark(page)).toBe(scheme === 'dark');
      await page.setViewportSize(DESKTOP);
      await page.getByTestId('clearance-open').first().click();
      await page.getByTestId('clearance-diff').first().waitFor();
      await checkAccessibility(page, 'body');
      await shot(page, `layout-desktop-${scheme}`);
      await page.getByTestId('clearance-open').first().click();
      await page.setViewportSize(PHONE);
      for (const pane of ['chat', 'sessions', 'workers', 'forms', 'clearance'] as const) {
        await page.getByTestId(`pane-${pane}`).click();
        await checkAccessibility(page, 'body');
        await shot(page, `layout-phone-${scheme}-${pane}`);
      }
      await page.getByTestId('pane-chat').click();
    }
  });

  it('follows the system theme, and the toggle (light, dark, system) overrides it and is kept', async () => {
    const { server } = await h.started({ model: scriptedModel([{ text: 'Hello.' }]) });
    const page = await h.open(server, { colorScheme: 'dark' });
    expect(await isDark(page)).toBe(true);
    const toggle = page.getByTestId('theme-toggle');
    expect(await toggle.inputValue()).toBe('system');
    await toggle.selectOption('light');
    expect(await isDark(page)).toBe(false);
    await page.reload();
    await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
    expect(await isDark(page)).toBe(false);
    expect(await page.getByTestId('theme-toggle').inputValue()).toBe('light');
    await page.getByTestId('theme-toggle').selectOption('system');
    expect(await isDark(page)).toBe(true);
    // The system says light: dark chosen still wins.
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await isDark(page)).toBe(false);
    await page.getByTestId('theme-toggle').selectOption('dark');
    expect(await isDark(page)).toBe(true);
  });

  it('puts the open session in the address: a reload, back and forward, and a link open it; the token stays out', async () => {
    const answer: ScriptStep = (prompt) => ({ text: `Answer to ${JSON.stringify(prompt.messages.at(-1)).includes('first') ? 'first' : 'second'}` });
    const { server } = await h.started({ model: scriptedModel([answer, answer]) });
    const page = await h.open(server);
    await say(page, 'The first question');
    await page.getByTestId('message').filter({ hasText: 'Answer to first' }).waitFor();
    const first = (await page.getByTestId('session-item').first().getAttribute('data-session-id')) as string;
    expect(new URL(page.url()).searchParams.get('session')).toBe(first);
    await expect.poll(() => page.title()).toBe('The first question · Golem');
    await page.getByTestId('new-session').click();
    await expect.poll(() => new URL(page.url()).searchParams.get('session')).not.toBe(first);
    await say(page, 'The second question');
    await page.getByTestId('message').filter({ hasText: 'Answer to second' }).waitFor();
    const second = new URL(page.url()).searchParams.get('session') as string;
    expect(second).not.toBe(first);
    const current = () => page.locator('.session-item.current').getAttribute('data-session-id');
    // Back: the first session; forward: the second.
    await page.goBack();
    await page.getByTestId('message').filter({ hasText: 'Answer to first' }).waitFor();
    expect(await current()).toBe(first);
    await page.goForward();
    await page.getByTestId('message').filter({ hasText: 'Answer to second' }).waitFor();
    expect(await current()).toBe(second);
    // A reload keeps the session the address names (the first, though the second is the more recent).
    await page
      .getByTestId('session-item')
      .and(page.locator(`[data-session-id="${first}"]`))
      .click();
    await page.getByTestId('message').filter({ hasText: 'Answer to first' }).waitFor();
    await page.reload();
    await page.getByTestId('message').filter({ hasText: 'Answer to first' }).waitFor();
    expect(await current()).toBe(first);
    expect(page.url()).not.toContain(server.token);
    // A link, in a new browser: the address golem serve printed, with the session added.
    const other = await (await h.browser.newContext({ viewport: DESKTOP })).newPage();
    h.cleanups.push(() => other.context().close());
    await other.goto(`${server.pageUrl}&session=${first}`);
    await other.getByTestId('message').filter({ hasText: 'Answer to first' }).waitFor();
    expect(new URL(other.url()).searchParams.get('session')).toBe(first);
    expect(other.url()).not.toContain(server.token);
  });

  it('a sent form is no longer live until the model changes it; a form shows only with its own conversation, even one built later elsewhere', async () => {
    const steps: ScriptStep[] = [
      { text: 'Here is the form.', toolCalls: patchCalls(buildForm('signup', 'Sign-up')) },
      { text: 'Fill it in.' },
      { text: 'Thanks, I have it.' },
      {
        text: 'Opening it again.',
        toolCalls: patchCalls([{ instanceId: 'signup', patches: [{ op: 'set', path: 'meta.step', value: { current: 2, total: 2 } }] }]),
      },
      { text: 'Step two is yours.' },
    ];
    const { ws, server } = await h.started({ model: scriptedModel(steps) });
    const page = await h.open(server);
    await say(page, 'Sign me up');
    const form = page.locator('[data-testid="ui-instance"][data-instance-id="signup"]');
    await page.getByTestId('message').filter({ hasText: 'Fill it in.' }).waitFor();
    await form.getByTestId('field-name').fill('Ada');
    await form.getByTestId('action-submit').click();
    await page.getByTestId('message').filter({ hasText: 'Thanks, I have it.' }).waitFor();
    // Sent: marked so, its fields and its action off (the model did not touch it after the click).
    await expect.poll(() => form.getAttribute('data-sent')).toBe('true');
    expect(await form.getByTestId('field-name').isDisabled()).toBe(true);
    expect(await form.getByTestId('action-submit').isDisabled()).toBe(true);
    expect(await form.getByTestId('ui-sent').textContent()).toContain('Sent');
    expect(await form.getByTestId('field-name').inputValue()).toBe('Ada');
    await shot(page, 'layout-form-sent');
    // A reload: still sent.
    await page.reload();
    await page.getByTestId('message').filter({ hasText: 'Thanks, I have it.' }).waitFor();
    await expect.poll(() => form.getAttribute('data-sent')).toBe('true');
    expect(await form.getByTestId('action-submit').isDisabled()).toBe(true);
    // The model patches it again: live again.
    await say(page, 'Next step');
    await page.getByTestId('message').filter({ hasText: 'Step two is yours.' }).waitFor();
    await expect.poll(() => form.getAttribute('data-sent')).toBe('false');
    expect(await form.getByTestId('field-name').isDisabled()).toBe(false);
    expect(await form.getByTestId('action-submit').isDisabled()).toBe(false);
    const first = (await page.getByTestId('session-item').first().getAttribute('data-session-id')) as string;

    // A new conversation; then the first one's agent (another process, say) builds a form: it is not shown here.
    await page.getByTestId('new-session').click();
    await expect.poll(() => page.getByTestId('ui-instance').count()).toBe(0);
    for (const input of buildForm('elsewhere', 'Elsewhere')) expect((await ws.ui.patch(input, { builtBy: first })).success).toBe(true);
    // A form built outside any conversation shows everywhere; once it is here, the other's has come too.
    for (const input of buildForm('everyone', 'For everyone')) expect((await ws.ui.patch(input)).success).toBe(true);
    await page.locator('[data-testid="ui-instance"][data-instance-id="everyone"]').waitFor();
    expect(await page.locator('[data-testid="ui-instance"][data-instance-id="elsewhere"]').count()).toBe(0);
    expect(await page.locator('[data-testid="ui-instance"][data-instance-id="signup"]').count()).toBe(0);
    // In its own conversation, there it is.
    await page
      .getByTestId('session-item')
      .and(page.locator(`[data-session-id="${first}"]`))
      .click();
    await page.locator('[data-testid="ui-instance"][data-instance-id="elsewhere"]').waitFor();
    await form.waitFor();
  });

  it('Esc stops a running answer like the Stop button, but not while a dialog asks', async () => {
    let release: () => void = () => undefined;
    const { deploy, deploys } = deployAction();
    const model = scriptedModel([
      async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return { text: 'too late' };
      },
      { text: 'Deploying.', toolCalls: [{ name: 'deploy', input: { target: 'production' } }] },
      { text: 'It is live.' },
    ]);
    const { server } = await h.started({ model, actions: [deploy] });
    const page = await h.open(server);
    await say(page, 'Take your time');
    await page.getByTestId('stop').waitFor();
    await page.getByTestId('chat-input').focus();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('status-line').textContent()).toContain('Stopped.');
    await page.getByTestId('stop').waitFor({ state: 'detached' });
    release();
    // While the approval dialog is open, Esc is not a stop: the run waits for the answer.
    await say(page, 'Ship it');
    const dialog = page.getByTestId('approval-dialog');
    await dialog.waitFor();
    // The dialog on a phone in dark: readable, and whole.
    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: 'dark' });
    await checkAccessibility(page, 'body');
    expect(await reachable(page, '[data-testid="approval-yes"]')).toEqual([true]);
    // Nothing behind it takes focus, the phone's tabs included.
    expect(await page.getByTestId('pane-tabs').getAttribute('inert')).not.toBeNull();
    await shot(page, 'layout-phone-dark-approval');
    await page.keyboard.press('Escape');
    await dialog.getByTestId('approval-yes').click();
    await page.getByTestId('message').filter({ hasText: 'It is live.' }).waitFor();
    expect(deploys).toEqual(['production']);
  });
});
