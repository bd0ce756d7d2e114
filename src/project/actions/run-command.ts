/** run_command: a shell command run in the project, its exit code and output answered. */
import { join } from 'node:path';
import { z } from 'zod';
import { defineAction, type Action } from '../../action/action.js';
import { assessCommand } from '../command-risk.js';
import { runShell } from '../shell.js';
import { folderOf, projectFiles } from './context-files.js';

/** The shell, the default time limit and how much output run_command keeps (checked by `projectActions`). */
export interface RunCommandOptions {
  shell: string;
  defaultTimeoutMs: number;
  maxOutputBytes: number;
}

/** run_command: runs a shell command in the project; supervised, its risk judged by `assessCommand` (the reason shown with the call's details). */
export function runCommandAction(options: RunCommandOptions): Action {
  const { shell, defaultTimeoutMs, maxOutputBytes } = options;
  return defineAction({
    name: 'run_command',
    description: `Runs a shell command (${shell} -c) in the project and answers its exit code and output (stdout and stderr together; only the last ${formatBytes(maxOutputBytes)} are kept). No input is given and nothing interactive works. Stopped after timeoutMs (default ${defaultTimeoutMs / 1000} s).`,
    input: z.object({
      command: z.string().min(1).describe("The command line, e.g. 'npm test' or 'git status'"),
      cwd: z.string().min(1).optional().describe("The folder to run it in, relative to the project root (default '.')"),
      timeoutMs: z.number().int().min(1).max(3_600_000).optional().describe(`The time limit in milliseconds (default ${defaultTimeoutMs})`),
    }),
    trust: 'supervised',
    run: async ({ command, cwd, timeoutMs }, ctx) => {
      const files = projectFiles(ctx);
      const folder = await folderOf(files, cwd ?? '.');
      return runShell({ shell, command, cwd: join(files.root, folder), timeoutMs: timeoutMs ?? defaultTimeoutMs, maxOutputBytes, signal: ctx.signal });
    },
    // A command that ran but exited badly (or ran out of time) failed: shown so, and the model reads it as an error.
    failed: (result) =>
      result.timedOut === true
        ? 'it ran out of time'
        : result.exitCode === 0
          ? undefined
          : `it exited with ${result.exitCode === null ? 'no code' : result.exitCode}`,
    describe: ({ command, cwd }) => {
      const { risk, reason } = assessCommand(command);
      return { type: 'command', description: command, details: { command, cwd: cwd ?? '.', riskReason: reason }, risk };
    },
    grantKey: ({ command }) => command.trim(),
  });
}

function formatBytes(n: number): string {
  return n % 1024 === 0 ? `${n / 1024} KiB` : `${n} bytes`;
}
