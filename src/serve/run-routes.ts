/**
 * The runs of the HTTP API (issue 36), as `ws.runs` keeps them in the store, whichever process
 * runs them:
 * - `GET /api/runs?sessionId=&status=&limit=&cursor=`: newest first, a page at a time (`RunPageView`);
 * - `GET /api/runs/:id`: one run (`RunView`);
 * - `POST /api/runs/:id/cancel`: asks its holder to stop, or cancels it at once when no live
 *   process holds it (`RunCancelView`).
 * With users, a user sees and cancels the runs of the sessions they may see (SessionAccess):
 * another user's run is RUN_NOT_FOUND, worded as for none, and is left out of lists.
 */
import type { Context, Hono as HonoApp } from 'hono';
import { cancelRun, type RunListOptions, type RunPage, type RunRecord, type RunService, type RunStatus } from '../agent/index.js';
import { GolemError } from '../core/errors.js';
import { encodeCursor } from '../core/page-cursor.js';
import type { RunCancelView, RunPageView, RunView } from './api-types.js';
import type { SessionAccess } from './session-access.js';

/** What the routes use: the runs, who may see which session, and a catch-up with other processes' commits. */
export interface RunRoutesDeps {
  runs: RunService;
  access: SessionAccess;
  refresh: () => Promise<unknown>;
}

/** A page's size when the request names none (as `ws.runs.list`'s). */
const DEFAULT_LIMIT = 50;
/** How many runs a user's list reads at a time while it leaves out other users' runs. */
const SCAN_PAGE = 500;

export function mountRunRoutes(app: HonoApp, deps: RunRoutesDeps, user: (c: Context) => string | null): void {
  app.get('/api/runs', async (c) => {
    const options = listOptions(c);
    await deps.refresh();
    const who = user(c);
    const page: RunPageView = who === null ? deps.runs.list(options) : visibleRuns(deps.runs, options, (id) => deps.access.sees(who, id));
    return c.json(page);
  });
  app.get('/api/runs/:id', async (c) => {
    const run: RunView = await visibleRun(deps, user(c), c.req.param('id'));
    return c.json(run);
  });
  app.post('/api/runs/:id/cancel', async (c) => {
    const who = user(c);
    const run = await visibleRun(deps, who, c.req.param('id'));
    const result: RunCancelView = await cancelRun(deps.runs, run.id, { by: who === null ? 'a client of the HTTP API' : `${who} (HTTP API)` });
    return c.json(result);
  });
}

/** The query of `GET /api/runs`, as `ws.runs.list` takes it (which checks the status, the limit's range and the cursor). */
function listOptions(c: Context): RunListOptions {
  const { sessionId, status, limit, cursor } = c.req.query();
  if (limit !== undefined && !/^\d+$/.test(limit)) throw new GolemError('INVALID_ARGUMENT', `limit is a whole number, not "${limit.slice(0, 40)}"`);
  return {
    ...(sessionId !== undefined && { sessionId }),
    ...(status !== undefined && { status: status as RunStatus }),
    ...(limit !== undefined && { limit: Number(limit) }),
    ...(cursor !== undefined && { cursor }),
  };
}

/** The run, when it exists and `user` may see its session; RUN_NOT_FOUND, worded as the store's, otherwise. */
async function visibleRun(deps: RunRoutesDeps, user: string | null, id: string): Promise<RunRecord> {
  // Another process's run may not have reached this one yet.
  let run = deps.runs.get(id);
  if (run === undefined) {
    await deps.refresh();
    run = deps.runs.get(id);
  }
  if (run === undefined || !deps.access.sees(user, run.sessionId)) throw new GolemError('RUN_NOT_FOUND', `no run with id "${id}"`);
  return run;
}

/**
 * A page of the runs `sees` lets through, newest first: the store's pages read on until the
 * page is full, its cursor after the last run given (so the next page goes on from there).
 */
function visibleRuns(runs: RunService, options: RunListOptions, sees: (sessionId: string) => boolean): RunPage {
  const limit = options.limit ?? DEFAULT_LIMIT;
  const found: RunRecord[] = [];
  // The first read with the request's own limit: ws.runs.list checks it, the status and the cursor.
  let page = runs.list({ ...options, limit });
  for (;;) {
    for (const run of page.runs) {
      if (!sees(run.sessionId)) continue;
      if (found.length === limit) {
        const last = found[limit - 1] as RunRecord;
        return { runs: found, cursor: encodeCursor({ at: last.createdAt, id: last.id }) };
      }
      found.push(run);
    }
    if (page.cursor === undefined) return { runs: found };
    page = runs.list({ ...options, limit: SCAN_PAGE, cursor: page.cursor });
  }
}
