/**
 * The files of a project under a folder: git's view in a repository (tracked, and
 * untracked but not ignored), a walk of the folder elsewhere. Never git's data nor
 * Golem's workspace (`.git`, `.golem` however spelled, at any depth), nor what the
 * files' `hides` leaves out: those are dropped as they are found, before any caller sees them.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileAccess } from '../action/files.js';
import { Git, gitEnv } from './git.js';
import { protectedPart } from './protected-paths.js';

/** The most files a walk outside git considers. */
export const WALK_CAP = 50_000;
/** Never listed nor searched when walking a folder: dependencies. */
const SKIPPED_FOLDERS = new Set(['node_modules']);

/**
 * The files of `files`' project under `folder` (project-relative, sorted): git's view in a
 * repository, a walk elsewhere; without what is in `.git` or `.golem`, nor what `files.hides`
 * says is not the project's (a hidden folder is not walked).
 */
export async function listProject(
  files: Pick<FileAccess, 'root' | 'hides'>,
  folder: string,
  signal: AbortSignal | undefined,
): Promise<{ paths: string[]; incomplete: boolean }> {
  const root = files.root;
  const skipped = (rel: string) => protectedPart(rel) !== undefined || files.hides?.(rel) === true;
  const fromGit = await gitFiles(root, folder, signal);
  if (fromGit !== null) return { paths: fromGit.filter((p) => !skipped(p)).sort(), incomplete: false };
  const paths: string[] = [];
  const walk = async (rel: string): Promise<boolean> => {
    signal?.throwIfAborted();
    const entries = await readdir(rel === '.' ? root : join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = rel === '.' ? entry.name : `${rel}/${entry.name}`;
      if (skipped(path)) continue;
      if (entry.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(entry.name) && !(await walk(path))) return false;
      } else {
        if (paths.length === WALK_CAP) return false;
        paths.push(path);
      }
    }
    return true;
  };
  const complete = await walk(folder);
  return { paths: paths.sort(), incomplete: !complete };
}

/** The files git sees under `folder` (tracked, and untracked but not ignored), or null outside a repository. */
async function gitFiles(root: string, folder: string, signal: AbortSignal | undefined): Promise<string[] | null> {
  const git = new Git(root, gitEnv());
  const run = (args: string[]) => git.exec(args, signal === undefined ? {} : { signal });
  try {
    const inside = await git.exec(['rev-parse', '--is-inside-work-tree'], { allow: () => true, ...(signal !== undefined && { signal }) });
    if (inside.code !== 0 || inside.stdout.toString('utf8').trim() !== 'true') return null;
  } catch {
    signal?.throwIfAborted();
    return null; // no git
  }
  const scope = folder === '.' ? [] : ['--', folder];
  const [listed, deleted] = await Promise.all([
    run(['ls-files', '--cached', '--others', '--exclude-standard', '-z', ...scope]),
    run(['ls-files', '--deleted', '-z', ...scope]),
  ]);
  const gone = new Set(deleted.stdout.toString('utf8').split('\0'));
  // An untracked repository inside the project is listed as 'folder/': it is not a file.
  return [...new Set(listed.stdout.toString('utf8').split('\0'))].filter((p) => p !== '' && !p.endsWith('/') && !gone.has(p));
}
