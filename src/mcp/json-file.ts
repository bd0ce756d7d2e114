/**
 * The small JSON files MCP keeps (the project's .mcp.json, the user's credentials and
 * allowances): read as `{}` when missing or torn, written whole through a temp file renamed
 * over the old one, so a crash leaves the old file.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The file's object; `{}` when it is missing or not JSON. */
export function readJsonFile<T extends object>(path: string): Partial<T> {
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Partial<T>;
  } catch {
    return {};
  }
}

/**
 * Writes `value` whole. `private`: readable by its owner only (0600, in a 0700 folder made if
 * missing); otherwise a file that exists keeps its permissions.
 */
export function writeJsonFile(path: string, value: unknown, options: { private?: boolean } = {}): void {
  const temp = `${path}.${process.pid}.tmp`;
  if (options.private === true) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, options.private === true ? { mode: 0o600 } : {});
  if (options.private === true) chmodSync(temp, 0o600);
  else if (existsSync(path)) chmodSync(temp, statSync(path).mode & 0o777);
  renameSync(temp, path);
}
