/**
 * The `golem` command line. `run` takes its arguments and output streams so tests
 * can drive it in-process; `bin/golem.js` calls it with the real ones.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectActions } from '../project/project-actions.js';
import { GolemError } from '../core/errors.js';
import type { Session } from '../prompt/session.js';
import type { ModelAdapter, StreamPart } from '../models/model-adapter.js';
import type { RunLog } from '../agent/run-log.js';
import { createWorkspace, type Workspace, type WorkspaceSummary } from '../create-workspace.js';
import { chat, type ChatOptions } from './chat.js';
import { CLI_MODEL_FORMS, cliModel } from './cli-model.js';
import { clearanceCommand, findSession, pickSession, sessionsCommand } from './commands.js';
import { historyPath, InputHistory } from './input-history.js';
import { mcpCommand, projectMcp, serveMcpStdio } from './mcp.js';
import { runsCommand } from './runs-command.js';
import { serveCommand } from './serve.js';
import { weakTokenMessage } from '../serve/token-strength.js';
import { commandError, optionError } from './usage-errors.js';
import type { CliIo } from './io.js';
import { doctor, type DoctorReport } from '../core/doctor.js';
import { PROGRESS_MODES, type ProgressMode } from '../terminal/index.js';

function isProgressMode(value: string): value is ProgressMode {
  return (PROGRESS_MODES as readonly string[]).includes(value);
}

export type { CliIo } from './io.js';

const USAGE = `Usage: golem [command] [options]

Commands:
  (none), chat      Chat with Golem about the project in this folder: it reads files,
                    runs commands when you approve, and stages edits for you to review
                    (in the chat, /help lists its commands and keys)
  ask <message>     Send one message to the model and stream its answer (no actions)
  sessions list     The chat sessions, most recent first
  sessions show <id>          A session's transcript, with its sub-workers
  sessions fork <id> [--at <turn>]   A new session sharing the history up to a turn
  runs [--session <id>] [--status <s>] [--limit <n>]
                    The agent's runs, newest first (whichever process ran them): status,
                    who runs or ran it, when, model calls, tokens and cost, error code
  runs show <id>    One run's record
  runs follow <id> [--after <seq>]
                    Draw a run live as it goes, whichever process runs it, to its end
                    (--json: each event a line, with its seq); Ctrl-C stops following only
  runs cancel <id>  Stop a run: its process stops at its next step, or, with no live
                    process holding it, it is cancelled at once
  clearance list    What waits for your clearance (staged edits, manual calls)
  clearance diff|push|discard|defer <id>
                    Review a staged change; write it into the files; drop it; keep it for later
                    (push with no id: the one waiting; push <id> --to <branch>: commit it
                    on that branch instead of writing the files)
  serve             Golem in a web page: chat, approvals, clearance, sessions and
                    their branches, and the forms the model builds (prints the address)
  mcp list|add|allow|remove|tools   The project's MCP servers (.mcp.json, as other clients
                    keep them): golem mcp add <name> -- <command> [args...] (--env K=V),
                    golem mcp add <name> --url <url> (--header "Name: value"); a server the
                    file names starts only once allowed: golem mcp allow [name...];
                    golem mcp tools [name] lists their tools with trust and hints
  mcp serve         Golem as an MCP server over stdio (UIs, sessions, clearance)
  status            Open (or create) the workspace and print its summary
  doctor [--repair] Check the workspace (invariants, index against the store, blob files);
                    --repair fixes reference counts, deletes orphan blob files, releases
                    UI uploads never sent within their hour and collects unused blobs

Options:
  --dir <path>      The workspace folder (default: ./.golem, or $GOLEM_DIR)
  --model <spec>    The model (default: $GOLEM_MODEL), one of:
                      ${CLI_MODEL_FORMS.join('\n                      ')}
  --session <id>    The session to open (an id, or a unique start or end of one);
                    runs: only that session's runs
  --new             Start a new session
  --all             sessions list, clearance list: include sub-workers / decided items
  --status <s>      runs: only runs in this status (queued, running, paused, succeeded,
                    failed, cancelled)
  --limit <n>       runs: at most this many (1 to 500, default 50)
  --cursor <c>      runs: the next page (the list prints it when there are more)
  --after <seq>     runs follow: only the events after this seq
  --to <branch>     clearance push: commit on this branch instead of writing the files
  --progress <mode> chat, runs follow: sub-workers as a box each with what they write
                    and do (boxes, the default), or as one line each (summary)
  --json            Print machine-readable JSON (status, sessions, runs, clearance list)
  --port <n>        serve: the port (default 4173; 0 picks a free one)
  --host <addr>     serve: the address (default 127.0.0.1)
  --expose          serve: allow an address that is not loopback
  --allow-host <n>  serve: also answer requests for this host name (repeatable)
  -h, --help        Show this help
  -v, --version     Show Golem's version
`;

const OPTIONS = {
  dir: { type: 'string' },
  json: { type: 'boolean', default: false },
  model: { type: 'string' },
  session: { type: 'string' },
  new: { type: 'boolean', default: false },
  all: { type: 'boolean', default: false },
  at: { type: 'string' },
  status: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  after: { type: 'string' },
  to: { type: 'string' },
  progress: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  expose: { type: 'boolean', default: false },
  'allow-host': { type: 'string', multiple: true },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  env: { type: 'string', multiple: true },
  trust: { type: 'string' },
  repair: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  version: { type: 'boolean', short: 'v', default: false },
} as const;

/** The commands, for a guess at a mistyped one. */
const COMMANDS = ['chat', 'ask', 'sessions', 'runs', 'clearance', 'serve', 'mcp', 'status', 'doctor'];

/** Runs the CLI; resolves with the process exit code. */
export async function run(argv: readonly string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: OPTIONS,
    });
  } catch (error) {
    // One line: what was wrong and the nearest right option, not the parser's message and the whole help.
    io.stderr(`golem: ${optionError(error, OPTIONS)}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const [command = 'chat', ...rest] = positionals;
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const dir = resolve(io.cwd, values.dir ?? env.GOLEM_DIR ?? '.golem');
  const progress = values.progress ?? 'boxes';
  if (!isProgressMode(progress)) {
    io.stderr(`golem: --progress takes ${PROGRESS_MODES.join(' or ')}, not "${progress}"\n`);
    return 2;
  }
  const model = values.model ?? env.GOLEM_MODEL;
  if (command === 'mcp') {
    if (rest[0] === 'serve' && rest.length === 1) {
      return withWorkspace(dir, io, async (ws) => {
        const agentModel = model === undefined || model === '' ? undefined : cliModel(model, { cwd: io.cwd, env, ws });
        return serveMcpStdio(ws, agentModel, projectActions(), io.cwd);
      });
    }
    const mcpOptions = { json: values.json, url: values.url, headers: values.header ?? [], env: values.env ?? [], trust: values.trust };
    return mcpCommand(rest, mcpOptions, io, (body) => withWorkspace(dir, io, body));
  }
  if (command === 'ask') {
    return ask(rest.join(' '), { dir, model, session: values.session, fresh: values.new }, io, env);
  }
  if (command === 'chat' && rest.length === 0) {
    return withWorkspace(dir, io, (ws) => startChat(ws, { dir, model, session: values.session, fresh: values.new, progress }, io, env));
  }
  if (command === 'serve' && rest.length === 0) {
    const port = Number(values.port ?? env.GOLEM_PORT ?? 4173);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      io.stderr(`golem: --port takes a port number (0 to 65535), not "${values.port ?? env.GOLEM_PORT}"\n`);
      return 2;
    }
    const tokenWeakness = env.GOLEM_TOKEN === undefined || env.GOLEM_TOKEN === '' ? undefined : weakTokenMessage(env.GOLEM_TOKEN, 'GOLEM_TOKEN');
    if (tokenWeakness !== undefined) {
      io.stderr(`golem: ${tokenWeakness}\n`);
      return 2;
    }
    return withWorkspace(dir, io, async (ws) => {
      let serveModel;
      if (model !== undefined && model !== '') {
        try {
          serveModel = cliModel(model, { cwd: io.cwd, env, ws });
        } catch (error) {
          io.stderr(`golem: ${(error as Error).message}\n`);
          return 2;
        }
      }
      const token = env.GOLEM_TOKEN === undefined || env.GOLEM_TOKEN === '' ? undefined : env.GOLEM_TOKEN;
      const leaseMs = env.GOLEM_RUN_LEASE_MS === undefined || env.GOLEM_RUN_LEASE_MS === '' ? undefined : Number(env.GOLEM_RUN_LEASE_MS);
      if (leaseMs !== undefined && !(Number.isInteger(leaseMs) && leaseMs >= 100 && leaseMs <= 86_400_000)) {
        io.stderr(`golem: GOLEM_RUN_LEASE_MS takes milliseconds from 100 to 86400000, not "${env.GOLEM_RUN_LEASE_MS}"\n`);
        return 2;
      }
      const options = {
        model: serveModel,
        host: values.host ?? '127.0.0.1',
        port,
        exposed: values.expose,
        allowedHosts: values['allow-host'] ?? [],
        token,
        root: io.cwd,
        ...(leaseMs !== undefined && { leaseMs }),
      };
      return serveCommand(ws, { ...options, ...(io.signal !== undefined && { signal: io.signal }) }, io);
    });
  }
  if (command === 'doctor' && rest.length === 0) {
    return withWorkspace(dir, io, async (ws) => {
      const report = await doctor(ws.manager, { repair: values.repair, lapsed: ws.ui.uploads.lapsedHolds() });
      if (values.json) io.stdout(`${JSON.stringify(report, null, 2)}\n`);
      else io.stdout(formatDoctor(report));
      return report.healthy ? 0 : 1;
    });
  }
  if (command === 'sessions') {
    return withWorkspace(dir, io, (ws) => sessionsCommand(ws, rest, { json: values.json, all: values.all, at: values.at }, io));
  }
  if (command === 'runs') {
    const runsOptions = {
      json: values.json,
      session: values.session,
      status: values.status,
      limit: values.limit,
      cursor: values.cursor,
      after: values.after,
      progress,
    };
    return runsCommand(rest, runsOptions, io, (body) => withWorkspace(dir, io, body));
  }
  if (command === 'clearance') {
    return withWorkspace(dir, io, (ws) =>
      clearanceCommand(ws, rest, { json: values.json, all: values.all, ...(values.to !== undefined && { to: values.to }) }, io),
    );
  }
  if (command !== 'status' || rest.length > 0) {
    io.stderr(`golem: ${commandError([command, ...rest], COMMANDS)}\n`);
    return 2;
  }
  try {
    const ws = await createWorkspace({ dir, name: basename(dirname(dir)) });
    try {
      const summary = await ws.summary();
      io.stdout(values.json ? `${JSON.stringify({ dir, ...summary }, null, 2)}\n` : formatStatus(dir, summary));
    } finally {
      await ws.close();
    }
    return 0;
  } catch (error) {
    const code = GolemError.isInstance(error) ? ` [${error.code}]` : '';
    io.stderr(`golem: cannot open the workspace at ${dir}${code}: ${(error as Error).message}\n`);
    return 1;
  }
}

async function ask(
  message: string,
  options: { dir: string; model: string | undefined; session: string | undefined; fresh: boolean },
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  if (message.trim() === '') {
    io.stderr('golem: ask needs a message, e.g. golem ask "What is in this repository?"\n');
    return 2;
  }
  if (options.model === undefined || options.model === '') {
    io.stderr(`golem: no model configured. Set GOLEM_MODEL or pass --model, one of:\n  ${CLI_MODEL_FORMS.join('\n  ')}\n`);
    return 2;
  }
  const spec = options.model;
  return withWorkspace(options.dir, io, async (ws) => {
    let model;
    try {
      model = cliModel(spec, { cwd: io.cwd, env, ws });
    } catch (error) {
      io.stderr(`golem: ${(error as Error).message}\n`);
      return 2;
    }
    const session = await pickSession(ws, { session: options.session, fresh: options.fresh, label: message });
    // One run of the session at a time, here or in another process (SESSION_BUSY while a golem serve or golem runs it).
    const claim = await ws.runs.claim(session.id, { by: `golem ask, pid ${process.pid} on ${hostname()}`, resumable: false });
    let code = 1;
    const { error } = await claim.run(async ({ log }) => void (code = await answer(session, model, log))).done;
    if (error !== undefined) throw error;
    return code;
  });

  async function answer(session: Session, model: ModelAdapter, log: RunLog): Promise<number> {
    const question = await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: message }] });
    let streamed = false;
    // What it streams is the run's events too: golem runs follow draws it from another terminal.
    const worker = { id: session.id, depth: 0, task: message };
    log.push({ type: 'event', event: { type: 'worker-start', worker, parent: null } });
    const onPart = (part: StreamPart) => {
      if (part.type === 'text-delta') {
        io.stdout(part.text);
        log.push({ type: 'event', event: { type: 'text-delta', worker, text: part.text } });
        streamed = true;
      }
    };
    try {
      const turn = await session.respond({ model, onPart });
      const usage = turn.meta.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      io.stdout('\n');
      io.stderr(`[${model.provider}:${model.modelId} · ${usage?.inputTokens ?? '?'} in, ${usage?.outputTokens ?? '?'} out · session ${session.id}]\n`);
    } catch (error) {
      // No answer was recorded: take the question back, so asking again does not send it twice.
      if (!(GolemError.isInstance(error) && 'turn' in error.details)) await session.deleteTurn(question.id, question.version).catch(() => undefined);
      if (streamed) io.stdout('\n');
      throw error;
    }
    return 0;
  }
}

/** Opens the workspace, runs `body`, closes it; a GolemError becomes a message with its code and exit code 1. */
async function withWorkspace(dir: string, io: CliIo, body: (ws: Workspace) => Promise<number>): Promise<number> {
  let ws: Workspace;
  try {
    ws = await createWorkspace({ dir, name: basename(dirname(dir)) });
  } catch (error) {
    const code = GolemError.isInstance(error) ? ` [${error.code}]` : '';
    io.stderr(`golem: cannot open the workspace at ${dir}${code}: ${(error as Error).message}\n`);
    return 1;
  }
  // Keep the workspace out of the project's git status.
  const ignore = join(dir, '.gitignore');
  // (A workspace on PostgreSQL has no folder.)
  if (existsSync(dir) && !existsSync(ignore)) writeFileSync(ignore, "# Golem's workspace: not part of the project\n*\n");
  try {
    return await body(ws);
  } catch (error) {
    const code = GolemError.isInstance(error) ? ` [${error.code}]` : '';
    io.stderr(`golem${code}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await ws.close();
  }
}

async function startChat(
  ws: Workspace,
  options: { dir: string; model: string | undefined; session: string | undefined; fresh: boolean; progress: ProgressMode },
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const session = findSession(ws, { session: options.session, fresh: options.fresh });
  let model;
  let modelProblem: string | undefined;
  if (options.model !== undefined && options.model !== '') {
    try {
      model = cliModel(options.model, { cwd: io.cwd, env, ws });
    } catch (error) {
      modelProblem = (error as Error).message;
    }
  }
  const stop = () => void ws.close().finally(() => process.exit(130));
  process.once('SIGTERM', stop);
  process.once('SIGHUP', stop);
  try {
    // A server asking the user (elicitation) is asked in the chat, once it is open.
    const elicitation: NonNullable<ChatOptions['elicitation']> = {};
    const mcp = await projectMcp(ws, io, { onElicitation: (request) => elicitation.ask?.(request) ?? Promise.resolve({ action: 'cancel' }) });
    for (const problem of mcp.problems) io.stderr(`golem: ${problem}\n`);
    return await chat({
      ws,
      session,
      model,
      mcpActions: mcp.actions,
      elicitation,
      ...(modelProblem !== undefined && { modelProblem }),
      resolveModel: (spec) => cliModel(spec, { cwd: io.cwd, env, ws }),
      history: new InputHistory(historyPath(options.dir, io.cwd)),
      progress: options.progress,
      root: io.cwd,
      input: io.input ?? process.stdin,
      output: io.output ?? process.stdout,
    });
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGHUP', stop);
  }
}

export function formatStatus(dir: string, s: WorkspaceSummary): string {
  const rows: [string, string][] = [
    ['workspace', `${s.name} (${s.id})`],
    ['location', `${dir} (${s.store}, schema v${s.schemaVersion})`],
    ['sessions', String(s.sessions)],
    ['turns', String(s.turns)],
    ['blobs', `${s.blobs} (${formatBytes(s.blobBytes)})`],
    ['commands', String(s.commands)],
    ['on disk', formatBytes(s.bytesOnDisk)],
  ];
  return `${rows.map(([k, v]) => `${k.padEnd(10)} ${v}`).join('\n')}\n`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof pkg.version === 'string' ? pkg.version : 'unknown';
}

export function formatDoctor(report: DoctorReport): string {
  const lines: string[] = [];
  for (const sha256 of report.repaired.blobCounts) lines.push(`repaired  the reference count of blob ${sha256}`);
  for (const sha256 of report.repaired.orphanBlobsDeleted) lines.push(`repaired  deleted orphan blob file ${sha256}`);
  for (const name of report.repaired.partialWritesDeleted) lines.push(`repaired  deleted partial blob write ${name}`);
  for (const line of report.repaired.holdsReleased) lines.push(`released  ${line}`);
  for (const sha256 of report.repaired.unusedBlobsCollected) lines.push(`repaired  collected unused blob ${sha256}`);
  for (const v of report.violations) lines.push(`problem   [${v.code}] ${v.message}`);
  for (const sha256 of report.orphanBlobs) lines.push(`problem   [BLOB_ORPHAN] blob file ${sha256} is named by no record (golem doctor --repair deletes it)`);
  for (const name of report.partialWrites)
    lines.push(`problem   [BLOB_PARTIAL_WRITE] ${name} is a blob write a crash cut short (golem doctor --repair deletes it)`);
  for (const id of report.indexDrift) lines.push(`problem   [INDEX_DRIFT] ${id} differs between the index and the store`);
  for (const line of report.lapsedHolds) lines.push(`problem   [UPLOAD_STALE] ${line} (golem doctor --repair releases it)`);
  for (const sha256 of report.unusedBlobs)
    lines.push(`problem   [BLOB_UNUSED] blob ${sha256} is referenced and held by nothing (golem doctor --repair collects it)`);
  const problems =
    report.violations.length +
    report.orphanBlobs.length +
    report.partialWrites.length +
    report.indexDrift.length +
    report.lapsedHolds.length +
    report.unusedBlobs.length;
  const repairable =
    report.violations.some((v) => v.code === 'BLOB_COUNT') ||
    report.orphanBlobs.length > 0 ||
    report.partialWrites.length > 0 ||
    report.lapsedHolds.length > 0 ||
    report.unusedBlobs.length > 0;
  lines.push(
    report.healthy
      ? 'The workspace is sound.'
      : `${problems} problem(s).${repairable ? ' golem doctor --repair fixes counts, orphan files, partial writes, stale uploads and unused blobs.' : ''}`,
  );
  return `${lines.join('\n')}\n`;
}
