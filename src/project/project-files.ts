/**
 * The project's files on disk, confined to the project root: a path that leads outside
 * it (by `..`, an absolute path or a symbolic link) is refused with PATH_OUTSIDE_PROJECT,
 * and one into git's data or Golem's workspace (`.git`, `.golem` however spelled, at any
 * depth, or the workspace's own files kept elsewhere in the project) with PATH_PROTECTED.
 */
import { lstatSync, realpathSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fail } from '../core/errors.js';
import type { FileAccess } from '../action/files.js';
import { foldedPath, protectedPart } from './protected-paths.js';

/** What `DiskFiles` needs besides the root. */
export interface DiskFilesOptions {
  /**
   * Absolute paths of files and folders that are not the project's though they may lie
   * inside it: the workspace's folder, database and blobs, a shadow staging repository. Refused
   * like `.golem` (PATH_PROTECTED), and left out of listings.
   */
  hidden?: readonly string[];
}

/** The project's files on disk, confined to its root; `.git`, `.golem` and the hidden paths refused. */
export class DiskFiles implements FileAccess {
  readonly root: string;
  readonly kind = 'disk' as const;
  /** The hidden paths inside the root, folded (see `foldedPath`). */
  readonly #hidden: string[];

  constructor(root: string, options: DiskFilesOptions = {}) {
    this.root = realpathSync(resolve(root));
    this.#hidden = hiddenInside(this.root, options.hidden ?? []);
  }

  relative(path: string): string {
    return projectPath(this.root, path, this.#hidden);
  }

  /** Whether a project-relative path is not the project's: in `.git` or `.golem` (however spelled), or a hidden path. */
  hides(rel: string): boolean {
    return protectedPart(rel) !== undefined || isHidden(this.#hidden, rel);
  }

  /** `path` as a project path that actions may write (see `writablePath`). */
  writable(path: string): string {
    return writablePath(this.root, path, this.#hidden);
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
    const rel = this.writable(path);
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
 * stay inside `root` (which must be a real path): PATH_OUTSIDE_PROJECT if not; and that
 * neither it nor where its links lead is in `.git`, `.golem` (however spelled, at any
 * depth) or a `hidden` path (folded project paths): PATH_PROTECTED if so.
 */
export function projectPath(root: string, path: string, hidden: readonly string[] = []): string {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) throw fail('INVALID_ARGUMENT', 'a path must be a non-empty string', { path });
  const absolute = resolve(root, path);
  const outside = (p: string) => {
    const rel = relative(root, p);
    return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  };
  if (outside(absolute)) throw fail('PATH_OUTSIDE_PROJECT', `"${path}" is outside the project (${root})`, { path, root });
  const rel = relative(root, absolute).split(sep).join('/');
  refuseProtected(path, rel, hidden);
  // Follow symbolic links through the longest part of the path that exists.
  let existing = absolute;
  for (;;) {
    try {
      const real = realpathSync(existing);
      if (outside(real)) throw fail('PATH_OUTSIDE_PROJECT', `"${path}" leads outside the project (${root}) through a symbolic link`, { path, root });
      refuseProtected(path, relative(root, real).split(sep).join('/'), hidden);
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
  return rel === '' ? '.' : rel;
}

/** A project path that actions may write: not the root itself, nor inside .git, .golem or a hidden path (see `projectPath`). */
export function writablePath(root: string, path: string, hidden: readonly string[] = []): string {
  const rel = projectPath(root, path, hidden);
  if (rel === '.') throw fail('INVALID_ARGUMENT', 'cannot write the project folder itself; name a file', { path });
  return rel;
}

/** PATH_PROTECTED when the project path `rel` (which `path` names) is in .git, .golem or a hidden path. */
function refuseProtected(path: string, rel: string, hidden: readonly string[]): void {
  const name = protectedPart(rel);
  if (name !== undefined) {
    const what = name === '.git' ? "git's data" : "Golem's workspace";
    throw fail('PATH_PROTECTED', `"${path}" is inside ${name}/ (${what}), which actions may not read or change`, { path, protected: name });
  }
  if (isHidden(hidden, rel)) throw fail('PATH_PROTECTED', `"${path}" is inside Golem's workspace, which actions may not read or change`, { path });
}

/** The hidden paths that lie inside `root`, as folded project paths. */
function hiddenInside(root: string, hidden: readonly string[]): string[] {
  return hidden.flatMap((path) => {
    const rel = relative(root, realPathOf(resolve(path)));
    return rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? [] : [foldedPath(rel.split(sep).join('/'))];
  });
}

/** `path` with the longest part of it that exists resolved to its real path (a folder not made yet keeps its name). */
function realPathOf(path: string): string {
  const parent = dirname(path);
  try {
    return realpathSync(path);
  } catch {
    return parent === path ? path : join(realPathOf(parent), basename(path));
  }
}

/** Whether the project path `rel` is one of the (folded) hidden paths or inside one. */
function isHidden(hidden: readonly string[], rel: string): boolean {
  if (hidden.length === 0) return false;
  const folded = foldedPath(rel);
  return hidden.some((h) => folded === h || folded.startsWith(`${h}/`));
}
