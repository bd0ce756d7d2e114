/**
 * A password a user typed (`ws.ui.secret(instanceId, key)`, src/ui/secret-values.ts) lives in
 * the process's memory only as long as its instance: deleting the instance (patch_ui_state's
 * "__DELETE__", here or in another process on the same store) lets it go, and an instance made
 * again under the same id starts with none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../src/index.js';
import { steppingClock, tempDir } from './helpers.js';

const SECRET = 'hunter2-Correct-Horse';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function opened(dir?: string, clock?: () => Date): Promise<Workspace> {
  const ws = await createWorkspace({ ...(dir !== undefined && { dir }), ...(clock !== undefined && { clock }) });
  cleanups.push(() => ws.close());
  return ws;
}

/** Creates the sign-in form `login` (a user name and a password). */
async function signIn(ws: Workspace): Promise<void> {
  const fields = [
    { label: 'User', key: 'user', type: 'text' },
    { label: 'Password', key: 'password', type: 'password' },
  ];
  const made = await ws.ui.patch({
    instanceId: '__CREATE__',
    newInstanceId: 'login',
    patches: [
      { op: 'set', path: 'blocks', value: [{ id: 'main', type: 'form', bind: 'state.params', props: { fields } }] },
      { op: 'set', path: 'actions', value: [{ id: 'connect', label: 'Connect', style: 'primary' }] },
    ],
  });
  expect(made).toMatchObject({ success: true });
}

async function connect(ws: Workspace): Promise<void> {
  expect(await ws.ui.click({ instanceId: 'login', actionId: 'connect', values: { user: 'ada', password: SECRET } })).toMatchObject({ ok: true });
  expect(ws.ui.secret('login', 'password')).toBe(SECRET);
}

describe("an instance's secret values", () => {
  it('are let go when the instance is deleted, and an instance made again under its id has none', async () => {
    const ws = await opened();
    await signIn(ws);
    await connect(ws);
    expect(await ws.ui.patch({ instanceId: '__DELETE__', targetInstanceId: 'login', patches: [] })).toMatchObject({ success: true, kind: 'delete' });
    expect(ws.ui.get('login')).toBeUndefined();
    expect(ws.ui.secret('login', 'password')).toBeUndefined();
    await signIn(ws);
    expect(ws.ui.secret('login', 'password')).toBeUndefined();
  });

  it('are let go when another process on the same store deletes the instance, or deletes and makes it again', async () => {
    const dir = tempDir();
    // Two processes on one store, each with a clock of its own: the instance made there again is made later than the one here.
    const here = await opened(dir, steppingClock(Date.UTC(2026, 0, 1)));
    const there = await opened(dir, steppingClock(Date.UTC(2026, 0, 2)));
    await signIn(here);
    await connect(here);
    await there.manager.refresh();
    expect(await there.ui.patch({ instanceId: '__DELETE__', targetInstanceId: 'login', patches: [] })).toMatchObject({ success: true, kind: 'delete' });
    await here.manager.refresh();
    expect(here.ui.get('login')).toBeUndefined();
    expect(here.ui.secret('login', 'password')).toBeUndefined();

    // Deleted and made again there between two catch-ups here: the instance here is a new one, with no password.
    await signIn(here);
    await connect(here);
    await there.manager.refresh();
    expect(await there.ui.patch({ instanceId: '__DELETE__', targetInstanceId: 'login', patches: [] })).toMatchObject({ success: true });
    await signIn(there);
    await here.manager.refresh();
    expect(here.ui.get('login')?.version).toBe(1);
    expect(here.ui.secret('login', 'password')).toBeUndefined();
  });
});
