/**
 * Programs that run another program (sudo, env, nice, timeout, xargs, watch, busybox...): the
 * program they run is found past their options, read as getopt reads them, and judged.
 */
import { readOptions, type OptionSpec } from './command-options.js';
import { atLeastMedium, high, medium, READS, unknown, worst, type Judge, type Verdict } from './command-verdict.js';
import type { ShellWord } from './shell-words.js';

/** Programs that run a command as another user, and their options that take a value. */
const AS_ANOTHER_USER: Record<string, OptionSpec> = {
  sudo: {
    short: 'CDghpRrTtUu',
    long: ['close-from', 'chdir', 'group', 'host', 'prompt', 'chroot', 'role', 'command-timeout', 'type', 'other-user', 'user'],
  },
  doas: { short: 'uC' },
  su: { short: 'cgGsw', long: ['command', 'group', 'supp-group', 'shell', 'whitelist-environment', 'session-command'] },
  pkexec: { long: ['user'] },
  run0: { short: 'uDg', long: ['user', 'group', 'chdir', 'setenv', 'property', 'unit', 'description', 'slice', 'nice', 'machine', 'background'] },
};

/** Programs that run the command after their options (and `operands` words more: timeout's duration, chrt's priority). */
const WRAPPERS: Record<string, { spec: OptionSpec; operands?: number }> = {
  nohup: { spec: {} },
  builtin: { spec: {} },
  setsid: { spec: {} },
  nice: { spec: { short: 'n', long: ['adjustment'] } },
  ionice: { spec: { short: 'cnpPu', long: ['class', 'classdata', 'pid', 'pgid', 'uid'] } },
  timeout: { spec: { short: 'sk', long: ['signal', 'kill-after'] }, operands: 1 },
  stdbuf: { spec: { short: 'ioe', long: ['input', 'output', 'error'] } },
  chrt: { spec: { short: 'TPD', long: ['sched-runtime', 'sched-period', 'sched-deadline'] }, operands: 1 },
  exec: { spec: { short: 'a' } },
  command: { spec: {} },
  time: { spec: { short: 'fo', long: ['format', 'output'] } },
};

/** A program that runs another, judged with what it runs; undefined when `name` is not one. */
export function judgeWrapper(name: string, args: ShellWord[], judge: Judge): Verdict | undefined {
  const asUser = AS_ANOTHER_USER[name];
  if (asUser !== undefined) {
    const { options, operand } = readOptions(args, asUser);
    const line = name === 'su' ? options.find((o) => o.name === 'c' || o.name === 'command')?.value?.text : undefined;
    const inner = line !== undefined ? judge.line(line) : judge.words(args.slice(operand));
    return worst([high(`runs as another user (${name})`), inner]);
  }
  const wrapper = WRAPPERS[name];
  if (wrapper !== undefined) {
    const { options, operand } = readOptions(args, wrapper.spec);
    const names = new Set(options.map((o) => o.name));
    if (name === 'command' && (names.has('v') || names.has('V'))) return READS;
    if (name === 'chrt' && (names.has('p') || names.has('pid'))) return medium("changes a running process's scheduling (chrt -p)");
    const inner = judge.words(args.slice(operand + (wrapper.operands ?? 0)));
    if (name === 'time' && (names.has('o') || names.has('output'))) return worst([medium('writes its timings to a file (time -o)'), inner]);
    return inner;
  }
  switch (name) {
    case 'env':
      return envCommand(args, judge);
    case 'xargs':
      return atLeastMedium('runs a command for each line of its input (xargs)', judge.words(xargsCommand(args)));
    case 'watch': {
      const { options, operand } = readOptions(args, { short: 'nq', long: ['interval', 'equexit'] });
      const rest = args.slice(operand);
      const exec = options.some((o) => o.name === 'x' || o.name === 'exec');
      return atLeastMedium('runs a command again and again (watch)', exec ? judge.words(rest) : judge.line(rest.map((a) => a.text).join(' ')));
    }
    case 'busybox':
      if (args[0] === undefined || /^--(?:list|help)/.test(args[0].text)) return READS;
      return args[0].text.startsWith('--') ? medium(`installs or lists busybox's programs (busybox ${args[0].text})`) : judge.words(args);
  }
  return undefined;
}

/** `env [-i] [-u NAME] [-C DIR] [NAME=value...] [command...]`. */
function envCommand(args: ShellWord[], judge: Judge): Verdict {
  const { options, operand } = readOptions(args, { short: 'uCSPa', long: ['unset', 'chdir', 'split-string', 'argv0'] });
  if (options.some((o) => o.name === 'S' || o.name === 'split-string')) return unknown('env -S splits a string into a command');
  let at = operand;
  while (args[at]?.text === '-') at++; // `env -` is `env -i`
  const inner = judge.words(args.slice(at));
  return options.some((o) => o.name === 'P') ? worst([unknown('env -P looks the program up in another path'), inner]) : inner;
}

/** The command xargs runs (echo when it names none); -i, -e and -l take their value only attached. */
function xargsCommand(args: ShellWord[]): ShellWord[] {
  const spec = { short: 'adEILnPsJRS', long: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'] };
  const rest = args.slice(readOptions(args, spec).operand);
  return rest.length > 0 ? rest : [{ text: 'echo', dynamic: false, quoted: false }];
}
