/**
 * Refs in snapshots: each interactive element shown once, with a short ref (`e7`) that is
 * never reused in the session, the same while the element stays, and caught as stale once
 * its page is left or the element is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserExecutor } from '../src/index.js';
import { startTaskServer, type TaskServer } from './web-tasks/server.js';
import { TASKS } from './web-tasks/tasks.js';

let server: TaskServer;
let executor: BrowserExecutor;

beforeAll(async () => {
  server = await startTaskServer();
  executor = await BrowserExecutor.launch({ timeoutMs: 2_000, snapshotBudget: 100_000 });
});

afterAll(async () => {
  await executor.close();
  await server.close();
});

const refsOf = (text: string): string[] => [...text.matchAll(/\[ref=([^\]]+)\]/g)].map((m) => m[1] as string);

describe('refs', () => {
  it('shows each interactive element of the task pages once, with a short ref never reused in the session', async () => {
    const session = await executor.createSession();
    const seen = new Set<string>();
    for (const task of TASKS) {
      const open = await executor.execute({ sessionId: session, action: 'OPEN_PAGE', parameters: { url: server.taskUrl(task.name, 7, 'refs') } });
      const text = open.snapshot?.text ?? '';
      const refs = refsOf(text);
      for (const ref of refs) expect(ref).toMatch(/^e\d+$/);
      // Once each: no ref twice on a page, none from another page.
      expect(new Set(refs).size, text).toBe(refs.length);
      for (const ref of refs) expect(seen.has(ref), `${ref} shown on an earlier page`).toBe(false);
      for (const ref of refs) seen.add(ref);
      // Every control Playwright's tree has is among them: as many refs on controls as the page has controls.
      const controls = await executor.page(session).locator('input:visible, button:visible, a:visible, select:visible, textarea:visible').count();
      expect(open.snapshot?.interactive, text).toBe(controls);
      expect(text).not.toMatch(/\[ref=s\d+\//);
    }
    await executor.closeSession(session);
  });

  it('keeps an element its ref across snapshots of one page, and catches a ref of a page left or an element gone', async () => {
    const session = await executor.createSession();
    const first = await executor.execute({ sessionId: session, action: 'OPEN_PAGE', parameters: { url: server.taskUrl('late-content', 4, 'stale') } });
    const start = /button "Start" \[ref=(e\d+)\]/.exec(first.snapshot?.text ?? '')?.[1] as string;
    const code = /textbox "Code" \[ref=(e\d+)\]/.exec(first.snapshot?.text ?? '')?.[1] as string;
    const again = await executor.execute({ sessionId: session, action: 'GET_DOM', parameters: {} });
    expect(again.snapshot?.text).toContain(`button "Start" [ref=${start}]`);
    expect(again.snapshot?.text).toContain(`textbox "Code" [ref=${code}]`);
    // The element is removed from the page: its ref is stale, and says so.
    await executor.page(session).evaluate(() => {
      (globalThis as unknown as { document: { querySelector(s: string): { remove(): void } } }).document.querySelector('input')?.remove();
    });
    await executor.execute({ sessionId: session, action: 'GET_DOM', parameters: {} });
    const gone = await executor.execute({ sessionId: session, action: 'INPUT_TEXT', parameters: { selector: `ref=${code}`, text: 'x' } });
    expect(gone).toMatchObject({
      success: false,
      error: { code: 'SNAPSHOT_STALE', message: expect.stringContaining(`${code} is no longer on the page`) as unknown },
    });
    // Another page: the old ref is refused, not taken for an element of the new page.
    await executor.execute({ sessionId: session, action: 'OPEN_PAGE', parameters: { url: server.taskUrl('login', 4, 'stale') } });
    const left = await executor.execute({ sessionId: session, action: 'CLICK_ELEMENT', parameters: { selector: `ref=${start}` } });
    expect(left).toMatchObject({
      success: false,
      error: { code: 'SNAPSHOT_STALE', message: expect.stringContaining('was taken of an earlier page') as unknown },
    });
    // A ref no snapshot showed, and the old form with a snapshot number.
    for (const selector of ['ref=e99999', 'ref=s1/e3'])
      expect(await executor.execute({ sessionId: session, action: 'CLICK_ELEMENT', parameters: { selector } })).toMatchObject({
        success: false,
        error: { code: 'INVALID_ARGUMENT', message: expect.stringContaining('refs look like ref=e7') as unknown },
      });
    await executor.closeSession(session);
  });
});
