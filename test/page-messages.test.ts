/**
 * The page's messages and tool activity (issue 20), in the system Chromium against a real
 * `golem serve` on loopback and the scripted model: markdown drawn safely (attacks carried
 * by markdown run nothing), tool calls with their results under them, copy, regenerate and
 * retry, stopped answers, notices, a form's click, tokens and cost, the typing mark. Each
 * test takes screenshots (test-results/screenshots/) at desktop and phone size, light and dark.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAction, GolemError, projectActions, type Action } from '../src/index.js';
import type { GolemServer } from '../src/serve/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { tempDir } from './helpers.js';
import { checkAccessibility, DESKTOP, pageHarness, PHONE, say, shot } from './helpers-page.js';

const h = pageHarness();

const ATTACKS = [
  'Links: [docs](https://example.com/docs) and [click me](javascript:window.__pwned=1) and [data](data:text/html,<script>window.__pwned=1</script>).',
  '',
  'An image tag: <img src=x onerror="window.__pwned=1"> and a raw <b onmouseover="window.__pwned=1">bold</b>.',
  '',
  '<script>window.__pwned = 1</script>',
  '',
  '<iframe src="javascript:window.__pwned=1"></iframe>',
  '',
  'An autolink <javascript:window.__pwned=1>, a [reference][evil], a picture ![pic](javascript:window.__pwned=1) and <JAVASCRIPT:window.__pwned=1>.',
  '',
  '[evil]: javascript:window.__pwned=1',
  '',
  '| cell |',
  '| --- |',
  '| <img src=x onerror="window.__pwned=1"> [in a cell](javascript:window.__pwned=1) |',
  '',
  '```html',
  '<script>window.__pwned = 1</script>',
  '```',
].join('\n');

const RICH = [
  '## The plan',
  '',
  'Some **bold**, some _emphasis_ and `inline code` &amp; an entity.',
  '',
  '- first item',
  '- second item',
  '',
  '1. one',
  '2. two',
  '',
  '| Name | Age |',
  '| --- | ---: |',
  '| Ada | 36 |',
  '',
  '```ts',
  'const answer: number = 42; // the answer',
  'export function hello(name: string) {',
  '  return `Hello, ${name}`;',
  '}',
  '```',
].join('\n');

async function pwned(page: Page): Promise<unknown> {
  return page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned);
}

async function openAt(server: GolemServer, viewport: { width: number; height: number }, colorScheme: 'light' | 'dark'): Promise<Page> {
  const page = await h.open(server, { viewport, colorScheme });
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server.pageUrl).origin });
  return page;
}

async function clipboard(page: Page): Promise<string> {
  return page.evaluate<string>('navigator.clipboard.readText()');
}

/** An action that runs until the test lets it finish. */
function gate(): { action: Action; release: () => void } {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const action = defineAction({
    name: 'slow_lookup',
    description: 'Looks something up, slowly.',
    input: z.object({ topic: z.string() }),
    run: async ({ topic }) => (await released, `found ${topic}`),
  }) as Action;
  return { action, release };
}

describe('the messages on the page', () => {
  it('draws markdown (headings, lists, a table, links, inline and highlighted code with a copy button), and markdown-borne attacks run nothing', async () => {
    const model = scriptedModel([{ text: RICH }, { text: ATTACKS }]);
    const { server } = await h.started({ model });
    const page = await openAt(server, DESKTOP, 'light');
    await say(page, 'Show me **markdown**');
    const answer = page.getByTestId('message').and(page.locator('[data-role="assistant"]')).first();
    await answer.getByTestId('code-block').waitFor();
    // The user's own message is markdown too.
    expect(await page.getByTestId('message').first().locator('strong').textContent()).toBe('markdown');
    // The conversation's title, taken from it, without the marks.
    await expect.poll(() => page.locator('.chat-head h1').textContent()).toBe('Show me markdown');
    expect(await answer.locator('h3').textContent()).toBe('The plan');
    expect(await answer.locator('ul > li').allTextContents()).toEqual(['first item', 'second item']);
    expect(await answer.locator('ol > li').count()).toBe(2);
    expect(await answer.locator('table th').allTextContents()).toEqual(['Name', 'Age']);
    expect(await answer.locator('table td').allTextContents()).toEqual(['Ada', '36']);
    expect(await answer.locator('table td').nth(1).getAttribute('style')).toMatch(/text-align: right/);
    expect(await answer.locator('p code').textContent()).toBe('inline code');
    expect(await answer.locator('p').first().textContent()).toContain('inline code & an entity');
    // The code block: highlighted by language, its text whole, and copied as it is.
    const code = answer.getByTestId('code-block');
    expect(await code.getAttribute('data-lang')).toBe('ts');
    expect(await code.locator('.hljs-keyword').first().textContent()).toBe('const');
    expect(await code.locator('.hljs-comment').textContent()).toBe('// the answer');
    expect(await code.locator('code').textContent()).toBe(
      'const answer: number = 42; // the answer\nexport function hello(name: string) {\n  return `Hello, ${name}`;\n}',
    );
    await code.getByTestId('copy-code').click();
    await expect.poll(() => code.getByTestId('copy-code').getAttribute('data-state')).toBe('copied');
    expect(await clipboard(page)).toBe('const answer: number = 42; // the answer\nexport function hello(name: string) {\n  return `Hello, ${name}`;\n}');
    await shot(page, 'messages-markdown-desktop-light');
    await checkAccessibility(page, 'body');

    await say(page, 'Now try to break out');
    const attack = page.getByTestId('message').and(page.locator('[data-role="assistant"]')).nth(1);
    await attack.getByTestId('code-block').waitFor();
    // The streamed copy goes once the run's end is seen: only the recorded answer is counted.
    await page.getByTestId('streaming').waitFor({ state: 'detached' });
    const log = page.getByTestId('chat-log');
    // The safe link opens in a new tab that cannot reach back; the others are not links at all.
    const links = log.locator('a');
    expect(await links.count()).toBe(1);
    expect(await links.getAttribute('href')).toBe('https://example.com/docs');
    expect(await links.getAttribute('target')).toBe('_blank');
    expect(await links.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await log.locator('[href^="javascript:"], [href^="data:"], [src^="javascript:"]').count()).toBe(0);
    expect(await attack.locator('.md-link-off').allTextContents()).toEqual(expect.arrayContaining(['click me', 'data', 'reference', 'in a cell']));
    // Raw HTML is text: no element of it, no handler, and its words shown as written.
    expect(await log.locator('img, script, iframe, b, [onerror], [onmouseover]').count()).toBe(0);
    expect(await attack.textContent()).toContain('<img src=x onerror="window.__pwned=1">');
    expect(await attack.textContent()).toContain('<script>window.__pwned = 1</script>');
    expect(await attack.getByTestId('code-block').locator('code').textContent()).toBe('<script>window.__pwned = 1</script>');
    // Clicking what looks like a link does nothing either.
    for (const off of await attack.locator('.md-link-off').all()) await off.click();
    await attack.locator('.md-raw').first().hover();
    expect(await pwned(page)).toBeUndefined();
    await shot(page, 'messages-attacks');
    await checkAccessibility(page, 'body');
    // Dark, at both sizes: highlighted code and the rest keep their contrast.
    for (const [viewport, name] of [
      [DESKTOP, 'messages-markdown-desktop-dark'],
      [PHONE, 'messages-markdown-phone-dark'],
    ] as const) {
      const dark = await openAt(server, viewport, 'dark');
      const code = dark.getByTestId('code-block').first();
      await code.waitFor();
      await code.scrollIntoViewIfNeeded();
      await shot(dark, name);
      await checkAccessibility(dark, 'body');
    }
  });

  it('shows each tool call on one line with its status, its result under it, and opens onto whole arguments, a terminal block, a diff, an error with its reason', async () => {
    const root = tempDir();
    execFileSync('git', ['init', '-q', root]);
    writeFileSync(join(root, 'notes.md'), '# Notes\nold line\n');
    execFileSync('git', ['-C', root, 'add', '.']);
    execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'start']);
    const long = `echo ${'x'.repeat(150)} && printf 'line one\\nline two\\n'`;
    const model = scriptedModel([
      {
        text: 'Let me look.',
        toolCalls: [
          { name: 'run_command', input: { command: long } },
          { name: 'run_command', input: { command: "echo 'it broke' && exit 3" } },
          { name: 'read_file', input: { path: `missing-${'y'.repeat(130)}.md` } },
          { name: 'edit_file', input: { path: 'notes.md', old_string: 'old line', new_string: 'new line\nand another' } },
        ],
      },
      { text: 'Done: one command failed, the edit is staged.' },
    ]);
    const { server } = await h.started({ model, actions: projectActions(), project: { root }, trust: { run_command: 'autonomous' } });
    const page = await openAt(server, DESKTOP, 'light');
    await say(page, 'Look around');
    await page.getByTestId('message').filter({ hasText: 'Done: one command failed' }).waitFor();
    const answer = page.getByTestId('message').filter({ hasText: 'Let me look.' });
    const calls = answer.getByTestId('tool-call');
    expect(await calls.count()).toBe(4);
    // Results sit under their calls: no bubble of their own, no raw JSON in the log.
    expect(await page.locator('[data-testid="message"][data-role="tool"], [data-testid="orphan-results"]').count()).toBe(0);
    expect(await page.getByTestId('message').count()).toBe(3);
    expect(await page.getByTestId('chat-log').textContent()).not.toContain('"exitCode"');
    const shown = [];
    for (const call of await calls.all()) shown.push([await call.getAttribute('data-name'), await call.getAttribute('data-status')]);
    expect(shown).toEqual([
      ['run_command', 'ok'],
      ['run_command', 'failed'],
      ['read_file', 'failed'],
      ['edit_file', 'staged'],
    ]);
    // Collapsed: one line each; a failure says why on it.
    expect(await calls.nth(1).getByTestId('tool-reason').textContent()).toBe('exit 3');
    expect(await calls.nth(2).getByTestId('tool-reason').textContent()).toMatch(/^FILE_NOT_FOUND: There is no file "missing-y+\.md"/);
    expect(await calls.nth(0).getByTestId('tool-result').count()).toBe(0);
    await shot(page, 'tools-collapsed');

    // A command: a terminal block with its whole command line, its output's real lines and its exit code.
    await calls.nth(0).locator('summary').click();
    const ok = calls.nth(0).getByTestId('terminal');
    expect(await ok.locator('pre').textContent()).toContain(`$ ${long}\n`);
    const output = ((await ok.locator('pre').textContent()) ?? '').slice(`$ ${long}\n`.length);
    expect(output).toBe(`${'x'.repeat(150)}\nline one\nline two`);
    expect(await ok.getByTestId('exit-code').textContent()).toBe('exit code 0');
    await calls.nth(1).locator('summary').click();
    expect(await calls.nth(1).getByTestId('exit-code').textContent()).toBe('exit code 3');
    expect(await calls.nth(1).getByTestId('terminal').textContent()).toContain('it broke');
    // An error with its reason.
    await calls.nth(2).locator('summary').click();
    expect(await calls.nth(2).getByTestId('tool-result').textContent()).toMatch(/read_file failed: .*missing-y+\.md/);
    // Arguments pretty-printed and whole (no cut at 120 characters).
    expect(await calls.nth(2).getByTestId('code-block').locator('code').textContent()).toBe(`{\n  "path": "missing-${'y'.repeat(130)}.md"\n}`);
    // A file edit as a diff, and what became of it.
    await calls.nth(3).locator('summary').click();
    const diff = calls.nth(3).getByTestId('tool-diff');
    expect(await diff.locator('.diff-line.del').allTextContents()).toEqual(['-old line\n']);
    expect(await diff.locator('.diff-line.add').allTextContents()).toEqual(['+new line\n', '+and another\n']);
    expect(await calls.nth(3).getByTestId('tool-result').textContent()).toContain('Staged for your review');
    await shot(page, 'tools-open-desktop-light');
    await checkAccessibility(page, 'body');
    for (const [viewport, scheme, name] of [
      [PHONE, 'dark', 'tools-open-phone-dark'],
      [DESKTOP, 'dark', 'tools-open-desktop-dark'],
    ] as const) {
      const other = await openAt(server, viewport, scheme);
      const calls2 = other.getByTestId('message').filter({ hasText: 'Let me look.' }).getByTestId('tool-call');
      await calls2.first().waitFor();
      for (const i of [0, 1, 3]) await calls2.nth(i).locator('summary').click();
      await calls2.nth(0).scrollIntoViewIfNeeded();
      await shot(other, name);
      await checkAccessibility(other, 'body');
    }
  });

  it('copies a message, regenerates an answer, marks a stopped one, and retries a failed one', async () => {
    let answers = 0;
    const steps: ScriptStep[] = [
      () => ({ text: `Answer number ${++answers}.`, usage: { inputTokens: 1200, outputTokens: 300 } }),
      () => ({ text: `Answer number ${++answers}.`, usage: { inputTokens: 1300, outputTokens: 200 } }),
      { text: 'A long answer that the user stops half way', failAfter: { parts: 3, error: new GolemError('MODEL_ABORTED', 'the call was cancelled') } },
      { text: 'Half of an answer and then', failAfter: { parts: 3, error: new GolemError('MODEL_ERROR', 'the connection dropped') } },
      { failAfter: { parts: 0, error: new GolemError('MODEL_ERROR', 'the provider is down') } },
      { text: 'Second try worked.' },
    ];
    const model = scriptedModel(steps, { provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
    const { server } = await h.started({ model });
    const page = await openAt(server, DESKTOP, 'light');
    await say(page, 'Tell me **something**');
    const first = page.getByTestId('message').filter({ hasText: 'Answer number 1.' });
    await first.waitFor();
    // Tokens and cost per answer, and the session's total in the header.
    expect(await first.getByTestId('answer-usage').textContent()).toBe('1.5K tokens · $0.0081');
    await expect.poll(() => page.getByTestId('session-usage').textContent()).toContain('1.5K tokens · $0.0081');
    // Copy: the message's own text (markdown as written).
    await page.getByTestId('message').first().getByTestId('copy-message').click();
    await expect.poll(() => clipboard(page)).toBe('Tell me **something**');
    await first.getByTestId('copy-message').click();
    await expect.poll(() => clipboard(page)).toBe('Answer number 1.');
    // Regenerate: the question asked again, as its second version; the first answer stays one switch away.
    await first.getByTestId('regenerate').click();
    await page.getByTestId('message').filter({ hasText: 'Answer number 2.' }).waitFor();
    const question = page.getByTestId('message').first();
    await expect.poll(() => question.getByTestId('version-label').textContent()).toBe('2 / 2');
    expect(await page.getByTestId('message').filter({ hasText: 'Answer number 1.' }).count()).toBe(0);
    await expect.poll(() => page.getByTestId('session-usage').textContent()).toContain('1.5K tokens · $0.0069');
    // Fork from here sits on messages, one each.
    expect(await page.getByTestId('fork-here').count()).toBe(await page.getByTestId('message').count());

    // A stopped answer is marked stopped, with what came before the stop.
    await say(page, 'Go on at length');
    const stopped = page.getByTestId('message').filter({ hasText: 'A long answer' });
    await stopped.getByTestId('answer-ended').waitFor();
    expect(await stopped.getByTestId('answer-ended').getAttribute('data-status')).toBe('stopped');
    expect(await stopped.getByTestId('answer-ended').textContent()).toContain('Stopped');
    expect(await stopped.getByTestId('regenerate').count()).toBe(0);
    expect(await stopped.getByTestId('retry').count()).toBe(1);

    // An answer that broke off is marked failed, with the reason, and can be asked again.
    await say(page, 'Once more');
    const broken = page.getByTestId('message').filter({ hasText: 'Half of an' });
    await broken.getByTestId('answer-ended').waitFor();
    expect(await broken.getByTestId('answer-ended').getAttribute('data-status')).toBe('failed');
    expect(await broken.getByTestId('answer-ended').textContent()).toBe('Failed: the connection dropped');
    expect(await broken.getByTestId('retry').count()).toBe(1);

    // A failed run leaves the question unanswered: said so, with a retry that asks it again.
    await say(page, 'And now?');
    const unanswered = page.getByTestId('unanswered');
    await unanswered.waitFor();
    expect(await unanswered.getAttribute('data-status')).toBe('unanswered');
    await shot(page, 'messages-failed');
    await checkAccessibility(page, 'body');
    await unanswered.getByTestId('retry').click();
    await page.getByTestId('message').filter({ hasText: 'Second try worked.' }).waitFor();
    await unanswered.waitFor({ state: 'detached' });
    const asked = page.getByTestId('message').and(page.locator('[data-role="user"]')).filter({ hasText: 'And now?' });
    await expect.poll(() => asked.getByTestId('version-label').textContent()).toBe('2 / 2');
    await shot(page, 'messages-actions-desktop-light');
    const phone = await openAt(server, PHONE, 'dark');
    await phone.getByTestId('message').filter({ hasText: 'Second try worked.' }).waitFor();
    await shot(phone, 'messages-actions-phone-dark');
    await checkAccessibility(phone, 'body');
  });

  it('says a run stopped before it answered was stopped, and asks again on retry', async () => {
    const model = scriptedModel([
      // Answers only once stopped: the stop comes while the model thinks.
      async (_prompt, _call, options) => {
        await new Promise((resolve) => options.signal?.addEventListener('abort', resolve));
        return { text: 'Too late.' };
      },
      { text: 'Here it is.' },
    ]);
    const { server } = await h.started({ model });
    const page = await openAt(server, DESKTOP, 'light');
    await say(page, 'Take your time');
    await page.getByTestId('typing').waitFor();
    await page.getByTestId('stop').click();
    const note = page.getByTestId('unanswered');
    await note.waitFor();
    expect(await note.getAttribute('data-status')).toBe('stopped');
    expect(await note.textContent()).toContain('Stopped before an answer.');
    expect(await page.getByTestId('typing').count()).toBe(0);
    await shot(page, 'messages-stopped');
    await checkAccessibility(page, 'body');
    await note.getByTestId('retry').click();
    await page.getByTestId('message').filter({ hasText: 'Here it is.' }).waitFor();
    await note.waitFor({ state: 'detached' });
  });

  it('shows a call of an earlier run that was never answered as such, not as running, while a new run goes', async () => {
    let answer: () => void = () => undefined;
    const answering = new Promise<void>((resolve) => (answer = resolve));
    const model = scriptedModel([async () => (await answering, { text: 'Now it is done.' })]);
    const { ws, server } = await h.started({ model });
    const session = await ws.sessions.create({ label: 'Earlier' });
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'Deploy it' }] });
    await session.addTurn({ role: 'assistant', blocks: [{ type: 'tool_use', callId: 'call_lost', name: 'deploy', args: { target: 'production' } }] });
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'Never mind that' }] });
    await session.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'Fine.' }] });
    const page = await openAt(server, DESKTOP, 'light');
    await page.getByTestId('message').filter({ hasText: 'Fine.' }).waitFor();
    await say(page, 'Go on');
    await page.getByTestId('typing').waitFor();
    const lost = page.getByTestId('tool-call').and(page.locator('[data-name="deploy"]'));
    expect(await lost.getAttribute('data-status')).toBe('unanswered');
    answer();
    await page.getByTestId('message').filter({ hasText: 'Now it is done.' }).waitFor();
    expect(await lost.getAttribute('data-status')).toBe('unanswered');
  });

  it("shows a form's click as what the user did and system notices as compact notices without ids", async () => {
    const model = scriptedModel([{ text: 'Thanks, Ada.' }]);
    const { ws, server } = await h.started({ model });
    const session = await ws.sessions.create({ label: 'Sign-up' });
    // The form the click was on, built by this conversation: its labels name the values.
    await ws.ui.patch(
      {
        instanceId: '__CREATE__',
        newInstanceId: 'signup',
        patches: [{ op: 'set', path: 'meta', value: { pageKey: 'Sign-up form', step: { current: 1, total: 1 }, status: 'idle' } }],
      },
      { builtBy: session.id },
    );
    const fields = [
      { label: 'Name', key: 'name', type: 'text' },
      { label: 'Age', key: 'age', type: 'number' },
      { label: 'Send me news', key: 'news', type: 'checkbox' },
      {
        label: 'Plan',
        key: 'plan',
        type: 'select',
        options: [
          { label: 'Free', value: 'free' },
          { label: 'Pro', value: 'pro' },
        ],
      },
    ];
    await ws.ui.patch(
      {
        instanceId: 'signup',
        patches: [
          { op: 'add', path: 'blocks+', items: [{ id: 'details', type: 'form', bind: 'state.params', props: { fields } }] },
          { op: 'add', path: 'actions+', items: [{ id: 'submit', label: 'Sign up', style: 'primary' }] },
        ],
      },
      { builtBy: session.id },
    );
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'Sign me up' }] });
    await session.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'Here is the form.' }] });
    await session.addTurn({
      role: 'user',
      blocks: [
        {
          type: 'text',
          id: 'golem-ui-action', // as ServeHost.uiAction writes a click
          text: '[UI action] The user clicked "Sign up" (action "submit") on the UI "signup" (version 3).\nThe form\'s values: {"name":"Ada","age":36,"news":true,"plan":"pro","bio":""}',
        },
      ],
    });
    await session.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'Thanks, Ada.' }] });
    // A message that only reads like a click (typed, or pasted) stays a message.
    const lookalike = '[UI action] The user clicked "Sign up" (action "submit") on the UI "signup" (version 3).\nThe form\'s values: {"name":"Eve"}';
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: lookalike }] });
    await session.addTurn({ role: 'assistant', blocks: [{ type: 'text', text: 'That was typed.' }] });
    await session.addTurn({
      role: 'system',
      blocks: [{ type: 'text', text: '[System: the user discarded clearance item 01JCLEARANCEITEM0000000000: write SIGNUPS.md]' }],
    });
    const page = await openAt(server, DESKTOP, 'light');
    await page.getByTestId('message').filter({ hasText: 'That was typed.' }).waitFor();
    const click = page.getByTestId('ui-action-turn');
    expect(await click.count()).toBe(1);
    expect(await page.getByTestId('message').filter({ hasText: '{"name":"Eve"}' }).getByTestId('edit-message').count()).toBe(1);
    await expect.poll(() => click.locator('p').textContent()).toBe('Clicked Sign up on Sign-up form');
    expect(await click.locator('dt').allTextContents()).toEqual(['Name', 'Age', 'Send me news', 'Plan']);
    expect(await click.locator('dd').allTextContents()).toEqual(['Ada', '36', 'yes', 'Pro']);
    expect(await page.getByTestId('chat-log').textContent()).not.toContain('"name":"Ada"');
    // The notice: one line, no bubble, no id.
    const notice = page.getByTestId('notice');
    expect(await notice.textContent()).toBe('Discarded: write SIGNUPS.md');
    expect(await page.locator('[data-testid="message"][data-role="system"]').count()).toBe(0);
    expect(await page.getByTestId('fork-here').count()).toBe(6);
    await page.getByTestId('message').filter({ has: click }).getByTestId('copy-message').click();
    await expect.poll(() => clipboard(page)).toBe('Clicked Sign up on Sign-up form: Name: Ada, Age: 36, Send me news: yes, Plan: Pro');
    await shot(page, 'messages-notices');
    await checkAccessibility(page, 'body');
  });

  it('shows a typing mark, announced once, whenever a run goes and nothing streams, and streams text as markdown', async () => {
    const slow = gate();
    let answer: () => void = () => undefined;
    const answering = new Promise<void>((resolve) => (answer = resolve));
    const model = scriptedModel([
      async () => (await answering, { text: 'Looking it up **now**.', toolCalls: [{ name: 'slow_lookup', input: { topic: 'owls' } }] }),
      { text: 'Owls are **birds**.' },
    ]);
    const { server } = await h.started({ model, actions: [slow.action] });
    const page = await openAt(server, PHONE, 'light');
    // Streamed text is on the page only until its turn is read back: watched for as it comes.
    await page.evaluate(`new MutationObserver(() => {
      if (document.querySelector('[data-testid="streaming-text"] strong')?.textContent === 'now') globalThis.__streamedMarkdown = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true })`);
    await say(page, 'Owls?');
    // Before any text: the typing mark, a status for screen readers.
    const typing = page.getByTestId('streaming').getByTestId('typing');
    await typing.waitFor();
    expect(await typing.getAttribute('role')).toBe('status');
    expect(await typing.textContent()).toBe('Golem is working…');
    await shot(page, 'typing-phone-light');
    // Text streamed, then an action running: the text as markdown, the typing mark again while the action runs.
    answer();
    await expect.poll(() => page.evaluate(() => (globalThis as { __streamedMarkdown?: boolean }).__streamedMarkdown)).toBe(true);
    await page.getByTestId('message').filter({ hasText: 'Looking it up now.' }).locator('strong').waitFor();
    await typing.waitFor();
    expect(await page.getByTestId('typing').count()).toBe(1);
    slow.release();
    await page.getByTestId('message').filter({ hasText: 'Owls are birds.' }).locator('strong').waitFor();
    await page.getByTestId('streaming').waitFor({ state: 'detached' });
    expect(await page.getByTestId('typing').count()).toBe(0);
    const lookup = page.getByTestId('tool-call').and(page.locator('[data-name="slow_lookup"]'));
    expect(await lookup.getAttribute('data-status')).toBe('ok');
  });
});
