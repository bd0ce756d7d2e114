/**
 * The project files an MCP server's entry names (its command, an argument, a path in an
 * environment value such as `NODE_OPTIONS=--require ./preload.js`), resolved from the server's
 * working folder, with a hash of each: what an allowance covers besides the entry itself.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import type { McpServerConfig } from '../mcp/config.js';

/** The files named (project-relative path → sha256, null when named but missing) and the project folders named (not covered). */
export interface NamedProjectFiles {
  files: Record<string, string | null>;
  folders: string[];
}

/** The project files and folders a server's entry names; none for an HTTP server. */
export function namedProjectFiles(root: string, config: McpServerConfig): NamedProjectFiles {
  const named: NamedProjectFiles = { files: {}, folders: [] };
  if ('url' in config) return named;
  const top = realpathSync(resolve(root));
  const base = resolve(top, config.cwd ?? '.');
  const inside = (path: string) => {
    const rel = relative(top, path);
    return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel)) ? rel : undefined;
  };
  for (const token of tokensOf([config.command, ...(config.args ?? []), ...Object.values(config.env ?? {})])) {
    const path = resolve(base, token);
    if (!existsSync(path)) {
      const rel = inside(path);
      if (rel !== undefined && rel !== '' && /^[^-:;=][^:;=]*$/.test(token) && /[/\\]|\.\w+$/.test(token)) named.files[rel] = null; // a file it names, not there yet
      continue;
    }
    const real = realpathSync(path);
    const rel = inside(real);
    if (rel === undefined) continue;
    if (statSync(real).isDirectory()) {
      if (!named.folders.includes(rel === '' ? '.' : rel)) named.folders.push(rel === '' ? '.' : rel);
    } else named.files[rel] = createHash('sha256').update(readFileSync(real)).digest('hex').slice(0, 32);
  }
  return named;
}

/** The words of the strings, and the values of `--option=value` and `A:B` lists among them. */
function tokensOf(strings: string[]): string[] {
  const tokens = new Set<string>();
  for (const text of strings) {
    for (const word of text.split(/\s+/)) {
      if (word === '') continue;
      tokens.add(word);
      const value = /^-{1,2}[\w-]+=(.+)$/.exec(word)?.[1];
      if (value !== undefined) tokens.add(value);
      for (const part of word.split(/[:;]/)) if (part !== '' && part !== word) tokens.add(part);
    }
  }
  return [...tokens];
}
