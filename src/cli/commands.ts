/** `golem sessions ...` and `golem clearance ...`: what the chat did, and what waits for the user. */
import { createInterface } from 'node:readline/promises';
import { ClearanceApi, findById } from '../agent/clearance.js';
import { chatSessions, recordsOf, type WorkerRecord } from '../agent/agent-plugin.js';
import { pathLength } from '../core/turn-tree.js';
import { projectActions } from '../project/project-actions.js';
import { GolemError } from '../core/errors.js';
import type { Workspace } from '../create-workspace.js';
import type { Session as SessionRecord, Turn } from '../core/records.js';
import type { Session } from '../prompt/session.js';
import type { CliIo } from './io.js';

/**
 * The session to open: the one named (by id, or a unique start or end of it), a new one,
 * or the most recent chat (sub-workers' sessions are not chats).
 */
export async function pickSession(ws: Workspace, options: { session: string | undefined; fresh: boolean; label: string | null }): Promise<Session> {
  return findSession(ws, options) ?? ws.sessions.create({ label: options.label === null ? null : options.label.slice(0, 60) });
}

/** The session to open, as `pickSession` finds it; undefined where it would make a new one (the chat makes it with its first message). */
export function findSession(ws: Workspace, options: { session: string | undefined; fresh: boolean }): Session | undefined {
  if (options.session !== undefined) {
    const record = findById(ws.sessions.list(), options.session, 'SESSION_NOT_FOUND', 'session');
    return ws.sessions.get(record.id);
  }
  const recent = chatSessionsOf(ws)[0];
  return !options.fresh && recent !== undefined ? ws.sessions.get(recent.id) : undefined;
}

/** Sessions that are not sub-workers', most recent first. */
function chatSessionsOf(ws: Workspace): SessionRecord[] {
  return chatSessions(ws.manager.workspace(), ws.sessions.list());
}

export async function sessionsCommand(
  ws: Workspace,
  args: string[],
  options: { json: boolean; all: boolean; at: string | undefined },
  io: CliIo,
): Promise<number> {
  const [sub = 'list', id, ...extra] = args;
  if (extra.length > 0) throw new GolemError('INVALID_ARGUMENT', `unexpected "${extra.join(' ')}" after golem sessions ${sub} ${id}`);
  const view = ws.manager.workspace();
  const workers = new Map(recordsOf(view, 'worker').map((w) => [w.id, w]));
  if (sub === 'list') {
    const sessions = options.all ? ws.sessions.list() : chatSessionsOf(ws);
    if (options.json) {
      io.stdout(
        `${JSON.stringify(
          sessions.map((s) => ({ ...s, worker: workers.get(s.id) ?? null })),
          null,
          2,
        )}\n`,
      );
      return 0;
    }
    if (sessions.length === 0) io.stdout('No sessions yet. Start one with: golem\n');
    await ws.manager.load(sessions.map((s) => s.id)); // each line counts its session's turns
    for (const s of sessions) {
      const worker = workers.get(s.id);
      const turns = pathLength(view, s.head);
      io.stdout(
        `${s.id}  ${s.updatedAt.slice(0, 16).replace('T', ' ')}  ${String(turns).padStart(4)} turns  ${worker === undefined ? (s.label ?? '') : `worker d${worker.depth} of ${worker.parentSessionId}: ${worker.task.slice(0, 50)}`}\n`,
      );
    }
    return 0;
  }
  if (id === undefined) throw new GolemError('INVALID_ARGUMENT', `golem sessions ${sub} needs a session id (see golem sessions list)`);
  const record = findById(ws.sessions.list(), id, 'SESSION_NOT_FOUND', 'session');
  const session = ws.sessions.get(record.id) as Session;
  if (sub === 'show') {
    const transcript = await session.transcript();
    if (options.json) {
      io.stdout(`${JSON.stringify({ session: record, worker: workers.get(record.id) ?? null, turns: transcript }, null, 2)}\n`);
      return 0;
    }
    const worker = workers.get(record.id);
    io.stdout(
      `Session ${record.id}${record.label === null ? '' : ` · ${record.label}`}${worker === undefined ? '' : ` · sub-worker (depth ${worker.depth}) of ${worker.parentSessionId}, call ${worker.parentCallId}, ${worker.status}`}\n\n`,
    );
    const children = [...workers.values()].filter((w) => w.parentSessionId === record.id);
    for (const turn of transcript) io.stdout(formatTurn(turn, children));
    return 0;
  }
  if (sub === 'fork') {
    const fork = await ws.sessions.fork(record.id, options.at, { label: `fork of ${record.label ?? record.id}` });
    io.stdout(`${fork.id}\n`);
    io.stderr(`Forked ${record.id}${options.at === undefined ? '' : ` at turn ${options.at}`}. Open it with: golem --session ${fork.id}\n`);
    return 0;
  }
  throw new GolemError('INVALID_ARGUMENT', `unknown command "golem sessions ${sub}" (list, show, fork)`);
}

function formatTurn(turn: Turn, children: readonly WorkerRecord[]): string {
  const lines: string[] = [];
  for (const b of turn.blocks) {
    if (b.type === 'text') lines.push(b.text);
    else if (b.type === 'tool_use') {
      lines.push(`→ ${b.name}(${JSON.stringify(b.args).slice(0, 200)})`);
      for (const w of children.filter((c) => c.parentCallId === b.callId)) lines.push(`  ↳ sub-worker ${w.id} (${w.status}): golem sessions show ${w.id}`);
    } else if (b.type === 'tool_result')
      lines.push(
        `← ${b.content
          .map((c) => (c.type === 'text' ? c.text : `[${c.type}]`))
          .join(' ')
          .slice(0, 300)}`,
      );
    else lines.push(`[${b.type}]`);
  }
  return `${turn.role.padEnd(9)} ${lines.join('\n          ')}\n`;
}

export async function clearanceCommand(ws: Workspace, args: string[], options: { json: boolean; all: boolean; to?: string }, io: CliIo): Promise<number> {
  const [sub = 'list', given, ...extra] = args;
  if (extra.length > 0) throw new GolemError('INVALID_ARGUMENT', `unexpected "${extra.join(' ')}" after golem clearance ${sub} ${given}`);
  const clearance = new ClearanceApi(ws.manager, { actions: projectActions() });
  if (sub === 'list') {
    const items = clearance.list({ all: options.all });
    if (options.json) {
      io.stdout(`${JSON.stringify(items, null, 2)}\n`);
      return 0;
    }
    if (items.length === 0) io.stdout(options.all ? 'No clearance items.\n' : 'Nothing waits for clearance.\n');
    for (const item of items) io.stdout(`${item.id}  ${item.type.padEnd(14)}  ${item.status.padEnd(9)}  ${item.description}\n`);
    return 0;
  }
  if (options.to !== undefined && sub !== 'push') throw new GolemError('INVALID_ARGUMENT', `--to goes with golem clearance push, not ${sub}`);
  const id = given ?? (sub === 'push' ? await onlyWaiting(clearance, io) : undefined);
  if (id === undefined && sub === 'push') {
    io.stdout('Nothing pushed.\n'); // the user chose none
    return 0;
  }
  if (id === undefined) throw new GolemError('INVALID_ARGUMENT', `golem clearance ${sub} needs an item id (see golem clearance list)`);
  switch (sub) {
    case 'diff':
      io.stdout(await clearance.diff(id));
      return 0;
    case 'push': {
      const item = await clearance.push(id, options.to === undefined ? {} : { target: options.to });
      io.stdout(`Pushed ${item.id}. ${item.outcome ?? ''}\n`);
      return 0;
    }
    case 'discard': {
      const item = await clearance.discard(id);
      io.stdout(`Discarded ${item.id}; the files are as they were.\n`);
      return 0;
    }
    case 'defer': {
      const item = await clearance.defer(id);
      io.stdout(`Deferred ${item.id}; it stays staged.\n`);
      return 0;
    }
    default:
      throw new GolemError('INVALID_ARGUMENT', `unknown command "golem clearance ${sub}" (list, diff, push, discard, defer)`);
  }
}

/**
 * The item `golem clearance push` means without an id: the one waiting; with several, the
 * one the user picks at the terminal, or (not at a terminal) none, with the list to choose from.
 */
async function onlyWaiting(clearance: ClearanceApi, io: CliIo): Promise<string | undefined> {
  const items = clearance.list();
  if (items.length === 0) throw new GolemError('CLEARANCE_NOT_FOUND', 'nothing waits for clearance');
  if (items.length === 1) return (items[0] as { id: string }).id;
  const input = (io.input ?? process.stdin) as NodeJS.ReadableStream & { isTTY?: boolean };
  const listing = items.map((item, i) => `  ${i + 1}. ${item.id}  ${item.type.padEnd(14)}  ${item.description}`).join('\n');
  if (input.isTTY !== true) {
    throw new GolemError('INVALID_ARGUMENT', `${items.length} items wait for clearance; name one: golem clearance push <id>\n${listing}`, {
      details: { ids: items.map((i) => i.id) },
    });
  }
  io.stdout(`${items.length} items wait for clearance:\n${listing}\n`);
  const rl = createInterface({ input, output: (io.output ?? process.stdout) as NodeJS.WritableStream });
  try {
    const answer = (await rl.question('Push which? (a number or an id, Enter for none) ')).trim();
    if (answer === '') return undefined;
    const picked = /^\d+$/.test(answer) ? items[Number(answer) - 1]?.id : clearance.get(answer).id;
    if (picked === undefined) throw new GolemError('INVALID_ARGUMENT', `no item number ${answer}`);
    return picked;
  } finally {
    rl.close();
  }
}
