/**
 * MCP servers as users already configure them: the project's `.mcp.json`, in the shape other
 * clients read (`{ "mcpServers": { "<name>": { "command", "args", "env" } | { "type": "http",
 * "url", "headers" } } }`), plus Golem's own optional `trust` and `timeoutMs` per server.
 * Reading never half-applies: a file that is not valid is refused whole, with every problem.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { GolemError } from '../core/errors.js';
import { writeJsonFile } from './json-file.js';

/** The file, in the project's root. */
export const MCP_CONFIG_FILE = '.mcp.json';

const Trust = z.enum(['autonomous', 'supervised', 'manual']);
/** A server name becomes the first half of its actions' names (`<server>__<tool>`). */
const SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;

const TrustConfig = z.strictObject({
  /** The mode of this server's tools (default supervised). */
  default: Trust.optional(),
  /** Per tool, by the tool's own name. */
  tools: z.record(z.string(), Trust).optional(),
});

const Common = {
  trust: TrustConfig.optional(),
  /** How long a call may take before it fails with MCP_TIMEOUT (default 60 s). */
  timeoutMs: z.number().int().positive().max(3_600_000).optional(),
};

export const StdioServerConfig = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  ...Common,
});

export const HttpServerConfig = z.object({
  type: z.enum(['http', 'streamable-http']),
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).optional(),
  ...Common,
});

export const McpServerConfig = z.union([HttpServerConfig, StdioServerConfig]);
export type McpServerConfig = z.infer<typeof McpServerConfig>;
export type StdioServerConfig = z.infer<typeof StdioServerConfig>;
export type HttpServerConfig = z.infer<typeof HttpServerConfig>;

const ConfigFile = z.object({ mcpServers: z.record(z.string(), z.unknown()).default({}) }).loose();

/** The servers of a configuration, by name. */
export type McpServers = Record<string, McpServerConfig>;

/** Checks one server's configuration: the typed value, or MCP_CONFIG_INVALID naming every problem. */
export function parseServerConfig(name: string, config: unknown): McpServerConfig {
  if (!SERVER_NAME.test(name)) {
    throw new GolemError('MCP_CONFIG_INVALID', `MCP server name "${name}" must be 1 to 32 letters, digits, _ or - (it starts its tools' action names)`, {
      details: { server: name },
    });
  }
  if (typeof config === 'object' && config !== null && 'type' in config && config.type === 'sse') {
    throw new GolemError(
      'MCP_CONFIG_INVALID',
      `MCP server "${name}": the old HTTP+SSE transport is deprecated and not supported; use "type": "http" (Streamable HTTP)`,
      {
        details: { server: name },
      },
    );
  }
  const parsed = McpServerConfig.safeParse(config);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.length === 0 ? 'the entry' : i.path.join('.')}: ${i.message}`);
    throw new GolemError(
      'MCP_CONFIG_INVALID',
      `MCP server "${name}" is not configured right: ${problems.join('; ')}. A server is { "command", "args", "env" } or { "type": "http", "url", "headers" }.`,
      { details: { server: name, problems } },
    );
  }
  return parsed.data;
}

/** The servers `.mcp.json` in `root` lists (none when there is no file); MCP_CONFIG_INVALID when it is not valid. */
export function readMcpConfig(root: string): McpServers {
  const path = join(root, MCP_CONFIG_FILE);
  if (!existsSync(path)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (cause) {
    throw new GolemError('MCP_CONFIG_INVALID', `${path} is not valid JSON: ${(cause as Error).message}`, { cause, details: { path } });
  }
  const file = ConfigFile.safeParse(raw);
  if (!file.success) throw new GolemError('MCP_CONFIG_INVALID', `${path} must be an object with "mcpServers": { "<name>": {...} }`, { details: { path } });
  const servers: McpServers = {};
  for (const [name, config] of Object.entries(file.data.mcpServers)) servers[name] = parseServerConfig(name, config);
  return servers;
}

/**
 * Adds or replaces a server in `.mcp.json` (created if missing), keeping every other key of
 * the file as it was; written whole (a temp file renamed over it), so a crash leaves the old file.
 */
export function addMcpServer(root: string, name: string, config: unknown): McpServerConfig {
  const checked = parseServerConfig(name, config);
  const file = readRaw(root);
  file.mcpServers = { ...(file.mcpServers as Record<string, unknown> | undefined), [name]: config };
  writeRaw(root, file);
  return checked;
}

/** Removes a server from `.mcp.json`; MCP_SERVER_NOT_FOUND when it is not there. */
export function removeMcpServer(root: string, name: string): void {
  const file = readRaw(root);
  const servers = (file.mcpServers ?? {}) as Record<string, unknown>;
  if (!Object.hasOwn(servers, name))
    throw new GolemError('MCP_SERVER_NOT_FOUND', `no MCP server "${name}" in ${join(root, MCP_CONFIG_FILE)}`, { details: { server: name } });
  delete servers[name];
  file.mcpServers = servers;
  writeRaw(root, file);
}

function readRaw(root: string): Record<string, unknown> {
  readMcpConfig(root); // refuses a file that is not valid before it is rewritten
  const path = join(root, MCP_CONFIG_FILE);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : { mcpServers: {} };
}

function writeRaw(root: string, file: Record<string, unknown>): void {
  // The file keeps its permissions (it may hold headers with tokens, kept private by its owner).
  writeJsonFile(join(root, MCP_CONFIG_FILE), file);
}
