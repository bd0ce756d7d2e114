/**
 * The actions that make a model useful on a real project: read, list and search its
 * files, edit and write them, and run commands in it. Every file goes through the
 * context's `FileAccess` (the files on disk or a staging view), which keeps paths
 * inside the project root.
 */
import { fail } from '../core/errors.js';
import type { Action } from '../action/action.js';
import { editFileAction } from './actions/edit-file.js';
import { listFilesAction } from './actions/list-files.js';
import { readFileAction } from './actions/read-file.js';
import { runCommandAction } from './actions/run-command.js';
import { searchFilesAction } from './actions/search-files.js';
import { writeFileAction } from './actions/write-file.js';

/** The options of `projectActions`: run_command's shell, time limit and kept output. */
export interface ProjectActionsOptions {
  /** The shell run_command uses, as `<shell> -c <command>` (default '/bin/sh'). */
  shell?: string;
  /** run_command's default time limit in milliseconds (default 120 000). */
  commandTimeoutMs?: number;
  /** How much of a command's output is kept, from the end, in bytes (default 64 KiB). */
  maxOutputBytes?: number;
}

/**
 * read_file, list_files, search_files, edit_file, write_file and run_command, for a
 * worker whose context has the project's files (`ctx.files`).
 *
 * @example
 * const worker = new Worker({ session, model, actions: projectActions({ commandTimeoutMs: 60_000 }) });
 */
export function projectActions(options: ProjectActionsOptions = {}): Action[] {
  const shell = options.shell ?? '/bin/sh';
  const defaultTimeoutMs = options.commandTimeoutMs ?? 120_000;
  const maxOutputBytes = options.maxOutputBytes ?? 64 * 1024;
  if (shell === '') throw fail('INVALID_ARGUMENT', 'shell must name a program', { shell });
  if (!Number.isInteger(defaultTimeoutMs) || defaultTimeoutMs <= 0)
    throw fail('INVALID_ARGUMENT', 'commandTimeoutMs must be a positive whole number', { commandTimeoutMs: defaultTimeoutMs });
  if (!Number.isInteger(maxOutputBytes) || maxOutputBytes <= 0)
    throw fail('INVALID_ARGUMENT', 'maxOutputBytes must be a positive whole number', { maxOutputBytes });
  return [
    readFileAction(),
    listFilesAction(),
    searchFilesAction(),
    editFileAction(),
    writeFileAction(),
    runCommandAction({ shell, defaultTimeoutMs, maxOutputBytes }),
  ];
}
