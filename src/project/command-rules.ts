/**
 * What each known program does with its arguments, as a risk and a reason: the rules of
 * `assessCommand`. A program not named here is 'unknown'.
 */
import type { Risk } from '../action/approval.js';
import type { ShellWord } from './shell-words.js';

/** One part's risk and why; `tag` marks a download or an interpreter (together: code downloaded and run). */
export interface Verdict {
  risk: Risk;
  reason: string;
  tag?: 'download' | 'interpreter';
}

/** Judges what a program runs in turn: a command line (bash -c) or words (find -exec, xargs). */
export interface Judge {
  line(text: string): Verdict;
  words(words: ShellWord[]): Verdict;
}

const RANK: Record<Risk, number> = { low: 0, medium: 1, unknown: 2, high: 3 };

/** What only reads. */
export const READS: Verdict = { risk: 'low', reason: 'only reads' };

/** The riskiest of the verdicts, with the reasons of all at that level (low when there are none). */
export function worst(verdicts: Verdict[]): Verdict {
  let top: Verdict = READS;
  for (const v of verdicts) if (RANK[v.risk] > RANK[top.risk]) top = v;
  const reasons = [...new Set(verdicts.filter((v) => v.risk === top.risk).map((v) => v.reason))];
  return { risk: top.risk, reason: reasons.length === 0 ? top.reason : reasons.join('; ') };
}

const medium = (reason: string): Verdict => ({ risk: 'medium', reason });
const high = (reason: string): Verdict => ({ risk: 'high', reason });
/** At least medium: the verdict of what it runs, raised to medium with this reason. */
const atLeastMedium = (reason: string, inner: Verdict): Verdict => worst([medium(reason), inner]);

/** Programs that only read or print, whatever their arguments. */
const READERS = new Set(
  (
    'ls cat pwd echo printf grep egrep fgrep head tail wc which whereis type file stat du df whoami id uname basename dirname realpath readlink ' +
    'true false test [ diff cmp comm cut tr nl rev seq sleep jq printenv uptime ps free nproc column fold fmt od hexdump strings ' +
    'md5sum sha1sum sha256sum sha512sum cksum base64 tac paste join less more cd read wait jobs set shift exit return local : hash ulimit'
  ).split(' '),
);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox']);
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
/** Runners of a project's scripts or builds, and their subcommands that only read. */
const RUNNERS: Record<string, Set<string>> = {
  npm: new Set(['ls', 'list', 'll', 'view', 'info', 'outdated', 'explain', 'why', 'search', 'root', 'prefix', '-v', '--version', 'help']),
  pnpm: new Set(['ls', 'list', 'why', 'info', 'view', 'outdated', '-v', '--version']),
  yarn: new Set(['list', 'why', 'info', '-v', '--version']),
  make: new Set(['--version']),
  gmake: new Set(['--version']),
  cmake: new Set(['--version']),
  ninja: new Set(['--version']),
  cargo: new Set(['--version', 'tree', 'metadata', 'search']),
  go: new Set(['version', 'env', 'list', 'doc']),
  gradle: new Set(['--version']),
  gradlew: new Set(['--version']),
  mvn: new Set(['--version']),
  rake: new Set(['--version']),
  bundle: new Set(['list', 'info', '--version']),
  just: new Set(['--list', '--version']),
  task: new Set(['--list', '--version']),
  tox: new Set(['--version']),
  nox: new Set(['--list']),
  pytest: new Set(['--version']),
  jest: new Set(['--version']),
  vitest: new Set(['--version']),
  mocha: new Set(['--version']),
  tsc: new Set(['--version']),
  pip: new Set(['list', 'show', 'freeze', '--version', 'check']),
  pip3: new Set(['list', 'show', 'freeze', '--version', 'check']),
  uv: new Set(['--version', 'tree']),
  poetry: new Set(['show', '--version']),
  composer: new Set(['show', '--version']),
  turbo: new Set(['--version']),
  nx: new Set(['--version']),
  docker: new Set(['ps', 'images', 'version', '--version', 'info', 'logs', 'inspect']),
};
const PACKAGE_RUNNERS = new Set(['npx', 'pnpx', 'bunx', 'uvx', 'pipx']);
const SYSTEM_TOOLS = new Set('apt apt-get brew yum dnf pacman snap port systemctl service launchctl crontab at batch open xdg-open'.split(' '));
const NETWORK = new Set(['ssh', 'scp', 'sftp', 'nc', 'ncat', 'netcat', 'telnet', 'ftp']);

/** One program's verdict, by its name (the basename of the word run) and its arguments. */
export function judgeProgram(name: string, args: ShellWord[], judge: Judge): Verdict {
  const words = args.map((a) => a.text);
  const dynamic = args.some((a) => a.dynamic);
  if (READERS.has(name)) return READS;
  switch (name) {
    case 'sudo':
    case 'doas':
    case 'su':
    case 'pkexec':
    case 'run0':
      return high(`runs as another user (${name})`);
    case 'env':
      return envCommand(args, judge);
    case 'nohup':
    case 'time':
    case 'nice':
    case 'ionice':
    case 'timeout':
    case 'stdbuf':
    case 'command':
    case 'builtin':
    case 'exec':
      if (name === 'command' && /^-[vV]$/.test(words[0] ?? '')) return READS;
      return judge.words(afterOptions(name, args));
    case 'xargs':
      return atLeastMedium('runs a command for each line of its input (xargs)', judge.words(xargsCommand(args)));
    case 'watch':
      return atLeastMedium('runs a command again and again (watch)', judge.words(afterOptions(name, args)));
    case 'eval':
      return atLeastMedium('runs its arguments as a command line (eval)', judge.line(words.join(' ')));
    case 'trap':
      return atLeastMedium('runs a command on a signal (trap)', words[0] === undefined ? READS : judge.line(words[0]));
    case 'source':
    case '.':
      return medium(`runs a script in the shell (${name} ${words[0] ?? ''})`.trim());
    case 'export':
    case 'declare':
    case 'typeset':
    case 'readonly': {
      const names = words.map((w) => /^([A-Za-z_]\w*)=/.exec(w)?.[1]).filter((n): n is string => n !== undefined);
      return names.length === 0 ? READS : judge.words(args.filter((a) => /^[A-Za-z_]\w*=/.test(a.text)));
    }
    case 'rm':
      return words.some((w) => /^-[a-zA-Z]*[rR]/.test(w) || w === '--recursive')
        ? high('deletes files and folders recursively (rm -r)')
        : medium('deletes files (rm)');
    case 'chmod':
    case 'chown':
    case 'chgrp':
      if (words.some((w) => /^-[a-zA-Z]*R/.test(w) || w === '--recursive')) return high(`changes the owner or permissions of a whole tree (${name} -R)`);
      break;
    case 'find':
      return findCommand(args, judge);
    case 'git':
      return gitCommand(args, judge);
    case 'rg':
      return rgCommand(args, judge);
    case 'sed':
      return sedCommand(words, dynamic);
    case 'awk':
    case 'gawk':
    case 'mawk':
      return awkCommand(words, dynamic);
    case 'tee':
      return words.every((w) => w.startsWith('-')) ? READS : medium('writes files (tee)');
    case 'sort':
      if (dynamic) return { risk: 'unknown', reason: 'sort with options known only when it runs' };
      return words.some((w) => /^(?:-o|--output|--compress-program)/.test(w) || /^-[a-zA-Z]*o/.test(w))
        ? medium('sort writes a file or runs a program (-o, --compress-program)')
        : READS;
    case 'tree':
      return words.some((w) => w === '-o' || w.startsWith('-o')) ? medium('writes a file (tree -o)') : READS;
    case 'date':
      return words.some((w) => /^(?:-s|--set)/.test(w)) ? medium('sets the clock (date -s)') : READS;
    case 'curl':
    case 'wget':
      return { risk: 'medium', reason: `reaches the network (${name})`, tag: 'download' };
  }
  const destroys = DESTROYERS[name];
  if (destroys !== undefined || name.startsWith('mkfs')) return high(`${destroys ?? 'formats a disk'} (${name})`);
  if (WRITERS.has(name)) return medium(`changes files or processes (${name})`);
  if (SHELLS.has(name)) return shellCommand(name, args, judge);
  if (INTERPRETERS.has(name)) return interpreterCommand(name, words);
  if (PACKAGE_RUNNERS.has(name)) return medium(`downloads and runs a package (${[name, ...words.slice(0, 1)].join(' ')})`);
  const readOnly = RUNNERS[name];
  if (readOnly !== undefined) {
    const sub = words[0];
    if (dynamic || sub === undefined || !readOnly.has(sub)) return medium(`runs the project's scripts or build (${[name, ...words.slice(0, 1)].join(' ')})`);
    return READS;
  }
  if (SYSTEM_TOOLS.has(name)) return medium(`changes the system or runs other programs (${name})`);
  if (NETWORK.has(name)) return medium(`connects to another machine (${name})`);
  return { risk: 'unknown', reason: `runs ${name}, a program the rules do not know` };
}

/** `env [-i] [-u NAME] [NAME=value...] [command...]`. */
function envCommand(args: ShellWord[], judge: Judge): Verdict {
  let at = 0;
  for (; at < args.length; at++) {
    const w = args[at]?.text ?? '';
    if (w === '-S' || w.startsWith('--split-string') || /^-[a-zA-Z]*S/.test(w)) return { risk: 'unknown', reason: 'env -S splits a string into a command' };
    if (w === '-u' || w === '--unset' || w === '-C' || w === '--chdir') at++;
    else if (!w.startsWith('-')) break;
  }
  return judge.words(args.slice(at));
}

/** The command a wrapper (nohup, nice -n 5, timeout 10, stdbuf -o0...) runs. */
function afterOptions(name: string, args: ShellWord[]): ShellWord[] {
  const withValue: Record<string, Set<string>> = {
    nice: new Set(['-n', '--adjustment']),
    ionice: new Set(['-c', '-n', '--class', '--classdata']),
    timeout: new Set(['-s', '-k', '--signal', '--kill-after']),
    stdbuf: new Set(['-i', '-o', '-e']),
    watch: new Set(['-n', '-d', '--interval']),
  };
  let at = 0;
  for (; at < args.length; at++) {
    const w = args[at]?.text ?? '';
    if (w === '--') return args.slice(at + 1);
    if (!w.startsWith('-')) break;
    if (withValue[name]?.has(w) === true) at++;
  }
  return name === 'timeout' ? args.slice(at + 1) : args.slice(at); // timeout's duration
}

function xargsCommand(args: ShellWord[]): ShellWord[] {
  const withValue = new Set(['-I', '-n', '-P', '-d', '-L', '-s', '-E', '-a', '-i', '--max-args', '--max-procs', '--delimiter', '--arg-file']);
  let at = 0;
  for (; at < args.length; at++) {
    const w = args[at]?.text ?? '';
    if (!w.startsWith('-')) break;
    if (withValue.has(w)) at++;
  }
  const rest = args.slice(at);
  return rest.length > 0 ? rest : [{ text: 'echo', dynamic: false, quoted: false }];
}

function findCommand(args: ShellWord[], judge: Judge): Verdict {
  if (args.some((a) => a.dynamic)) return { risk: 'unknown', reason: 'find with arguments known only when it runs' };
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

function shellCommand(name: string, args: ShellWord[], judge: Judge): Verdict {
  const flag = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a.text));
  if (flag >= 0) {
    const script = args.slice(flag + 1).find((a) => !a.text.startsWith('-'));
    if (script === undefined) return medium(`runs a shell (${name})`);
    return { ...atLeastMedium(`runs a shell command line (${name} -c)`, judge.line(script.text)), tag: 'interpreter' };
  }
  const file = args.find((a) => !a.text.startsWith('-'));
  return { risk: 'medium', reason: file === undefined ? `runs the commands it reads (${name})` : `runs the script ${file.text} (${name})`, tag: 'interpreter' };
}

function interpreterCommand(name: string, words: string[]): Verdict {
  if (words.length === 1 && /^(?:--version|-v|-V|--help|-h)$/.test(words[0] ?? '')) return READS;
  const inline = words.some((w) => /^(?:-e|-c|-p|-E|-r|--eval|--print|-pe|-ne|-ie)$/.test(w) || w.startsWith('--eval='));
  const target = words.find((w) => !w.startsWith('-'));
  const reason = inline
    ? `runs code given on the command line (${name})`
    : target === undefined
      ? `runs the code it reads (${name})`
      : `runs ${target} with ${name}, code the rules do not read`;
  return { risk: 'medium', reason, tag: 'interpreter' };
}

function rgCommand(args: ShellWord[], judge: Judge): Verdict {
  if (args.some((a) => a.dynamic)) return { risk: 'unknown', reason: 'rg with arguments known only when it runs (--pre runs a program)' };
  const verdicts: Verdict[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]?.text ?? '';
    const program = w === '--pre' ? args[i + 1]?.text : w.startsWith('--pre=') ? w.slice(6) : undefined;
    if (program !== undefined) verdicts.push(atLeastMedium(`runs ${program} on each file searched (rg --pre)`, judge.line(program)));
  }
  return worst(verdicts);
}

/** sed reads unless it edits in place, reads a script file, or its script can write (w) or run (e) something. */
function sedCommand(words: string[], dynamic: boolean): Verdict {
  if (dynamic) return { risk: 'unknown', reason: 'sed with arguments known only when it runs' };
  if (words.some((w) => /^-[a-zA-Z]*i/.test(w) || w.startsWith('--in-place'))) return medium('edits files in place (sed -i)');
  if (words.some((w) => /^-[a-zA-Z]*f/.test(w) || w.startsWith('--file'))) return medium('runs a sed script from a file');
  const scripts: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    if (w === '-e' || w === '--expression') scripts.push(words[++i] ?? '');
    else if (w.startsWith('--expression=')) scripts.push(w.slice(13));
  }
  if (scripts.length === 0) {
    const first = words.find((w) => !w.startsWith('-'));
    if (first !== undefined) scripts.push(first);
  }
  const address = String.raw`(?:\d+|\$|\/(?:[^/\\]|\\.)*\/)(?:,(?:\d+|\$|\/(?:[^/\\]|\\.)*\/))?`;
  const command = new RegExp(String.raw`^\s*(?:${address})?\s*!?\s*(?:[pdqQn=]|s\/(?:[^/\\]|\\.)*\/(?:[^/\\]|\\.)*\/[gpiIm0-9]*)?\s*$`);
  const safe = scripts.every((script) => script.split(/[;\n]/).every((part) => command.test(part)));
  return safe ? READS : medium('its sed script may write files or run commands (w, e)');
}

function awkCommand(words: string[], dynamic: boolean): Verdict {
  if (dynamic) return { risk: 'unknown', reason: 'awk with arguments known only when it runs' };
  if (words.some((w) => w === '-f' || w.startsWith('--file') || w === '-i' || w === '-l' || w.startsWith('--include') || w.startsWith('--load')))
    return medium('runs an awk program from a file');
  const program = words.find((w, i) => !w.startsWith('-') && !/^-[Fv]$/.test(words[i - 1] ?? ''));
  return program !== undefined && !/system|getline|[|>]|@/.test(program) ? READS : medium('its awk program may run commands or write files');
}

const GIT_READS = new Set(
  (
    'status diff log show blame ls-files ls-tree rev-parse grep shortlog describe cat-file rev-list merge-base name-rev show-ref for-each-ref ' +
    'count-objects whatchanged version var check-ignore annotate diff-tree diff-files diff-index cherry'
  ).split(' '),
);
/** git -c keys whose value is a program git runs. */
const GIT_PROGRAM_KEYS =
  /fsmonitor|pager|editor|sshcommand|hookspath|textconv|external|^alias\.|^filter\.|helper|askpass|proxycommand|gitproxy|program|command|cmd/i;

function gitCommand(args: ShellWord[], judge: Judge): Verdict {
  const verdicts: Verdict[] = [];
  let at = 0;
  for (; at < args.length; at++) {
    const a = args[at];
    const w = a?.text ?? '';
    if (a?.dynamic === true) return { risk: 'unknown', reason: 'git with arguments known only when it runs' };
    if (w === '-c' || w === '--config-env' || w.startsWith('--config-env=')) {
      const setting = w === '-c' || w === '--config-env' ? (args[++at]?.text ?? '') : w.slice(13);
      const key = setting.split('=')[0] ?? '';
      verdicts.push(GIT_PROGRAM_KEYS.test(key) ? high(`git -c ${key} makes git run a program`) : medium(`sets git configuration (${key})`));
    } else if (w === '-C' || w === '--git-dir' || w === '--work-tree' || w === '--namespace' || w === '--exec-path') {
      if (w !== '-C') verdicts.push(medium(`uses another repository or git (${w})`));
      at++;
    } else if (/^--(?:git-dir|work-tree|exec-path)=/.test(w)) verdicts.push(medium(`uses another repository or git (${w.split('=')[0] ?? w})`));
    else if (w === '-p' || w === '--paginate') verdicts.push(medium('opens a pager (git -p)'));
    else if (!w.startsWith('-')) break;
  }
  const sub = args[at]?.text;
  const rest = args.slice(at + 1);
  const words = rest.map((a) => a.text);
  if (rest.some((a) => a.dynamic)) verdicts.push({ risk: 'unknown', reason: 'git with arguments known only when it runs' });
  if (sub === undefined) return worst(verdicts);
  if (sub === 'push') verdicts.push(high('pushes to a remote (git push)'));
  else if (sub === 'reset' && words.includes('--hard')) verdicts.push(high('throws away changes (git reset --hard)'));
  else if (sub === 'clean' && words.some((w) => /^-[a-zA-Z]*f/.test(w) || w === '--force')) verdicts.push(high('deletes untracked files (git clean -f)'));
  else if (sub === 'filter-branch' || sub === 'filter-repo') verdicts.push(high(`rewrites history (git ${sub})`));
  else if (GIT_READS.has(sub) || listsOnly(sub, words)) verdicts.push(gitReadOptions(sub, words, judge));
  else verdicts.push(medium(`changes the repository (git ${sub})`));
  return worst(verdicts);
}

/** git branch/tag/remote/stash/config/worktree/reflog in their listing forms. */
function listsOnly(sub: string, words: string[]): boolean {
  const positional = words.filter((w) => !w.startsWith('-'));
  switch (sub) {
    case 'branch':
    case 'tag':
      return (
        positional.length === 0 &&
        words.every((w) => /^(?:-[arvl]+|-vv|--list|--all|--remotes|--show-current|--verbose|--merged|--no-merged|--contains)$/.test(w))
      );
    case 'remote':
      return words.length === 0 || words[0] === '-v' || words[0] === 'show' || words[0] === 'get-url';
    case 'stash':
    case 'worktree':
      return words[0] === 'list' || (sub === 'stash' && words[0] === 'show');
    case 'reflog':
      return words.length === 0 || words[0] === 'show';
    case 'config':
      return (
        words.some((w) => /^(?:--get|--get-all|--get-regexp|--list|-l)$/.test(w)) && !words.some((w) => /^--(?:add|unset|replace|edit|rename|remove)/.test(w))
      );
    default:
      return false;
  }
}

/** A reading git subcommand's options that write a file or run a program. */
function gitReadOptions(sub: string, words: string[], judge: Judge): Verdict {
  const verdicts: Verdict[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    if (w === '--') break;
    if (w === '--output' || w.startsWith('--output=')) verdicts.push(medium(`writes a file (git ${sub} --output)`));
    else if (w === '--ext-diff' || w === '--textconv') verdicts.push(medium(`runs the diff programs set in git configuration (git ${sub} ${w})`));
    else if (sub === 'grep' && (w === '-O' || w.startsWith('-O') || w.startsWith('--open-files-in-pager'))) {
      const program = w.startsWith('--open-files-in-pager=') ? w.slice(22) : w.startsWith('-O') && w.length > 2 ? w.slice(2) : '';
      verdicts.push(
        atLeastMedium(`opens the files found in a program (git grep -O${program === '' ? '' : ` ${program}`})`, program === '' ? READS : judge.line(program)),
      );
    }
  }
  return worst(verdicts);
}
