/**
 * End-to-end helpers: the real `golem` binary in a pseudo-terminal (tmux on a private
 * socket per test, so a user's own tmux is never touched), a git project in a temp
 * folder, and the CLI run as a second process.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterEach } from 'vitest';

const run = promisify(execFile);

export const GOLEM_BIN = resolve(import.meta.dirname, '..', 'bin', 'golem.js');
const TMUX = '/usr/bin/tmux';

/** The environment golem runs in: no model from the user's environment, no colors. */
export function golemEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const name of ['GOLEM_MODEL', 'GOLEM_DIR', 'FORCE_COLOR', 'TMUX', 'TMUX_PANE']) delete env[name];
  return env;
}

/** A temp folder holding `project/` (a git repository with one commit) and room for scripts beside it. */
export interface Project {
  /** The temp folder (scripts go here, outside the project). */
  base: string;
  /** The git repository golem works in. */
  dir: string;
  /** Writes a scripted model's steps to `<base>/<name>` and returns the path. */
  script(steps: unknown[], name?: string): string;
  /** `git ...` in the project; its stdout. */
  git(...args: string[]): string;
  remove(): void;
}

export function makeProject(files: Record<string, string>): Project {
  const base = mkdtempSync(join(tmpdir(), 'golem-e2e-'));
  const dir = join(base, 'project');
  mkdirSync(dir);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: golemEnv() });
  git('init', '-q', '-b', 'main');
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
  return {
    base,
    dir,
    script(steps, name = 'script.json') {
      const path = join(base, name);
      writeFileSync(path, JSON.stringify(steps, null, 2));
      return path;
    },
    git,
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** `node bin/golem.js ...` in `cwd` as a separate process; its exit code and output. */
export async function golemCli(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [GOLEM_BIN, ...args], { cwd, env: golemEnv(), timeout: 15_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** `golem ... --json`, parsed (fails with the output when the command fails). */
export async function golemJson<T = unknown>(cwd: string, ...args: string[]): Promise<T> {
  const result = await golemCli(cwd, ...args, '--json');
  if (result.code !== 0) throw new Error(`golem ${args.join(' ')} --json exited with ${result.code}: ${result.stderr}${result.stdout}`);
  return JSON.parse(result.stdout) as T;
}

let sockets = 0;

/** One tmux server on a private socket, with one session `s` running golem. */
export class Terminal {
  readonly socket = `golem-e2e-${process.pid}-${Date.now().toString(36)}-${++sockets}`;
  /** The socket's file, which tmux leaves behind when its server exits. */
  private socketPath: string | undefined;

  /** Starts golem (`args` after `golem`) in `cwd`, in a 160x50 terminal. */
  async start(cwd: string, args: string[]): Promise<void> {
    const command = ['exec', process.execPath, GOLEM_BIN, ...args].map(shellQuote).join(' ');
    // -f /dev/null: not the user's tmux.conf. The server gets golem's environment, so the pane does too.
    await run(TMUX, ['-L', this.socket, '-f', '/dev/null', 'new-session', '-d', '-s', 's', '-x', '160', '-y', '50', '-c', cwd, command], { env: golemEnv() });
    this.socketPath ??= (await this.tmux('display-message', '-p', '#{socket_path}').catch(() => '')).trim() || undefined;
  }

  /** Runs a tmux command on this server; its stdout. */
  async tmux(...args: string[]): Promise<string> {
    const { stdout } = await run(TMUX, ['-L', this.socket, ...args], { env: golemEnv() });
    return stdout;
  }

  /** Types `text` literally, then Enter. */
  async type(text: string): Promise<void> {
    if (text !== '') await this.tmux('send-keys', '-t', 's', '-l', text);
    await this.tmux('send-keys', '-t', 's', 'Enter');
  }

  /** Sends keys by tmux name (e.g. 'C-c'). */
  async keys(...keys: string[]): Promise<void> {
    await this.tmux('send-keys', '-t', 's', ...keys);
  }

  /** The screen and its scrollback, wrapped lines joined, trailing blank lines dropped. */
  async screen(): Promise<string> {
    const text = await this.tmux('capture-pane', '-p', '-J', '-S', '-5000', '-t', 's');
    return text.replace(/\s+$/, '');
  }

  /** The pid of the pane's process (golem itself: the command is exec'd). */
  async pid(): Promise<number> {
    return Number((await this.tmux('display-message', '-p', '-t', 's', '#{pane_pid}')).trim());
  }

  /** Whether the session still exists (golem has not exited). */
  async alive(): Promise<boolean> {
    try {
      await this.tmux('has-session', '-t', 's');
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Polls the screen until `pattern` occurs (at least `count` times); the screen. Fails
   * with the screen after `timeoutMs`.
   */
  async waitFor(pattern: string | RegExp, options: { count?: number; timeoutMs?: number } = {}): Promise<string> {
    const { count = 1, timeoutMs = 15_000 } = options;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      let screen: string;
      try {
        screen = await this.screen();
      } catch {
        screen = '(the tmux session is gone)';
      }
      if (occurrences(screen, pattern) >= count) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(pattern)}${count > 1 ? ` x${count}` : ''}; the screen:\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Polls until golem has exited (the session is gone). */
  async waitForExit(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (await this.alive()) {
      if (Date.now() > deadline) throw new Error(`golem did not exit; the screen:\n${await this.screen()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Kills the server (and golem with it) and removes its socket. Idempotent. */
  async kill(): Promise<void> {
    await run(TMUX, ['-L', this.socket, 'kill-server'], { env: golemEnv() }).catch(() => undefined);
    if (this.socketPath !== undefined && basename(this.socketPath) === this.socket) rmSync(this.socketPath, { force: true });
  }
}

/** How often `pattern` occurs in `text`. */
export function occurrences(text: string, pattern: string | RegExp): number {
  if (typeof pattern === 'string') return text.split(pattern).length - 1;
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  return [...text.matchAll(new RegExp(pattern.source, flags))].length;
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The chat prompt waiting for input (once a line is typed, `> text` no longer matches). */
export const PROMPT = /^> ?$/m;
/** The approval question (the screen is read without trailing blanks). */
export const APPROVAL = '[y]es / [n]o / [a]lways / [s]ession:';

/**
 * What a file of tmux tests shares: projects and terminals made for a test and removed after
 * it (registers its afterEach in the calling file).
 */
export function tmuxHarness(): {
  project: (files?: Record<string, string>) => Project;
  /** A terminal, killed after the test (start it yourself). */
  terminal: () => Terminal;
  /** golem started in `cwd` with `args`, in a terminal of its own. */
  golem: (cwd: string, ...args: string[]) => Promise<Terminal>;
} {
  const terminals: Terminal[] = [];
  const projects: Project[] = [];
  afterEach(async () => {
    for (const t of terminals.splice(0)) await t.kill();
    for (const p of projects.splice(0)) p.remove();
  });
  const terminal = () => {
    const t = new Terminal();
    terminals.push(t);
    return t;
  };
  return {
    project: (files = { 'README.md': '# demo\n' }) => {
      const p = makeProject(files);
      projects.push(p);
      return p;
    },
    terminal,
    golem: async (cwd, ...args) => {
      const t = terminal();
      await t.start(cwd, args);
      return t;
    },
  };
}
