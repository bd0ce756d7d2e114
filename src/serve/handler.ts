/**
 * Golem as a fetch handler (`Request` in, `Response` out) for a server of your own: the
 * page's JSON API (`/api/*`, api.ts), the protocol routes mounted there (AG-UI at
 * `/api/agui`, the AI SDK's UI message stream at `/api/chat`), Golem's MCP server (`/mcp`)
 * and, if asked for, the page's files. It holds the parts `golem serve` is built on (the
 * host, the UI stream, the browser adapter); `serve()` adds the Node server, the Host and
 * Origin guard and the WebSocket around it.
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { WorkerEvent } from '../agent/ui-adapter.js';
import { GolemError } from '../core/errors.js';
import { checkTokenStrength } from './token-strength.js';
import { importOptional } from '../core/optional-import.js';
import type { Workspace } from '../create-workspace.js';
import { MCP_PACKAGES } from '../mcp/connection.js';
import { bearerToken, createApi, type ApiAuth } from './api.js';
import { BrowserAdapter } from './browser-adapter.js';
import { corsPolicy, type CorsOptions, type CorsOrigins } from './cors.js';
import { ServeHost, type ServeAgentOptions } from './host.js';
import { DEFAULT_PAGE_DIR, loadPage } from './page.js';
import { pageTranslator } from './run-events.js';
import { UIStream } from './ui-stream.js';
import { uploadLimits, type UploadLimits } from '../ui/ui-uploads.js';

export interface GolemHandlerOptions {
  /** The agent that answers messages (none: clients read, answer approvals and decide clearance, but cannot chat). */
  agent?: ServeAgentOptions;
  /**
   * Golem's page: true for the built one (Golem's dist/web), or a folder of your own. Default
   * false: the page lives at the root of its origin and follows the workspace over
   * `golem serve`'s WebSocket, which a handler has not; `serve()` serves it.
   */
  page?: string | boolean;
  /**
   * The bearer token every API and MCP request must carry (`Authorization: Bearer <token>`),
   * as `golem serve` wants it: at least 128 bits of randomness (32 random hex characters;
   * `openssl rand -hex 32` makes one), and a weaker one is refused with INVALID_ARGUMENT.
   * Default: 32 random bytes, hex (read it back as `handler.token`). Not with `auth`.
   */
  token?: string;
  /**
   * Instead of the token: your own check of each API and MCP request (false: 401
   * UNAUTHORIZED), or false for no check at all, when your server authenticates requests
   * before they reach the handler.
   */
  auth?: false | ((request: Request) => boolean | Promise<boolean>);
  /**
   * Who the user of an API request is (after `auth`), called once per request; routes read
   * it with `requestUser(request)`. With it, sessions are the user's own: one a user creates
   * or forks belongs to them, and another user's is SESSION_NOT_FOUND everywhere (listed
   * nowhere, its approvals, clearance items and UIs neither shown nor answerable). Sessions
   * made without a user (by the terminal, MCP, or before users) belong to nobody and are
   * not shown. Return null for a request with no user: it is refused (401). Without this
   * option there are no users and every session is shown (as in `golem serve`).
   */
  user?: (request: Request) => string | null | Promise<string | null>;
  /**
   * The origins whose pages may call the handler from a browser (CORS): a list, a check, or
   * `{ origins, credentials }` when those pages send cookies. Default: none (same origin only).
   */
  cors?: CorsOrigins | CorsOptions;
  /**
   * The path the handler is mounted under when the requests it gets still carry it (a
   * Next.js catch-all route at `app/api/golem/[...path]/route.ts`: '/api/golem'); a request
   * outside it is 404. Not needed behind Hono's `mount()` or Express's `app.use(path, …)`,
   * which take the prefix off.
   */
  basePath?: string;
  /**
   * Golem's MCP server at `/mcp` (behind the same auth). Default true without `user`, and
   * refused with it: its tools read and change every session of the workspace, whoever asks.
   */
  mcp?: boolean;
  /**
   * Files uploaded for the file fields of model-built UIs: how long one no click sent is held
   * (`holdMs`, default one hour), and how many bytes of those one instance and one user may hold
   * (`instanceBytes`, default 64 MiB; `userBytes`, default 256 MiB): past a cap an upload is
   * refused with UPLOAD_QUOTA (413) before it is stored.
   */
  uploads?: Partial<UploadLimits>;
}

/** Golem for a server of your own: see createGolemHandler. */
export interface GolemHandler {
  /** The handler: a standard `Request` in, a `Response` out (a bound function: pass it as it is). */
  readonly fetch: (request: Request) => Promise<Response>;
  /** The bearer token requests must carry; undefined with `auth`. */
  readonly token: string | undefined;
  /** Resolves when the session's runs (started through the handler) have ended. */
  settled(sessionId: string): Promise<void>;
  /** Stops the runs (one waiting for an approval stays pending in the workspace) and the streams; the workspace stays open. */
  close(): Promise<void>;
}

/** What `serve()` builds on: the handler and the parts its WebSocket needs. */
export interface HandlerParts {
  handler: GolemHandler;
  host: ServeHost;
  stream: UIStream;
  adapter: BrowserAdapter;
  /** Calls `listener` with each event for the pages (runs, approvals, what changed); returns the unsubscribe. */
  onEvent: (listener: (event: object) => void) => () => void;
  /** A worker's `onEvent` that streams its run as AG-UI events to the pages. */
  workerEvents: (threadId: string, runId?: string) => (event: WorkerEvent) => void;
  /** Starts resuming the runs of processes that died (in the background): `serve()` once it listens. */
  resumeRuns: () => void;
}

/**
 * A fetch handler for the workspace: the page's API, AG-UI (`POST /api/agui`), the AI
 * SDK's chat route (`POST /api/chat`) and MCP (`/mcp`), for Hono, Next.js route handlers,
 * Bun, Deno, or Node and Express through `@hono/node-server`'s `getRequestListener`.
 * Needs hono (an optional peer dependency).
 *
 * @example
 * const golem = await createGolemHandler(ws, { agent: { model }, auth: false, user: (req) => userOf(req) })
 * app.all('/golem/*', mount(golem.fetch)) // Hono, with `mount` from 'hono/mount'
 */
export async function createGolemHandler(ws: Workspace, options: GolemHandlerOptions = {}): Promise<GolemHandler> {
  const parts = await assembleHandler(ws, options);
  parts.resumeRuns();
  return parts.handler;
}

/** createGolemHandler, with the parts `serve()` needs besides. */
export async function assembleHandler(
  ws: Workspace,
  options: GolemHandlerOptions,
  tokenRefusal = 'the token is missing or wrong (Authorization: Bearer <token>)',
): Promise<HandlerParts> {
  const checked = checkOptions(options);
  const token = options.auth === undefined ? (options.token ?? randomBytes(32).toString('hex')) : undefined;
  let auth: ApiAuth | undefined;
  if (token !== undefined) {
    auth = { check: (request) => sameToken(bearerToken(request), token), refusal: tokenRefusal };
  } else if (typeof options.auth === 'function') {
    auth = { check: options.auth, refusal: 'this request is not allowed here' };
  }
  const cors = options.cors === undefined ? undefined : corsPolicy(options.cors);

  const listeners = new Set<(event: object) => void>();
  const broadcast = (event: object) => {
    for (const listener of listeners) listener(event);
  };
  const workerEvents = (threadId: string, runId: string = randomUUID()) => {
    const translator = pageTranslator(threadId, runId);
    return (event: WorkerEvent) => {
      for (const out of translator.translate(event)) broadcast(out);
    };
  };
  const adapter = new BrowserAdapter(broadcast);
  // The host first: it refuses an agent whose project holds a registered renderer, before anything listens.
  const host = new ServeHost(ws, adapter, broadcast, options.agent);
  const stream = new UIStream(ws.manager);
  // Uploads no click sent are let go once their window passes, whether or not anyone uploads again (any process may do it).
  const sweep = setInterval(
    () => void ws.ui.uploads.releaseStale({ holdMs: checked.uploads.holdMs }).catch(() => undefined),
    Math.max(1000, Math.min(checked.uploads.holdMs, 60_000)),
  );
  sweep.unref();
  const close = async () => {
    clearInterval(sweep);
    await host.close();
    await adapter.shutdown();
    stream.close();
    listeners.clear();
  };
  let app: Awaited<ReturnType<typeof createApi>>;
  try {
    const page = options.page === false || options.page === undefined ? undefined : loadPage(options.page === true ? DEFAULT_PAGE_DIR : options.page);
    app = await createApi(host, {
      auth,
      ...(options.user !== undefined && { user: options.user }),
      page,
      // Open to load balancers, so it says that the server is up and nothing else (no version, count or path).
      health: () => ({ ok: true }),
      ...(checked.mcp && { mcp: mcpRoute(ws, options.agent) }),
      uploads: checked.uploads,
    });
  } catch (error) {
    await close();
    throw error;
  }

  const route = (request: Request) => app.fetch(request) as Promise<Response>;
  const base = checked.basePath;
  const fetch = async (request: Request): Promise<Response> => {
    let inner = request;
    if (base !== undefined) {
      const url = new URL(request.url);
      if (url.pathname !== base && !url.pathname.startsWith(`${base}/`)) {
        return Response.json({ error: { code: 'NOT_FOUND', message: `nothing at ${url.pathname.slice(0, 200)}` } }, { status: 404 });
      }
      url.pathname = url.pathname.slice(base.length) || '/';
      inner = new Request(url, request);
    }
    return cors === undefined ? route(inner) : cors(inner, route);
  };
  const handler: GolemHandler = {
    fetch,
    token,
    settled: (sessionId) => host.settled(sessionId),
    close,
  };
  return {
    handler,
    host,
    stream,
    adapter,
    onEvent: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    workerEvents,
    resumeRuns: () => host.runs.resumeRuns(),
  };
}

/** The options that need checking, checked (INVALID_ARGUMENT says what is wrong), before anything starts. */
function checkOptions(options: GolemHandlerOptions): { basePath: string | undefined; mcp: boolean; uploads: UploadLimits } {
  const uploads = uploadLimits(options.uploads);
  if (options.auth !== undefined && options.token !== undefined) {
    throw new GolemError('INVALID_ARGUMENT', 'give either a token or an auth option, not both: auth replaces the token check');
  }
  if (options.token !== undefined) checkTokenStrength(options.token);
  if (options.user !== undefined && options.mcp === true) {
    throw new GolemError('INVALID_ARGUMENT', "mcp cannot be on with users: Golem's MCP tools read and change every session, whoever asks");
  }
  let basePath = options.basePath?.replace(/\/+$/, '');
  if (basePath === '') basePath = undefined;
  if (basePath !== undefined && !/^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/.test(basePath)) {
    throw new GolemError('INVALID_ARGUMENT', `basePath "${basePath}" is not a path; write it as /api/golem`);
  }
  if (basePath !== undefined && options.page !== undefined && options.page !== false) {
    throw new GolemError('INVALID_ARGUMENT', "the page cannot be served under a basePath: it calls the API at the origin's /api");
  }
  return { basePath, mcp: options.mcp ?? options.user === undefined, uploads };
}

/** Golem's MCP server (Streamable HTTP, stateless): the MCP SDK loads with the first request to /mcp. */
function mcpRoute(ws: Workspace, agent: ServeAgentOptions | undefined): (request: Request) => Promise<Response> {
  let handler: ((request: Request) => Promise<Response>) | undefined;
  return async (request) => {
    // Behind the server's own checks: golem serve's Host and Origin guard, or the token.
    handler ??= (await importOptional(() => import('../mcp/server.js'), MCP_PACKAGES)).mcpHttpHandler(ws, {
      allowedHosts: '*',
      allowedOrigins: '*',
      ...(agent !== undefined && {
        model: agent.model,
        agentActions: agent.actions ?? [],
        ...(agent.project !== undefined && { project: agent.project }),
      }),
    });
    return handler(request);
  };
}

/** Whether a token given is the one expected, in constant time. */
export function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
