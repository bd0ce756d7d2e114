/**
 * Which of a project's MCP servers the user allowed to start. A `.mcp.json` comes with the
 * project (a clone, a pull request): its commands run on this machine and its `trust` can make
 * tools autonomous, so nothing in it starts until the user allows it here, once, as it is. The
 * allowance is kept outside the project (default ~/.golem/mcp-allowed.json, readable by the user
 * only; GOLEM_MCP_ALLOWED moves it), per project folder, with a hash of each server's whole
 * configuration: a server whose command, arguments, environment or trust changed asks again.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { canonicalJson } from '../action/action.js';
import type { McpServerConfig, McpServers } from '../mcp/config.js';
import { readJsonFile, writeJsonFile } from '../mcp/json-file.js';

export function allowedFile(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.GOLEM_MCP_ALLOWED;
  return given !== undefined && given !== '' ? given : join(homedir(), '.golem', 'mcp-allowed.json');
}

const hashOf = (config: McpServerConfig) => createHash('sha256').update(canonicalJson(config)).digest('hex').slice(0, 32);

const readAll = (file: string) => readJsonFile<Record<string, Record<string, string>>>(file);

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
  writeJsonFile(file, all, { private: true });
}

/** What a server runs (its command line, or its address), in one line. */
export function commandLine(config: McpServerConfig): string {
  return 'url' in config ? config.url : [config.command, ...(config.args ?? [])].join(' ');
}

/** What a server runs, and the trust its entry sets, in one line. */
export function describeServer(config: McpServerConfig): string {
  return `${commandLine(config)}${config.trust === undefined ? '' : ` (trust: ${JSON.stringify(config.trust)})`}`;
}
