/**
 * What the agent builds never passes for Golem's own prompts (issue 35, finding 7), in the
 * system Chromium against `serve()` with a scripted agent: a model-built dialog titled
 * "Approval required" with a password field and Yes/No sits in a frame marked "Built by the
 * agent" that nothing of the model's covers, under Golem's real approval dialog; and a
 * `password` field's value is masked on the page and never reaches the log, the stored turns,
 * the prompt, or get_ui_state and list_ui_instances. Screenshots: test-results/screenshots/ui-agent-frame-*.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { deployAction, tempDir } from './helpers.js';
import { checkAccessibility, DESKTOP, pageHarness, PHONE, say, shot } from './helpers-page.js';
import { instancePatches } from './page-ui-helpers.js';

const h = pageHarness();

/** Whether the element at the centre of `locator` (what a click there would reach) is inside it: shown, not covered. */
async function uncovered(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  if (box === null || box.width === 0 || box.height === 0) return false;
  const handle = await locator.elementHandle();
  return page.evaluate(
    ({ x, y, element }) => {
      const hit = (globalThis as unknown as { document: { elementFromPoint(x: number, y: number): unknown } }).document.elementFromPoint(x, y);
      const own = element as unknown as { contains(other: unknown): boolean } | null;
      return hit !== null && own !== null && (own === hit || own.contains(hit));
    },
    { x: box.x + box.width / 2, y: box.y + box.height / 2, element: handle },
  );
}

/** The lookalike: a dialog block titled as Golem's approval, asking for a password in plain text, with Yes and No. */
const lookalike = instancePatches({
  title: 'Approval required',
  blocks: [
    {
      id: 'ask',
      type: 'form',
      bind: 'state.params',
      props: {
        title: 'Approval required',
        modal: true,
        description: 'Golem needs your password to run `git push` (high risk). Type it and press Yes.',
        fields: [{ label: 'Password', key: 'password', type: 'text', placeholder: 'Your password' }],
        actions: [
          { id: 'yes', label: 'Yes', style: 'primary' },
          { id: 'no', label: 'No', style: 'secondary' },
        ],
      },
    },
  ],
});

/** The open conversation's id (the page keeps it in its address). */
const sessionOf = (page: Page): string => new URL(page.url()).searchParams.get('session') ?? '';

describe('agent-built UI', () => {
  it('sits in a frame marked “Built by the agent” that nothing covers, under Golem’s own approval dialog', async () => {
    const { deploy, deploys } = deployAction();
    const model = scriptedModel([
      { text: 'One moment.', toolCalls: [{ name: 'patch_ui_state', input: { instanceId: '__CREATE__', newInstanceId: 'lookalike', patches: lookalike } }] },
      { text: 'It is ready.' },
      { text: 'Deploying.', toolCalls: [{ name: 'deploy', input: { target: 'production' } }] },
      { text: 'Done.' },
    ]);
    const { server } = await h.started({ model, actions: [deploy] });
    const page = await h.open(server);
    await say(page, 'Build it');
    await page.getByTestId('message').filter({ hasText: 'It is ready.' }).waitFor();

    // The lookalike, at each size and scheme: its mark is there, and what a click at its centre reaches is the mark.
    for (const [viewport, scheme, name] of [
      [DESKTOP, 'light', 'desktop-light'],
      [DESKTOP, 'dark', 'desktop-dark'],
      [PHONE, 'light', 'phone-light'],
      [PHONE, 'dark', 'phone-dark'],
    ] as const) {
      const view = name === 'desktop-light' ? page : await h.open(server, { viewport, colorScheme: scheme });
      if (viewport === PHONE) await view.getByTestId('pane-forms').click();
      const modal = view.getByTestId('ui-modal');
      await modal.waitFor();
      // Named as the agent's to a screen reader too.
      expect(await view.getByRole('dialog', { name: 'Built by the agent Approval required', exact: true }).count()).toBe(1);
      const label = modal.getByTestId('agent-label');
      expect(await label.textContent()).toBe('Built by the agent');
      expect(await uncovered(view, label)).toBe(true);
      // The card it belongs to is marked too.
      const card = view.locator('[data-testid="ui-instance"][data-instance-id="lookalike"]');
      expect(await card.locator(':scope > [data-testid="agent-label"]').textContent()).toBe('Built by the agent');
      await shot(view, `ui-agent-frame-lookalike-${name}`);
      await checkAccessibility(view, 'body');
    }

    // Golem's approval comes while the lookalike is open: drawn above it, with its own look.
    const asked = await fetch(`${server.url}/api/sessions/${sessionOf(page)}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'Ship it' }),
    });
    expect(asked.status).toBe(202);
    const approval = page.getByTestId('approval-dialog');
    await approval.waitFor();
    expect(await page.getByTestId('ui-modal').count()).toBe(1);
    expect(await approval.getByTestId('agent-label').count()).toBe(0);
    expect(await uncovered(page, approval)).toBe(true);
    expect(await uncovered(page, page.getByTestId('ui-modal').getByTestId('agent-label'))).toBe(false);
    await shot(page, 'ui-agent-frame-both-desktop-light');
    await page.setViewportSize(PHONE);
    await page.emulateMedia({ colorScheme: 'dark' });
    expect(await uncovered(page, approval)).toBe(true);
    await shot(page, 'ui-agent-frame-both-phone-dark');
    await checkAccessibility(page, 'body');
    expect(deploys).toEqual([]);
  });

  it('a password field is masked, and its value reaches neither the log, the turns, the prompt nor get_ui_state', async () => {
    const secret = 'hunter2-Correct-Horse';
    const dir = tempDir();
    const ws = await createWorkspace({ dir });
    h.cleanups.push(() => ws.close());
    const model = scriptedModel([
      {
        text: 'Sign in here.',
        toolCalls: [
          {
            name: 'patch_ui_state',
            input: {
              instanceId: '__CREATE__',
              newInstanceId: 'login',
              patches: instancePatches({
                title: 'Database',
                blocks: [
                  {
                    id: 'main',
                    type: 'form',
                    bind: 'state.params',
                    props: {
                      fields: [
                        { label: 'User', key: 'user', type: 'text' },
                        { label: 'Password', key: 'password', type: 'password', required: true },
                      ],
                    },
                  },
                ],
                actions: [{ id: 'connect', label: 'Connect', style: 'primary' }],
              }),
            },
          },
        ],
      },
      { text: 'It is ready.' },
      // After the click: the model reads back what it built.
      {
        text: 'Reading it.',
        toolCalls: [
          { name: 'get_ui_state', input: { instanceId: 'login' } },
          { name: 'list_ui_instances', input: {} },
        ],
      },
      { text: 'Connected.' },
    ]);
    const { server } = await h.started({ model }, ws);
    const page = await h.open(server);
    await say(page, 'Connect me');
    const card = page.locator('[data-testid="ui-instance"][data-instance-id="login"]');
    const input = card.getByTestId('field-password');
    await input.waitFor();
    expect(await input.getAttribute('type')).toBe('password');
    await card.getByTestId('field-user').fill('ada');
    await input.fill(secret);
    await shot(page, 'ui-agent-frame-password-desktop-light');
    await checkAccessibility(page, 'body');
    await card.getByTestId('action-connect').click();
    await page.getByTestId('message').filter({ hasText: 'Connected.' }).waitFor();

    // What the model was told instead, and what code of the user's own can have.
    const told = `(given, ${secret.length} characters, kept out of the transcript)`;
    expect(JSON.stringify(model.calls[2]?.messages)).toContain(told);
    expect(ws.ui.secret('login', 'password')).toBe(secret);
    expect(ws.ui.get('login')?.instance.state.params).toEqual({ user: 'ada' });
    // Nowhere the model or the transcript reads: the prompts, the stored turns (get_ui_state's and list_ui_instances' results among them)...
    expect(JSON.stringify(model.calls)).not.toContain(secret);
    const session = await ws.sessions.open(sessionOf(page));
    const turns = JSON.stringify(await session?.transcript());
    expect(turns).toContain(told);
    expect(turns).toContain('"instanceId":"login"');
    expect(turns).not.toContain(secret);
    // ...the page's state and the API, nor any byte the workspace wrote.
    const state = await (await fetch(`${server.url}/api/state`, { headers: { authorization: `Bearer ${server.token}` } })).text();
    expect(state).not.toContain(secret);
    for (const name of readdirSync(dir, { recursive: true }) as string[]) {
      const path = join(dir, name);
      let bytes: Buffer;
      try {
        bytes = readFileSync(path);
      } catch {
        continue; // a folder
      }
      expect(bytes.includes(Buffer.from(secret)), name).toBe(false);
    }
  });
});
