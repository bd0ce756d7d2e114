/**
 * A connection to one MCP server, through the official SDK (loaded on first use): stdio or
 * Streamable HTTP, the newest protocol revision the SDK speaks with its fallback for older
 * servers. Its tools are Golem actions (tool-action.ts), cached and refreshed when the server
 * says they changed. A server that dies, hangs past its time limit or answers what is not
 * MCP fails the call in hand with a typed error the model reads; the next call starts it again.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type * as ClientModule from '@modelcontextprotocol/sdk/client/index.js';
import type * as TypesModule from '@modelcontextprotocol/sdk/types.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Action } from '../action/action.js';
import type { JsonObject } from '../core/blocks.js';
import { GolemError, toGolemError } from '../core/errors.js';
import { importOptional } from '../core/optional-import.js';
import type { McpServerConfig } from './config.js';
import { LoopbackOAuth } from './oauth.js';
import type { McpAuthOptions } from './auth-options.js';

export type { McpAuthOptions } from './auth-options.js';
import { resourceActions, type McpResource } from './resource-actions.js';
import { actionNameOf, NOT_KEPT, toolActions, toolFingerprint, type McpPart, type McpTool, type McpToolOutput } from './tool-action.js';
import { ToolVersions } from './tool-versions.js';

/** Where a connection keeps what a server sends as bytes (the workspace's blobs). */
export interface McpBlobSink {
  register(bytes: Uint8Array, options: { mediaType: string; filename?: string }): Promise<{ sha256: string; size: number }>;
}

/** A server asking the user for input (MCP elicitation): a form (a JSON Schema of flat fields) or a link to open. */
export type ElicitationRequest =
  | { server: string; mode: 'form'; message: string; requestedSchema: JsonObject }
  | { server: string; mode: 'url'; message: string; url: string; elicitationId: string };

export interface ElicitationAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]>;
}

export interface McpConnectOptions {
  /** Where a stdio server starts when its config names no `cwd` (default: this process's). */
  cwd?: string;
  /** Where images, audio and binary resources go (default: kept out, the model told their size). */
  blobs?: McpBlobSink;
  /** How long connecting may take (default 30 s). */
  connectTimeoutMs?: number;
  /** Called with the new actions when the server's tool list changed and was read again. */
  onToolsChanged?: (actions: Action[]) => void;
  /** What the server writes on stderr (stdio), line by line; default: dropped. */
  onLog?: (line: string) => void;
  /** Signing in to HTTP servers that use OAuth: where credentials are kept, how the user is shown the address. */
  auth?: McpAuthOptions;
  /** Told when `close()` is called (ws.mcp forgets the connection then). */
  onClosed?: (connection: McpConnection) => void;
  /** Answers a server's request for user input; without it, elicitation is not offered to servers. */
  onElicitation?: (request: ElicitationRequest, signal: AbortSignal) => Promise<ElicitationAnswer>;
}

/** A prompt a server offers (a slash command in the chat). */
export interface McpPrompt {
  name: string;
  description?: string;
  arguments: { name: string; description?: string; required: boolean }[];
}

const DEFAULT_CALL_TIMEOUT = 60_000;
const DEFAULT_CONNECT_TIMEOUT = 30_000;
const CLIENT_INFO = { name: 'golem', version: '0.1.0' };

type Sdk = typeof ClientModule & typeof TypesModule;

/** The MCP SDK: an optional peer, loaded when MCP is first used. */
export const MCP_PACKAGES = { packages: ['@modelcontextprotocol/sdk'], purpose: 'MCP' } as const;

let sdk: Promise<Sdk> | undefined;
function loadSdk(): Promise<Sdk> {
  sdk ??= importOptional(
    () => Promise.all([import('@modelcontextprotocol/sdk/client/index.js'), import('@modelcontextprotocol/sdk/types.js')]),
    MCP_PACKAGES,
  ).then(([client, types]) => ({ ...client, ...types }));
  sdk.catch(() => (sdk = undefined));
  return sdk;
}

/** A live connection to one server. `actions()` are ordinary Golem actions; `close()` ends it (and a stdio server's process). */
export class McpConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly #options: McpConnectOptions;
  #client: Client | undefined;
  #tools: McpTool[] = [];
  readonly #versions = new ToolVersions();
  #actions: Action[] = [];
  #closed = false;
  /** Calls in flight, failed at once when the transport breaks (not left to their time limit). */
  readonly #inFlight = new Map<AbortController, Client>();
  #reconnecting: Promise<void> | undefined;

  private constructor(name: string, config: McpServerConfig, options: McpConnectOptions) {
    this.name = name;
    this.config = config;
    this.#options = options;
  }

  /** Connects and reads the tool list; MCP_UNAVAILABLE, MCP_TIMEOUT, MCP_ERROR or MCP_TOOL_* when it cannot. */
  static async open(name: string, config: McpServerConfig, options: McpConnectOptions = {}): Promise<McpConnection> {
    const connection = new McpConnection(name, config, options);
    await connection.#connect();
    return connection;
  }

  /** The server's tools as actions (as of the last tool list). */
  actions(): Action[] {
    return [...this.#actions];
  }

  /** The server's tools as it listed them. */
  tools(): McpTool[] {
    return [...this.#tools];
  }

  /** True while connected (false after close, or while a broken connection waits for its next call to reconnect). */
  get connected(): boolean {
    return this.#client !== undefined;
  }

  /** What the server said of itself when it connected. */
  get server(): { name: string; version: string } | undefined {
    const info = this.#client?.getServerVersion();
    return info === undefined ? undefined : { name: info.name, version: info.version };
  }

  /** Runs a tool; the result with its parts (isError kept), or a typed error when the server could not answer. */
  async callTool(tool: string, input: JsonObject, signal?: AbortSignal): Promise<McpToolOutput> {
    const { CallToolResultSchema } = await loadSdk();
    const result = await this.#request((client, options) => client.callTool({ name: tool, arguments: input }, CallToolResultSchema, options), signal);
    return {
      server: this.name,
      tool,
      isError: result.isError === true,
      content: await this.#parts(result.content as RawPart[]),
      ...(result.structuredContent !== undefined && { structuredContent: result.structuredContent as JsonObject }),
    };
  }

  /** The server's resources (first pages up to `limit`). */
  async listResources(limit = 500): Promise<McpResource[]> {
    if (this.#client?.getServerCapabilities()?.resources === undefined) return [];
    const out: McpResource[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.#request((client, options) => client.listResources(cursor === undefined ? {} : { cursor }, options));
      for (const r of page.resources)
        out.push({
          uri: r.uri,
          name: r.name,
          ...(r.description !== undefined && { description: r.description }),
          ...(r.mimeType !== undefined && { mimeType: r.mimeType }),
        });
      cursor = page.nextCursor;
    } while (cursor !== undefined && out.length < limit);
    return out.slice(0, limit);
  }

  /** Reads a resource: its parts, text as text and bytes as blobs. */
  async readResource(uri: string, signal?: AbortSignal): Promise<McpPart[]> {
    const result = await this.#request((client, options) => client.readResource({ uri }, options), signal);
    return this.#parts(result.contents.map((resource) => ({ type: 'resource', resource }) as RawPart));
  }

  /** The server's prompts (none when it offers none). */
  async listPrompts(): Promise<McpPrompt[]> {
    if (this.#client?.getServerCapabilities()?.prompts === undefined) return [];
    return (await this.#request((client, options) => client.listPrompts({}, options))).prompts.map((p) => ({
      name: p.name,
      ...(p.description !== undefined && { description: p.description }),
      arguments: (p.arguments ?? []).map((a) => ({
        name: a.name,
        ...(a.description !== undefined && { description: a.description }),
        required: a.required === true,
      })),
    }));
  }

  /** A prompt filled in with `args`: its messages' text, in order. */
  async getPrompt(name: string, args: Record<string, string> = {}): Promise<{ role: 'user' | 'assistant'; text: string }[]> {
    const result = await this.#request((client, options) => client.getPrompt({ name, arguments: args }, options));
    return result.messages.map((m) => ({
      role: m.role,
      text:
        m.content.type === 'text'
          ? m.content.text
          : m.content.type === 'resource' && 'text' in m.content.resource
            ? String(m.content.resource.text)
            : `[${m.content.type}]`,
    }));
  }

  /** Reads the tool list again (as on `notifications/tools/list_changed`). */
  async refresh(): Promise<Action[]> {
    const client = this.#client;
    if (client === undefined) throw this.#unavailable('not connected');
    await this.#readTools(client);
    return this.actions();
  }

  /** Ends the connection (a stdio server's process with it). Calls after it fail with MCP_UNAVAILABLE. */
  async close(): Promise<void> {
    if (!this.#closed) this.#options.onClosed?.(this);
    this.#closed = true;
    const client = this.#client;
    this.#client = undefined;
    for (const call of this.#inFlight.keys()) call.abort(this.#unavailable('the connection was closed'));
    await client?.close().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    // An HTTP server may need the user to sign in (OAuth): a loopback listener waits for its redirect meanwhile.
    const oauth = 'url' in this.config ? await LoopbackOAuth.start(this.name, this.config.url, this.#options.auth) : undefined;
    try {
      try {
        await this.#connectOnce(oauth, undefined);
      } catch (error) {
        if (oauth === undefined || !oauth.needsSignIn) throw error;
        await this.#connectOnce(oauth, await oauth.signIn());
      }
    } finally {
      await oauth?.close();
    }
  }

  /** One attempt; with `code`, the sign-in's authorization code is exchanged for tokens first. */
  async #connectOnce(oauth: LoopbackOAuth | undefined, code: string | undefined): Promise<void> {
    const { Client, ToolListChangedNotificationSchema, ElicitRequestSchema } = await loadSdk();
    const transport = await this.#transport(oauth);
    if (code !== undefined) {
      try {
        await (transport as StreamableHTTPClientTransport).finishAuth(code);
      } catch (error) {
        throw new GolemError('MCP_AUTH_REQUIRED', `MCP server "${this.name}" did not accept the sign-in: ${(error as Error).message}`, {
          cause: error,
          details: { server: this.name },
        });
      }
    }
    const elicit = this.#options.onElicitation;
    const client = new Client(CLIENT_INFO, { capabilities: elicit === undefined ? {} : { elicitation: { form: {}, url: {} } } });
    // Tied to this client: an old one that ends late (a server stopped after a timeout) touches nothing of its successor.
    client.onerror = (error) => this.#broken(client, error, 'error');
    client.onclose = () => this.#broken(client, undefined, 'close');
    const timeout = this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT;
    try {
      await client.connect(transport, { timeout });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw this.#failure(error, 'could not connect', timeout);
    }
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      try {
        await this.#readTools(client);
        this.#options.onToolsChanged?.(this.actions());
      } catch (error) {
        this.#options.onLog?.(`tool list refresh failed: ${toGolemError(error).message}`);
      }
    });
    if (elicit !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
        const params = request.params;
        const asked: ElicitationRequest =
          params.mode === 'url'
            ? { server: this.name, mode: 'url', message: params.message, url: params.url, elicitationId: params.elicitationId }
            : { server: this.name, mode: 'form', message: params.message, requestedSchema: params.requestedSchema as unknown as JsonObject };
        const answer = await elicit(asked, extra.signal);
        return answer.action === 'accept' && answer.content !== undefined ? { action: 'accept', content: answer.content } : { action: answer.action };
      });
    }
    try {
      await this.#readTools(client);
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    if (this.#closed) {
      // close() came while this connected: nothing is left running.
      await client.close().catch(() => undefined);
      throw this.#unavailable('the connection was closed');
    }
    this.#client = client;
  }

  async #transport(oauth: LoopbackOAuth | undefined): Promise<Transport> {
    const config = this.config;
    if ('url' in config) {
      const { StreamableHTTPClientTransport } = await importOptional(() => import('@modelcontextprotocol/sdk/client/streamableHttp.js'), MCP_PACKAGES);
      return new StreamableHTTPClientTransport(new URL(config.url), {
        ...(config.headers !== undefined && { requestInit: { headers: config.headers } }),
        ...(oauth !== undefined && { authProvider: oauth.provider }),
      });
    }
    const { StdioClientTransport, getDefaultEnvironment } = await importOptional(() => import('@modelcontextprotocol/sdk/client/stdio.js'), MCP_PACKAGES);
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: config.cwd ?? this.#options.cwd ?? process.cwd(),
      stderr: 'pipe',
    });
    const log = this.#options.onLog;
    let pending = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') log?.(line);
    });
    return transport;
  }

  async #readTools(client: Client): Promise<void> {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    const timeout = this.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT;
    do {
      let page;
      try {
        page = await client.listTools(cursor === undefined ? {} : { cursor }, { timeout });
      } catch (error) {
        throw this.#failure(error, 'could not list its tools', timeout);
      }
      // A tool that can only run as a task (MCP's tasks extension) is not offered: Golem calls tools directly.
      for (const tool of page.tools as unknown as (McpTool & { execution?: { taskSupport?: string } })[]) {
        if (tool.execution?.taskSupport === 'required') this.#options.onLog?.(`tool ${tool.name} runs only as a task, which Golem does not do: not offered`);
        else tools.push(tool);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    const actions: Action[] = toolActions(this.name, this.config, tools, (tool, input, signal) => this.callTool(tool, input, signal), {
      current: (tool) => this.#tools.find((t) => t.name === tool),
      first: (tool) => this.#versions.first(tool),
      previous: (tool) => this.#versions.previous(tool),
      recheck: (signal) => this.#recheck(signal),
    }) as Action[];
    if (client.getServerCapabilities()?.resources !== undefined) actions.push(...resourceActions(this, this.config));
    const names = new Set(tools.map((t) => actionNameOf(this.name, t.name)));
    const clash = actions.slice(tools.length).find((a) => names.has(a.name));
    if (clash !== undefined)
      throw new GolemError(
        'MCP_TOOL_NAME_CLASH',
        `MCP server "${this.name}" has a tool that would be the action ${clash.name}, which Golem gives its resources`,
        { details: { server: this.name, action: clash.name } },
      );
    this.#versions.update(this.name, this.#tools, tools);
    this.#tools = tools;
    this.#actions = actions;
  }

  /** Lists the tools again before a call is decided; a list that changed is told, as a list_changed notification is. */
  async #recheck(signal: AbortSignal | undefined): Promise<void> {
    const before = this.#fingerprints();
    await this.#request((client) => this.#readTools(client), signal);
    if (this.#fingerprints() !== before) this.#options.onToolsChanged?.(this.actions());
  }

  #fingerprints(): string {
    return this.#tools.map((t) => toolFingerprint(this.name, t)).join();
  }

  /** One request, reconnecting first if the connection broke, failing fast if it breaks meanwhile. */
  async #request<T>(send: (client: Client, options: { timeout: number; signal: AbortSignal }) => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#closed) throw this.#unavailable('the connection was closed');
    if (this.#client === undefined) {
      this.#reconnecting ??= this.#reconnect().finally(() => (this.#reconnecting = undefined));
      await stoppable(this.#reconnecting, signal, () => new GolemError('ABORTED', `the call to ${this.name} was stopped`));
    }
    const client = this.#client as Client;
    const timeout = this.config.timeoutMs ?? DEFAULT_CALL_TIMEOUT;
    const call = new AbortController();
    const onAbort = () => call.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.#inFlight.set(call, client);
    try {
      return await send(client, { timeout, signal: call.signal });
    } catch (error) {
      if (signal?.aborted === true) throw new GolemError('ABORTED', `the call to ${this.name} was stopped`, { cause: error });
      const failure = call.signal.aborted && GolemError.isInstance(call.signal.reason) ? call.signal.reason : this.#failure(error, 'failed', timeout);
      // A server that hangs is started again at the next call rather than asked again.
      if (failure.code === 'MCP_TIMEOUT') await this.#restart();
      throw failure;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      this.#inFlight.delete(call);
    }
  }

  /** Connects again; a tool list that changed meanwhile is told, as a list_changed notification is. */
  async #reconnect(): Promise<void> {
    const before = this.#fingerprints();
    await this.#connect();
    if (this.#fingerprints() !== before) this.#options.onToolsChanged?.(this.actions());
  }

  async #restart(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.close().catch(() => undefined);
  }

  /** The transport broke (closed, or read what is not JSON-RPC): calls in flight fail now; the next one reconnects. */
  #broken(client: Client, error: Error | undefined, how: 'error' | 'close'): void {
    if (this.#closed) return;
    const reason =
      how === 'close'
        ? this.#unavailable('the server closed the connection (it may have exited)')
        : new GolemError('MCP_ERROR', `MCP server "${this.name}" sent what is not valid MCP: ${error?.message ?? 'unknown error'}`, {
            cause: error,
            details: { server: this.name },
          });
    for (const [call, on] of this.#inFlight) if (on === client) call.abort(reason);
    if (how === 'close' && this.#client === client) this.#client = undefined;
  }

  #unavailable(why: string): GolemError {
    return new GolemError('MCP_UNAVAILABLE', `MCP server "${this.name}" is unavailable: ${why}`, { details: { server: this.name } });
  }

  /** An SDK or transport error as a typed one. */
  #failure(error: unknown, what: string, timeout: number): GolemError {
    if (GolemError.isInstance(error)) return error;
    const e = error as { code?: unknown; message?: unknown };
    const message = typeof e?.message === 'string' ? e.message : String(error);
    const details = { server: this.name };
    if (e?.code === -32001) {
      return new GolemError('MCP_TIMEOUT', `MCP server "${this.name}" ${what}: no answer within ${Math.round(timeout / 1000)} s`, { cause: error, details });
    }
    if (typeof e?.code === 'number' && e.code !== -32000) {
      return new GolemError('MCP_ERROR', `MCP server "${this.name}" ${what}: ${message}`, { cause: error, details: { ...details, mcpCode: e.code } });
    }
    return new GolemError('MCP_UNAVAILABLE', `MCP server "${this.name}" ${what}: ${message}`, { cause: error, details });
  }

  async #parts(raw: RawPart[]): Promise<McpPart[]> {
    const parts: McpPart[] = [];
    for (const part of raw) {
      if (part.type === 'text') parts.push({ type: 'text', text: part.text });
      else if (part.type === 'image' || part.type === 'audio') {
        const bytes = Buffer.from(part.data, 'base64');
        const stored = await this.#store(bytes, part.mimeType);
        parts.push({ type: part.type, mediaType: part.mimeType, sha256: stored, size: bytes.byteLength });
      } else if (part.type === 'resource') {
        const r = part.resource;
        if (typeof r.text === 'string') parts.push({ type: 'resource', uri: r.uri, ...(r.mimeType !== undefined && { mediaType: r.mimeType }), text: r.text });
        else {
          const bytes = Buffer.from(r.blob ?? '', 'base64');
          const mediaType = r.mimeType ?? 'application/octet-stream';
          parts.push({ type: 'resource', uri: r.uri, mediaType, sha256: await this.#store(bytes, mediaType), size: bytes.byteLength });
        }
      } else if (part.type === 'resource_link') {
        parts.push({
          type: 'resource_link',
          uri: part.uri,
          ...(part.name !== undefined && { name: part.name }),
          ...(part.description !== undefined && { description: part.description }),
          ...(part.mimeType !== undefined && { mediaType: part.mimeType }),
        });
      }
    }
    return parts;
  }

  async #store(bytes: Uint8Array, mediaType: string): Promise<string> {
    const sink = this.#options.blobs;
    if (sink === undefined) return NOT_KEPT;
    return (await sink.register(bytes, { mediaType: /^[\w.+-]+\/[\w.+-]+$/.test(mediaType) ? mediaType : 'application/octet-stream' })).sha256;
  }
}

type RawPart =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: 'resource_link'; uri: string; name?: string; description?: string; mimeType?: string };

/** `work`, or a refusal as soon as `signal` stops the caller (the work goes on for whoever else waits on it). */
function stoppable<T>(work: Promise<T>, signal: AbortSignal | undefined, refusal: () => Error): Promise<T> {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(refusal());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(refusal());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error as Error)),
    );
  });
}
