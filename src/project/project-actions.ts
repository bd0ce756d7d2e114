/**
 * The actions that make a model useful on a real project: read, list and search its
 * files, edit and write them, and run commands in it. Every file goes through the
 * context's `FileAccess` (the files on disk or a staging view), which keeps paths
 * inside the project root.
 */
import { execFile, spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import { constants } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { fail, type GolemError } from '../core/errors.js';
import { defineAction, type Action, type ActionContext } from '../action/action.js';
import type { FileAccess } from '../action/files.js';
import type { Risk } from '../action/approval.js';

const BINARY_PROBE_BYTES = 8 * 1024;
const READ_LINES = 2000;
const READ_CHARS = 100_000;
const LINE_CHARS = 2000;
const LIST_CAP = 500;
const WALK_CAP = 50_000;
const SEARCH_CAP = 200;
const SEARCH_MAX_FILE_BYTES = 1024 * 1024;
const MATCH_CHARS = 300;
/** Never listed nor searched when walking a folder: git's data, Golem's workspace, dependencies. */
const SKIPPED_FOLDERS = new Set(['.git', '.golem', 'node_modules']);
/** After the shell exits, how long its output may still drain (a background process can hold it open). */
const DRAIN_MS = 1000;
/** After SIGTERM, how long a stopped command has before SIGKILL. */
const KILL_GRACE_MS = 2000;

const run = promisify(execFile);

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
  if (!Number.isInteger(defaultTimeoutMs) || defaultTimeoutMs <= 0) throw fail('INVALID_ARGUMENT', 'commandTimeoutMs must be a positive whole number', { commandTimeoutMs: defaultTimeoutMs });
  if (!Number.isInteger(maxOutputBytes) || maxOutputBytes <= 0) throw fail('INVALID_ARGUMENT', 'maxOutputBytes must be a positive whole number', { maxOutputBytes });

  const readFile = defineAction({
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

  const listFiles = defineAction({
    name: 'list_files',
    repeatable: true,
    description: `Lists the project's files under a folder, one path per line relative to the project root, sorted; at most ${LIST_CAP}. In a git repository, files that .gitignore ignores are left out; elsewhere, node_modules, .git and .golem are.`,
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
      const listing = await listProject(files.root, folder, ctx.signal);
      const paths = pattern === undefined ? listing.paths : listing.paths.filter(globFilter(pattern, folder));
      const where = `${folder === '.' ? 'the project' : `"${folder}"`}${pattern === undefined ? '' : ` matching "${pattern}"`}`;
      if (paths.length === 0) return `No files in ${where}.`;
      const lines = paths.slice(0, LIST_CAP);
      if (paths.length > LIST_CAP) lines.push(`(showing the first ${LIST_CAP} of ${paths.length} files in ${where}; narrow the list with path or pattern)`);
      if (listing.incomplete) lines.push(`(the folder has more than ${WALK_CAP} files; only the first ${WALK_CAP} found were considered)`);
      return lines.join('\n');
    },
  });

  const searchFiles = defineAction({
    name: 'search_files',
    repeatable: true,
    description: `Searches the project's text files line by line for a JavaScript regular expression; answers "path:line: text" for each match, at most ${SEARCH_CAP}. Binary files and files over 1 MiB are skipped, and so are files .gitignore ignores.`,
    input: z.object({
      pattern: z.string().min(1).describe("A JavaScript regular expression, without slashes, e.g. 'function \\w+\\('"),
      path: z.string().min(1).optional().describe("A folder or file to search, relative to the project root (default '.')"),
      glob: z.string().min(1).optional().describe("Only files matching this glob, e.g. '*.ts' or 'src/**/*.tsx'"),
      ignore_case: z.boolean().optional().describe('Match letters in either case (default false)'),
    }),
    run: async ({ pattern, path, glob, ignore_case }, ctx) => {
      const files = projectFiles(ctx);
      let regex: RegExp;
      try {
        regex = new RegExp(pattern, ignore_case === true ? 'i' : '');
      } catch (error) {
        throw fail('INVALID_ARGUMENT', `"${pattern}" is not a valid JavaScript regular expression: ${(error as Error).message}. Fix the pattern (escape ( ) [ ] { } . * + ? | \\ ^ $ to match them literally) and search again.`, { pattern });
      }
      const rel = files.relative(path ?? '.');
      let candidates: string[];
      let incomplete = false;
      if (await isFolder(files.root, rel)) {
        const listing = await listProject(files.root, rel, ctx.signal);
        candidates = glob === undefined ? listing.paths : listing.paths.filter(globFilter(glob, rel));
        incomplete = listing.incomplete;
      } else {
        if ((await files.read(rel)) === null) throw notFound(rel);
        candidates = [rel];
      }
      const matches: string[] = [];
      let large = 0;
      search: for (const file of candidates) {
        ctx.signal?.throwIfAborted();
        const size = await stat(join(files.root, file)).then((s) => s.size, () => 0);
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
        const lines = content.toString('utf8').split(/\r?\n/);
        for (const [i, line] of lines.entries()) {
          const match = regex.exec(line);
          if (match === null) continue;
          if (matches.length === SEARCH_CAP) {
            matches.push(`(stopped at ${SEARCH_CAP} matches; narrow the search with path or glob, or a stricter pattern)`);
            break search;
          }
          matches.push(`${file}:${i + 1}: ${around(line, match.index)}`);
        }
      }
      if (matches.length === 0) matches.push(`No matches for /${pattern}/${ignore_case === true ? 'i' : ''}.`);
      if (large > 0) matches.push(`(${large} file${large === 1 ? '' : 's'} over 1 MiB not searched)`);
      if (incomplete) matches.push(`(the folder has more than ${WALK_CAP} files; only the first ${WALK_CAP} found were searched)`);
      return matches.join('\n');
    },
  });

  const editFile = defineAction({
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
      if (count === 0) throw fail('INVALID_ARGUMENT', `old_string does not occur in "${rel}". Read the file again and copy the text exactly, without the line-number prefix.`, { path: rel });
      if (count > 1 && replace_all !== true) {
        throw fail('INVALID_ARGUMENT', `old_string occurs ${count} times in "${rel}". Add surrounding lines to make it unique, or set replace_all to replace all ${count}.`, { path: rel, occurrences: count });
      }
      const edited = replace_all === true ? text.split(from).join(to) : replaceFirst(text, from, to);
      await files.write(rel, Buffer.from(edited, 'utf8'));
      return { path: rel, replacements: replace_all === true ? count : 1 };
    },
    describe: (input) => ({ type: 'file_write', description: `edit ${input.path}`, details: input, risk: 'medium' }),
  });

  const writeFile = defineAction({
    name: 'write_file',
    description: 'Creates a text file, or replaces all of an existing one, with content (UTF-8). Folders are created as needed. To change part of a file, use edit_file.',
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

  const runCommand = defineAction({
    name: 'run_command',
    description: `Runs a shell command (${shell} -c) in the project and answers its exit code and output (stdout and stderr together; only the last ${formatBytes(maxOutputBytes)} are kept). No input is given and nothing interactive works. Stopped after timeoutMs (default ${defaultTimeoutMs / 1000} s).`,
    input: z.object({
      command: z.string().min(1).describe("The command line, e.g. 'npm test' or 'git status'"),
      cwd: z.string().min(1).optional().describe("The folder to run it in, relative to the project root (default '.')"),
      timeoutMs: z.number().int().min(1).max(3_600_000).optional().describe(`The time limit in milliseconds (default ${defaultTimeoutMs})`),
    }),
    trust: 'supervised',
    run: async ({ command, cwd, timeoutMs }, ctx) => {
      const files = projectFiles(ctx);
      const folder = await folderOf(files, cwd ?? '.');
      return runShell({ shell, command, cwd: join(files.root, folder), timeoutMs: timeoutMs ?? defaultTimeoutMs, maxOutputBytes, signal: ctx.signal });
    },
    describe: ({ command, cwd }) => ({ type: 'command', description: command, details: { command, cwd: cwd ?? '.' }, risk: commandRisk(command) }),
    grantKey: ({ command }) => command.trim(),
  });

  return [readFile, listFiles, searchFiles, editFile, writeFile, runCommand];
}

// ---------------------------------------------------------------------------------------
// Files

function projectFiles(ctx: ActionContext): FileAccess {
  if (ctx.files === undefined) throw fail('INVALID_ARGUMENT', 'this action needs a project');
  return ctx.files;
}

function notFound(rel: string, hint = ' Use list_files to see which files there are.'): GolemError {
  return fail('FILE_NOT_FOUND', `There is no file "${rel}" in the project.${hint}`, { path: rel });
}

function isBinary(content: Buffer): boolean {
  return content.subarray(0, BINARY_PROBE_BYTES).includes(0);
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

/** A project folder (confined), which must exist on disk. */
async function folderOf(files: FileAccess, path: string): Promise<string> {
  const rel = files.relative(path);
  const info = await stat(join(files.root, rel)).catch(() => null);
  if (info === null) throw fail('FILE_NOT_FOUND', `There is no folder "${rel}" in the project.`, { path: rel });
  if (!info.isDirectory()) throw fail('INVALID_ARGUMENT', `"${rel}" is a file, not a folder`, { path: rel });
  return rel;
}

async function isFolder(root: string, rel: string): Promise<boolean> {
  return stat(join(root, rel)).then((s) => s.isDirectory(), () => false);
}

/** `cat -n` of lines [offset, offset + limit), with a note saying how to read on when cut. */
function numberedLines(rel: string, text: string, offset: number, limit: number): string {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return `"${rel}" is empty.`;
  if (offset > lines.length) throw fail('INVALID_ARGUMENT', `"${rel}" has ${lines.length} lines; offset must be at most ${lines.length}`, { path: rel, lines: lines.length });
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

/** A matching line, shortened around the match when it is long. */
function around(line: string, index: number): string {
  if (line.length <= MATCH_CHARS) return line;
  const start = Math.max(0, Math.min(index - MATCH_CHARS / 3, line.length - MATCH_CHARS));
  return `${start > 0 ? '…' : ''}${line.slice(start, start + MATCH_CHARS)}${start + MATCH_CHARS < line.length ? '…' : ''}`;
}

/** The project's files under `folder` (project-relative, sorted): git's view in a repository, a walk elsewhere. */
async function listProject(root: string, folder: string, signal: AbortSignal | undefined): Promise<{ paths: string[]; incomplete: boolean }> {
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
  const git = (args: string[]) => run('git', ['--literal-pathspecs', ...args], { cwd: root, maxBuffer: 256 * 1024 * 1024, ...(signal !== undefined && { signal }) });
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

/** Whether a project-relative path matches `glob`, tried against the path from the root and from `folder`. */
function globFilter(glob: string, folder: string): (path: string) => boolean {
  const pattern = glob.replace(/^\.\//, '');
  const regex = new RegExp(`^${globSource(pattern)}$`);
  if (!pattern.includes('/')) return (path) => regex.test(path.slice(path.lastIndexOf('/') + 1));
  const prefix = folder === '.' ? '' : `${folder}/`;
  return (path) => regex.test(path) || (prefix !== '' && path.startsWith(prefix) && regex.test(path.slice(prefix.length)));
}

/** A glob as a regular expression: '**' any folders, '*' and '?' within a name, '[...]' and '{a,b}'. */
function globSource(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? '';
    if (c === '*' && glob[i + 1] === '*') {
      const slash = glob[i + 2] === '/';
      out += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[' && glob.indexOf(']', i + 2) !== -1) {
      const end = glob.indexOf(']', i + 2);
      const body = glob.slice(i + 1, end);
      out += `[${body.startsWith('!') ? `^${escapeClass(body.slice(1))}` : escapeClass(body)}]`;
      i = end;
    } else if (c === '{' && closingBrace(glob, i) !== -1) {
      const end = closingBrace(glob, i);
      out += `(?:${splitTopLevel(glob.slice(i + 1, end)).map(globSource).join('|')})`;
      i = end;
    } else out += c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return out;
}

function escapeClass(body: string): string {
  return body.replace(/[\\\]^]/g, '\\$&');
}

function closingBrace(glob: string, open: number): number {
  let depth = 0;
  for (let i = open; i < glob.length; i++) {
    if (glob[i] === '{') depth++;
    else if (glob[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    if (body[i] === '{') depth++;
    else if (body[i] === '}') depth--;
    else if (body[i] === ',' && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

// ---------------------------------------------------------------------------------------
// Commands

/** What run_command answers. */
interface CommandResult {
  /** The exit code; 128 + n when a signal n ended the shell (as shells report it). */
  exitCode: number | null;
  output: string;
  timedOut?: true;
}

/**
 * Runs `command` through the shell in a process group of its own, so that a timeout or
 * `signal` stops everything it started. Output keeps the last `maxOutputBytes`.
 */
async function runShell(options: { shell: string; command: string; cwd: string; timeoutMs: number; maxOutputBytes: number; signal: AbortSignal | undefined }): Promise<CommandResult> {
  const { shell, command, cwd, timeoutMs, maxOutputBytes, signal } = options;
  signal?.throwIfAborted();
  const child = spawn(shell, ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: Buffer[] = [];
  let kept = 0;
  let total = 0;
  const collect = (chunk: Buffer) => {
    chunks.push(chunk);
    kept += chunk.length;
    total += chunk.length;
    while (chunks.length > 1 && kept - (chunks[0]?.length ?? 0) >= maxOutputBytes) kept -= chunks.shift()?.length ?? 0;
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  let stopped: 'timeout' | 'abort' | undefined;
  let killTimer: NodeJS.Timeout | undefined;
  const killGroup = (sig: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, sig);
    } catch {
      // the group is gone already
    }
  };
  const stop = (why: 'timeout' | 'abort') => {
    if (stopped !== undefined) return;
    stopped = why;
    killGroup('SIGTERM');
    killTimer = setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const onAbort = () => stop('abort');
  signal?.addEventListener('abort', onAbort, { once: true });

  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      child.once('error', (error) => reject(fail('INVALID_ARGUMENT', `cannot run the shell "${shell}": ${error.message}`, { shell })));
      child.once('exit', (code, sig) => {
        exited = { code, signal: sig };
        // Whatever the stopped command left behind in its group goes too.
        if (stopped !== undefined) killGroup('SIGKILL');
        // A process the command started in the background may hold the output open.
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          resolve(exited ?? { code, signal: sig });
        }, DRAIN_MS).unref();
      });
      child.once('close', (code: number | null, sig: NodeJS.Signals | null) => resolve(exited ?? { code, signal: sig }));
    });
    if (stopped === 'abort') throw signal?.reason instanceof Error ? signal.reason : new DOMException('The command was cancelled', 'AbortError');
    const exitCode = exit.code ?? (exit.signal === null ? null : 128 + (constants.signals[exit.signal] ?? 0));
    return { exitCode, output: outputOf(Buffer.concat(chunks), total, maxOutputBytes), ...(stopped === 'timeout' && { timedOut: true as const }) };
  } finally {
    clearTimeout(timer);
    clearTimeout(killTimer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The last `max` bytes as text, starting on a whole character, with a note when some were cut. */
function outputOf(buffer: Buffer, total: number, max: number): string {
  if (total <= max) return buffer.toString('utf8');
  let tail = buffer.subarray(buffer.length - max);
  let skip = 0;
  while (skip < 3 && skip < tail.length && ((tail[skip] ?? 0) & 0xc0) === 0x80) skip++;
  tail = tail.subarray(skip);
  return `[output cut: the first ${total - tail.length} bytes are left out; the last ${tail.length} follow]\n${tail.toString('utf8')}`;
}

function formatBytes(n: number): string {
  return n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}

// ---------------------------------------------------------------------------------------
// Risk

/** Where a command starts: the line's start, after a control operator, a quote, or a wrapper such as sudo or xargs. */
const AT = String.raw`(?:^|[;&|(\n\x60'"]|\$\()\s*(?:(?:sudo|doas|xargs|env|nohup|time|command|exec|nice)\s+(?:-\S+\s+)*)*(?:\w+=\S*\s+)*`;
const GIT = String.raw`git(?:\s+-[Cc]\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+`;
const DESTRUCTIVE = [
  new RegExp(String.raw`${AT}rm\b[^;&|\n]*\s(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\b`),
  new RegExp(String.raw`(?:^|[;&|(\n\x60'"]|\$\()\s*(?:sudo|doas|su)\b`),
  new RegExp(String.raw`${AT}${GIT}push\b`),
  new RegExp(String.raw`${AT}${GIT}reset\b[^;&|\n]*\s--hard\b`),
  new RegExp(String.raw`${AT}${GIT}clean\b[^;&|\n]*\s(?:-[a-zA-Z]*f|--force)`),
  new RegExp(String.raw`${AT}dd(?=\s|$)`),
  new RegExp(String.raw`${AT}mkfs(?:\.\w+)?(?=\s|$)`),
  new RegExp(String.raw`${AT}(?:chmod|chown|chgrp)\b[^;&|\n]*\s(?:-[a-zA-Z]*R|--recursive)\b`),
  new RegExp(String.raw`${AT}find\b[^;&|\n]*\s-delete\b`),
  new RegExp(String.raw`${AT}(?:shutdown|reboot|halt|poweroff)\b`),
  /\b(?:curl|wget)\b[^;&\n]*\|\s*(?:sudo\s+)?(?:\S*\/)?(?:ba|da|k|z|fi)?sh\b/,
  /\b(?:ba|da|k|z)?sh\b[^;&|\n]*(?:<\(|\$\(|`)\s*(?:curl|wget)\b/,
  /[0-9&]?>>?\s*\/dev\/(?!(?:null|stdout|stderr|tty)\b|fd\/)/,
];
const READ_ONLY = new Set(['ls', 'cat', 'pwd', 'echo', 'grep', 'rg', 'head', 'tail', 'wc', 'which', 'file', 'stat', 'du', 'df', 'tree', 'date', 'whoami', 'uname']);
const READ_ONLY_GIT = new Set(['status', 'diff', 'log', 'show', 'blame', 'ls-files', 'rev-parse', 'grep', 'shortlog', 'describe']);

/**
 * How risky a command line looks, for an approval request: 'high' for the obviously
 * destructive (rm -rf, git push, git reset --hard, sudo, curl | sh, dd, mkfs, chmod -R,
 * writing to a device...), 'low' when every command in it only reads (ls, cat, grep,
 * git status/diff/log, npm test...), 'medium' otherwise. A hint for the user, not a
 * sandbox.
 */
export function commandRisk(command: string): Risk {
  if (DESTRUCTIVE.some((pattern) => pattern.test(command))) return 'high';
  const segments = shellSegments(command);
  if (segments === null) return 'medium';
  return segments.every(readOnly) ? 'low' : 'medium';
}

function readOnly(segment: string[]): boolean {
  const words = segment.filter((w, i) => !segment.slice(0, i + 1).every((v) => /^\w+=/.test(v))); // leading VAR=value
  const [first, second, third] = words;
  if (first === undefined || READ_ONLY.has(first)) return true;
  if (first === 'find') return !words.some((w) => /^-(?:exec|execdir|ok|okdir|delete|fprint|fprintf|fls)$/.test(w));
  if (first === 'git') return second !== undefined && READ_ONLY_GIT.has(second);
  if (first === 'npm') return second === 'test' || second === 't' || second === 'ls' || (second === 'run' && third === 'test');
  return false;
}

/**
 * The simple commands of a command line, split at ; & | and new lines outside quotes, as
 * words; null when it does more than run commands that read (command substitution, or
 * output redirected to a file).
 */
function shellSegments(command: string): string[][] | null {
  const segments: string[][] = [];
  let words: string[] = [];
  let word = '';
  let quote: "'" | '"' | undefined;
  const endWord = () => {
    if (word !== '') words.push(word);
    word = '';
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0) segments.push(words);
    words = [];
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i] ?? '';
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (c === '`' || (c === '$' && command[i + 1] === '(') || (c === '<' && command[i + 1] === '(')) return null;
    else if (quote === '"') {
      if (c === '"') quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '>') {
      const target = /^>?\s*(&[0-9-]|\/dev\/null\b)/.exec(command.slice(i + 1));
      if (target === null) return null;
      if (/^[0-9]*$/.test(word)) word = ''; // the '2' of '2>&1'
      endWord();
      i += target[0].length;
    } else if (c === ';' || c === '&' || c === '|' || c === '\n') endSegment();
    else if (/\s/.test(c)) endWord();
    else word += c;
  }
  endSegment();
  return segments;
}
