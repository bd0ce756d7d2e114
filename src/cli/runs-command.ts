/**
 * `golem runs`: the runs of the workspace's sessions (issue 36), as `ws.runs` keeps them in the
 * store, whichever process ran them (golem serve, golem ask, the chat, MCP).
 *
 *   golem runs [list] [--session <id>] [--status <s>] [--limit <n>] [--cursor <c>] [--json]
 *   golem runs show <id>     one run's record
 *   golem runs follow <id> [--after <seq>] [--json]   draws the run live, from any process, to its end
 *   golem runs cancel <id>   asks its holder to stop, or cancels it at once when no live process holds it
 *
 * A run is named by its id, or a unique start or end of it. Bad usage exits 2; a run or session
 * not found, 1; each with its error code.
 */
import { hostname } from 'node:os';
import { PassThrough } from 'node:stream';
import { TerminalAdapter } from '../terminal/terminal-adapter.js';
import type { ProgressMode } from '../terminal/worker-summary.js';
import { RUN_STATUSES, type RunCancelOutcome, type RunRecord, type RunStatus } from '../agent/index.js';
import { findById } from '../agent/clearance.js';
import { GolemError } from '../core/errors.js';
import type { Workspace } from '../create-workspace.js';
import type { CliIo } from './io.js';

export const RUNS_USAGE =
  'golem runs [--session <id>] [--status <s>] [--limit <n>] [--cursor <c>] [--json] | golem runs show <id> | golem runs follow <id> [--after <seq>] | golem runs cancel <id>';

export interface RunsCommandOptions {
  json: boolean;
  session: string | undefined;
  status: string | undefined;
  limit: string | undefined;
  cursor: string | undefined;
  after?: string | undefined;
  /** follow: sub-workers as a box each (the default) or a line each. */
  progress?: ProgressMode;
}

/** What `golem runs` was asked, checked before the workspace opens. */
type RunsRequest =
  | { type: 'list'; session: string | undefined; status: RunStatus | undefined; limit: number | undefined; cursor: string | undefined }
  | { type: 'show' | 'cancel'; id: string }
  | { type: 'follow'; id: string; after: number };

/** `golem runs <sub>`; `withWs` opens the workspace (only once the command line is known to be right). */
export async function runsCommand(
  args: readonly string[],
  options: RunsCommandOptions,
  io: CliIo,
  withWs: (body: (ws: Workspace) => Promise<number>) => Promise<number>,
): Promise<number> {
  let request: RunsRequest;
  try {
    request = runsRequest(args, options);
  } catch (error) {
    return refused(error, io);
  }
  return withWs(async (ws) => {
    try {
      if (request.type === 'list') return list(ws, request, options.json, io);
      const run = findRun(ws, request.id);
      if (request.type === 'follow') return await follow(ws, run, request.after, options.json, io, options.progress);
      if (request.type === 'show') {
        io.stdout(options.json ? `${JSON.stringify(run, null, 2)}\n` : formatRun(run, labelOf(ws, run.sessionId), Date.now()));
        return 0;
      }
      const result = await ws.runs.cancelling(run.id, { by: `golem runs cancel, pid ${process.pid} on ${hostname()}` });
      io.stdout(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${cancelText(result.run, result.outcome)}\n`);
      return 0;
    } catch (error) {
      return refused(error, io);
    }
  });
}

function runsRequest(args: readonly string[], options: RunsCommandOptions): RunsRequest {
  const [sub = 'list', id, ...extra] = args;
  if (sub === 'list') {
    if (id !== undefined) throw usage(`unexpected "${[id, ...extra].join(' ')}" after golem runs list`);
    const status = options.status;
    if (status !== undefined && !(RUN_STATUSES as readonly string[]).includes(status))
      throw usage(`--status is one of ${RUN_STATUSES.join(', ')}, not "${status}"`);
    if (options.limit !== undefined && !/^\d+$/.test(options.limit)) throw usage(`--limit takes a whole number, not "${options.limit}"`);
    return {
      type: 'list',
      session: options.session,
      status: status as RunStatus | undefined,
      limit: options.limit === undefined ? undefined : Number(options.limit),
      cursor: options.cursor,
    };
  }
  if (sub !== 'show' && sub !== 'cancel' && sub !== 'follow') throw usage(`unknown command "golem runs ${sub}" (list, show, follow, cancel)`);
  if (id === undefined) throw usage(`golem runs ${sub} needs a run id (see golem runs)`);
  if (extra.length > 0) throw usage(`unexpected "${extra.join(' ')}" after golem runs ${sub} ${id}`);
  const listOnly = (['session', 'status', 'limit', 'cursor'] as const).find((name) => options[name] !== undefined);
  if (listOnly !== undefined) throw usage(`--${listOnly} goes with golem runs (the list), not golem runs ${sub}`);
  if (sub !== 'follow') {
    if (options.after !== undefined) throw usage(`--after goes with golem runs follow, not golem runs ${sub}`);
    return { type: sub, id };
  }
  if (options.after !== undefined && !/^\d+$/.test(options.after)) throw usage(`--after takes a seq (a whole number), not "${options.after}"`);
  return { type: 'follow', id, after: options.after === undefined ? 0 : Number(options.after) };
}

function list(ws: Workspace, request: Extract<RunsRequest, { type: 'list' }>, json: boolean, io: CliIo): number {
  const sessionId = request.session === undefined ? undefined : findById(ws.sessions.list(), request.session, 'SESSION_NOT_FOUND', 'session').id;
  const page = ws.runs.list({
    ...(sessionId !== undefined && { sessionId }),
    ...(request.status !== undefined && { status: request.status }),
    ...(request.limit !== undefined && { limit: request.limit }),
    ...(request.cursor !== undefined && { cursor: request.cursor }),
  });
  if (json) {
    io.stdout(`${JSON.stringify(page, null, 2)}\n`);
    return 0;
  }
  const filtered = sessionId !== undefined || request.status !== undefined || request.cursor !== undefined;
  if (page.runs.length === 0) io.stdout(filtered ? 'No runs match.\n' : 'No runs yet. A message to the agent starts one: golem ask "…"\n');
  const now = Date.now();
  for (const run of page.runs) io.stdout(`${runLine(run, labelOf(ws, run.sessionId), now)}\n`);
  if (page.cursor !== undefined) io.stdout(`More: golem runs --cursor ${page.cursor} (with the same --session, --status and --limit)\n`);
  return 0;
}

/** The run named by its id, or a unique start or end of it: RUN_NOT_FOUND for none. */
function findRun(ws: Workspace, id: string): RunRecord {
  const exact = ws.runs.get(id);
  if (exact !== undefined) return exact;
  const all: RunRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = ws.runs.list({ limit: 500, ...(cursor !== undefined && { cursor }) });
    all.push(...page.runs);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return findById(all, id, 'RUN_NOT_FOUND', 'run');
}

/**
 * Draws a run's events as they come, in the chat's own style (its answers streamed, its
 * calls, its sub-workers' boxes), from whichever process runs it, to its end; then its record
 * in a line. With `--json`, each event is a line of JSON with its seq. Ctrl-C (the command's
 * signal) stops following; the run goes on.
 */
async function follow(ws: Workspace, run: RunRecord, after: number, json: boolean, io: CliIo, progress: ProgressMode = 'boxes'): Promise<number> {
  const events = ws.runs.follow(run.id, { after, ...(io.signal !== undefined && { signal: io.signal }) });
  if (json) {
    for await (const event of events) io.stdout(`${JSON.stringify(event)}\n`);
    return 0;
  }
  const screen = new TerminalAdapter({ input: new PassThrough(), output: io.output ?? process.stdout, progress });
  const label = labelOf(ws, run.sessionId);
  io.stdout(`Following run ${run.id} (session ${run.sessionId}${label === null ? '' : `, ${label}`}, ${run.status}); Ctrl-C stops following, not the run.\n`);
  screen.setBusy(true);
  try {
    for await (const { entry } of events) {
      if (entry.type === 'event') screen.onEvent(entry.event);
      else if (entry.type === 'approval')
        screen.updateStatus({ text: `The run waits for an approval (${entry.approvalId}): answer it where it runs.`, level: 'warning' });
      else if (entry.type === 'client-call') screen.updateStatus({ text: `The run waits for its client's result of ${entry.call.name}.`, level: 'warning' });
    }
  } finally {
    screen.setBusy(false);
    await screen.shutdown();
  }
  await ws.manager.refresh();
  const now = ws.runs.get(run.id) ?? run;
  if (io.signal?.aborted !== true) io.stdout(`\n${runLine(now, label, Date.now())}\n`);
  return 0;
}

/** A run in one line: id, status, when, what it used, why it failed, its session, who ran it. */
export function runLine(run: RunRecord, label: string | null, now: number): string {
  const when = `started ${age(run.startedAt, now)}${run.endedAt === undefined ? '' : `, ended ${age(run.endedAt, now)}`}`;
  const failed = run.status === 'failed' && run.error !== undefined ? `  ${run.error.code}` : '';
  const session = `session ${run.sessionId}${label === null ? '' : ` (${label})`}`;
  return `${run.id}  ${run.status.padEnd(9)}  ${when.padEnd(30)}  ${usageText(run)}${failed}  ${session}${run.by === '' ? '' : `  by ${run.by}`}`;
}

/** A run's record, a field a line. */
export function formatRun(run: RunRecord, label: string | null, now: number): string {
  const at = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} (${age(iso, now)})`;
  const { inputTokens, outputTokens, cachedInputTokens, cost, modelCalls } = run.usage;
  const rows: [string, string | undefined][] = [
    ['run', run.id],
    ['session', `${run.sessionId}${label === null ? '' : ` (${label})`}`],
    ['status', `${run.status}${run.outcome === undefined ? '' : ` (outcome: ${run.outcome})`}`],
    ['by', run.by === '' ? undefined : run.by],
    ['created', run.createdAt === run.startedAt ? undefined : at(run.createdAt)],
    ['started', at(run.startedAt)],
    ['ended', run.endedAt === undefined ? undefined : at(run.endedAt)],
    [
      'usage',
      `${count(modelCalls, 'model call')}: ${tokens(inputTokens)} tokens in${cachedInputTokens > 0 ? ` (${tokens(cachedInputTokens)} cached)` : ''}, ${tokens(outputTokens)} out · ${cost === null ? 'cost unknown (no price for the model)' : `$${cost.toFixed(4)}`}`,
    ],
    ['error', run.error === undefined ? undefined : `${run.error.code}: ${run.error.message}`],
    ['cancel', run.cancel === undefined ? undefined : `asked ${age(run.cancel.at, now)}${run.cancel.by === '' ? '' : ` by ${run.cancel.by}`}`],
    ['takeovers', run.takeovers === 0 ? undefined : String(run.takeovers)],
  ];
  return `${rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([k, v]) => `${k.padEnd(10)} ${v}`)
    .join('\n')}\n`;
}

/** What `golem runs cancel` did, in a sentence. */
export function cancelText(run: RunRecord, outcome: RunCancelOutcome): string {
  switch (outcome) {
    case 'stopping':
      return `Asked ${run.by === '' ? 'the process running it' : run.by} to stop run ${run.id}: it stops at its next step (golem runs show ${run.id} says when it has).`;
    case 'cancelled':
      return `Cancelled run ${run.id} at once: no live process held it (${run.error?.message ?? 'cancelled'}).`;
    case 'ended':
      return `Run ${run.id} had already ended (${run.status}); nothing to cancel.`;
  }
}

/** How long ago `iso` was, in the largest whole unit: 12s ago, 5m ago, 3h ago, 2d ago. */
export function age(iso: string, now: number): string {
  const seconds = Math.max(0, Math.floor((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds}s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours}h ago` : `${Math.floor(hours / 24)}d ago`;
}

function usageText(run: RunRecord): string {
  const { inputTokens, outputTokens, cost, modelCalls } = run.usage;
  const priced = cost !== null && cost > 0 ? ` · $${cost.toFixed(4)}` : '';
  return `${count(modelCalls, 'call')}, ${tokens(inputTokens)} in / ${tokens(outputTokens)} out tokens${priced}`;
}

function labelOf(ws: Workspace, sessionId: string): string | null {
  return ws.manager.workspace().sessions.get(sessionId)?.label ?? null;
}

const tokens = (n: number) => n.toLocaleString('en-US');
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function usage(message: string): GolemError {
  return new GolemError('INVALID_ARGUMENT', message);
}

/** A refusal on stderr with its code: bad usage (INVALID_ARGUMENT) exits 2, anything else 1. */
function refused(error: unknown, io: CliIo): number {
  if (!GolemError.isInstance(error)) throw error;
  const usageHint = error.code === 'INVALID_ARGUMENT' ? `\nUsage: ${RUNS_USAGE}` : '';
  io.stderr(`golem runs [${error.code}]: ${error.message}${usageHint}\n`);
  return error.code === 'INVALID_ARGUMENT' ? 2 : 1;
}
