/** edit_file: replaces exact text in a text file of the project. */
import { z } from 'zod';
import { fail } from '../../core/errors.js';
import { defineAction, type Action } from '../../action/action.js';
import { isBinary, notFound, projectFiles } from './context-files.js';

/** edit_file: replaces text that occurs once (or every occurrence) in a text file. */
export function editFileAction(): Action {
  return defineAction({
    name: 'edit_file',
    description:
      'Edits a text file by replacing exact text: old_string must occur exactly once in the file (include enough surrounding lines to make it unique), or set replace_all to replace every occurrence. Copy old_string from read_file without the line-number prefix; whitespace and indentation must match.',
    input: z.object({
      path: z.string().min(1).describe('The file, relative to the project root'),
      old_string: z.string().min(1).describe('The exact text to replace'),
      new_string: z.string().describe('The text to put in its place'),
      replace_all: z.boolean().optional().describe('Replace every occurrence (default false)'),
    }),
    trust: 'manual',
    stages: true,
    run: async ({ path, old_string, new_string, replace_all }, ctx) => {
      const files = projectFiles(ctx);
      const rel = files.relative(path);
      if (old_string === new_string) throw fail('INVALID_ARGUMENT', 'old_string and new_string are the same: there is nothing to change', { path: rel });
      const content = await files.read(rel);
      if (content === null) throw notFound(rel, ' Create it with write_file.');
      const text = utf8Text(rel, content);
      let [from, to] = [old_string, new_string];
      let count = occurrences(text, from);
      if (count === 0 && text.includes('\r\n') && /(?<!\r)\n/.test(from)) {
        // The file has Windows line ends and the model wrote '\n' (read_file does not show '\r').
        [from, to] = [crlf(from), crlf(to)];
        count = occurrences(text, from);
      }
      if (count === 0)
        throw fail(
          'INVALID_ARGUMENT',
          `old_string does not occur in "${rel}". Read the file again and copy the text exactly, without the line-number prefix.`,
          { path: rel },
        );
      if (count > 1 && replace_all !== true) {
        throw fail(
          'INVALID_ARGUMENT',
          `old_string occurs ${count} times in "${rel}". Add surrounding lines to make it unique, or set replace_all to replace all ${count}.`,
          { path: rel, occurrences: count },
        );
      }
      const edited = replace_all === true ? text.split(from).join(to) : replaceFirst(text, from, to);
      await files.write(rel, Buffer.from(edited, 'utf8'));
      return { path: rel, replacements: replace_all === true ? count : 1 };
    },
    describe: (input) => ({ type: 'file_write', description: `edit ${input.path}`, details: input, risk: 'medium' }),
  });
}

/** The file as text, refusing what is not UTF-8 (decoding and encoding it again would change it). */
function utf8Text(rel: string, content: Buffer): string {
  if (isBinary(content)) throw fail('INVALID_ARGUMENT', `"${rel}" is a binary file; edit_file changes text files only`, { path: rel });
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(content);
  } catch {
    throw fail('INVALID_ARGUMENT', `"${rel}" is not UTF-8 text; edit_file cannot change it without damaging it`, { path: rel });
  }
}

function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

/** Without String.replace, which would read '$&' and the like in `to` as patterns. */
function replaceFirst(text: string, from: string, to: string): string {
  const at = text.indexOf(from);
  return text.slice(0, at) + to + text.slice(at + from.length);
}

function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}
