/**
 * The HTTP side of `golem serve` and createGolemHandler, on Hono: the page's files (no
 * auth: they hold nothing of the workspace) and the JSON API under `/api` (the auth check
 * first, then the `user` hook), which reads and changes the workspace through the host,
 * as the request's user. A refusal is `{ error: { code, message } }` with a status that
 * says whose fault it is.
 */
import type { Context, Hono as HonoApp } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { z } from 'zod';
import { importOptional } from '../core/optional-import.js';

/** What `golem serve` loads when a server starts (optional peer dependencies: a missing one names all three to install). */
export const SERVE_PACKAGES = { packages: ['hono', '@hono/node-server', 'ws'], purpose: 'golem serve' } as const;
/** What createGolemHandler loads (the rest of golem serve's packages are the Node server's and the socket's). */
const HANDLER_PACKAGES = { packages: ['hono'], purpose: 'createGolemHandler' } as const;
import { GolemError } from '../core/errors.js';
import { RUN_POLICIES } from '../agent/inbox.js';
import { mountAgui } from './agui.js';
import { mountChat } from './chat.js';
import { mountUiRoutes } from './ui-files.js';
import type { UploadLimits } from '../ui/ui-uploads.js';
import type { ServeHost } from './host.js';
import { ApprovalAnswerSchema } from './views.js';
import type { PageFiles } from './page.js';
import { MAX_BODY, parseInput, readJsonBody } from './json-body.js';
import { requestUser, setRequestUser } from './request-user.js';
import { mountRunRoutes } from './run-routes.js';
import { mountSessionDiffRoute } from './session-diff-route.js';
import { SessionAccess } from './session-access.js';
import { mountTaskRoutes } from './task-routes.js';

const Body = {
  session: z.strictObject({ label: z.string().max(200).nullable().optional() }),
  message: z.strictObject({ text: z.string().min(1, 'the message is empty').max(MAX_BODY) }),
  /** A new message: while a run holds the session, `policy` says what becomes of it (the server's default when none). */
  send: z.strictObject({ text: z.string().min(1, 'the message is empty').max(MAX_BODY), policy: z.enum(RUN_POLICIES).optional() }),
  switch: z.strictObject({ direction: z.enum(['left', 'right']) }),
  fork: z.strictObject({ at: z.string().min(1).optional() }),
  approval: ApprovalAnswerSchema,
  clearance: z.strictObject({ action: z.enum(['push', 'discard', 'defer']) }),
};

/** Who may call the API and MCP: a check of each request, and what a refused one is told. */
export interface ApiAuth {
  check(request: Request): boolean | Promise<boolean>;
  refusal: string;
}

/** The bearer token of a request (`Authorization: Bearer <token>`), or '' without one. */
export function bearerToken(request: Request): string {
  // The header only: a token in a query string ends up in logs and histories, and would let another site's form post here.
  return /^bearer (.+)$/i.exec(request.headers.get('authorization') ?? '')?.[1] ?? '';
}

export async function createApi(
  host: ServeHost,
  options: {
    /** undefined: no check (the app authenticates in front of the handler). */
    auth: ApiAuth | undefined;
    /** Who the request's user is, once per API request (recorded with setRequestUser); null from it is refused. */
    user?: (request: Request) => string | null | Promise<string | null>;
    page: PageFiles | undefined;
    health: () => object;
    /** Golem's MCP server (Streamable HTTP, stateless) at /mcp, behind the same auth. */
    mcp?: (request: Request) => Promise<Response>;
    /** How long files uploaded for file fields are held unsent, and the caps on their bytes. */
    uploads?: Partial<UploadLimits>;
  },
): Promise<HonoApp> {
  // Hono loads with the server, not with Golem.
  const { Hono } = await importOptional(() => import('hono'), HANDLER_PACKAGES);
  const app = new Hono();

  app.get('/health', (c) => c.json(options.health(), 200, { 'cache-control': 'no-store' }));

  const mcp = options.mcp;
  if (mcp !== undefined) {
    app.all('/mcp', async (c) => {
      if (options.auth !== undefined && !(await options.auth.check(c.req.raw))) {
        return c.json({ jsonrpc: '2.0', error: { code: -32001, message: `UNAUTHORIZED: ${options.auth.refusal}` }, id: null }, 401);
      }
      return mcp(c.req.raw);
    });
  }

  app.use('/api/*', async (c, next) => {
    if (options.auth !== undefined && !(await options.auth.check(c.req.raw)))
      return c.json({ error: { code: 'UNAUTHORIZED', message: options.auth.refusal } }, 401);
    if (options.user !== undefined) {
      const user = await options.user(c.req.raw);
      if (user === null) return c.json({ error: { code: 'UNAUTHORIZED', message: 'this request has no user; sign in first' } }, 401);
      setRequestUser(c.req.raw, user);
    } else setRequestUser(c.req.raw, null); // no users: every session is the one person's
    // A file for a UI's file field comes as its bytes, with a header no form of another site can send.
    const upload = c.req.method === 'POST' && /^\/api\/ui\/[^/]+\/files\/[^/]+$/.test(c.req.path) && c.req.header('x-file-name') !== undefined;
    if (!upload && c.req.method !== 'GET' && c.req.method !== 'HEAD' && !/^application\/json\b/i.test(c.req.header('content-type') ?? '')) {
      return c.json({ error: { code: 'INVALID_ARGUMENT', message: 'send the body as JSON (content-type: application/json)' } }, 415);
    }
    c.header('cache-control', 'no-store');
    await next();
  });

  // Each route acts as the request's user: another user's session, approval or clearance item is not found.
  const user = (c: Context) => requestUser(c.req.raw);
  app.get('/api/state', async (c) => c.json(await host.state(user(c))));
  app.post('/api/sessions', async (c) => c.json(await host.createSession(user(c), (await body(c, Body.session)).label ?? null), 201));
  app.get('/api/sessions/:id', async (c) => c.json(await host.session(user(c), c.req.param('id'))));
  app.post('/api/sessions/:id/messages', async (c) => {
    const { text, policy } = await body(c, Body.send);
    return c.json(await host.send(user(c), c.req.param('id'), text, policy), 202);
  });
  app.post('/api/sessions/:id/turns/:turnId/edit', async (c) =>
    c.json(await host.edit(user(c), c.req.param('id'), c.req.param('turnId'), (await body(c, Body.message)).text), 202),
  );
  app.post('/api/sessions/:id/turns/:turnId/switch', async (c) =>
    c.json(await host.switchVersion(user(c), c.req.param('id'), c.req.param('turnId'), (await body(c, Body.switch)).direction)),
  );
  app.post('/api/sessions/:id/fork', async (c) => c.json(await host.fork(user(c), c.req.param('id'), (await body(c, Body.fork)).at), 201));
  app.post('/api/sessions/:id/stop', (c) => c.json({ stopped: host.stop(user(c), c.req.param('id')) }));
  app.post('/api/approvals/:id', async (c) => {
    const answer = await body(c, Body.approval);
    const given = answer.reason === undefined ? { answer: answer.answer } : { answer: answer.answer, reason: answer.reason };
    await host.answerApproval(user(c), c.req.param('id'), given);
    return c.json({ ok: true });
  });
  // An image a model-built UI shows by blob: sent as the image it is, and never as a page (no sniffing, no script, no styles).
  app.get('/api/ui/:instanceId/images/:sha256', async (c) => {
    const image = await host.uiImage(user(c), c.req.param('instanceId'), c.req.param('sha256'));
    return c.body(new Uint8Array(image.bytes), 200, {
      'content-type': image.mediaType,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'content-disposition': 'inline',
    });
  });
  app.get('/api/clearance/:id/diff', async (c) => c.json({ diff: await host.clearanceDiff(user(c), c.req.param('id')) }));
  app.post('/api/clearance/:id', async (c) => c.json(await host.decideClearance(user(c), c.req.param('id'), (await body(c, Body.clearance)).action)));
  mountUiRoutes(app, host, user, options.uploads);
  const ws = host.workspace;
  const access = new SessionAccess(ws);
  mountRunRoutes(app, { runs: ws.runs, access, refresh: () => ws.manager.refresh() }, user);
  mountSessionDiffRoute(app, host, access, user);
  mountTaskRoutes(app, host, access, user);
  mountAgui(app, host);
  mountChat(app, host);
  app.all('/api/*', (c) => c.json({ error: { code: 'NOT_FOUND', message: `no API at ${c.req.method} ${c.req.path}` } }, 404));

  app.get('*', (c) => {
    const file = options.page?.get(c.req.path);
    if (file === undefined) {
      if (options.page === undefined) return c.text('golem serve: the page is not built; run `npm run build` in the Golem folder\n', 404);
      return c.text('not found\n', 404);
    }
    return c.body(new Uint8Array(file.body), 200, {
      'content-type': file.type,
      // Built assets carry a content hash in their names; index.html does not.
      'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      'x-content-type-options': 'nosniff',
      'content-security-policy': `default-src 'self'; connect-src 'self'; img-src 'self' data:${imageSources(host)}; style-src 'self' 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
      'referrer-policy': 'no-referrer',
    });
  });

  app.onError((error, c) => {
    const failure = GolemError.isInstance(error) ? error : new GolemError('INTERNAL', error.message, { cause: error });
    return c.json({ error: { code: failure.code, message: failure.message } }, failure.status as ContentfulStatusCode);
  });
  return app;
}

/** The request's JSON body, checked; INVALID_ARGUMENT says what is wrong with it. */
async function body<T>(c: Context, schema: z.ZodType<T>): Promise<T> {
  // Read with the limit as the bytes come: a body without a length cannot run over it either.
  return parseInput(schema, await readJsonBody(c.req.raw));
}

/** The hosts image fields may show (ws.ui.catalog.allowImageHosts), for the page's img-src. */
function imageSources(host: ServeHost): string {
  return host.workspace.ui.catalog.imageHosts.map((name) => ` https://${name}`).join('');
}
