/**
 * Which of a project's MCP servers the user allowed to start. A `.mcp.json` comes with the
 * project (a clone, a pull request): its commands run on this machine and its `trust` can make
 * tools autonomous, so nothing in it starts until the user allows it here, once, as it is. The
 * allowance is kept outside the project (default ~/.golem/mcp-allowed.json, readable by the user
 * only; GOLEM_MCP_ALLOWED moves it), per project folder, with a hash of each server's whole
 * configuration and of each project file its command, arguments or environment name
 * (mcp-files.ts): a server whose entry or named files changed asks again.
 */
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { canonicalJson } from '../action/action.js';
import type { McpServerConfig, McpServers } from '../mcp/config.js';
import { readJsonFile, writeJsonFile } from '../mcp/json-file.js';
import { namedProjectFiles } from './mcp-files.js';

export function allowedFile(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.GOLEM_MCP_ALLOWED;
  return given !== undefined && given !== '' ? given : join(homedir(), '.golem', 'mcp-allowed.json');
}

/** What an allowance holds: the entry's hash, and the hash of each project file it names (null: missing). */
interface Allowance {
  config: string;
  files: Record<string, string | null>;
}

const hashOf = (config: McpServerConfig) => createHash('sha256').update(canonicalJson(config)).digest('hex').slice(0, 32);

const readAll = (file: string) => readJsonFile<Record<string, Record<string, Allowance | string>>>(file);

const allowanceOf = (root: string, config: McpServerConfig): Allowance => ({ config: hashOf(config), files: namedProjectFiles(root, config).files });

/** Why a server waits: new, its entry changed, or a file it names changed (undefined: it is allowed as it is). */
function changeOf(root: string, config: McpServerConfig, given: Allowance | string | undefined): string | undefined {
  if (given === undefined) return 'it is new';
  if (typeof given === 'string') return 'it was allowed before its files were covered';
  const now = allowanceOf(root, config);
  if (given.config !== now.config) return 'its entry changed since it was allowed';
  const changed = [...new Set([...Object.keys(given.files), ...Object.keys(now.files)])].filter((f) => given.files[f] !== now.files[f]);
  if (changed.length > 0) return `${changed.join(', ')} changed since it was allowed`;
  return undefined;
}

/** The servers of `servers` allowed as they are, those not (new, or changed since), and why each waits. */
export function splitAllowed(
  root: string,
  servers: McpServers,
  file = allowedFile(),
): { allowed: McpServers; waiting: McpServers; why: Record<string, string> } {
  const mine = readAll(file)[resolve(root)] ?? {};
  const allowed: McpServers = {};
  const waiting: McpServers = {};
  const why: Record<string, string> = {};
  for (const [name, config] of Object.entries(servers)) {
    const change = changeOf(root, config, mine[name]);
    if (change === undefined) allowed[name] = config;
    else {
      waiting[name] = config;
      why[name] = change;
    }
  }
  return { allowed, waiting, why };
}

/** Allows these servers of the project, as they are configured now, with the project files they name as they are now. */
export function allow(root: string, servers: McpServers, file = allowedFile()): void {
  const all = readAll(file);
  const key = resolve(root);
  all[key] = { ...all[key], ...Object.fromEntries(Object.entries(servers).map(([name, config]) => [name, allowanceOf(root, config)])) };
  writeJsonFile(file, all, { private: true });
}
