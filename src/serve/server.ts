/**
 * `golem serve`'s server: a Node HTTP server on loopback around Golem's fetch handler
 * (handler.ts: the page, its JSON API, the protocol routes, MCP), and a WebSocket endpoint
 * (`/ws`) that streams the workspace's UI instances as AG-UI state events (ui-stream.ts),
 * runs as AG-UI run events, and the browser adapter's calls; and `/ws/agui`, AG-UI over a
 * WebSocket (each message a RunAgentInput, answered by its run's events alone). A token (returned by `serve`,
 * for the command to print) is required of every API call and socket; before it, every
 * request must name this server as its Host and a browser's Origin must be the server's
 * own (request-guard.ts), so another site's page can neither open the socket nor call the
 * API with the user's browser, even through DNS rebinding.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { GolemError } from '../core/errors.js';
import { checkTokenStrength } from './token-strength.js';
import { importOptional } from '../core/optional-import.js';
import type { Workspace } from '../create-workspace.js';
import type { WorkerEvent } from '../agent/ui-adapter.js';
import { SERVE_PACKAGES } from './api.js';
import type { BrowserAdapter } from './browser-adapter.js';
import { readClientMessage } from './client-message.js';
import { assembleHandler, sameToken } from './handler.js';
import type { ServeAgentOptions } from './host.js';
import { aguiSocket } from './agui.js';
import { requestGuard } from './request-guard.js';
import type { ElicitationAnswer, ElicitationRequest } from '../mcp/connection.js';
import { elicitOnPage } from './elicitation.js';
import { applyUiAction, handledAction, type UIActionEvent, type UIActionMessage } from './ui-actions.js';
import type { UploadLimits } from '../ui/ui-uploads.js';

export interface ServeOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0 (any free port). */
  port?: number;
  /** Default: 32 random bytes, hex. One given needs at least 128 bits of randomness (see `createGolemHandler`), or INVALID_ARGUMENT. */
  token?: string;
  /** Origins allowed besides the server's own. */
  allowedOrigins?: readonly string[];
  /**
   * Host names the server answers for besides loopback's, IP addresses and `host` (a request
   * naming another host is refused with HOST_NOT_ALLOWED: DNS rebinding).
   */
  allowedHosts?: readonly string[];
  /** Allow a host that is not loopback (default false: refused). */
  exposed?: boolean;
  /** The agent that answers the pages' messages (none: the pages read, answer approvals and decide clearance, but cannot chat). */
  agent?: ServeAgentOptions;
  /** The built page's folder (default: Golem's dist/web); false serves the API and socket only. */
  page?: string | false;
  /** How long files uploaded for UI file fields are held unsent, and the caps on their bytes (see `createGolemHandler`). */
  uploads?: Partial<UploadLimits>;
}

export interface GolemServer {
  /** e.g. http://127.0.0.1:4173 */
  url: string;
  token: string;
  /** The WebSocket address with the token, for a client. */
  socketUrl: string;
  /** The page's address with the token (in the fragment, which no request carries): what to open in a browser. */
  pageUrl: string;
  /** The pages as the worker tree's UIAdapter (approvals, clearance, progress), for a worker you run yourself. */
  ui: BrowserAdapter;
  /** Resolves when the session's runs started from a page have ended. */
  settled(sessionId: string): Promise<void>;
  /** Clients connected now. */
  clients(): number;
  /**
   * A worker's `onEvent` that streams its run to every client as AG-UI events (RUN_*,
   * STEP_*, TEXT_MESSAGE_*, TOOL_CALL_*). `threadId`: the conversation, e.g. the session's id.
   */
  workerEvents(threadId: string, runId?: string): (event: WorkerEvent) => void;
  /** Calls `listener` with each action a user clicked (its form's values already applied); returns the unsubscribe. */
  onUiAction(listener: (event: UIActionEvent) => void): () => void;
  /** Asks the user on the page, for an MCP server (elicitation): a form, answered by its Submit, Decline or Cancel. */
  elicit(request: ElicitationRequest, signal?: AbortSignal): Promise<ElicitationAnswer>;
  close(): Promise<void>;
}

const MAX_MESSAGE = 64 * 1024;
const MAX_AGUI_MESSAGE = 8 * 1024 * 1024;
/** What may wait unsent for one client before it is dropped. */
const MAX_BUFFERED = 8 * 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** What an API call without the token is told: the page gets it from the address `golem serve` printed. */
const TOKEN_REFUSAL = 'the token is missing or wrong; open the address golem serve printed';

export async function serve(ws: Workspace, options: ServeOptions = {}): Promise<GolemServer> {
  const host = options.host ?? '127.0.0.1';
  if (!LOOPBACK.has(host) && options.exposed !== true) {
    throw new GolemError('INVALID_ARGUMENT', `serving on ${host} would expose the workspace beyond this machine; pass exposed: true if that is meant`);
  }
  const token = options.token ?? randomBytes(32).toString('hex');
  checkTokenStrength(token);
  // ws loads here, not with Golem: only a server needs it.
  const [{ WebSocketServer }, { getRequestListener }] = await Promise.all([
    importOptional(() => import('ws'), SERVE_PACKAGES),
    importOptional(() => import('@hono/node-server'), SERVE_PACKAGES),
  ]);
  const parts = await assembleHandler(
    ws,
    {
      ...(options.agent !== undefined && { agent: options.agent }),
      ...(options.uploads !== undefined && { uploads: options.uploads }),
      page: options.page ?? true,
      token,
    },
    TOKEN_REFUSAL,
  );
  const { handler, host: agentHost, stream, adapter } = parts;
  const actionListeners = new Set<(event: UIActionEvent) => void>();
  const sockets = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE });
  // AG-UI over a WebSocket (/ws/agui): runs only, no broadcasts; a RunAgentInput may carry images.
  const aguiSockets = new WebSocketServer({ noServer: true, maxPayload: MAX_AGUI_MESSAGE });
  let origins = new Set<string>();
  /** Sends to one client; one that does not read is not buffered for without end: it is dropped, and reconnects to a snapshot. */
  const sendTo = (client: WebSocket, text: string) => {
    if (client.readyState !== client.OPEN) return;
    if (client.bufferedAmount > MAX_BUFFERED) return void client.terminate();
    client.send(text);
  };
  // What the handler has for the pages goes to every socket.
  parts.onEvent((event) => {
    const text = JSON.stringify(event);
    for (const client of sockets.clients) sendTo(client, text);
  });

  const listener = getRequestListener(handler.fetch);
  // Host and Origin first, for the page, the API and the socket alike.
  const guard = requestGuard({
    host,
    exposed: options.exposed === true,
    ...(options.allowedHosts !== undefined && { allowedHosts: options.allowedHosts }),
    origins: () => origins,
  });
  const http: Server = createServer((req, res) => {
    const refused = guard(req.headers);
    if (refused === undefined) return void listener(req, res);
    res.writeHead(403, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify({ error: refused }));
  });

  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node leaves an upgraded socket without an error handler: a client that resets it must not take the process down.
    socket.on('error', () => socket.destroy());
    const refuse = (status: number, reason: string) => {
      socket.end(`HTTP/1.1 ${status} ${reason}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
    };
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/ws' && url.pathname !== '/ws/agui') return refuse(404, 'Not Found');
    if (guard(req.headers) !== undefined) return refuse(403, 'Forbidden');
    const given = url.searchParams.get('token') ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!sameToken(given, token)) return refuse(401, 'Unauthorized');
    if (url.pathname === '/ws/agui') return aguiSockets.handleUpgrade(req, socket, head, (client) => attachAgui(client));
    sockets.handleUpgrade(req, socket, head, (client) => attach(client));
  });

  function attachAgui(client: WebSocket): void {
    const runs = aguiSocket(agentHost, null, (text) => sendTo(client, text));
    // A binary message is no RunAgentInput: read as empty, it is refused like any other that is not one.
    client.on('message', (data, binary) =>
      runs.receive(binary ? '' : (Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer)).toString('utf8')),
    );
    client.on('close', () => runs.close());
    client.on('error', () => runs.close());
  }

  function attach(client: WebSocket): void {
    const send = (text: string) => sendTo(client, text);
    const sendEvent = (event: unknown) => send(JSON.stringify(event));
    sendEvent(stream.snapshot());
    const off = stream.subscribe((_event, text) => send(text));
    client.on('message', (data) => {
      const read = readClientMessage(data);
      if (!read.ok) return sendEvent({ type: 'RUN_ERROR', code: read.code, message: read.message });
      const message = read.message;
      // A client that is behind (a version gap) asks for the whole state again.
      if (message.type === 'SNAPSHOT_REQUEST') return sendEvent(stream.snapshot());
      if (message.type === 'UI_ACTION') {
        const refused = (code: string, text: string) => {
          // The client's optimistic values are undone by the state as it is.
          sendEvent({ type: 'RUN_ERROR', code, message: text });
          sendEvent(stream.snapshot());
        };
        const action = message as Partial<UIActionMessage>;
        // A click an action's handler answers needs no agent: it is taken while the agent works.
        const busy = typeof action.instanceId === 'string' && !handledAction(ws.ui, action) ? agentHost.refuseAction(action.instanceId) : undefined;
        if (busy !== undefined) return refused('SESSION_BUSY', busy);
        applyUiAction(ws.ui, action)
          .then((result) => {
            if (!result.ok) return refused(result.code, result.message);
            for (const listener of actionListeners) listener(result.event);
            if (result.event.handled !== true) agentHost.uiAction(result.event);
          })
          .catch((error: unknown) => refused(GolemError.isInstance(error) ? error.code : 'INTERNAL', (error as Error).message));
      }
    });
    client.on('close', off);
    client.on('error', off);
  }

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, host, () => resolve());
  }).catch(async (cause: unknown) => {
    await handler.close();
    throw new GolemError('INVALID_ARGUMENT', `cannot listen on ${host}:${options.port ?? 0}: ${(cause as Error).message}`, { cause });
  });
  const { port } = http.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // A page opened by an allowed name calls back from that name's origin.
  const named = (options.allowedHosts ?? []).map((name) => `http://${name.replace(/:\d+$/, '')}:${port}`);
  origins = new Set([url, `http://localhost:${port}`, `http://127.0.0.1:${port}`, ...named, ...(options.allowedOrigins ?? [])]);
  // Runs of a process that died are resumed once the server listens, never before.
  parts.resumeRuns();

  const asking = new Set<AbortController>();
  const onUiAction = (listener: (event: UIActionEvent) => void) => {
    actionListeners.add(listener);
    return () => void actionListeners.delete(listener);
  };
  return {
    url,
    token,
    socketUrl: `${url.replace(/^http/, 'ws')}/ws?token=${token}`,
    pageUrl: `${url}/#token=${token}`,
    ui: adapter,
    settled: (sessionId) => handler.settled(sessionId),
    clients: () => sockets.clients.size,
    onUiAction,
    elicit: (request, signal) => {
      // Closing the server gives up on the questions still open.
      const stop = new AbortController();
      const onStop = () => stop.abort();
      signal?.addEventListener('abort', onStop, { once: true });
      asking.add(stop);
      return elicitOnPage(ws.ui, onUiAction, request, stop.signal).finally(() => {
        asking.delete(stop);
        signal?.removeEventListener('abort', onStop);
      });
    },
    workerEvents: parts.workerEvents,
    async close() {
      for (const stop of asking) stop.abort();
      await handler.close();
      actionListeners.clear();
      for (const client of [...sockets.clients, ...aguiSockets.clients]) client.terminate();
      sockets.close();
      aguiSockets.close();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections(); // idle keep-alive connections too, or close() waits for them
      await closed;
    },
  };
}
