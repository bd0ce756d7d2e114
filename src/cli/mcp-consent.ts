/**
 * What the user is shown of a project's MCP server before it may start: the whole entry
 * (command, arguments, working folder, environment, address, headers, trust), every string
 * escaped so no control character or escape code reaches the terminal, a plain warning for
 * variables that make a program load other code, and what the allowance covers.
 */
import { basename } from 'node:path';
import type { McpServerConfig } from '../mcp/config.js';
import { MCP_CONFIG_FILE } from '../mcp/config.js';
import { isLoaderVariable } from '../project/index.js';
import { namedProjectFiles } from './mcp-files.js';

/** Runners that fetch and run a package named in their arguments. */
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx', 'dlx', 'docker', 'podman', 'deno']);

/** A string as a quoted literal with every control, format and bidirectional character escaped (\u001b...). */
export function shown(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g, (c) => {
    return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** A name or word without its quotes, escaped as `shown` does. */
const bare = (text: string) => shown(text).slice(1, -1);

/** What a server runs (its command line, or its address), in one escaped line. */
export function commandLine(config: McpServerConfig): string {
  return 'url' in config ? bare(config.url) : [config.command, ...(config.args ?? [])].map(bare).join(' ');
}

/**
 * The whole entry of a server, one field a line, escaped, with warnings and what an allowance
 * of it covers; `why` says why it is shown (new, or what changed).
 */
export function describeServer(root: string, name: string, config: McpServerConfig, why?: string): string {
  const lines = [`MCP server "${bare(name)}" in ${MCP_CONFIG_FILE}${why === undefined ? '' : ` (${why})`}:`];
  const pairs = (values: Record<string, string>) =>
    Object.entries(values)
      .map(([k, v]) => `${bare(k)}=${shown(v)}`)
      .join(', ');
  const warnings: string[] = [];
  if ('url' in config) {
    lines.push(`  url: ${shown(config.url)}`);
    if (config.headers !== undefined) lines.push(`  headers: ${pairs(config.headers)}`);
  } else {
    lines.push(`  command: ${shown(config.command)}`);
    if (config.args !== undefined && config.args.length > 0) lines.push(`  args: ${config.args.map(shown).join(' ')}`);
    lines.push(`  cwd: ${config.cwd === undefined ? '(the project folder)' : shown(config.cwd)}`);
    if (config.env !== undefined && Object.keys(config.env).length > 0) lines.push(`  env: ${pairs(config.env)}`);
    for (const variable of Object.keys(config.env ?? {}).filter(isLoaderVariable)) {
      warnings.push(
        `  warning: ${bare(variable)} can make the program load or run other code (a preload, a library, a startup file); allow it only if you expect that.`,
      );
    }
    const runner = [config.command, ...(config.args ?? [])].map((w) => basename(w)).find((w) => PACKAGE_RUNNERS.has(w));
    if (runner !== undefined) warnings.push(`  warning: ${bare(runner)} downloads and runs a package; this allowance does not cover what it fetches.`);
  }
  if (config.trust !== undefined) lines.push(`  trust: ${bare(JSON.stringify(config.trust))}`);
  lines.push(...warnings, `  ${coverage(root, config)}`);
  return lines.join('\n');
}

function coverage(root: string, config: McpServerConfig): string {
  if ('url' in config) return 'This allowance covers the entry; the server at that address can change what it does at any time.';
  const named = namedProjectFiles(root, config);
  const files = Object.entries(named.files)
    .filter(([, hash]) => hash !== null)
    .map(([path]) => bare(path));
  const folders =
    named.folders.length === 0 ? '' : ` It names the project folder ${named.folders.map(bare).join(', ')}: what the program loads from there is not covered.`;
  if (files.length === 0) return `This allowance covers the entry only: it names no project file, and what the program loads is not covered.${folders}`;
  return `This allowance covers the entry and the project files it names (${files.join(', ')}) as they are now; not other files or packages those programs load.${folders}`;
}
