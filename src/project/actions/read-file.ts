/** read_file: a text file of the project, with line numbers. */
import { z } from 'zod';
import { fail } from '../../core/errors.js';
import { defineAction, type Action } from '../../action/action.js';
import { isBinary, notFound, projectFiles } from './context-files.js';

const READ_LINES = 2000;
const READ_CHARS = 100_000;
const LINE_CHARS = 2000;

/** read_file: reads a text file of the project, with line numbers (as cat -n), in parts. */
export function readFileAction(): Action {
  return defineAction({
    name: 'read_file',
    repeatable: true,
    description: `Reads a text file of the project, with line numbers (as cat -n). Shows at most ${READ_LINES} lines from offset; use offset and limit to read a long file in parts.`,
    input: z.object({
      path: z.string().min(1).describe('The file, relative to the project root'),
      offset: z.number().int().min(1).optional().describe('The first line to show, from 1 (default 1)'),
      limit: z.number().int().min(1).optional().describe(`How many lines to show (default and most ${READ_LINES})`),
    }),
    run: async ({ path, offset, limit }, ctx) => {
      const files = projectFiles(ctx);
      const rel = files.relative(path);
      const content = await files.read(rel);
      if (content === null) throw notFound(rel);
      if (isBinary(content)) return `"${rel}" is a binary file (${content.length} bytes); it is not shown.`;
      return numberedLines(rel, content.toString('utf8'), offset ?? 1, Math.min(limit ?? READ_LINES, READ_LINES));
    },
  });
}

/** `cat -n` of lines [offset, offset + limit), with a note saying how to read on when cut. */
function numberedLines(rel: string, text: string, offset: number, limit: number): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return `"${rel}" is empty.`;
  if (offset > lines.length)
    throw fail('INVALID_ARGUMENT', `"${rel}" has ${lines.length} lines; offset must be at most ${lines.length}`, { path: rel, lines: lines.length });
  const out: string[] = [];
  let chars = 0;
  let next = offset;
  while (next <= lines.length && next < offset + limit) {
    let line = (lines[next - 1] ?? '').replace(/\r$/, '');
    if (line.length > LINE_CHARS) line = `${line.slice(0, LINE_CHARS)}… (line cut at ${LINE_CHARS} characters)`;
    const numbered = `${String(next).padStart(6)}\t${line}`;
    if (out.length > 0 && chars + numbered.length > READ_CHARS) break;
    out.push(numbered);
    chars += numbered.length + 1;
    next++;
  }
  if (next <= lines.length) out.push(`(lines ${offset}-${next - 1} of ${lines.length} shown; call read_file with offset ${next} to read on)`);
  return out.join('\n');
}
