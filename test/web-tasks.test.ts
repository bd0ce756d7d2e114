/**
 * The web task suite through the real task loop: Chromium driven by the executor, the
 * structured response protocol in envelope mode, and a scripted policy per task standing
 * in for the model (it reads only what a model would: the goal, results and snapshots).
 * The reward is read from the task server, which the page reports to.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, type LaunchedBrowser, type Workspace } from '../src/index.js';
import { observe, taskPolicy } from './web-tasks/policies.js';
import { startTaskServer, type TaskServer } from './web-tasks/server.js';
import { TASKS } from './web-tasks/tasks.js';

let server: TaskServer;
let ws: Workspace;
let browser: LaunchedBrowser;

beforeAll(async () => {
  server = await startTaskServer();
  ws = await createWorkspace();
  browser = await ws.browser.launch({ security: { allowedDomains: ['127.0.0.1'] } });
});

afterAll(async () => {
  await browser.close();
  await ws.close();
  await server.close();
});

const goalFor = (url: string) => `Open ${url} and do what the page asks.`;

/**
 * The episode's reward as the server recorded it. The page shows its verdict at once and
 * reports it with a fetch that may still be on its way when the model has read the verdict
 * and finished: wait for it a little (a second at most).
 */
async function reported(episode: string): Promise<ReturnType<TaskServer['reward']>> {
  for (let waited = 0; server.reward(episode) === undefined && waited < 1000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
  return server.reward(episode);
}

describe('the web tasks, solved through the task loop in Chromium', () => {
  for (const task of TASKS) {
    for (const seed of [3, 11]) {
      it(`${task.name} (seed ${seed})`, async () => {
        const episode = `${task.name}-${seed}`;
        const model = taskPolicy(task.name);
        const { outcome, session, variables } = await browser.runTask({ goal: goalFor(server.taskUrl(task.name, seed, episode)), model });
        expect(outcome.status, outcome.error?.message ?? outcome.decision?.message).toBe('done');
        expect(outcome.decision?.message).toMatch(/Reward: 1/);
        // The page's own verdict, as the server recorded it.
        expect(await reported(episode)).toMatchObject({ task: task.name, seed, reward: 1 });
        // Every command went through the protocol and left its result in the session.
        const transcript = await session.transcript();
        const results = transcript.filter((t) => t.meta.commandResult !== undefined);
        expect(results.length).toBe(outcome.actions.length);
        expect(outcome.actions.every((a) => a.ok)).toBe(true);
        // Each result with a whole snapshot keeps it in the session; the model's last prompt showed only the newest. Actions that
        // left the page where it was answered with what changed instead (INPUT_TEXT always does, here).
        expect(results.filter((t) => t.meta.observation !== undefined).length).toBeGreaterThanOrEqual(1);
        const resultText = (t: (typeof results)[number]) => t.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n');
        expect(results.filter((t) => /^(Changes since s\d+, now s\d+|No change since s\d+)/m.test(resultText(t))).length).toBeGreaterThan(0);
        const shown = (model.calls.at(-1)?.messages ?? []).flatMap((m) => m.content.filter((p) => p.type === 'text' && /^Snapshot s\d+:/m.test(p.text)));
        expect(shown).toHaveLength(1);
        if (task.name === 'table-lookup') expect(variables.price).toMatch(/^\d+\.\d\d$/);
        if (task.name === 'late-content') expect(variables.code).toMatch(/^[A-Z0-9]{4}$/);
      });
    }
  }
});

describe('the task loop', () => {
  it('catches a ref from the page before a navigation, and the model recovers with a fresh snapshot', async () => {
    const episode = 'stale-ref';
    const model = taskPolicy('multi-page', { staleRefAt: 1 });
    const { outcome, session } = await browser.runTask({ goal: goalFor(server.taskUrl('multi-page', 5, episode)), model });
    expect(outcome.status).toBe('done');
    expect((await reported(episode))?.reward).toBe(1);
    expect(outcome.actions.filter((a) => !a.ok)).toHaveLength(1);
    const transcript = await session.transcript();
    const failed = transcript.filter((t) => (t.meta.commandResult as { ok?: boolean } | undefined)?.ok === false);
    expect(failed).toHaveLength(1);
    expect(failed[0]?.blocks[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^Result of INPUT_TEXT: failed\n\[SNAPSHOT_STALE\] snapshot s1 was taken of an earlier page/) as unknown,
    });
    // The model's next answer was a RETRY with GET_DOM.
    const answers = transcript
      .filter((t) => t.role === 'assistant')
      .map(
        (t) => JSON.parse(t.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')) as { decision: { action: string }; command?: { action: string } },
      );
    const i = answers.findIndex((a) => a.decision.action === 'RETRY');
    expect(answers[i]?.command?.action).toBe('GET_DOM');
  });

  it('fills a secret in outside the model: the model and the session never see it', async () => {
    const episode = 'secret-login';
    const url = server.taskUrl('login', 9, episode);
    const page = await (await fetch(url)).text();
    const password = /password \\?&quot;([a-z0-9]{5})\\?&quot;|password "([a-z0-9]{5})"/.exec(page);
    const secret = password?.[1] ?? password?.[2];
    expect(secret).toMatch(/^[a-z0-9]{5}$/);
    const model = taskPolicy('login');
    const { outcome, session } = await browser.runTask({ goal: goalFor(url), model, secrets: { password: secret as string } });
    expect(outcome.status).toBe('done');
    expect((await reported(episode))?.reward).toBe(1);
    // The page shows the password in its query; the snapshots show ${password} instead, and the policy typed that.
    expect(model.calls.some((p) => observe(p).snapshot?.includes('password "${password}"'))).toBe(true);
    // Not in any form: the prompts, the stored turns and the events' results never hold it.
    for (const prompt of model.calls) expect(JSON.stringify(prompt)).not.toContain(secret);
    const stored = JSON.stringify(await session.transcript());
    expect(stored).not.toContain(secret);
    expect(JSON.stringify([...ws.manager.workspace().records()])).not.toContain(secret);
    expect(stored).toContain('${password}');
  });

  it('refuses to leave the allowed hosts: OPEN_PAGE and a followed link alike', async () => {
    const session = await ws.sessions.create();
    const tab = await browser.open({ session });
    try {
      const outside = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: 'http://localhost:1/' } });
      expect(outside).toMatchObject({ success: false, error: { code: 'URL_NOT_ALLOWED' } });
      const script = await tab.execute({ action: 'OPEN_PAGE', parameters: { url: 'javascript:alert(1)' } });
      expect(script).toMatchObject({ success: false, error: { code: 'URL_NOT_ALLOWED' } });
      expect(await tab.execute({ action: 'OPEN_PAGE', parameters: { url: server.url } })).toMatchObject({ success: true });
      // A navigation the page makes itself is held to the allowlist too.
      await tab.page().evaluate(() => {
        (globalThis as unknown as { location: { href: string } }).location.href = 'http://localhost:9/elsewhere';
      });
      await tab.page().waitForTimeout(200);
      expect(tab.page().url()).not.toContain('localhost:9');
    } finally {
      await tab.close();
    }
    expect(ws.browser.sessions(session.id)).toMatchObject([{ sessionId: session.id, status: 'closed' }]);
  });

  it('stops at the step limit, and closes the browser session either way', async () => {
    const model = taskPolicy('late-content');
    const { outcome, browserSessionId } = await browser.runTask({ goal: goalFor(server.taskUrl('late-content', 1, 'limit')), model, maxSteps: 2 });
    expect(outcome.status).toBe('step_limit');
    expect(browser.executor.sessions()).not.toContain(browserSessionId);
    expect(server.reward('limit')).toBeUndefined();
  });
});
