/**
 * The `golem` command line. `run` takes its arguments and output streams so tests
 * can drive it in-process; `bin/golem.js` calls it with the real ones.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GolemError } from '../errors.js';
import { createWorkspace, type WorkspaceSummary } from '../workspace/create-workspace.js';

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
}

const USAGE = `Usage: golem <command> [options]

Commands:
  status            Open (or create) the workspace and print its summary

Options:
  --dir <path>      The workspace folder (default: ./.golem, or $GOLEM_DIR)
  --json            Print machine-readable JSON
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
  if (command !== 'status' || rest.length > 0) {
    io.stderr(`golem: unknown command "${[command, ...rest].join(' ')}"\n\n${USAGE}`);
    return 2;
  }
  const dir = resolve(io.cwd, values.dir ?? env.GOLEM_DIR ?? '.golem');
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
