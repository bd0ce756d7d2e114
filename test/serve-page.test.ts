/**
 * `golem serve`'s page in the system Chromium (playwright-core), against a real server
 * on loopback and the scripted model: the agent builds a form and receives what the user
 * submits, an approval answered in the dialog, a staged edit pushed from the clearance
 * panel, a past message edited and the versions switched, two tabs in step. Each test
 * takes screenshots (test-results/screenshots/) to look at.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { run } from '../src/cli/main.js';
import { createWorkspace, defineAction, projectActions, type PatchInput, type Prompt } from '../src/index.js';
import { serve } from '../src/serve/index.js';
import { scriptedModel, type ScriptedResponse, type ScriptStep } from '../src/test/index.js';
import { deployAction, tempDir } from './helpers.js';
import { checkAccessibility, pageHarness, say, shot } from './helpers-page.js';

const h = pageHarness();
const { cleanups } = h;
const started = h.started.bind(h);
const open = h.open.bind(h);

const SIGNUP_FIELDS = [
  { label: 'Name', key: 'name', type: 'text' },
  { label: 'Age', key: 'age', type: 'number' },
  { label: 'About you', key: 'bio', type: 'textarea', description: 'A line or two.' },
  {
    label: 'Plan',
    key: 'plan',
    type: 'select',
    options: [
      { label: 'Free', value: 'free' },
      { label: 'Pro', value: 'pro' },
    ],
  },
  { label: 'Send me news', key: 'news', type: 'checkbox' },
  {
    label: 'Contact by',
    key: 'contact',
    type: 'radio',
    options: [
      { label: 'Email', value: 'email' },
      { label: 'Phone', value: 'phone' },
    ],
  },
];

const buildSignup: PatchInput[] = [
  {
    instanceId: '__CREATE__',
    newInstanceId: 'signup',
    patches: [{ op: 'set', path: 'meta', value: { pageKey: 'signup', step: { current: 1, total: 2 }, status: 'idle' } }],
  },
  {
    instanceId: 'signup',
    patches: [
      { op: 'add', path: 'blocks+', items: [{ id: 'details', type: 'form', bind: 'state.params', props: { fields: SIGNUP_FIELDS } }] },
      {
        op: 'add',
        path: 'actions+',
        items: [
          { id: 'submit', label: 'Sign up', style: 'primary' },
          { id: 'cancel', label: 'Cancel', style: 'secondary' },
        ],
      },
    ],
  },
];

describe('golem serve in a browser', () => {
  it('the agent builds a form by patches, the user fills it and clicks submit, and the agent receives the values', async () => {
    const steps: ScriptStep[] = [
      { text: 'Here is the form.', toolCalls: buildSignup.map((input) => ({ name: 'patch_ui_state', input: input as never })) },
      { text: 'Fill it in and press Sign up.' },
      (prompt) => {
        const last = JSON.stringify(prompt.messages.at(-1));
        const values = /The form's values: (\{.*?\})(?:\\n|")/.exec(last)?.[1]?.replaceAll('\\"', '"') ?? '{}';
        const got = JSON.parse(values) as { name?: string; plan?: string };
        return {
          text: `Welcome, ${got.name} (${got.plan}).`,
          toolCalls: [
            {
              name: 'patch_ui_state',
              input: {
                instanceId: 'signup',
                patches: [
                  { op: 'set', path: 'meta.status', value: 'submitted' },
                  { op: 'set', path: 'meta.step', value: { current: 2, total: 2 } },
                ],
              },
            },
          ],
        };
      },
      { text: 'You are signed up.' },
    ];
    const model = scriptedModel(steps);
    const { ws, server } = await started({ model });
    const page = await open(server);
    await say(page, 'Sign me up');
    const form = page.getByTestId('ui-instance').and(page.locator('[data-instance-id="signup"]'));
    await form.waitFor();
    await expect.poll(() => page.getByTestId('message').count()).toBeGreaterThanOrEqual(2);
    await page.getByTestId('message').filter({ hasText: 'Fill it in and press Sign up.' }).waitFor();
    // Every field type, and both actions with their styles.
    expect(await form.getByTestId('ui-step').textContent()).toContain('1');
    await form.getByTestId('field-name').fill('Ada Lovelace');
    await form.getByTestId('field-age').fill('36');
    await form.getByTestId('field-bio').fill('Wrote the first program.');
    await form.getByTestId('field-plan').selectOption('pro');
    await form.getByTestId('field-news').check();
    await form.getByTestId('field-contact').locator('input[value="phone"]').check();
    expect(await form.getByTestId('action-submit').getAttribute('data-style')).toBe('primary');
    expect(await form.getByTestId('action-cancel').getAttribute('data-style')).toBe('secondary');
    await shot(page, 'form-filled');
    // Typing is the page's own until a click: nothing reached the server yet.
    expect(ws.ui.get('signup')?.instance.state.params).toEqual({});

    await form.getByTestId('action-submit').click();
    await page.getByTestId('message').filter({ hasText: 'You are signed up.' }).waitFor();
    await expect.poll(() => form.getAttribute('data-status')).toBe('submitted');
    await shot(page, 'form-submitted');
    const values = { name: 'Ada Lovelace', age: 36, bio: 'Wrote the first program.', plan: 'pro', news: true, contact: 'phone' };
    // The values went through patch_ui_state into the instance, and to the agent as the click's message.
    expect(ws.ui.get('signup')?.instance.state.params).toEqual(values);
    expect(model.calls).toHaveLength(4);
    const told = JSON.stringify(model.calls[2]?.messages.at(-1));
    expect(told).toContain('Sign up');
    for (const [key, value] of Object.entries(values)) expect(told).toContain(`${JSON.stringify(key)}:${JSON.stringify(value)}`.replaceAll('"', '\\"'));
    await page.getByTestId('message').filter({ hasText: 'Welcome, Ada Lovelace (pro).' }).waitFor();
    // The field shows what the server holds now.
    expect(await form.getByTestId('field-name').inputValue()).toBe('Ada Lovelace');
  });

  it('asks for an approval in the dialog while the run waits, and goes on after yes', async () => {
    const { deploy, deploys } = deployAction();
    const model = scriptedModel([{ text: 'Deploying.', toolCalls: [{ name: 'deploy', input: { target: 'production' } }] }, { text: 'It is live.' }]);
    const { server } = await started({ model, actions: [deploy] });
    const page = await open(server);
    await say(page, 'Ship it');
    const dialog = page.getByTestId('approval-dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('approval-description').textContent()).toContain('Deploy the site to production');
    expect(await dialog.getByTestId('approval-risk').textContent()).toMatch(/high/i);
    expect(await dialog.getByTestId('approval-path').textContent()).toContain('Ship it');
    await shot(page, 'approval-dialog');
    expect(deploys).toEqual([]);
    await dialog.getByTestId('approval-yes').click();
    await page.getByTestId('message').filter({ hasText: 'It is live.' }).waitFor();
    await dialog.waitFor({ state: 'detached' });
    expect(deploys).toEqual(['production']);
    // The call shows its result under it once opened.
    await page.getByTestId('streaming').waitFor({ state: 'detached' });
    const call = page.getByTestId('tool-call').and(page.locator('[data-name="deploy"]'));
    expect(await call.getAttribute('data-status')).toBe('ok');
    await call.locator('summary').click();
    await call.getByTestId('tool-result').filter({ hasText: 'deployed to production' }).waitFor();
    await shot(page, 'approval-done');
  });

  it("shows the worker tree, and a sub-worker's approval with its path while the whole tree waits", async () => {
    const { deploy, deploys } = deployAction();
    const model = scriptedModel([
      { text: 'Handing this to a helper.', toolCalls: [{ name: 'spawn_worker', input: { task: 'Deploy the site to staging' } }] },
      { toolCalls: [{ name: 'deploy', input: { target: 'staging' } }] },
      { text: 'Deployed to staging.' },
      { text: 'The helper deployed it to staging.' },
    ]);
    const { server } = await started({ model, actions: [deploy], subWorkers: true });
    const page = await open(server);
    await say(page, 'Ship to staging');
    const dialog = page.getByTestId('approval-dialog');
    await dialog.waitFor();
    const path = await dialog.getByTestId('approval-path').textContent();
    expect(path).toContain('Ship to staging');
    expect(path).toContain('Deploy the site to staging');
    const node = page.getByTestId('worker-tree').getByTestId('worker-node');
    await expect.poll(() => node.getAttribute('data-depth')).toBe('1');
    expect(await node.getAttribute('data-status')).toBe('running');
    await shot(page, 'tree-approval');
    await dialog.getByTestId('approval-yes').click();
    await page.getByTestId('message').filter({ hasText: 'The helper deployed it to staging.' }).waitFor();
    // Done: the record says 'done', the live progress 'complete'.
    await expect.poll(() => node.getAttribute('data-status')).toMatch(/^(done|complete)$/);
    expect(deploys).toEqual(['staging']);
    await shot(page, 'tree-done');
  });

  it('shows sub-workers side by side live: what each does and for how long, its children folding away, its own conversation on demand', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const fetchPage = defineAction({
      name: 'fetch_page',
      description: 'Fetches a page of a report.',
      input: z.object({ task: z.string() }),
      run: async ({ task }) => (await released, `fetched ${task}`),
    });
    const text = (prompt: Prompt) => JSON.stringify(prompt.messages);
    const answered = (prompt: Prompt) => prompt.messages.at(-1)?.content.at(-1)?.type === 'tool-result';
    const model = scriptedModel((prompt): ScriptedResponse => {
      const depth = /sub-worker at depth (\d)/.exec(prompt.system)?.[1];
      const task = /Your task:\\n([^"\\]*)/.exec(text(prompt))?.[1] ?? '';
      if (depth === undefined) {
        if (answered(prompt)) return { text: 'Both reports are in.' };
        return {
          text: 'Splitting it in two.',
          toolCalls: [
            { name: 'spawn_worker', input: { task: 'North report' } },
            { name: 'spawn_worker', input: { task: 'South report' } },
          ],
        };
      }
      if (answered(prompt)) return { text: `${task} is done.` };
      if (task === 'North report') return { toolCalls: [{ name: 'spawn_worker', input: { task: 'North appendix' } }] };
      return { text: `Fetching for ${task}.`, toolCalls: [{ name: 'fetch_page', input: { task } }] };
    });
    const { server } = await started({ model, actions: [fetchPage], subWorkers: true });
    const page = await open(server);
    await say(page, 'Fetch both reports');
    const tree = page.getByTestId('worker-tree');
    const node = (task: string) => tree.getByTestId('worker-node').filter({ hasText: task });
    // Both depth-1 workers run at once; the appendix runs under North.
    await expect.poll(() => tree.getByTestId('worker-node').count(), { timeout: 10_000 }).toBe(3);
    for (const task of ['North report', 'South report', 'North appendix']) expect(await node(task).getAttribute('data-status')).toBe('running');
    await page.getByText('2 side by side').waitFor();
    await expect.poll(() => tree.getByTestId('worker-activity').allTextContents()).toContain('step 1: 1 action(s)');
    // The elapsed time ticks.
    const first = await node('South report').locator('.worker-elapsed').textContent();
    await expect.poll(() => node('South report').locator('.worker-elapsed').textContent(), { timeout: 3000 }).not.toBe(first);
    // South's own conversation, on demand.
    await node('South report').getByRole('button', { name: 'South report' }).click();
    const details = tree.getByTestId('worker-details');
    await details.getByText('Fetching for South report.').waitFor();
    expect(await details.textContent()).toContain('fetch_page …');
    // North's children fold away and come back.
    await node('North report').getByRole('button', { name: 'Hide the workers of North report' }).click();
    await expect.poll(() => node('North appendix').count()).toBe(0);
    await node('North report').getByRole('button', { name: 'Show the workers of North report' }).click();
    await node('North appendix').waitFor();
    await checkAccessibility(page, '[data-testid="worker-tree"]');
    await shot(page, 'tree-side-by-side');
    await page.setViewportSize({ width: 390, height: 844 });
    await shot(page, 'tree-side-by-side-phone');
    await page.setViewportSize({ width: 1400, height: 900 });
    release();
    await page.getByTestId('message').filter({ hasText: 'Both reports are in.' }).waitFor();
    await expect.poll(() => node('South report').getAttribute('data-status')).toMatch(/^(done|complete)$/);
    await expect.poll(() => details.textContent()).toContain('fetch_page ✓');
    expect(await details.textContent()).toContain('South report is done.');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'tree-side-by-side-done-dark');
  });

  it('passes axe-core on the whole page, at desktop and phone size, with a conversation open', async () => {
    const model = scriptedModel([{ text: 'Hello! How can I help?' }]);
    const { server } = await started({ model });
    const page = await open(server);
    await say(page, 'Hi');
    await page.getByTestId('message').filter({ hasText: 'Hello! How can I help?' }).waitFor();
    await checkAccessibility(page, 'body');
    await page.setViewportSize({ width: 390, height: 844 });
    await checkAccessibility(page, 'body');
    // On a phone the chat takes the width: one column, the chat first.
    const chat = await page.locator('.chat').boundingBox();
    expect(chat?.width ?? 0).toBeGreaterThanOrEqual(350);
    await shot(page, 'chat-phone');
  });

  it('clears "Stopped." when the next run starts, and does not invite a first message without a model', async () => {
    let release: () => void = () => undefined;
    const model = scriptedModel([
      async () => {
        await new Promise<void>((resolve) => (release = resolve));
        return { text: 'too late' };
      },
      { text: 'Here you go.' },
    ]);
    const { server } = await started({ model });
    const page = await open(server);
    await say(page, 'Take your time');
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => page.getByTestId('status-line').textContent()).toContain('Stopped.');
    release();
    await say(page, 'Again');
    await page.getByTestId('message').filter({ hasText: 'Here you go.' }).waitFor();
    expect(await page.getByTestId('status-line').textContent()).not.toContain('Stopped.');

    const { server: bare } = await started(undefined);
    const empty = await open(bare);
    await empty.getByText('Nothing here yet.').waitFor();
    expect(await empty.locator('.empty-chat').textContent()).toBe('Nothing here yet.');
    await shot(empty, 'no-model');
  });

  it("shows a form only with the conversation that built it: a new session does not show another's form", async () => {
    const model = scriptedModel([
      { text: 'Here is the form.', toolCalls: buildSignup.map((input) => ({ name: 'patch_ui_state', input: input as never })) },
      { text: 'Fill it in.' },
    ]);
    const { server } = await started({ model });
    const page = await open(server);
    await say(page, 'Sign me up');
    const form = page.getByTestId('ui-instance').and(page.locator('[data-instance-id="signup"]'));
    await form.waitFor();
    await page.getByTestId('message').filter({ hasText: 'Fill it in.' }).waitFor();
    // A new session: the form of the first is not there to click (its click would go to the first, out of view).
    await page.getByTestId('new-session').click();
    await expect.poll(() => page.getByTestId('ui-instance').count()).toBe(0);
    await shot(page, 'forms-per-session');
    // Back to the first: there it is.
    await page.getByTestId('session-item').filter({ hasText: 'Sign me up' }).click();
    await form.waitFor();
  });

  it('shows a staged edit in the clearance panel with its diff, and pushes it into the files', async () => {
    const root = tempDir();
    execFileSync('git', ['init', '-q', root]);
    writeFileSync(join(root, 'README.md'), '# Demo\n');
    execFileSync('git', ['-C', root, 'add', '.']);
    execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'start']);
    const ws = await createWorkspace({ dir: join(root, '.golem') });
    cleanups.push(() => ws.close());
    const model = scriptedModel([
      { toolCalls: [{ name: 'write_file', input: { path: 'README.md', content: '# Demo\n\nInstall with npm.\n' } }] },
      { text: 'I staged the README change for you.' },
    ]);
    const { server } = await started({ model, actions: projectActions(), project: { root } }, ws);
    const page = await open(server);
    await say(page, 'Document the install');
    const panel = page.getByTestId('clearance-panel');
    const item = panel.getByTestId('clearance-item');
    await item.waitFor();
    expect(await panel.getByTestId('clearance-count').textContent()).toContain('1');
    await item.getByTestId('clearance-open').click();
    const diff = item.getByTestId('clearance-diff');
    await diff.filter({ hasText: '+Install with npm.' }).waitFor();
    await shot(page, 'clearance-diff');
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# Demo\n'); // staged only
    await item.getByTestId('clearance-push').click();
    await item.waitFor({ state: 'detached' });
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# Demo\n\nInstall with npm.\n');
    expect(ws.clearance.list()).toEqual([]);
    await shot(page, 'clearance-pushed');
  });

  it('edits a past message into a new version, and switches between the versions', async () => {
    const answer: ScriptStep = (prompt) => ({ text: `Answer to: ${JSON.stringify(prompt.messages.at(-1)).includes('Italy') ? 'Italy' : 'France'}` });
    const { server } = await started({ model: scriptedModel([answer, answer]) });
    const page = await open(server);
    await say(page, 'Capital of France?');
    await page.getByTestId('message').filter({ hasText: 'Answer to: France' }).waitFor();
    const question = page.getByTestId('message').and(page.locator('[data-role="user"]')).first();
    await question.hover();
    await question.getByTestId('edit-message').click();
    await question.getByTestId('edit-input').fill('Capital of Italy?');
    await question.getByTestId('edit-save').click();
    await page.getByTestId('message').filter({ hasText: 'Answer to: Italy' }).waitFor();
    const edited = page.getByTestId('message').and(page.locator('[data-role="user"]')).first();
    await expect.poll(() => edited.getByTestId('version-label').textContent()).toBe('2 / 2');
    expect(await page.getByTestId('message').filter({ hasText: 'Answer to: France' }).count()).toBe(0);
    await shot(page, 'branch-edited');
    await edited.getByTestId('version-prev').click();
    await page.getByTestId('message').filter({ hasText: 'Answer to: France' }).waitFor();
    await expect
      .poll(() => page.getByTestId('message').and(page.locator('[data-role="user"]')).first().getByTestId('version-label').textContent())
      .toBe('1 / 2');
    expect(await page.getByTestId('message-text').allTextContents()).toEqual(['Capital of France?', 'Answer to: France']);
    await shot(page, 'branch-switched');
  });

  it('keeps two tabs in step, and gives a tab that reconnects the state as it is', async () => {
    const model = scriptedModel([{ text: 'Hello from Golem.' }]);
    const { ws, server } = await started({ model });
    const a = await open(server, { outage: true });
    const b = await open(server, { outage: true });
    await say(a, 'Hi there');
    for (const page of [a, b]) await page.getByTestId('message').filter({ hasText: 'Hello from Golem.' }).waitFor();
    // A UI built meanwhile shows in both, and a patch reaches both.
    for (const input of buildSignup) expect((await ws.ui.patch(input)).success).toBe(true);
    for (const page of [a, b]) await page.locator('[data-testid="ui-instance"][data-instance-id="signup"]').waitFor();
    await ws.ui.patch({ instanceId: 'signup', patches: [{ op: 'set', path: 'state.params.name', value: 'Grace' }] });
    for (const page of [a, b]) await expect.poll(() => page.getByTestId('field-name').inputValue()).toBe('Grace');
    // Tab b goes offline and misses a patch; back online, its snapshot brings it level.
    await b.context().setOffline(true);
    await server.close().catch(() => undefined);
    const again = await serve(ws, { token: server.token, port: Number(new URL(server.url).port) });
    cleanups.push(() => again.close());
    await ws.ui.patch({ instanceId: 'signup', patches: [{ op: 'set', path: 'state.params.name', value: 'Hopper' }] });
    await b.context().setOffline(false);
    for (const page of [a, b]) {
      await expect.poll(() => page.getByTestId('field-name').inputValue(), { timeout: 15_000 }).toBe('Hopper');
      await page.getByTestId('connection').and(page.locator('[data-state="open"]')).waitFor();
    }
    await shot(a, 'tabs-a');
    await shot(b, 'tabs-b');
    // The session list is the same in both.
    expect(await b.getByTestId('session-item').count()).toBe(1);
    expect(await a.getByTestId('session-item').getAttribute('data-session-id')).toBe(await b.getByTestId('session-item').getAttribute('data-session-id'));
  });

  it("the README's walkthrough: golem serve with the scripted demo, through a form, a staged edit and an approval", async () => {
    const root = tempDir();
    execFileSync('git', ['init', '-q', root]);
    writeFileSync(join(root, 'README.md'), '# My project\n');
    execFileSync('git', ['-C', root, 'add', '.']);
    execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'start']);
    const out: string[] = [];
    const stop = new AbortController();
    const demo = join(import.meta.dirname, '..', 'examples', 'serve', 'demo.json');
    const done = run(['serve', '--port', '0', '--model', `scripted:${demo}`], {
      stdout: (text) => out.push(text),
      stderr: (text) => out.push(text),
      cwd: root,
      signal: stop.signal,
    });
    await expect.poll(() => out.join('')).toMatch(/Open http:\/\/127\.0\.0\.1:\d+\/#token=[0-9a-f]{64}\n/);
    const address = (/Open (\S+)/.exec(out.join('')) as RegExpExecArray)[1] as string;
    const context = await h.browser.newContext({ viewport: { width: 1400, height: 900 } });
    cleanups.push(() => context.close());
    const page = await context.newPage();
    await page.goto(address);
    // 1. The model builds the form.
    await say(page, 'Sign me up');
    const form = page.locator('[data-testid="ui-instance"][data-instance-id="signup"]');
    await page.getByTestId('message').filter({ hasText: 'The form is ready.' }).waitFor();
    // 2. The user fills it in and signs up; the agent gets the values.
    await form.getByTestId('field-name').fill('Ada');
    await form.getByTestId('field-age').fill('36');
    await form.getByTestId('field-plan').selectOption('pro');
    await form.getByTestId('action-submit').click();
    // The click shows as what the user did, not as the message's JSON.
    const click = page.getByTestId('ui-action-turn').filter({ hasText: 'Clicked Sign up on signup' });
    await click.waitFor();
    expect(await click.locator('dd').allTextContents()).toEqual(expect.arrayContaining(['Ada', '36', 'Pro']));
    await page.getByTestId('message').filter({ hasText: 'SIGNUPS.md is staged' }).waitFor();
    expect(await form.getAttribute('data-status')).toBe('submitted');
    // 3. The staged edit, pushed from the panel.
    await page.getByTestId('clearance-open').click();
    await page.getByTestId('clearance-diff').filter({ hasText: '+# Sign-ups' }).waitFor();
    await shot(page, 'walkthrough-clearance');
    expect(existsSync(join(root, 'SIGNUPS.md'))).toBe(false);
    await page.getByTestId('clearance-push').click();
    await page.getByTestId('clearance-item').waitFor({ state: 'detached' });
    expect(readFileSync(join(root, 'SIGNUPS.md'), 'utf8')).toContain('# Sign-ups');
    // 4. A supervised command, approved in the dialog.
    await say(page, "What's in the folder?");
    await page.getByTestId('approval-dialog').waitFor();
    await page.getByTestId('approval-yes').click();
    await page.getByTestId('message').filter({ hasText: 'That is what is in the folder.' }).waitFor();
    await page.getByTestId('streaming').waitFor({ state: 'detached' });
    // The command's result sits under its call, a terminal block once opened.
    const ls = page.getByTestId('tool-call').and(page.locator('[data-name="run_command"]'));
    expect(await ls.getAttribute('data-status')).toBe('ok');
    await ls.locator('summary').click();
    await ls.getByTestId('terminal').filter({ hasText: 'SIGNUPS.md' }).waitFor();
    expect(await ls.getByTestId('exit-code').textContent()).toBe('exit code 0');
    // 5. A past message edited: the agent answers the new version, and the versions switch.
    const asked = page.getByTestId('message').and(page.locator('[data-role="user"]')).filter({ hasText: "What's in the folder?" });
    await asked.getByTestId('edit-message').click();
    // (Being edited, the message shows its text in the box: the one box on the page.)
    await page.getByTestId('edit-input').fill('What is in this folder, please?');
    await page.getByTestId('edit-save').click();
    await page.getByTestId('message').filter({ hasText: 'That is my answer to your edited message' }).waitFor();
    const edited = page.getByTestId('message').and(page.locator('[data-role="user"]')).filter({ hasText: 'What is in this folder, please?' });
    await expect.poll(() => edited.getByTestId('version-label').textContent()).toBe('2 / 2');
    await shot(page, 'walkthrough-done');
    stop.abort();
    expect(await done).toBe(0);
    expect(out.join('')).toContain('Model: scripted:');
    await expect(fetch(address)).rejects.toThrow();
  });
});
