/**
 * A real `golem serve` process (bin/golem.js) on loopback, in a project folder, with the
 * scripted model of `script.json` there (GOLEM_MODEL=scripted:script.json), on the project's
 * own SQLite workspace unless `env` says otherwise. Used by the tests and by `npm run fuzz`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

/** bin/golem.js of this checkout. */
export const GOLEM_BIN = join(import.meta.dirname, '..', 'bin', 'golem.js');

export interface ServeProcess {
  child: ChildProcess;
  port: number;
  token: string;
  /** What the process wrote to stdout and stderr so far. */
  output(): string;
  /** A call to its API with the token; the body parsed as JSON (it rejects when the server does not answer within 10 s). */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }>;
  /** How long a GET /health took to answer, in ms (it rejects after `limitMs`: the server did not answer). */
  health(limitMs?: number): Promise<number>;
  /** Signals the process group (the process and the commands it started). */
  signal(signal: NodeJS.Signals): void;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
}

/** Starts `golem serve --port 0` in `project`; resolves once it prints its address (its server listens). */
export async function golemServe(project: string, env: Record<string, string> = {}): Promise<ServeProcess> {
  const token = randomBytes(32).toString('hex');
  const child = spawn(process.execPath, [GOLEM_BIN, 'serve', '--port', '0'], {
    env: { ...process.env, GOLEM_TOKEN: token, GOLEM_MODEL: 'scripted:script.json', ...env },
    cwd: project,
    detached: true,
  });
  let out = '';
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString();
      const found = /Open http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1];
      if (found !== undefined) resolve(Number(found));
    });
    child.stderr?.on('data', (data: Buffer) => (out += data.toString()));
    void exited.then((code) => reject(new Error(`golem serve exited with ${code}: ${out}`)));
    setTimeout(() => reject(new Error(`golem serve did not listen within 30 s: ${out}`)), 30_000).unref();
  });
  const base = `http://127.0.0.1:${port}`;
  return {
    child,
    port,
    token,
    output: () => out,
    exited,
    async call(method, path, body) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(10_000),
      }).catch((error: unknown) => {
        throw new Error(`${method} ${path} did not answer within 10 s (${(error as Error).message})`);
      });
      return { status: response.status, json: (await response.json()) as unknown };
    },
    async health(limitMs = 10_000) {
      const started = performance.now();
      const response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(limitMs) }).catch((error: unknown) => {
        throw new Error(`/health did not answer within ${limitMs} ms (${(error as Error).message})`);
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`/health answered ${response.status}`);
      return performance.now() - started;
    },
    signal(name) {
      try {
        process.kill(-(child.pid as number), name);
      } catch {
        // gone already
      }
    },
  };
}

/** Kills the process group (SIGKILL) and waits for the exit; nothing when it exited already. */
export async function killServe(server: ServeProcess): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.signal('SIGCONT');
  server.signal('SIGKILL');
  await server.exited;
}

/** Polls `read` until it answers something (every 50 ms); throws after `timeoutMs`. */
export async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
