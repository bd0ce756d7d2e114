/**
 * Golem as an MCP server: a workspace's UIs, sessions and clearance queue as MCP tools and
 * resources, for another agent to use. Every tool is a Golem action (its input checked by its
 * schema, its writes through the workspace's one write path); a Golem error comes back as a
 * tool result marked `isError` with its code, so the calling model can read and correct it.
 *
 *   createMcpServer(ws)        an SDK `Server` to connect to any transport (stdio: golem mcp serve)
 *   mcpHttpHandler(ws)         a stateless Streamable HTTP handler: Request in, Response out
 */
import type { RunService } from '../agent/run-service.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { failureText, type Action } from '../action/action.js';
import { environmentActions } from '../agent/worker/environment-actions.js';
import type { Environment } from '../environment/environment.js';
import type { ClearanceApi } from '../agent/clearance.js';
import type { Worker, WorkerOptions } from '../agent/worker/index.js';
import { GolemError } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { SessionManager } from '../prompt/session-manager.js';
import type { UIApi } from '../ui/ui-api.js';
import { callerCheck } from './http-guard.js';
import { golemTools, transcriptText } from './server-tools.js';
import type { TaskApi } from '../agent/task-api.js';
import { readTaskResource, taskResources, taskTools } from './task-tools.js';

/** What the server needs of a workspace (a `Workspace` is one). */
export interface McpServedWorkspace {
  readonly manager: WorkspaceManager;
  readonly sessions: SessionManager;
  readonly ui: UIApi;
  readonly clearance: ClearanceApi;
  readonly runs: RunService;
  readonly tasks: TaskApi;
  worker(options: WorkerOptions): Worker;
}

export interface McpServerOptions {
  /** The model that answers `send_message`; without one, that tool says there is none (NO_MODEL). */
  model?: ModelAdapter;
  /** The actions the agent that answers `send_message` has (patch_ui_state, get_ui_state and list_ui_instances are always among them). */
  agentActions?: Action[];
  /**
   * Environments (seed 000) another agent edits through `update_editable_status` and their
   * autonomous actions; each one's context is a resource (golem://environments/<id>).
   */
  environments?: Environment[];
  /** The project the agent's file actions work on (as `ws.worker({ project })`). */
  project?: { root: string };
  /** More Golem actions to offer as tools as they are (autonomous ones only: nobody is asked) (an environment's update_editable_status and actions). */
  tools?: Action[];
  /** The server's name in `initialize` (default "golem"). */
  name?: string;
}

/**
 * `mcpHttpHandler`'s check of who may call it (MCP's transport: a server "MUST validate the
 * Origin header" against DNS rebinding). By default a request's Host must be a loopback name
 * (`localhost`), an IP address, or one of `allowedHosts`; an Origin, when a browser sends one,
 * must be a loopback origin (any port) or one of `allowedOrigins`. Refused: 403, HOST_NOT_ALLOWED
 * or ORIGIN_NOT_ALLOWED. `'*'` lets any through: for a handler mounted behind a check of its
 * own (`golem serve` checks both, and its token).
 */
export interface McpHttpOptions extends McpServerOptions {
  /** Host names answered besides loopback's and IP addresses (e.g. `golem.internal`, with or without a port). */
  allowedHosts?: readonly string[] | '*';
  /** Origins allowed besides loopback ones, exactly as browsers send them (`https://app.example.com`). */
  allowedOrigins?: readonly string[] | '*';
}

/** An MCP server over the workspace; connect it to a transport (`await server.connect(new StdioServerTransport())`). */
export function createMcpServer(ws: McpServedWorkspace, options: McpServerOptions = {}): Server {
  const mount = mounter(ws, options);
  return serverOver(ws, options, toolsOf(ws, options, mount), mount);
}

/**
 * Golem's tools, the environments' (update_editable_status and their autonomous actions, each
 * environment mounted on its first call: its values load and persist in the workspace), and those
 * given; a given one must be autonomous: a call from another agent has nobody here to approve it.
 */
function toolsOf(ws: McpServedWorkspace, options: McpServerOptions, mount: () => Promise<void>): Action[] {
  const supervised = (options.tools ?? []).filter((t) => t.trust !== 'autonomous').map((t) => `${t.name} (${t.trust})`);
  if (supervised.length > 0) {
    throw new GolemError(
      'INVALID_ARGUMENT',
      `an MCP server's tools run when another agent calls them, with nobody to approve: ${supervised.join(', ')} must be autonomous`,
    );
  }
  const ofEnvironments = environmentActions(options.environments ?? [])
    .all.filter((a) => a.trust === 'autonomous')
    .map((a): Action => ({ ...a, run: async (input, ctx) => (await mount(), a.run(input, ctx)) }));
  return [...golemTools(ws, options), ...taskTools(ws.tasks), ...ofEnvironments, ...(options.tools ?? [])];
}

/** Mounts the environments once (their values load, and persist from then on). */
function mounter(ws: McpServedWorkspace, options: McpServerOptions): () => Promise<void> {
  let mounted: Promise<void> | undefined;
  const mountAll = async () => {
    for (const environment of options.environments ?? []) await environment.mount?.(ws.manager);
  };
  return () => (mounted ??= mountAll());
}

function serverOver(ws: McpServedWorkspace, options: McpServerOptions, tools: readonly Action[], mount: () => Promise<void>): Server {
  const server = new Server(
    { name: options.name ?? 'golem', version: '0.1.0' },
    {
      // Prompts: none yet (an empty list, not "Method not found"); logging: each tool call, and each failure (logging/setLevel is the SDK's).
      capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
      instructions:
        "Golem's workspace: build and read UIs (patch_ui_state, get_ui_state, list_ui_instances), read, fork and talk to its sessions (list_sessions, read_session, fork_session, send_message), see what waits for the user's clearance, and follow and mark the tasks (list_tasks, update_task, close_task).",
    },
  );
  const byName = new Map(tools.map((t) => [t.name, t]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.jsonSchema as { type: 'object' } })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const action = byName.get(request.params.name);
    if (action === undefined) throw new McpError(ErrorCode.InvalidParams, `no tool "${request.params.name}"; list_tools names them`);
    const log = (level: 'debug' | 'warning', data: string) =>
      server.sendLoggingMessage({ level, logger: 'golem', data }, extra.sessionId).catch(() => undefined);
    const input = action.validate(request.params.arguments ?? {});
    if (!input.ok) {
      await log('warning', `${action.name}: ${failureText(input.error)}`);
      return { content: [{ type: 'text', text: failureText(input.error) }], isError: true };
    }
    await log('debug', `${action.name} called`);
    try {
      const output = await action.run(input.value, { signal: extra.signal });
      const text = action.render?.(output) ?? JSON.stringify(output, null, 2);
      const failed = action.failed !== undefined ? action.failed(output) !== undefined : isFailure(output);
      if (failed) await log('warning', `${action.name}: ${text.slice(0, 500)}`);
      return { content: [{ type: 'text', text }], ...(failed && { isError: true }) };
    } catch (error) {
      await log('warning', `${action.name}: ${failureText(error)}`);
      return { content: [{ type: 'text', text: failureText(error) }], isError: true };
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    throw new McpError(ErrorCode.InvalidParams, `no prompt "${request.params.name}": this server offers none (prompts/list)`);
  });

  server.setRequestHandler(ListResourcesRequestSchema, () => ({
    resources: [
      ...ws.sessions.list().map((s) => ({
        uri: `golem://sessions/${s.id}/transcript`,
        name: `Session ${s.label ?? s.id}`,
        description: `The conversation of session ${s.id}`,
        mimeType: 'text/plain',
      })),
      ...ws.ui
        .list()
        .map((i) => ({ uri: `golem://ui/${i.id}`, name: `UI ${i.id}`, description: `The state of UI instance ${i.id}`, mimeType: 'application/json' })),
      ...taskResources(ws.tasks),
      ...(options.environments ?? []).map((e) => ({
        uri: `golem://environments/${e.info.id}`,
        name: e.info.name,
        description: `${e.info.description} Its fields, their values and how to change them.`,
        mimeType: 'text/plain',
      })),
    ],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      { uriTemplate: 'golem://sessions/{sessionId}/transcript', name: 'Session transcript', mimeType: 'text/plain' },
      { uriTemplate: 'golem://ui/{instanceId}', name: 'UI instance', mimeType: 'application/json' },
      { uriTemplate: 'golem://tasks/{taskId}', name: 'Task', mimeType: 'application/json' },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const session = /^golem:\/\/sessions\/([^/]+)\/transcript$/.exec(uri);
    if (session !== null) {
      const opened = await ws.sessions.open(decodeURIComponent(session[1] as string));
      if (opened === undefined) throw new McpError(ErrorCode.InvalidParams, `no session "${session[1]}"`);
      return { contents: [{ uri, mimeType: 'text/plain', text: transcriptText(await opened.transcript()) }] };
    }
    if (uri.startsWith('golem://tasks')) {
      let text: string | undefined;
      try {
        text = readTaskResource(ws.tasks, uri);
      } catch (error) {
        throw new McpError(ErrorCode.InvalidParams, GolemError.isInstance(error) ? failureText(error) : String(error));
      }
      if (text !== undefined) return { contents: [{ uri, mimeType: 'application/json', text }] };
    }
    const environment = /^golem:\/\/environments\/(.+)$/.exec(uri);
    const env = environment === null ? undefined : (options.environments ?? []).find((e) => e.info.id === decodeURIComponent(environment[1] as string));
    if (env !== undefined) {
      await mount();
      const howToCall = (name: string, params: object) => `call the ${name} tool with ${JSON.stringify(params)}`;
      return { contents: [{ uri, mimeType: 'text/plain', text: env.renderContext({ howToCall }) }] };
    }
    const ui = /^golem:\/\/ui\/(.+)$/.exec(uri);
    const instance = ui === null ? undefined : ws.ui.get(decodeURIComponent(ui[1] as string));
    if (instance === undefined) throw new McpError(ErrorCode.InvalidParams, `no resource "${uri}"; list_resources names them`);
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(instance, null, 2) }] };
  });
  return server;
}

function isFailure(output: unknown): boolean {
  return typeof output === 'object' && output !== null && 'success' in output && (output as { success: unknown }).success === false;
}

/**
 * A stateless Streamable HTTP handler (`POST` JSON-RPC in, JSON out): each request gets a
 * server of its own, so it can be mounted on any server and scaled out. Authentication is the
 * mounting server's (golem serve checks its token first).
 */
export function mcpHttpHandler(ws: McpServedWorkspace, options: McpHttpOptions = {}): (request: Request) => Promise<Response> {
  // The tools are made once: a request gets a server of its own, not new actions (their schemas compiled again).
  const mount = mounter(ws, options);
  const tools = toolsOf(ws, options, mount);
  const refusal = callerCheck(options);
  return async (request) => {
    const refused = refusal(request);
    if (refused !== undefined) return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: refused }, id: null }, { status: 403 });
    if (request.method !== 'POST') {
      // Stateless: no stream of server-initiated messages to open, no session to end.
      return Response.json(
        { jsonrpc: '2.0', error: { code: ErrorCode.ConnectionClosed, message: 'Method not allowed: this server is stateless; POST requests' }, id: null },
        {
          status: 405,
          headers: { allow: 'POST' },
        },
      );
    }
    const server = serverOver(ws, options, tools, mount);
    const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      void server.close();
    }
  };
}
