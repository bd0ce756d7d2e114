/**
 * The project's files as the actions reach them: the context's `FileAccess` (the files on
 * disk or a staging view, paths kept inside the project root), and the answers for a
 * file or folder that is not there.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fail, type GolemError } from '../../core/errors.js';
import type { ActionContext } from '../../action/action.js';
import type { FileAccess } from '../../action/files.js';

const BINARY_PROBE_BYTES = 8 * 1024;

/** The context's project files; an action run without a project fails. */
export function projectFiles(ctx: ActionContext): FileAccess {
  if (ctx.files === undefined) throw fail('INVALID_ARGUMENT', 'this action needs a project');
  return ctx.files;
}

/** The error for a file the project does not have, with a hint of what to do. */
export function notFound(rel: string, hint = ' Use list_files to see which files there are.'): GolemError {
  return fail('FILE_NOT_FOUND', `There is no file "${rel}" in the project.${hint}`, { path: rel });
}

/** Whether the content looks binary (a NUL byte near its start). */
export function isBinary(content: Buffer): boolean {
  return content.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

/** A project folder (confined), which must exist on disk. */
export async function folderOf(files: FileAccess, path: string): Promise<string> {
  const rel = files.relative(path);
  const info = await stat(join(files.root, rel)).catch(() => null);
  if (info === null) throw fail('FILE_NOT_FOUND', `There is no folder "${rel}" in the project.`, { path: rel });
  if (!info.isDirectory()) throw fail('INVALID_ARGUMENT', `"${rel}" is a file, not a folder`, { path: rel });
  return rel;
}

/** Whether a project-relative path is a folder on disk. */
export async function isFolder(root: string, rel: string): Promise<boolean> {
  return stat(join(root, rel)).then(
    (s) => s.isDirectory(),
    () => false,
  );
}
