/**
 * The page's Compare view: `GET /api/sessions/:a/diff/:b`, two sessions compared
 * (`ws.sessions.diff`, as `SessionComparison`), and `POST /api/sessions/:id/merge`, another
 * branch brought into a session (`session.merge`). Both must be sessions the request's user may
 * see (SessionAccess: another user's is SESSION_NOT_FOUND, worded as for none); with users, the
 * UI instances compared are only those their agents built, by the ids their agents gave them.
 */
import type { Context, Hono as HonoApp } from 'hono';
import { z } from 'zod';
import { GolemError } from '../core/errors.js';
import { SessionView } from '../core/turn-tree.js';
import { uiVisibleTo } from '../ui/ui-visibility.js';
import type { MergeResult, SessionComparison } from './api-types.js';
import type { ServeHost } from './host.js';
import type { SessionAccess } from './session-access.js';
import { parseInput, readJsonBody } from './json-body.js';
import { clearanceView, turnView } from './views.js';

const MergeBodySchema = z.strictObject({ from: z.string().min(1).max(200), as: z.enum(['turns', 'summary']).optional() });

export function mountSessionDiffRoute(app: HonoApp, host: ServeHost, access: SessionAccess, user: (c: Context) => string | null): void {
  app.get('/api/sessions/:a/diff/:b', async (c) => {
    const who = user(c);
    const ws = host.workspace;
    await ws.manager.refresh();
    const a = access.session(who, c.req.param('a')).record();
    const b = access.session(who, c.req.param('b')).record();
    const diff = await ws.sessions.diff(a.id, b.id);
    const view = ws.manager.workspace();
    // An instance deleted since has no builder to go by: with users, it is not shown.
    const seen = (id: string) => {
      const record = view.collection('ui_instance').get(id);
      return record !== undefined && uiVisibleTo(record, who, (sessionId) => host.ownerOf(sessionId));
    };
    const ui = who === null ? diff.ui : diff.ui.filter((u) => seen(u.instanceId)).map((u) => ({ ...u, instanceId: host.shownUiId(who, u.instanceId) }));
    // Each side's turns with its own versions, as its chat shows them.
    const sides = { a: new SessionView(view, a), b: new SessionView(view, b) };
    const body: SessionComparison = {
      a: diff.a,
      b: diff.b,
      labels: { a: a.label, b: b.label },
      turns: { base: diff.turns.base, a: diff.turns.a.map((t) => turnView(t, sides.a)), b: diff.turns.b.map((t) => turnView(t, sides.b)) },
      environment: diff.environment,
      ui,
      clearance: { a: diff.clearance.a.map(clearanceView), b: diff.clearance.b.map(clearanceView) },
    };
    return c.json(body);
  });

  app.post('/api/sessions/:id/merge', async (c) => {
    const who = user(c);
    const body = parseInput(MergeBodySchema, await readJsonBody(c.req.raw));
    await host.workspace.manager.refresh();
    const into = access.session(who, c.req.param('id'));
    const from = access.session(who, body.from).record();
    // Neither side may be mid-run (a run leases its root session; a worker's session runs under it): a merge turn
    // between a call and its result would break the run, and a branch mid-run would bring in half an answer.
    for (const id of new Set([into.id, from.id].flatMap((id) => [id, host.rootOf(id)]))) {
      if (host.runs.busyAnywhere(id)) throw new GolemError('SESSION_BUSY', `session "${id}" has a run in progress; merge once it has finished`);
    }
    const as = body.as ?? 'turns';
    const model = host.model;
    const options = { as, signal: c.req.raw.signal, ...(model !== undefined && { model }) };
    // Reserved while the merge is written (a summary waits on the model): no run starts on it meanwhile.
    const turn = await host.runs.reserving(host.rootOf(into.id), () => into.merge(from.id, options));
    const result: MergeResult = { turn: { id: turn.id, version: turn.version }, from: from.id, as };
    return c.json(result, 201);
  });
}
