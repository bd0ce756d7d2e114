/**
 * Runs a command line through the shell, with a time limit and a cancel signal that stop
 * everything it started, keeping the end of its output.
 */
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { fail } from '../core/errors.js';

/** After the shell exits, how long its output may still drain (a background process can hold it open). */
const DRAIN_MS = 1000;
/** After SIGTERM, how long a stopped command has before SIGKILL. */
const KILL_GRACE_MS = 2000;

/**
 * Environment variables a command the model asked for does not get: Golem's own (GOLEM_TOKEN
 * approves commands: an agent that read it could approve its own), and any whose name says it
 * holds a secret (API keys, tokens, passwords), as Codex's default shell environment policy
 * leaves them out. A command that needs one is given it in its own line (`NPM_TOKEN=... npm
 * publish`), which the user sees in the approval.
 */
const SECRET_NAME = /^GOLEM_|KEY|SECRET|TOKEN|PASSWORD|PASSWD|CREDENTIAL|COOKIE/i;

/** The environment a model's command runs in: this process's, without the variables SECRET_NAME names. */
export function commandEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !SECRET_NAME.test(name)));
}

/** What run_command answers. */
export interface CommandResult {
  /** The exit code; 128 + n when a signal n ended the shell (as shells report it). */
  exitCode: number | null;
  output: string;
  timedOut?: true;
}

/**
 * Runs `command` through the shell in a process group of its own, so that a timeout or
 * `signal` stops everything it started. Output keeps the last `maxOutputBytes`.
 */
export async function runShell(options: {
  shell: string;
  command: string;
  cwd: string;
  timeoutMs: number;
  maxOutputBytes: number;
  signal: AbortSignal | undefined;
}): Promise<CommandResult> {
  const { shell, command, cwd, timeoutMs, maxOutputBytes, signal } = options;
  signal?.throwIfAborted();
  const child = spawn(shell, ['-c', command], { cwd, env: commandEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
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
