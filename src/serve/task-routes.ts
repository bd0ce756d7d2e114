/**
 * Plans on the page (issue 37, tasks and plans): `POST /api/tasks/:id`, where the user
 * accepts a proposed plan (as proposed, or with their title and steps) or declines it. `ws.tasks` answers the approval a run waits on for it, so the
 * run goes on with the plan as the user left it. A task of a session the request's user may
 * not see is TASK_NOT_FOUND, worded as for none.
 */
import type { Context, Hono as HonoApp } from 'hono';
import { z } from 'zod';
import { GolemError } from '../core/errors.js';
import type { ServeHost } from './host.js';
import { parseInput, readJsonBody } from './json-body.js';
import type { SessionAccess } from './session-access.js';
import { rootSessionOf, sessionTasks } from './task-views.js';

const Decision = z.discriminatedUnion('action', [
  z.strictObject({
    action: z.literal('accept'),
    title: z.string().min(1).max(500).optional(),
    steps: z.array(z.string().min(1).max(2000)).min(1).max(100).optional(),
  }),
  z.strictObject({ action: z.literal('decline'), reason: z.string().max(2000).optional() }),
]);

export function mountTaskRoutes(app: HonoApp, host: ServeHost, access: SessionAccess, user: (c: Context) => string | null): void {
  app.post('/api/tasks/:id', async (c) => {
    const decision = parseInput(Decision, await readJsonBody(c.req.raw));
    const ws = host.workspace;
    await ws.manager.refresh();
    const id = c.req.param('id');
    const task = ws.manager.workspace().collection('task').get(id);
    if (task === undefined || !access.sees(user(c), rootSessionOf(ws.manager.workspace(), task))) throw new GolemError('TASK_NOT_FOUND', `no task ${id}`);
    const decided =
      decision.action === 'accept'
        ? await ws.tasks.accept(id, {
            ...(decision.title !== undefined && { title: decision.title }),
            ...(decision.steps !== undefined && { steps: decision.steps }),
          })
        : await ws.tasks.decline(id, decision.reason);
    return c.json({ task: sessionTasks(ws.manager.workspace(), rootSessionOf(ws.manager.workspace(), decided)).find((t) => t.id === id) });
  });
}
