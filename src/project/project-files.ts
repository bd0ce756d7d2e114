/**
 * The project's files on disk, confined to the project root: a path that leads outside
 * it (by `..`, an absolute path or a symbolic link) is refused with PATH_OUTSIDE_PROJECT.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fail } from '../core/errors.js';
import type { FileAccess } from '../action/files.js';

/** Folders no action may write into: git's own data and Golem's workspace. */
const PROTECTED = new Set(['.git', '.golem']);

export class DiskFiles implements FileAccess {
  readonly root: string;
  readonly kind = 'disk' as const;

  constructor(root: string) {
    this.root = realpathSync(resolve(root));
  }

  relative(path: string): string {
    return projectPath(this.root, path);
  }

  async read(path: string): Promise<Buffer | null> {
    const rel = this.relative(path);
    try {
      return await readFile(join(this.root, rel));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      if (code === 'EISDIR') throw fail('INVALID_ARGUMENT', `"${rel}" is a folder, not a file`, { path: rel });
      throw error;
    }
  }

  async write(path: string, content: Buffer | null): Promise<void> {
    const rel = writablePath(this.root, path);
    const target = join(this.root, rel);
    if (content === null) {
      await rm(target, { force: true });
      return;
    }
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/**
 * `path` (relative to `root`, or absolute) as a path relative to `root` with '/'
 * separators, after checking that it, and whatever symbolic links it goes through,
 * stay inside `root` (which must be a real path).
 */
export function projectPath(root: string, path: string): string {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) throw fail('INVALID_ARGUMENT', 'a path must be a non-empty string', { path });
  const absolute = resolve(root, path);
  const outside = (p: string) => {
    const rel = relative(root, p);
    return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  };
  if (outside(absolute)) throw fail('PATH_OUTSIDE_PROJECT', `"${path}" is outside the project (${root})`, { path, root });
  // Follow symbolic links through the longest part of the path that exists.
  let existing = absolute;
  for (;;) {
    try {
      const real = realpathSync(existing);
      if (outside(real)) throw fail('PATH_OUTSIDE_PROJECT', `"${path}" leads outside the project (${root}) through a symbolic link`, { path, root });
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
      // A symbolic link whose target does not exist yet: writing would create the target, wherever it is.
      if (lstatSync(existing, { throwIfNoEntry: false })?.isSymbolicLink() === true) {
        throw fail('PATH_OUTSIDE_PROJECT', `"${path}" goes through a symbolic link whose target does not exist; it could lead outside the project`, {
          path,
          root,
        });
      }
      const parent = dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  const rel = relative(root, absolute).split(sep).join('/');
  return rel === '' ? '.' : rel;
}

/** A project path that actions may write: not the root itself, nor inside .git or .golem. */
export function writablePath(root: string, path: string): string {
  const rel = projectPath(root, path);
  if (rel === '.') throw fail('INVALID_ARGUMENT', 'cannot write the project folder itself; name a file', { path });
  const first = rel.split('/')[0] ?? '';
  if (PROTECTED.has(first)) throw fail('PATH_OUTSIDE_PROJECT', `"${rel}" is inside ${first}/, which actions may not change`, { path: rel });
  return rel;
}
