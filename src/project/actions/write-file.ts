/** write_file: creates a text file of the project, or replaces all of one. */
import { z } from 'zod';
import { defineAction, type Action } from '../../action/action.js';
import { projectFiles } from './context-files.js';

/** write_file: creates a text file, or replaces all of an existing one, with the content given. */
export function writeFileAction(): Action {
  return defineAction({
    name: 'write_file',
    description:
      'Creates a text file, or replaces all of an existing one, with content (UTF-8). Folders are created as needed. To change part of a file, use edit_file.',
    input: z.object({
      path: z.string().min(1).describe('The file, relative to the project root'),
      content: z.string().describe("The file's whole new content"),
    }),
    trust: 'manual',
    stages: true,
    run: async ({ path, content }, ctx) => {
      const files = projectFiles(ctx);
      const rel = files.relative(path);
      const created = (await files.read(rel)) === null;
      const bytes = Buffer.from(content, 'utf8');
      await files.write(rel, bytes);
      return { path: rel, bytes: bytes.length, created };
    },
    describe: (input) => ({ type: 'file_write', description: `write ${input.path}`, details: input, risk: 'medium' }),
  });
}
