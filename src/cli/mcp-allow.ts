/**
 * Which of a project's MCP servers the user allowed to start. A `.mcp.json` comes with the
 * project (a clone, a pull request): its commands run on this machine and its `trust` can make
 * tools autonomous, so nothing in it starts until the user allows it here, once, as it is. The
 * allowance is kept outside the project (default ~/.golem/mcp-allowed.json, readable by the user
 * only; GOLEM_MCP_ALLOWED moves it), per project folder, with a hash of each server's whole
 * configuration: a server whose command, arguments, environment or trust changed asks again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { canonicalJson } from '../action/action.js';
import type { McpServerConfig, McpServers } from '../mcp/config.js';

export function allowedFile(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.GOLEM_MCP_ALLOWED;
  return given !== undefined && given !== '' ? given : join(homedir(), '.golem', 'mcp-allowed.json');
}

const hashOf = (config: McpServerConfig) => createHash('sha256').update(canonicalJson(config)).digest('hex').slice(0, 32);

function readAll(file: string): Record<string, Record<string, string>> {
  if (!existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, string>>;
  } catch {
    return {};
  }
}

/** The servers of `servers` allowed as they are, and those not (new, or changed since). */
export function splitAllowed(root: string, servers: McpServers, file = allowedFile()): { allowed: McpServers; waiting: McpServers } {
  const mine = readAll(file)[resolve(root)] ?? {};
  const allowed: McpServers = {};
  const waiting: McpServers = {};
  for (const [name, config] of Object.entries(servers)) (mine[name] === hashOf(config) ? allowed : waiting)[name] = config;
  return { allowed, waiting };
}

/** Allows these servers of the project, as they are configured now. */
export function allow(root: string, servers: McpServers, file = allowedFile()): void {
  const all = readAll(file);
  const key = resolve(root);
  all[key] = { ...all[key], ...Object.fromEntries(Object.entries(servers).map(([name, config]) => [name, hashOf(config)])) };
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** What a server runs, in one line. */
export function describeServer(config: McpServerConfig): string {
  const where = 'url' in config ? config.url : [config.command, ...(config.args ?? [])].join(' ');
  const trust = config.trust === undefined ? '' : ` (trust: ${JSON.stringify(config.trust)})`;
  return `${where}${trust}`;
}
