/**
 * The page's built files (`npm run build` puts them in dist/web), read once when the
 * server starts and served from memory: a request names a file in the map or nothing,
 * so no path can reach outside the folder.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface PageFile {
  body: Buffer;
  type: string;
  /** A content-hashed asset that never changes under its name. */
  immutable: boolean;
}

export type PageFiles = Map<string, PageFile>;

/** Where the build puts the page: <golem>/dist/web, from src/serve/ and dist/serve/ alike. */
export const DEFAULT_PAGE_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.map': 'application/json',
  '.woff2': 'font/woff2',
};

/** The files under `dir` by URL path (`/` is index.html); undefined when there is no built page there. */
export function loadPage(dir: string): PageFiles | undefined {
  if (!existsSync(join(dir, 'index.html'))) return undefined;
  const files: PageFiles = new Map();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const url = `/${relative(dir, path).split(sep).join('/')}`;
        files.set(url, { body: readFileSync(path), type: TYPES[extname(path)] ?? 'application/octet-stream', immutable: url.startsWith('/assets/') });
      }
    }
  };
  walk(dir);
  const index = files.get('/index.html');
  if (index !== undefined) files.set('/', index);
  return files;
}
