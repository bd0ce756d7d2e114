/**
 * `golem mcp`: the project's MCP servers (`.mcp.json`, the file other clients read) and
 * Golem as an MCP server.
 *
 *   golem mcp list                         the configured servers
 *   golem mcp add <name> -- <command> [args...]   a stdio server (--env KEY=VALUE, repeatable)
 *   golem mcp add <name> --url <url>       a Streamable HTTP server (--header "Name: value", repeatable)
 *   golem mcp allow [name...]              lets the project's servers start (nothing in .mcp.json starts before)
 *   golem mcp remove <name>
 *   golem mcp tools [name]                 connects and lists each server's tools, with trust and hints
 *   golem mcp serve                        Golem's own MCP server over stdio
 */
import type { Action } from '../action/action.js';
import { GolemError } from '../core/errors.js';
import { importOptional } from '../core/optional-import.js';
import type { Workspace } from '../create-workspace.js';
import { addMcpServer, MCP_CONFIG_FILE, readMcpConfig, removeMcpServer, type McpServerConfig } from '../mcp/config.js';
import { MCP_PACKAGES, type McpAuthOptions, type McpConnectOptions } from '../mcp/connection.js';
import { actionNameOf, describeHints, toolTrust } from '../mcp/tool-action.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import type { CliIo } from './io.js';
import { allow, splitAllowed } from './mcp-allow.js';
import { commandLine, describeServer } from './mcp-consent.js';

export const MCP_USAGE = `golem mcp list | add <name> -- <command> [args...] | add <name> --url <url> | allow [name...] | remove <name> | tools [name] | serve`;

export interface McpCommandOptions {
  json: boolean;
  url: string | undefined;
  headers: string[];
  env: string[];
  trust: string | undefined;
}

/** `golem mcp <sub>` on the configuration in `io.cwd`; `serve` is run by the caller (it needs the workspace). */
export async function mcpCommand(
  args: readonly string[],
  options: McpCommandOptions,
  io: CliIo,
  withWs: (body: (ws: Workspace) => Promise<number>) => Promise<number>,
): Promise<number> {
  const [sub, name, ...rest] = args;
  try {
    switch (sub) {
      case undefined:
      case 'list':
        return list(io, options.json);
      case 'add':
        return add(name, rest, options, io);
      case 'allow':
        return allowServers(
          [name, ...rest].filter((n): n is string => n !== undefined),
          io,
        );
      case 'remove':
        if (name === undefined) return usage(io, 'remove needs the server name');
        removeMcpServer(io.cwd, name);
        io.stdout(`Removed MCP server "${name}" from ${MCP_CONFIG_FILE}.\n`);
        return 0;
      case 'tools':
        return withWs((ws) => tools(ws, name, io, options.json));
      default:
        return usage(io, `unknown mcp command "${sub}"`);
    }
  } catch (error) {
    if (!GolemError.isInstance(error)) throw error;
    io.stderr(`golem mcp [${error.code}]: ${error.message}\n`);
    return 1;
  }
}

/** `golem mcp allow [name...]`: lets the project's servers (all, or those named) start, as they are configured now. */
function allowServers(names: string[], io: CliIo): number {
  const servers = readMcpConfig(io.cwd);
  const unknown = names.filter((n) => servers[n] === undefined);
  if (unknown.length > 0) throw new GolemError('MCP_SERVER_NOT_FOUND', `no MCP server ${unknown.map((n) => `"${n}"`).join(', ')} in ${MCP_CONFIG_FILE}`);
  const chosen = Object.fromEntries(Object.entries(servers).filter(([n]) => names.length === 0 || names.includes(n)));
  allow(io.cwd, chosen);
  for (const [name, config] of Object.entries(chosen)) io.stdout(`Allowed ${describeServer(io.cwd, name, config)}\n`);
  if (Object.keys(chosen).length === 0) io.stdout(`No MCP servers in ${MCP_CONFIG_FILE}.\n`);
  return 0;
}

function usage(io: CliIo, problem: string): number {
  io.stderr(`golem mcp: ${problem}. Usage: ${MCP_USAGE}\n`);
  return 2;
}

function list(io: CliIo, json: boolean): number {
  const servers = readMcpConfig(io.cwd);
  if (json) {
    // Header and environment values may be secrets: their names are shown, not their values.
    const redact = (values: Record<string, string> | undefined) =>
      values === undefined ? undefined : Object.fromEntries(Object.keys(values).map((k) => [k, '…']));
    const shown = Object.fromEntries(
      Object.entries(servers).map(([name, c]) => [name, 'url' in c ? { ...c, headers: redact(c.headers) } : { ...c, env: redact(c.env) }]),
    );
    io.stdout(`${JSON.stringify(shown, null, 2)}\n`);
    return 0;
  }
  const entries = Object.entries(servers);
  if (entries.length === 0) {
    io.stdout(`No MCP servers in ${MCP_CONFIG_FILE}. Add one: golem mcp add <name> -- <command> [args...]\n`);
    return 0;
  }
  const { waiting } = splitAllowed(io.cwd, servers);
  for (const [name, config] of entries) {
    const state = waiting[name] === undefined ? '' : `  not allowed yet: golem mcp allow ${name}`;
    io.stdout(`${name}  ${commandLine(config)}  (tools ${config.trust?.default ?? 'supervised'})${state}\n`);
  }
  return 0;
}

function add(name: string | undefined, command: string[], options: McpCommandOptions, io: CliIo): number {
  if (name === undefined) return usage(io, 'add needs a name');
  const pairs = (list: string[], separator: string, what: string) =>
    Object.fromEntries(
      list.map((item) => {
        const at = item.indexOf(separator);
        if (at <= 0) throw new GolemError('MCP_CONFIG_INVALID', `${what} "${item}" must be written ${separator === '=' ? 'KEY=VALUE' : '"Name: value"'}`);
        return [item.slice(0, at).trim(), item.slice(at + 1).trim()];
      }),
    );
  const trust = options.trust === undefined ? {} : { trust: { default: options.trust } };
  let config: Record<string, unknown>;
  if (options.url !== undefined) {
    if (command.length > 0) return usage(io, 'give either --url or a command, not both');
    config = { type: 'http', url: options.url, ...(options.headers.length > 0 && { headers: pairs(options.headers, ':', '--header') }), ...trust };
  } else {
    const [program, ...args] = command;
    if (program === undefined) return usage(io, 'add needs a command after -- (or --url for an HTTP server)');
    config = { command: program, ...(args.length > 0 && { args }), ...(options.env.length > 0 && { env: pairs(options.env, '=', '--env') }), ...trust };
  }
  const checked = addMcpServer(io.cwd, name, config);
  allow(io.cwd, { [name]: checked }); // the user wrote it: it may start
  io.stdout(`Added MCP server "${name}" (${commandLine(checked)}) to ${MCP_CONFIG_FILE}. golem mcp tools ${name} lists its tools.\n`);
  return 0;
}

async function tools(ws: Workspace, only: string | undefined, io: CliIo, json: boolean): Promise<number> {
  const servers = readMcpConfig(io.cwd);
  if (only !== undefined && servers[only] === undefined) throw new GolemError('MCP_SERVER_NOT_FOUND', `no MCP server "${only}" in ${MCP_CONFIG_FILE}`);
  const { allowed, waiting, why } = splitAllowed(io.cwd, only === undefined ? servers : { [only]: servers[only] as McpServerConfig });
  for (const [name, config] of Object.entries(waiting))
    io.stderr(`${name}: not allowed to start yet. ${describeServer(io.cwd, name, config, why[name])}\nAllow it with: golem mcp allow ${name}\n`);
  const { connections, failures } = await ws.mcp.connectAll(allowed, { cwd: io.cwd, auth: signIn(io) });
  const report = connections.map((c) => ({
    server: c.name,
    tools: c.tools().map((t) => ({
      action: actionNameOf(c.name, t.name),
      tool: t.name,
      trust: toolTrust(c.config, t.name),
      hints: describeHints(t),
      description: t.description ?? '',
    })),
  }));
  if (json)
    io.stdout(
      `${JSON.stringify({ servers: report, failures: failures.map((f) => ({ server: f.server, code: f.error.code, message: f.error.message })) }, null, 2)}\n`,
    );
  else {
    for (const server of report) {
      io.stdout(`${server.server}: ${server.tools.length} tool${server.tools.length === 1 ? '' : 's'}\n`);
      for (const t of server.tools) io.stdout(`  ${t.action}  [${t.trust}; ${t.hints}]  ${firstLine(t.description)}\n`);
    }
    for (const f of failures) io.stderr(`${f.server}: could not connect [${f.error.code}]: ${f.error.message}\n`);
  }
  return failures.length === 0 && Object.keys(waiting).length === 0 ? 0 : 1;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

/**
 * The project's MCP servers for a chat or a server: their actions, and a line for each that
 * could not connect (the run goes on without it). No file: nothing, and nothing loaded.
 */
export async function projectMcp(ws: Workspace, io: CliIo, options: McpConnectOptions = {}): Promise<{ actions: Action[]; problems: string[] }> {
  let servers;
  try {
    servers = readMcpConfig(io.cwd);
  } catch (error) {
    if (!GolemError.isInstance(error)) throw error;
    return { actions: [], problems: [`${MCP_CONFIG_FILE} was not read [${error.code}]: ${error.message}`] };
  }
  if (Object.keys(servers).length === 0) return { actions: [], problems: [] };
  // Nothing the project's file names starts before the user allowed it, as it is (mcp-allow.ts).
  const { allowed, waiting, why } = splitAllowed(io.cwd, servers);
  const { connections, failures } = await ws.mcp.connectAll(allowed, { cwd: io.cwd, auth: signIn(io), ...options });
  const problems = Object.entries(waiting).map(
    ([name, config]) => `Not started: ${describeServer(io.cwd, name, config, why[name])}\nAllow it with: golem mcp allow ${name}`,
  );
  problems.push(...failures.map((f) => `MCP server "${f.server}" is not available [${f.error.code}]: ${f.error.message}`));
  const seen = new Set<string>();
  const actions: Action[] = [];
  for (const action of connections.flatMap((c) => c.actions())) {
    if (seen.has(action.name)) problems.push(`two MCP servers offer the action ${action.name}; the first is kept`);
    else {
      seen.add(action.name);
      actions.push(action);
    }
  }
  return { actions, problems };
}

/** Signing in to a server that uses OAuth: the address is shown, and golem waits for the browser to come back. */
function signIn(io: CliIo): McpAuthOptions {
  return { onAuthorize: ({ server, url }) => io.stderr(`golem: MCP server "${server}" asks you to sign in. Open this address in a browser:\n  ${url}\n`) };
}

/** `golem mcp serve`: Golem's MCP server on stdin/stdout until the client closes it. */
export async function serveMcpStdio(ws: Workspace, model: ModelAdapter | undefined, agentActions: Action[], root: string): Promise<number> {
  const [{ createMcpServer }, { StdioServerTransport }] = await importOptional(
    () => Promise.all([import('../mcp/server.js'), import('@modelcontextprotocol/sdk/server/stdio.js')]),
    MCP_PACKAGES,
  );
  const server = createMcpServer(ws, { ...(model !== undefined && { model }), agentActions, project: { root } });
  const closed = new Promise<void>((resolve) => (server.onclose = resolve));
  await server.connect(new StdioServerTransport());
  process.stdin.once('end', () => void server.close());
  await closed;
  return 0;
}
