/**
 * The `golem` command line. `run` takes its arguments and output streams so tests
 * can drive it in-process; `bin/golem.js` calls it with the real ones.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GolemError } from '../errors.js';
import { MODEL_SPEC_FORMS, resolveModel } from '../models/resolve-model.js';
import { createWorkspace, type WorkspaceSummary } from '../workspace/create-workspace.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
}

const USAGE = `Usage: golem <command> [options]

Commands:
  status            Open (or create) the workspace and print its summary
  ask <message>     Send a message to the model and stream its answer, in the
                    most recent session (or a new one); the exchange is recorded

Options:
  --dir <path>      The workspace folder (default: ./.golem, or $GOLEM_DIR)
  --model <spec>    The model for ask (default: $GOLEM_MODEL), one of:
                      ${MODEL_SPEC_FORMS.join('\n                      ')}
  --session <id>    The session for ask (default: the most recent)
  --new             Start a new session for ask
  --json            Print machine-readable JSON (status)
  -h, --help        Show this help
  -v, --version     Show Golem's version
`;

/** Runs the CLI; resolves with the process exit code. */
export async function run(argv: readonly string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        dir: { type: 'string' },
        json: { type: 'boolean', default: false },
        model: { type: 'string' },
        session: { type: 'string' },
        new: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
        version: { type: 'boolean', short: 'v', default: false },
      },
    });
  } catch (error) {
    io.stderr(`golem: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    io.stdout(`${version()}\n`);
    return 0;
  }
  const [command = 'status', ...rest] = positionals;
  if (values.help) {
    io.stdout(USAGE);
    return 0;
  }
  const dir = resolve(io.cwd, values.dir ?? env.GOLEM_DIR ?? '.golem');
  if (command === 'ask') {
    return ask(rest.join(' '), { dir, model: values.model ?? env.GOLEM_MODEL, session: values.session, fresh: values.new }, io, env);
  }
  if (command !== 'status' || rest.length > 0) {
    io.stderr(`golem: unknown command "${[command, ...rest].join(' ')}"\n\n${USAGE}`);
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
    io.stderr(`golem: no model configured. Set GOLEM_MODEL or pass --model, one of:\n  ${MODEL_SPEC_FORMS.join('\n  ')}\n`);
    return 2;
  }
  let model;
  try {
    model = resolveModel(options.model, { env });
  } catch (error) {
    io.stderr(`golem: ${(error as Error).message}\n`);
    return 2;
  }
  const ws = await createWorkspace({ dir: options.dir, name: basename(dirname(options.dir)) });
  try {
    const recent = ws.sessions.list()[0];
    const session =
      options.session !== undefined
        ? ws.sessions.get(options.session)
        : options.fresh || recent === undefined
          ? await ws.sessions.create({ label: message.slice(0, 60) })
          : ws.sessions.get(recent.id);
    if (session === undefined) {
      io.stderr(`golem: no session with id "${options.session}"\n`);
      return 1;
    }
    const question = await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: message }] });
    let streamed = false;
    const off = ws.events.on('model:part', (e) => {
      if (e.sessionId === session.id && e.part.type === 'text-delta') {
        io.stdout(e.part.text);
        streamed = true;
      }
    });
    try {
      const turn = await session.respond({ model });
      const usage = turn.meta.usage as { inputTokens?: number; outputTokens?: number } | undefined;
      io.stdout('\n');
      io.stderr(`[${model.provider}:${model.modelId} · ${usage?.inputTokens ?? '?'} in, ${usage?.outputTokens ?? '?'} out · session ${session.id}]\n`);
    } catch (error) {
      // No answer was recorded: take the question back, so asking again does not send it twice.
      if (!(GolemError.isInstance(error) && 'turn' in error.details)) await session.deleteTurn(question.id, question.version).catch(() => undefined);
      if (streamed) io.stdout('\n');
      throw error;
    } finally {
      off();
    }
    return 0;
  } catch (error) {
    const code = GolemError.isInstance(error) ? ` [${error.code}]` : '';
    io.stderr(`golem${code}: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await ws.close();
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
