/**
 * Git run as a program, never through a shell: in one place, with one environment that
 * cannot be redirected to another repository, with nothing the repository's config names
 * run (no fsmonitor, no hooks, no pager, no transport), and failures as GIT_ERROR.
 */
import { spawn } from 'node:child_process';
import { fail, GolemError } from '../core/errors.js';

/** Variables that would point git at another repository, index or pathspec mode. */
const INHERITED_GIT_VARS = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_GLOB_PATHSPECS',
  'GIT_NOGLOB_PATHSPECS',
  'GIT_ICASE_PATHSPECS',
  'GIT_LITERAL_PATHSPECS',
  'GIT_QUARANTINE_PATH',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
]);

/**
 * Settings put before every command Golem runs, over whatever the repository's config
 * (which a project, or a model that wrote into it, controls) says: run no fsmonitor
 * program, no hook (reference-transaction and post-index-change fire on Golem's own
 * update-ref and update-index), no pager, and reach no remote. Command-line settings win
 * over every config file, `include.path` too.
 */
export const GIT_SAFETY = [
  '--no-pager',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.pager=cat',
  '-c',
  'protocol.allow=never',
  '-c',
  'core.quotePath=false',
] as const;

/** What a git command printed, and its exit code. */
export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

/** Runs git in one place with one environment; never through a shell. */
export class Git {
  readonly #cwd: string;
  readonly #env: NodeJS.ProcessEnv;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.#cwd = cwd;
    this.#env = env;
  }

  /** The same git with extra environment variables. */
  with(env: Record<string, string>): Git {
    return new Git(this.#cwd, { ...this.#env, ...env });
  }

  /**
   * Runs `git args` (after `GIT_SAFETY`), feeding `input`; throws GIT_ERROR unless the exit
   * code is allowed (0 by default), or the signal's reason when it aborts the command.
   */
  async exec(args: string[], options: { input?: Buffer | string; allow?: (code: number) => boolean; signal?: AbortSignal } = {}): Promise<GitResult> {
    const result = await runGit([...GIT_SAFETY, ...args], this.#cwd, this.#env, options.input, options.signal);
    if (!(options.allow ?? ((code) => code === 0))(result.code)) throw gitError(args, result);
    return result;
  }

  /** The first line `git args` prints (an object id); GIT_ERROR when there is none. */
  async value(args: string[], input?: Buffer | string): Promise<string> {
    const [first = ''] = await this.lines(args, input);
    if (first === '') throw fail('GIT_ERROR', `git ${args[0] ?? ''} printed nothing`, { command: commandLine(args) });
    return first;
  }

  /** The output of `git args` as lines. */
  async lines(args: string[], input?: Buffer | string): Promise<string[]> {
    const out = await this.exec(args, input === undefined ? {} : { input });
    return out.stdout.toString('utf8').replace(/\n$/, '').split('\n');
  }
}

function runGit(args: string[], cwd: string, env: NodeJS.ProcessEnv, input: Buffer | string | undefined, signal: AbortSignal | undefined): Promise<GitResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('git', args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], ...(signal !== undefined && { signal }) });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (error) =>
      reject(
        signal?.aborted === true && signal.reason instanceof Error
          ? signal.reason
          : new GolemError('GIT_ERROR', `could not run git: ${error.message}`, { cause: error, details: { command: commandLine(args) } }),
      ),
    );
    child.on('close', (code) => resolvePromise({ stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8'), code: code ?? -1 }));
    // git may exit before reading all its input; its exit code says what went wrong.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

/** The GIT_ERROR for a git command that failed: its first line of stderr, the command and the exit code. */
export function gitError(args: string[], result: GitResult): GolemError {
  const stderr = result.stderr.trim();
  return fail('GIT_ERROR', `git ${args[0] ?? ''} failed${stderr === '' ? '' : `: ${stderr.split('\n')[0] ?? ''}`}`, {
    command: commandLine(args),
    stderr,
    exitCode: result.code,
  });
}

function commandLine(args: string[]): string {
  return ['git', ...args].join(' ');
}

/** The environment git runs in: the process's, minus variables that redirect git, plus Golem as author and no pager. */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!INHERITED_GIT_VARS.has(key)) env[key] = value;
  return {
    ...env,
    GIT_AUTHOR_NAME: 'Golem',
    GIT_AUTHOR_EMAIL: 'golem@localhost',
    GIT_COMMITTER_NAME: 'Golem',
    GIT_COMMITTER_EMAIL: 'golem@localhost',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    LC_ALL: 'C',
  };
}
