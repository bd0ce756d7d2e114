/**
 * Plans on the page (issue 37, tasks and plans): a proposed plan in the conversation (its
 * `task:proposal` block) and in the side panel, accepted as edited or declined there, its
 * steps marked live as they change, a sub-worker's plan nested under its parent's step;
 * what the page decided read back from the workspace. Checked with axe-core at desktop and
 * phone sizes, light and dark, with a screenshot of each.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createWorkspace, unwrap } from '../src/index.js';
import { DESKTOP, PHONE, checkAccessibility, pageHarness, shot } from './helpers-page.js';

const h = pageHarness();

/** The marks of a plan's own steps on the page (not those of plans nested in it). */
function stepStatuses(page: Page, root: string, taskId: string): Promise<string[]> {
  return page
    .locator(`${root} [data-testid="plan"][data-task-id="${taskId}"] > .plan-steps > [data-testid="plan-step"]`)
    .evaluateAll((els) => els.map((el) => `${el.getAttribute('data-status')} ${el.querySelector('.plan-step-text')?.textContent}`));
}

describe('plans on the page', () => {
  it('shows a proposed plan in the conversation and the side panel, accepts it as edited, follows its steps live, nests a sub-worker’s plan and declines another', async () => {
    const ws = await createWorkspace();
    h.cleanups.push(() => ws.close());
    const session = await ws.sessions.create({ label: 'Billing' });
    const plan = await ws.tasks.propose({ sessionId: session.id, title: 'Fix the rounding', steps: ['Read the invoice code', 'Fix it', 'Run the tests'] });
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'The totals are off by a cent.' }] });
    await session.addTurn({
      role: 'assistant',
      blocks: [
        { type: 'text', text: 'Here is my plan.' },
        { type: 'task:proposal', id: 'proposal-1', taskId: plan.id, title: plan.title, steps: plan.steps },
      ],
    });
    const { server } = await h.started(undefined, ws);
    const page = await h.open(server);
    await page.getByTestId('session-item').first().click();
    const inChat = page.getByTestId('plan-proposal');
    await inChat.getByTestId('plan-accept').waitFor();
    expect(await inChat.locator('[data-testid="plan"]').getAttribute('data-status')).toBe('proposed');
    expect(await stepStatuses(page, '[data-testid="tasks-panel"]', plan.id)).toEqual([
      'pending Read the invoice code',
      'pending Fix it',
      'pending Run the tests',
    ]);
    await shot(page, 'tasks-proposed-desktop-light');

    // Edited in the conversation, then accepted: the workspace has the user's steps.
    await inChat.getByTestId('plan-edit').click();
    await inChat.getByTestId('plan-edit-steps').fill('Read the invoice code\nRound half to even\nRun the tests\nTell the user');
    await inChat.getByTestId('plan-save').click();
    await expect.poll(() => inChat.locator('[data-testid="plan"]').getAttribute('data-status')).toBe('accepted');
    await ws.manager.refresh();
    expect(ws.tasks.get(plan.id)).toMatchObject({
      status: 'accepted',
      steps: [{ text: 'Read the invoice code' }, { text: 'Round half to even' }, { text: 'Run the tests' }, { text: 'Tell the user' }],
    });
    expect(await inChat.getByTestId('plan-accept').count()).toBe(0);

    // Marked as the run goes: both places follow, without a reload.
    await ws.tasks.update(plan.id, {
      set: [
        { step: 0, status: 'done' },
        { step: 1, status: 'in_progress' },
      ],
    });
    const marked = ['done Read the invoice code', 'in_progress Round half to even', 'pending Run the tests', 'pending Tell the user'];
    await expect.poll(() => stepStatuses(page, '[data-testid="tasks-panel"]', plan.id)).toEqual(marked);
    await expect.poll(() => stepStatuses(page, '[data-testid="plan-proposal"]', plan.id)).toEqual(marked);

    // A sub-worker's plan, under the step in progress.
    const nested = unwrap(
      await ws.manager.dispatch({
        type: 'task:propose',
        payload: { sessionId: session.id, title: 'Find the callers', steps: ['Grep for round(', 'List them'], parentTask: { taskId: plan.id, step: 1 } },
      }),
    );
    await ws.tasks.accept(nested.id);
    await ws.tasks.update(nested.id, { set: [{ step: 0, status: 'done' }] });
    const underStep = page.locator(
      `[data-testid="tasks-panel"] [data-task-id="${plan.id}"] [data-testid="plan-step"]:nth-child(2) [data-task-id="${nested.id}"]`,
    );
    await underStep.waitFor();
    expect(await stepStatuses(page, '[data-testid="tasks-panel"]', nested.id)).toEqual(['done Grep for round(', 'pending List them']);
    // Shown once, nested: not also as a plan of its own at the top of the panel.
    expect(await page.locator('[data-testid="tasks-panel"] > [data-testid="plan"]').count()).toBe(1);

    // Another proposal, declined on the page.
    const other = await ws.tasks.propose({ sessionId: session.id, title: 'Rewrite the billing module', steps: ['Start over'] });
    const proposed = page.locator(`[data-testid="tasks-panel"] [data-task-id="${other.id}"]`);
    await proposed.getByTestId('plan-decline').click();
    await expect.poll(() => proposed.getAttribute('data-status')).toBe('declined');
    await ws.manager.refresh();
    expect(ws.tasks.get(other.id).status).toBe('declined');
    expect(ws.tasks.get(plan.id).status).toBe('accepted');

    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        if (size === 'phone') await page.getByTestId('pane-chat').click();
        await inChat.scrollIntoViewIfNeeded();
        await checkAccessibility(page, 'body');
        await shot(page, `tasks-chat-${size}-${scheme}`);
        if (size === 'phone') {
          await page.getByTestId('pane-workers').click();
          await page.getByTestId('tasks-panel').scrollIntoViewIfNeeded();
          expect(await page.getByTestId('tasks-panel').isVisible()).toBe(true);
          await checkAccessibility(page, 'body');
          await shot(page, `tasks-panel-${size}-${scheme}`);
        }
      }
    }
  });
});
