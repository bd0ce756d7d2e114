/**
 * What each known program does with its arguments, as a risk and a reason: the rules of
 * `assessCommand`, by family (variable-rules, wrapper-rules, text-rules, git-rules). A program
 * not named here is 'unknown'.
 */
import { hasShort, longOption, readOptions } from './command-options.js';
import { atLeastMedium, high, medium, READS, unknown, worst, type Judge, type Verdict } from './command-verdict.js';
import { gitCommand } from './git-rules.js';
import type { ShellWord } from './shell-words.js';
import { judgeTextTool } from './text-rules.js';
import { judgeVariableBuiltin } from './variable-rules.js';
import { judgeWrapper } from './wrapper-rules.js';

/** Programs that only read or print, whatever their arguments. */
const READERS = new Set(
  (
    'ls cat pwd echo grep egrep fgrep head tail wc which whereis type file stat du df whoami id uname basename dirname realpath readlink ' +
    'true false diff cmp comm cut tr nl rev seq sleep jq printenv uptime ps free nproc column fold fmt od hexdump strings ' +
    'md5sum sha1sum sha256sum sha512sum cksum base64 tac paste join less more cd wait jobs shift exit return : ulimit yes expr'
  ).split(' '),
);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh']);
const INTERPRETERS = new Set(
  'node nodejs deno bun python python2 python3 pypy pypy3 perl ruby php lua luajit Rscript osascript pwsh powershell tsx ts-node java groovy jshell irb'.split(
    ' ',
  ),
);
const DESTROYERS: Record<string, string> = {
  shred: 'overwrites files',
  wipefs: 'wipes a disk',
  fdisk: 'changes a disk',
  sfdisk: 'changes a disk',
  parted: 'changes a disk',
  mkswap: 'formats a disk',
  dd: 'copies raw blocks (it can overwrite a disk)',
  shutdown: 'stops the machine',
  reboot: 'restarts the machine',
  halt: 'stops the machine',
  poweroff: 'stops the machine',
};
const WRITERS = new Set('cp mv ln mkdir touch rmdir install rsync unzip tar truncate patch split chmod chown chgrp kill pkill killall umask'.split(' '));
/**
 * Runners of a project's scripts or builds, and their subcommands that only read. Most have
 * none: yarn, pnpm, bundle, rake, mvn, gradle, cargo, composer, nox and the like load the
 * project's own code or settings (plugins, a Gemfile, a Rakefile, build scripts, a toolchain
 * file) whatever they are asked.
 */
const RUNNERS: Record<string, Set<string>> = {
  npm: new Set(['ls', 'list', 'll', 'view', 'info', 'outdated', 'explain', 'why', 'search', 'root', 'prefix', '-v', '--version', 'help']),
  make: new Set(['--version']),
  gmake: new Set(['--version']),
  cmake: new Set(['--version']),
  ninja: new Set(['--version']),
  jest: new Set(['--version']),
  vitest: new Set(['--version']),
  tsc: new Set(['--version']),
  pip: new Set(['list', 'show', 'freeze', '--version', 'check']),
  pip3: new Set(['list', 'show', 'freeze', '--version', 'check']),
  docker: new Set(['ps', 'images', 'version', '--version', 'info', 'logs', 'inspect']),
  ...Object.fromEntries(
    'pnpm yarn cargo gradle gradlew mvn mvnw rake bundle just task tox nox pytest mocha uv poetry composer turbo nx'
      .split(' ')
      .map((n) => [n, new Set<string>()]),
  ),
};
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx']);
const SYSTEM_TOOLS = new Set('apt apt-get brew yum dnf pacman snap port systemctl service launchctl crontab at batch open xdg-open'.split(' '));
const NETWORK = new Set(['ssh', 'scp', 'sftp', 'nc', 'ncat', 'netcat', 'telnet', 'ftp']);
/** go settings (go env -w) whose value is a program go runs, or flags it passes to every build. */
const GO_PROGRAM_SETTINGS = /^(?:GOFLAGS|CC|CXX|FC|AR|PKG_CONFIG|GOTOOLCHAIN|GOENV|GOROOT|CGO_\w+)$/;

/** One program's verdict, by its name (the basename of the word run) and its arguments. */
export function judgeProgram(name: string, args: ShellWord[], judge: Judge): Verdict {
  const words = args.map((a) => a.text);
  if (name === 'file' && words.some((w) => hasShort(w, 'C', 'efFmP') || longOption(w, ['compile']) !== undefined))
    return medium('writes a compiled magic file (file -C)');
  if (/^pip3?$/.test(name) && words.some((w) => longOption(w, ['log', 'log-file']) !== undefined)) return medium(`writes a log file (${name} --log)`);
  if (READERS.has(name)) return READS;
  const family = judgeVariableBuiltin(name, args, judge) ?? judgeWrapper(name, args, judge) ?? judgeTextTool(name, args, judge);
  if (family !== undefined) return family;
  switch (name) {
    case 'eval':
      return { ...atLeastMedium('runs its arguments as a command line (eval)', judge.line(words.join(' '))), tag: 'interpreter' };
    case 'trap':
      return atLeastMedium('runs a command on a signal (trap)', words[0] === undefined ? READS : judge.line(words[0]));
    case 'source':
    case '.':
      return { ...medium(`runs a script in the shell (${name} ${words[0] ?? ''})`.trim()), tag: 'interpreter' };
    case 'test':
    case '[':
    case '[[':
      return words.some((w) => /\[.*(?:\$\(|`)/.test(w)) ? unknown(`an array subscript in a test runs commands (${name} ${words.join(' ')})`) : READS;
    case 'rm':
      return words.some((w) => hasShort(w, 'r') || hasShort(w, 'R') || longOption(w, ['recursive']) !== undefined)
        ? high('deletes files and folders recursively (rm -r)')
        : medium('deletes files (rm)');
    case 'chmod':
    case 'chown':
    case 'chgrp':
      if (words.some((w) => hasShort(w, 'R') || longOption(w, ['recursive']) !== undefined))
        return high(`changes the owner or permissions of a whole tree (${name} -R)`);
      break;
    case 'find':
      return findCommand(args, judge);
    case 'git':
      return gitCommand(args, judge);
    case 'go':
      return goCommand(args, judge);
    case 'curl':
    case 'wget':
      return { risk: 'medium', reason: `reaches the network (${name})`, tag: 'download' };
  }
  const destroys = DESTROYERS[name];
  if (destroys !== undefined || name.startsWith('mkfs')) return high(`${destroys ?? 'formats a disk'} (${name})`);
  if (WRITERS.has(name)) return medium(`changes files or processes (${name})`);
  if (SHELLS.has(name)) return shellCommand(name, args, judge);
  if (INTERPRETERS.has(name)) return interpreterCommand(name, words, judge);
  if (PACKAGE_RUNNERS.has(name)) return medium(`downloads and runs a package (${[name, ...words.slice(0, 1)].join(' ')})`);
  const readOnly = RUNNERS[name];
  if (readOnly !== undefined) {
    const sub = words[0];
    if (args.some((a) => a.dynamic) || sub === undefined || !readOnly.has(sub)) {
      return medium(`runs the project's scripts or build (${[name, ...words.slice(0, 1)].join(' ')})`);
    }
    return READS;
  }
  if (SYSTEM_TOOLS.has(name)) return medium(`changes the system or runs other programs (${name})`);
  if (NETWORK.has(name)) return medium(`connects to another machine (${name})`);
  return unknown(`runs ${name}, a program the rules do not know`);
}

function findCommand(args: ShellWord[], judge: Judge): Verdict {
  if (args.some((a) => a.dynamic)) return unknown('find with arguments known only when it runs');
  const verdicts: Verdict[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]?.text ?? '';
    if (w === '-delete') verdicts.push(high('deletes the files it finds (find -delete)'));
    else if (/^-(?:fprint0?|fprintf|fls)$/.test(w)) verdicts.push(medium(`writes a file (find ${w})`));
    else if (/^-(?:exec|execdir|ok|okdir)$/.test(w)) {
      const end = args.findIndex((a, j) => j > i && (a.text === ';' || a.text === '+'));
      const inner = args.slice(i + 1, end < 0 ? args.length : end).filter((a) => a.text !== '{}');
      verdicts.push(atLeastMedium(`runs a command on each file found (find ${w})`, judge.words(inner)));
      if (end > i) i = end;
    }
  }
  return worst(verdicts);
}

/**
 * A shell runs what -c gives it, a script file, or what it reads: a here-string, a heredoc or
 * the output of echo piped in are judged as the command line they are.
 */
function shellCommand(name: string, args: ShellWord[], judge: Judge): Verdict {
  const { options, operand } = readOptions(args, { short: 'oO', long: ['rcfile', 'init-file'] });
  const script = args[operand];
  if (options.some((o) => o.name === 'c')) {
    if (script === undefined) return medium(`runs a shell (${name})`);
    return { ...atLeastMedium(`runs a shell command line (${name} -c)`, judge.line(script.text)), tag: 'interpreter' };
  }
  if (script !== undefined && script.text !== '-' && !options.some((o) => o.name === 's')) {
    return { risk: 'medium', reason: `runs the script ${script.text} (${name})`, tag: 'interpreter' };
  }
  const reads = `runs the commands it reads (${name})`;
  return { ...(judge.input === undefined ? medium(reads) : atLeastMedium(reads, judge.line(judge.input))), tag: 'interpreter' };
}

function interpreterCommand(name: string, words: string[], judge: Judge): Verdict {
  if (words.length === 1 && /^(?:--version|-v|-V|--help|-h)$/.test(words[0] ?? '')) return READS;
  const inline = words.some((w) => /^(?:-e|-c|-p|-E|-r|--eval|--print|-pe|-ne|-ie)$/.test(w) || w.startsWith('--eval='));
  const target = words.find((w) => !w.startsWith('-'));
  const reason = inline
    ? `runs code given on the command line (${name})`
    : target === undefined
      ? `runs the code it reads${judge.input === undefined ? '' : ' from its input'} (${name})`
      : `runs ${target} with ${name}, code the rules do not read`;
  return { risk: 'medium', reason, tag: 'interpreter' };
}

/**
 * go: any go command may download and run the toolchain the project's go.mod names, so none is
 * low; -toolexec, -exec and -vettool run a program of the caller's choosing, and go env -w
 * changes what every later go command does.
 */
function goCommand(args: ShellWord[], judge: Judge): Verdict {
  const sub = args[0]?.text ?? '';
  const words = args.slice(1).map((a) => a.text);
  const verdicts: Verdict[] = [medium(`runs the Go toolchain the project names, and its build steps (${sub === '' ? 'go' : `go ${sub}`})`)];
  if (sub === 'env' && words.some((w) => w === '-w' || w === '-u')) {
    const keys = words.filter((w) => !w.startsWith('-')).map((w) => w.split('=')[0] ?? '');
    const programs = keys.filter((k) => GO_PROGRAM_SETTINGS.test(k));
    verdicts.push(
      programs.length > 0
        ? high(`go env -w ${programs.join(', ')} makes later go commands run a program`)
        : medium(`changes go's settings for later commands (go env -w ${keys.join(' ')})`),
    );
  }
  for (let i = 0; i < words.length; i++) {
    const flag = /^--?(toolexec|exec|vettool)(?:=(.*))?$/.exec(words[i] ?? '');
    if (flag === null) continue;
    const program = flag[2] ?? words[++i] ?? '';
    verdicts.push(atLeastMedium(`runs ${program} for the build (go ${sub} -${flag[1] ?? ''})`, judge.line(program)));
  }
  return worst(verdicts);
}
