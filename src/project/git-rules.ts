/**
 * What a git command does: its subcommands that only read (and their options that write or run
 * a program), the ones that throw work away or publish it, and the settings (-c, git config)
 * that make git run a program.
 */
import { attachedValue, hasShort, longOption, readOptions } from './command-options.js';
import { atLeastMedium, high, medium, READS, unknown, worst, type Judge, type Verdict } from './command-verdict.js';
import type { ShellWord } from './shell-words.js';

const GIT_READS = new Set(
  (
    'status diff log show blame ls-files ls-tree rev-parse grep shortlog describe cat-file rev-list merge-base name-rev show-ref for-each-ref ' +
    'count-objects whatchanged version var check-ignore annotate diff-tree diff-files diff-index cherry'
  ).split(' '),
);
/** Configuration keys whose value is a program git runs, or that bring in settings that can name one. */
const GIT_PROGRAM_KEYS = new RegExp(
  [
    'fsmonitor',
    'pager',
    'editor',
    'sshcommand',
    'hookspath',
    'textconv',
    'external',
    '^alias\\.',
    '^filter\\.',
    'helper',
    'askpass',
    'proxycommand',
    'gitproxy',
    'program',
    'command',
    'cmd',
    'driver',
    '^include',
    'uploadpack',
    'receivepack',
    'packobjectshook',
    '^protocol\\.',
    'templatedir',
    'difffilter',
    'browser',
    '\\.path$',
    '^core\\.worktree$',
  ].join('|'),
  'i',
);
/** Subcommands that can run a program named by an option (--upload-pack, --exec). */
const REMOTE_PROGRAMS = new Set(['fetch', 'pull', 'clone', 'ls-remote', 'archive', 'push', 'fetch-pack', 'send-pack']);

/** git with its arguments. */
export function gitCommand(args: ShellWord[], judge: Judge): Verdict {
  const verdicts: Verdict[] = [];
  let at = 0;
  for (; at < args.length; at++) {
    const a = args[at];
    const w = a?.text ?? '';
    if (a?.dynamic === true) return unknown('git with arguments known only when it runs');
    if (w === '-c' || w === '--config-env' || w.startsWith('--config-env=')) {
      const setting = w === '-c' || w === '--config-env' ? (args[++at]?.text ?? '') : w.slice(13);
      verdicts.push(settingVerdict(setting.split('=')[0] ?? '', `git -c`));
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
  if (rest.some((a) => a.dynamic)) verdicts.push(unknown('git with arguments known only when it runs'));
  if (sub === undefined) return worst(verdicts);
  verdicts.push(subcommand(sub, rest, words, judge));
  if (
    REMOTE_PROGRAMS.has(sub) &&
    words.some((w) => longOption(w, ['upload-pack', 'receive-pack', 'exec']) !== undefined || (sub === 'clone' && hasShort(w, 'u', 'bcjo')))
  ) {
    verdicts.push(high(`runs the program an option names on the remote side (git ${sub} --upload-pack, --exec)`));
  }
  return worst(verdicts);
}

function subcommand(sub: string, rest: ShellWord[], words: string[], judge: Judge): Verdict {
  switch (sub) {
    case 'push':
      return high('pushes to a remote (git push)');
    case 'reset':
      return words.some((w) => longOption(w, ['hard']) !== undefined)
        ? high('throws away changes (git reset --hard)')
        : medium('changes the repository (git reset)');
    case 'clean':
      return words.some((w) => hasShort(w, 'f', 'e') || longOption(w, ['force']) !== undefined)
        ? high('deletes untracked files (git clean -f)')
        : medium('changes the repository (git clean)');
    case 'filter-branch':
    case 'filter-repo':
      return high(`rewrites history (git ${sub})`);
    case 'rebase': {
      const commands = optionValues(words, 'x', 'exec', 'sX');
      if (commands.length === 0) return medium('changes the repository (git rebase)');
      return worst([high('runs a command after each commit (git rebase --exec)'), ...commands.map((c) => judge.line(c))]);
    }
    case 'clone':
    case 'init': {
      const settings = optionValues(words, sub === 'clone' ? 'c' : '', 'config', 'bjou').map((s) => settingVerdict(s.split('=')[0] ?? '', `git ${sub} -c`));
      if (words.some((w) => longOption(w, ['template']) !== undefined)) settings.push(high(`copies hooks from a template (git ${sub} --template)`));
      return worst([medium(`changes the repository (git ${sub})`), ...settings]);
    }
    case 'bisect':
      return words[0] === 'run' ? high('runs a program on each commit (git bisect run)') : medium('changes the repository (git bisect)');
    case 'submodule':
      return words.includes('foreach') ? high('runs a command in each submodule (git submodule foreach)') : medium('changes the repository (git submodule)');
    case 'config':
      return configCommand(rest);
  }
  if (GIT_READS.has(sub) || listsOnly(sub, words)) return gitReadOptions(sub, words, judge);
  return medium(`changes the repository (git ${sub})`);
}

/**
 * The values git's parse-options gives one option anywhere among `words` (it reads options past
 * operands): `-x v`, `-xv`, `--long v`, `--long=v`, or a prefix of the long name.
 */
function optionValues(words: string[], short: string, long: string, takesValue: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i] ?? '';
    if (w === '--') break;
    if (longOption(w, [long]) !== undefined) values.push(attachedValue(w) ?? words[++i] ?? '');
    else if (short !== '' && hasShort(w, short, takesValue)) {
      const rest = w.slice(w.indexOf(short) + 1);
      values.push(rest !== '' ? rest : (words[++i] ?? ''));
    }
  }
  return values;
}

/** A configuration key set: high when its value is a program git runs. */
function settingVerdict(key: string, how: string): Verdict {
  return GIT_PROGRAM_KEYS.test(key) ? high(`${how} ${key} makes git run a program`) : medium(`sets git configuration (${how} ${key})`);
}

/** git config: reading a key or the list is low; setting one is a change, and high when git runs its value. */
function configCommand(rest: ShellWord[]): Verdict {
  const { options, operand } = readOptions(rest, { short: 'f', long: ['file', 'blob', 'type', 'default', 'comment', 'value'] });
  const operands = rest.slice(operand).map((a) => a.text);
  const modes = new Set(options.map((o) => o.name));
  const reads = ['get', 'get-all', 'get-regexp', 'get-urlmatch', 'get-color', 'get-colorbool', 'list', 'l'].some((m) => modes.has(m));
  const subcommands = new Set(['get', 'list', 'set', 'unset', 'rename-section', 'remove-section', 'edit']);
  const verb = subcommands.has(operands[0] ?? '') ? operands.shift() : undefined;
  const changes = ['unset', 'unset-all', 'add', 'replace-all', 'rename-section', 'remove-section', 'edit', 'e'].some((m) => modes.has(m));
  if (!changes && (verb === 'get' || verb === 'list' || reads || (verb === undefined && operands.length === 1))) return READS;
  const key = operands[0];
  if ((verb === 'set' || verb === undefined) && key !== undefined && operands.length >= 2) return settingVerdict(key, 'git config');
  return medium('changes git configuration (git config)');
}

/** git branch/tag/remote/stash/worktree/reflog in their listing forms. */
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
    default:
      return false;
  }
}

/** A reading git subcommand's options that write a file or run a program (long ones by any prefix, as git takes them). */
function gitReadOptions(sub: string, words: string[], judge: Judge): Verdict {
  const verdicts: Verdict[] = [];
  for (const w of words) {
    if (w === '--') break;
    const long = longOption(w, ['output', 'ext-diff', 'textconv', 'filters', 'open-files-in-pager'], ['text', 'filter']);
    if (long === 'output') verdicts.push(medium(`writes a file (git ${sub} --output)`));
    else if (long === 'ext-diff' || long === 'textconv') verdicts.push(medium(`runs the diff programs set in git configuration (git ${sub} --${long})`));
    else if (long === 'filters') verdicts.push(medium(`runs the filter programs set in git configuration (git ${sub} --filters)`));
    else if (sub === 'grep' && (long === 'open-files-in-pager' || hasShort(w, 'O', 'ABCefm'))) {
      const program = long !== undefined ? (attachedValue(w) ?? '') : w.slice(w.indexOf('O') + 1);
      verdicts.push(
        atLeastMedium(`opens the files found in a program (git grep -O${program === '' ? '' : ` ${program}`})`, program === '' ? READS : judge.line(program)),
      );
    }
  }
  return worst(verdicts);
}
