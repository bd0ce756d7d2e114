/** search_files: the lines of the project's text files that match a regular expression. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { defineAction, type Action } from '../../action/action.js';
import { globFilter } from '../glob.js';
import { LineSearch, SEARCH_SYNTAX } from '../line-search.js';
import { listProject, WALK_CAP } from '../project-listing.js';
import { isBinary, isFolder, notFound, projectFiles } from './context-files.js';

const SEARCH_CAP = 200;
const SEARCH_MAX_FILE_BYTES = 1024 * 1024;
const MATCH_CHARS = 300;
/** The most time a search takes before it is stopped (SEARCH_TIMEOUT). */
const SEARCH_BUDGET_MS = 20_000;

/** search_files: searches the project's text files line by line for a regular expression. */
export function searchFilesAction(): Action {
  return defineAction({
    name: 'search_files',
    repeatable: true,
    description: `Searches the project's text files line by line for a regular expression in ${SEARCH_SYNTAX}; answers "path:line: text" for each match, at most ${SEARCH_CAP}. Binary files and files over 1 MiB are skipped, and so are files .gitignore ignores. A search that takes longer than ${SEARCH_BUDGET_MS / 1000} s is stopped (SEARCH_TIMEOUT): narrow it.`,
    input: z.object({
      pattern: z.string().min(1).max(2000).describe("A regular expression in RE2 syntax (like ripgrep), without slashes, e.g. 'function \\w+\\('"),
      path: z.string().min(1).optional().describe("A folder or file to search, relative to the project root (default '.')"),
      glob: z.string().min(1).optional().describe("Only files matching this glob, e.g. '*.ts' or 'src/**/*.tsx'"),
      ignore_case: z.boolean().optional().describe('Match letters in either case (default false)'),
    }),
    run: async ({ pattern, path, glob, ignore_case }, ctx) => {
      const files = projectFiles(ctx);
      // The pattern is checked first (a wrong one is refused before any file is read); the worker matches.
      const search = new LineSearch(pattern, { ignoreCase: ignore_case === true, budgetMs: SEARCH_BUDGET_MS, signal: ctx.signal });
      try {
        const rel = files.relative(path ?? '.');
        let candidates: string[];
        let incomplete = false;
        if (await isFolder(files.root, rel)) {
          const listing = await listProject(files, rel, ctx.signal);
          candidates = glob === undefined ? listing.paths : listing.paths.filter(globFilter(glob, rel));
          incomplete = listing.incomplete;
        } else {
          if ((await files.read(rel)) === null) throw notFound(rel);
          candidates = [rel];
        }
        const matches: string[] = [];
        let large = 0;
        for (const file of candidates) {
          ctx.signal?.throwIfAborted();
          const size = await stat(join(files.root, file)).then(
            (s) => s.size,
            () => 0,
          );
          if (size > SEARCH_MAX_FILE_BYTES) {
            large++;
            continue;
          }
          let content: Buffer | null;
          try {
            content = await files.read(file);
          } catch {
            continue; // a folder, a link out of the project, a file that cannot be read: not searchable
          }
          if (content === null || isBinary(content)) continue;
          if (content.length > SEARCH_MAX_FILE_BYTES) {
            large++;
            continue;
          }
          for (const match of await search.lines(content.toString('utf8'), SEARCH_CAP + 1 - matches.length))
            matches.push(`${file}:${match.line}: ${around(match.text, match.index)}`);
          if (matches.length > SEARCH_CAP) {
            matches.splice(SEARCH_CAP, Infinity, `(stopped at ${SEARCH_CAP} matches; narrow the search with path or glob, or a stricter pattern)`);
            break;
          }
        }
        if (matches.length === 0) matches.push(`No matches for /${pattern}/${ignore_case === true ? 'i' : ''}.`);
        if (large > 0) matches.push(`(${large} file${large === 1 ? '' : 's'} over 1 MiB not searched)`);
        if (incomplete) matches.push(`(the folder has more than ${WALK_CAP} files; only the first ${WALK_CAP} found were searched)`);
        return matches.join('\n');
      } finally {
        await search.close();
      }
    },
  });
}

/** A matching line, shortened around the match when it is long. */
function around(line: string, index: number): string {
  if (line.length <= MATCH_CHARS) return line;
  const start = Math.max(0, Math.min(index - MATCH_CHARS / 3, line.length - MATCH_CHARS));
  return `${start > 0 ? '…' : ''}${line.slice(start, start + MATCH_CHARS)}${start + MATCH_CHARS < line.length ? '…' : ''}`;
}
