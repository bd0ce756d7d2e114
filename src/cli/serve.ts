/**
 * `golem serve`: Golem in a web page. The server (src/serve/) on loopback, the page it
 * serves, and the root worker answering the page's messages with the project's actions,
 * as the terminal chat does, and the UI tools (`patch_ui_state`, `get_ui_state`,
 * `list_ui_instances`). Runs until the process is stopped (Ctrl-C) or `signal` aborts.
 */
import { hostname } from 'node:os';
import { projectActions } from '../project/project-actions.js';
import { projectMcp } from './mcp.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import { serve, type GolemServer } from '../serve/server.js';
import type { McpConnectOptions } from '../mcp/connection.js';
import type { Workspace } from '../create-workspace.js';
import { GOLEM_INSTRUCTIONS } from './chat.js';
import type { CliIo } from './io.js';

export const SERVE_INSTRUCTIONS = [
  GOLEM_INSTRUCTIONS,
  'The user sees you in a web page. patch_ui_state builds forms there (seed 004): create an instance with instanceId "__CREATE__" and newInstanceId, then set meta, state, blocks and actions. A click on an action comes to you as a message with the form\'s values; get_ui_state reads an instance back (what the user submitted is in its state), list_ui_instances names yours.',
].join('\n');

export interface ServeCommandOptions {
  model: ModelAdapter | undefined;
  host: string;
  port: number;
  exposed: boolean;
  /** Host names requests may use besides loopback's, IP addresses and `host` (e.g. the machine's name on the network). */
  allowedHosts: readonly string[];
  token: string | undefined;
  root: string;
  /** How long a run's lease lasts unless renewed ($GOLEM_RUN_LEASE_MS; default 30 s). */
  leaseMs?: number;
  signal?: AbortSignal;
}

export async function serveCommand(ws: Workspace, options: ServeCommandOptions, io: CliIo): Promise<number> {
  if (!isLoopback(options.host) && !options.exposed) {
    io.stderr(`golem: --host ${options.host} would serve the workspace beyond this machine; add --expose if that is meant\n`);
    return 2;
  }
  // A server asking the user (elicitation) is answered on the page, once the server is up.
  const page: { elicit?: GolemServer['elicit'] } = {};
  const onElicitation: McpConnectOptions['onElicitation'] = (request, signal) => page.elicit?.(request, signal) ?? Promise.resolve({ action: 'cancel' });
  const mcp = options.model === undefined ? { actions: [], problems: [] } : await projectMcp(ws, io, { onElicitation });
  for (const problem of mcp.problems) io.stderr(`golem: ${problem}\n`);
  const server = await serve(ws, {
    host: options.host,
    port: options.port,
    exposed: options.exposed,
    allowedHosts: options.allowedHosts,
    ...(options.token !== undefined && { token: options.token }),
    ...(options.model !== undefined && {
      agent: {
        model: options.model,
        actions: [...projectActions(), ...mcp.actions],
        project: { root: options.root },
        instructions: SERVE_INSTRUCTIONS,
        subWorkers: true,
        plans: true,
        lease: { by: `golem serve, pid ${process.pid} on ${hostname()}`, ...(options.leaseMs !== undefined && { ttlMs: options.leaseMs }) },
      },
    }),
  });
  page.elicit = (request, signal) => server.elicit(request, signal);
  io.stdout(`Golem is serving ${ws.manager.workspace().sessions.size} session(s) of the workspace for ${options.root}\n`);
  io.stdout(`  Open ${server.pageUrl}\n`);
  io.stdout(`  (the address carries the access token; keep it to yourself)\n`);
  if (options.exposed) {
    io.stdout(
      `  Exposed on ${options.host}: open it by this machine's address or a name given with --allow-host. Plain HTTP: the token crosses the network readable; put TLS in front beyond a trusted network.\n`,
    );
  }
  io.stdout(
    options.model === undefined
      ? '  No model: pages can read, approve and clear, but not chat. Start with --model to chat.\n'
      : `  Model: ${options.model.provider}:${options.model.modelId}\n`,
  );
  io.stdout('Press Ctrl-C to stop.\n');
  let stop = (_by: NodeJS.Signals | 'abort') => undefined as void;
  const onSignal = (signal: NodeJS.Signals) => stop(signal);
  const onAbort = () => stop('abort');
  const by = await new Promise<NodeJS.Signals | 'abort'>((resolve) => {
    stop = resolve;
    if (options.signal?.aborted === true) return resolve('abort');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    for (const signal of SIGNALS) process.on(signal, onSignal);
  });
  for (const signal of SIGNALS) process.off(signal, onSignal);
  options.signal?.removeEventListener('abort', onAbort);
  // Stopped by a signal, the process ends even if something will not (a command that ignores its own signal):
  // a second signal ends it at once, and so does a close, or a wait after it, longer than a few seconds.
  const forced = by === 'abort' ? undefined : forceExit(by);
  await server.close();
  io.stderr('Stopped.\n');
  forced?.unref();
  return 0;
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How long the process may take to end after a signal before it ends without waiting. */
const CLOSE_LIMIT_MS = 10_000;

/** Ends the process on a second signal, or CLOSE_LIMIT_MS after the first (the timer holds the process until then; unref it once closed). */
function forceExit(first: NodeJS.Signals): NodeJS.Timeout {
  const code = first === 'SIGINT' ? 130 : 143;
  for (const signal of SIGNALS) process.once(signal, () => process.exit(code));
  return setTimeout(() => {
    process.stderr.write(`golem: not ended ${CLOSE_LIMIT_MS / 1000} s after ${first}; stopped without waiting.\n`);
    process.exit(code);
  }, CLOSE_LIMIT_MS);
}

/** The addresses serve() takes without `exposed`. */
function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost';
}
