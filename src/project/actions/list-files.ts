/** list_files: the project's files under a folder. */
import { z } from 'zod';
import { defineAction, type Action } from '../../action/action.js';
import { globFilter } from '../glob.js';
import { listProject, WALK_CAP } from '../project-listing.js';
import { folderOf, projectFiles } from './context-files.js';

const LIST_CAP = 500;

/** list_files: lists the project's files under a folder, optionally matching a glob. */
export function listFilesAction(): Action {
  return defineAction({
    name: 'list_files',
    repeatable: true,
    description: `Lists the project's files under a folder, one path per line relative to the project root, sorted; at most ${LIST_CAP}. Git's data (.git) and Golem's workspace (.golem) are never listed; in a git repository, files that .gitignore ignores are left out too, and elsewhere node_modules is.`,
    input: z.object({
      path: z.string().min(1).optional().describe("The folder, relative to the project root (default '.')"),
      pattern: z
        .string()
        .min(1)
        .optional()
        .describe("A glob such as '*.ts', 'src/**/*.test.ts' or '*.{js,json}'; without a '/' it matches file names at any depth"),
    }),
    run: async ({ path, pattern }, ctx) => {
      const files = projectFiles(ctx);
      const folder = await folderOf(files, path ?? '.');
      const listing = await listProject(files, folder, ctx.signal);
      const paths = pattern === undefined ? listing.paths : listing.paths.filter(globFilter(pattern, folder));
      const where = `${folder === '.' ? 'the project' : `"${folder}"`}${pattern === undefined ? '' : ` matching "${pattern}"`}`;
      if (paths.length === 0) return `No files in ${where}.`;
      const lines = paths.slice(0, LIST_CAP);
      if (paths.length > LIST_CAP) lines.push(`(showing the first ${LIST_CAP} of ${paths.length} files in ${where}; narrow the list with path or pattern)`);
      if (listing.incomplete) lines.push(`(the folder has more than ${WALK_CAP} files; only the first ${WALK_CAP} found were considered)`);
      return lines.join('\n');
    },
  });
}
