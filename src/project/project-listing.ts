/**
 * The files of a project under a folder: git's view in a repository (tracked, and
 * untracked but not ignored), a walk of the folder elsewhere.
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The most files a walk outside git considers. */
export const WALK_CAP = 50_000;
/** Never listed nor searched when walking a folder: git's data, Golem's workspace, dependencies. */
const SKIPPED_FOLDERS = new Set(['.git', '.golem', 'node_modules']);

const run = promisify(execFile);

/** The project's files under `folder` (project-relative, sorted): git's view in a repository, a walk elsewhere. */
export async function listProject(root: string, folder: string, signal: AbortSignal | undefined): Promise<{ paths: string[]; incomplete: boolean }> {
  const fromGit = await gitFiles(root, folder, signal);
  if (fromGit !== null) return { paths: fromGit.filter((p) => !p.startsWith('.golem/')).sort(), incomplete: false };
  const paths: string[] = [];
  const walk = async (rel: string): Promise<boolean> => {
    signal?.throwIfAborted();
    const entries = await readdir(rel === '.' ? root : join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = rel === '.' ? entry.name : `${rel}/${entry.name}`;
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
  const git = (args: string[]) =>
    run('git', ['--literal-pathspecs', ...args], { cwd: root, maxBuffer: 256 * 1024 * 1024, ...(signal !== undefined && { signal }) });
  try {
    const inside = await git(['rev-parse', '--is-inside-work-tree']);
    if (inside.stdout.trim() !== 'true') return null;
  } catch {
    return null; // not a repository, or no git
  }
  const scope = folder === '.' ? [] : ['--', folder];
  const [listed, deleted] = await Promise.all([
    git(['ls-files', '--cached', '--others', '--exclude-standard', '-z', ...scope]),
    git(['ls-files', '--deleted', '-z', ...scope]),
  ]);
  const gone = new Set(deleted.stdout.split('\0'));
  // An untracked repository inside the project is listed as 'folder/': it is not a file.
  return [...new Set(listed.stdout.split('\0'))].filter((p) => p !== '' && !p.endsWith('/') && !gone.has(p));
}
