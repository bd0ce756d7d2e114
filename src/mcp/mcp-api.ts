/**
 * `ws.mcp`: connections to MCP servers, whose tools are the workspace's actions like any
 * other (a worker takes `conn.actions()`). A server that fails to connect is reported, not
 * thrown, by `connectAll`, so a run goes on without it.
 */
import type { Action } from '../action/action.js';
import { GolemError, toGolemError } from '../core/errors.js';
import { parseServerConfig, type McpServers } from './config.js';
import { McpConnection, type McpBlobSink, type McpConnectOptions } from './connection.js';

/** A server that could not be connected, and why. */
export interface McpFailure {
  server: string;
  error: GolemError;
}

export class McpApi {
  readonly #defaults: McpConnectOptions;
  readonly #open = new Map<string, McpConnection>();
  readonly #changed = new Set<(connection: McpConnection) => void>();
  readonly #connecting = new Set<string>();
  readonly #pending = new Set<Promise<McpConnection>>();
  #closing = false;

  constructor(defaults: { blobs?: McpBlobSink; cwd?: string } = {}) {
    this.#defaults = defaults;
  }

  /**
   * Connects to a server (`config` as in `.mcp.json`: `{ command, args, env }` or `{ type: 'http', url, headers }`).
   * MCP_CONFIG_INVALID for a config that is not valid; MCP_UNAVAILABLE, MCP_TIMEOUT or MCP_ERROR when it cannot connect;
   * INVALID_ARGUMENT when a connection of that name is open.
   *
   * @example
   * const conn = await ws.mcp.connect('fs', { command: 'npx', args: ['@modelcontextprotocol/server-filesystem', '.'] })
   * const worker = ws.worker({ session, model, actions: conn.actions() })
   */
  async connect(name: string, config: unknown, options: McpConnectOptions = {}): Promise<McpConnection> {
    const checked = parseServerConfig(name, config);
    if (this.#open.has(name) || this.#connecting.has(name))
      throw new GolemError('INVALID_ARGUMENT', `an MCP connection named "${name}" is open; close it first`, { details: { server: name } });
    if (this.#closing) throw new GolemError('WORKSPACE_CLOSED', 'the workspace is closing');
    // The name is taken before the first await: two connects of one name cannot both pass.
    this.#connecting.add(name);
    const opened: { connection?: McpConnection } = {};
    let connection: McpConnection;
    const connecting = McpConnection.open(name, checked, {
      ...this.#defaults,
      ...options,
      onToolsChanged: (actions) => {
        options.onToolsChanged?.(actions);
        const open = opened.connection;
        if (open !== undefined) for (const listener of this.#changed) listener(open);
      },
      onClosed: (closed) => {
        options.onClosed?.(closed);
        if (this.#open.get(name) === closed) this.#open.delete(name);
      },
    });
    this.#pending.add(connecting);
    try {
      connection = await connecting;
    } finally {
      this.#connecting.delete(name);
      this.#pending.delete(connecting);
    }
    if (this.#closing) {
      // The workspace began closing while this connected: nothing is left running.
      await connection.close();
      throw new GolemError('WORKSPACE_CLOSED', 'the workspace is closing');
    }
    opened.connection = connection;
    this.#open.set(name, connection);
    return connection;
  }

  /** Connects to every server, side by side; those that fail are in `failures` with their error, and the others work. */
  async connectAll(servers: McpServers, options: McpConnectOptions = {}): Promise<{ connections: McpConnection[]; failures: McpFailure[] }> {
    const settled = await Promise.allSettled(Object.entries(servers).map(([name, config]) => this.connect(name, config, options)));
    const names = Object.keys(servers);
    const connections: McpConnection[] = [];
    const failures: McpFailure[] = [];
    settled.forEach((s, i) => {
      if (s.status === 'fulfilled') connections.push(s.value);
      else failures.push({ server: names[i] as string, error: toGolemError(s.reason) });
    });
    return { connections, failures };
  }

  /** Calls `listener` when a connection's tool list changed and was read again; returns the unsubscribe. */
  onToolsChanged(listener: (connection: McpConnection) => void): () => void {
    this.#changed.add(listener);
    return () => void this.#changed.delete(listener);
  }

  /** The open connections. */
  connections(): McpConnection[] {
    return [...this.#open.values()];
  }

  /** Every open connection's actions. */
  actions(): Action[] {
    return this.connections().flatMap((c) => c.actions());
  }

  /** Closes every connection, and those still connecting once they are (the workspace does on close). */
  async closeAll(): Promise<void> {
    this.#closing = true;
    await Promise.allSettled([...this.#pending]);
    await Promise.all(this.connections().map((c) => c.close()));
  }

  /** True while a connection is open or being made (the workspace closes them). */
  get busy(): boolean {
    return this.#open.size > 0 || this.#pending.size > 0;
  }
}
