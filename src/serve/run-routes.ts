/**
 * The runs of the HTTP API (issue 36), as `ws.runs` keeps them in the store, whichever process
 * runs them:
 * - `GET /api/runs?sessionId=&status=&limit=&cursor=`: newest first, a page at a time (`RunPageView`);
 * - `GET /api/runs/:id`: one run (`RunView`);
 * - `GET /api/runs/:id/events`: its events as server-sent events (`RunEventView`), from any
 *   process, live to its end; `?after=<seq>` or `Last-Event-ID` to go on after one;
 * - `POST /api/runs/:id/cancel`: asks its holder to stop, or cancels it at once when no live
 *   process holds it (`RunCancelView`).
 * - `DELETE /api/sessions/:id/inbox/:messageId`: takes back a message waiting in the session's
 *   inbox (`UnsendResult`); MESSAGE_NOT_FOUND when none waits there with that id.
 * With users, a user sees and cancels the runs of the sessions they may see (SessionAccess):
 * another user's run is RUN_NOT_FOUND, worded as for none, and is left out of lists; another
 * user's session is SESSION_NOT_FOUND.
 */
import type { Context, Hono as HonoApp } from 'hono';
import { type RunListOptions, type RunRecord, type RunService, type RunStatus } from '../agent/index.js';
import { GolemError, toGolemError } from '../core/errors.js';
import type { RunLogEntry } from '../agent/run-log.js';
import { answerText } from '../agent/worker/outcome.js';
import { afterOf, eventId } from './run-source.js';
import { sseResponse } from './sse.js';
import type { RunCancelView, RunEventView, RunPageView, RunView, UnsendResult } from './api-types.js';
import { inboxView } from './views.js';
import type { SessionAccess } from './session-access.js';

/** What the routes use: the runs, who may see which session, and a catch-up with other processes' commits. */
export interface RunRoutesDeps {
  runs: RunService;
  access: SessionAccess;
  refresh: () => Promise<unknown>;
}

export function mountRunRoutes(app: HonoApp, deps: RunRoutesDeps, user: (c: Context) => string | null): void {
  app.get('/api/runs', async (c) => {
    const options = listOptions(c);
    await deps.refresh();
    const who = user(c);
    const page = deps.runs.list(who === null ? options : { ...options, where: (run) => deps.access.sees(who, run.sessionId) });
    const view: RunPageView = { ...page, runs: page.runs.map((run) => viewOf(run, who)) };
    return c.json(view);
  });
  app.get('/api/runs/:id', async (c) => {
    const who = user(c);
    const run: RunView = viewOf(await visibleRun(deps, who, c.req.param('id')), who);
    return c.json(run);
  });
  app.get('/api/runs/:id/events', async (c) => {
    const run = await visibleRun(deps, user(c), c.req.param('id'));
    const asked = c.req.query('after');
    if (asked !== undefined && !/^\d{1,15}$/.test(asked))
      throw new GolemError('INVALID_ARGUMENT', `after is a seq (a whole number), not "${asked.slice(0, 40)}"`);
    const after = Math.max(afterOf(c.req.raw, run.id), Number(asked ?? 0));
    return sseResponse((channel) => {
      const stop = new AbortController();
      void (async () => {
        let last = after;
        try {
          for await (const { seq, entry } of deps.runs.follow(run.id, { after, signal: stop.signal })) {
            last = seq;
            channel.send(eventView(entry, seq), eventId(run.id, seq));
          }
        } catch (error) {
          const failure = toGolemError(error);
          if (!stop.signal.aborted) channel.send({ seq: last + 1, type: 'end', error: { code: failure.code, message: failure.message } });
        }
        channel.end();
      })();
      return () => stop.abort();
    });
  });
  app.post('/api/runs/:id/cancel', async (c) => {
    const who = user(c);
    const run = await visibleRun(deps, who, c.req.param('id'));
    const result = await deps.runs.cancelling(run.id, { by: who === null ? 'a client of the HTTP API' : `${who} (HTTP API)` });
    const view: RunCancelView = { ...result, run: viewOf(result.run, who) };
    return c.json(view);
  });
  app.delete('/api/sessions/:id/inbox/:messageId', async (c) => {
    const session = deps.access.session(user(c), c.req.param('id'));
    const id = c.req.param('messageId');
    // Queued by another process, it may not have reached this one yet; and only this session's message is taken back.
    await deps.refresh();
    if (!deps.runs.inbox(session.id).some((m) => m.id === id))
      throw new GolemError('MESSAGE_NOT_FOUND', `no message "${id}" waits for session "${session.id}" (it was delivered, taken back, or never sent)`);
    const unsent: UnsendResult = { unsent: inboxView(await deps.runs.unsend(id)) };
    return c.json(unsent);
  });
}

/** A run's entry as the events route sends it: an end told by its outcome's status and text, or its error's code. */
function eventView(entry: RunLogEntry, seq: number): RunEventView {
  switch (entry.type) {
    case 'event':
      return { seq, type: 'event', event: entry.event as unknown as Record<string, unknown> & { type: string } };
    case 'approval':
      return { seq, type: 'approval', approvalId: entry.approvalId };
    case 'client-call':
      return { seq, type: 'client-call', call: entry.call };
    case 'end': {
      const { outcome, error } = entry.end;
      const failure = error ?? outcome.error;
      return {
        seq,
        type: 'end',
        ...(outcome !== undefined && { outcome: outcome.status, text: answerText(outcome) }),
        ...(failure !== undefined && { error: { code: failure.code, message: failure.message } }),
      };
    }
  }
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
 * A run as the API shows it. With users, which process holds it ("golem serve, pid 4711 on
 * build-2") is the server's business, not its users': `by` and `holder` are left empty.
 */
function viewOf(run: RunRecord, user: string | null): RunView {
  if (user === null) return run;
  const own = `${user} (HTTP API)`;
  return { ...run, by: '', holder: '', ...(run.cancel !== undefined && { cancel: { at: run.cancel.at, by: run.cancel.by === own ? own : '' } }) };
}
