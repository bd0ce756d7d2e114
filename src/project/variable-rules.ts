/**
 * Variables a command line sets, and the builtins that set them (read, printf -v, mapfile,
 * getopts, let, declare, export, local, readonly, typeset, set -a, hash -p), judged as assignments
 * are: a variable that makes programs load other code (PATH, LD_PRELOAD, GIT_CONFIG_*...) is
 * high however it is set.
 */
import { readOptions } from './command-options.js';
import { atLeastMedium, high, low, medium, READS, unknown, worst, type Judge, type Verdict } from './command-verdict.js';
import { isLoaderVariable } from './loader-variables.js';
import type { ShellWord } from './shell-words.js';

/** Variables that change how the shell itself (or every program it starts) works. */
const SHELL_SETTINGS = new Set(['CDPATH', 'GLOBIGNORE', 'HISTFILE', 'BASH_XTRACEFD', 'FUNCNEST', 'BASH_COMPAT', 'POSIXLY_CORRECT', 'SHELL', 'TMPDIR']);
/** Variables whose value the shell runs, or that choose what a command name runs. */
const SHELL_CODE = new Set(['BASH_CMDS', 'BASH_ALIASES', 'BASH_ENV', 'ENV', 'PROMPT_COMMAND', 'PS4', 'SHELLOPTS', 'BASHOPTS']);
const DECLARES = new Set(['declare', 'typeset', 'local', 'readonly', 'export']);

/**
 * The variable a `NAME=value` word assigns (also `NAME+=value`, `NAME[i]=value`); undefined when
 * it is no assignment, or when its name is known only when it runs (`P${X}=v`).
 */
export function assignedName(word: ShellWord): string | undefined {
  const match = /^([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=/.exec(word.text);
  return match !== null && (word.dynamicAt ?? Infinity) >= match[0].length ? match[1] : undefined;
}

/**
 * Variables set: high when one can make programs load or run other code, medium for IFS, the
 * shell's own settings and anything put in the environment (`exported`), low for a shell
 * variable of another name.
 */
export function judgeVariables(names: string[], exported: boolean): Verdict {
  const loaders = names.filter((n) => isShellLoader(n) || SHELL_CODE.has(n));
  if (loaders.length > 0) return high(`${unique(loaders)} can make programs load or run other code`);
  const verdicts: Verdict[] = [];
  if (names.includes('IFS')) verdicts.push(medium('sets IFS, which changes how the shell splits the words it expands'));
  const settings = names.filter((n) => SHELL_SETTINGS.has(n));
  if (settings.length > 0) verdicts.push(medium(`sets ${unique(settings)}, which changes how the shell or its programs work`));
  const rest = names.filter((n) => n !== 'IFS' && !SHELL_SETTINGS.has(n));
  if (rest.length > 0) verdicts.push(exported ? medium(`sets ${unique(rest)} in the environment`) : low(`sets the shell variable ${unique(rest)}`));
  return worst(verdicts);
}

/** A builtin that sets variables, judged; undefined when `name` is not one. */
export function judgeVariableBuiltin(name: string, args: ShellWord[], judge: Judge): Verdict | undefined {
  if (DECLARES.has(name)) return declareCommand(name, args);
  switch (name) {
    case 'read': {
      const { options, operand } = readOptions(args, { short: 'adinNptu' });
      const arrays = options.flatMap((o) => (o.name === 'a' && o.value !== undefined ? [o.value] : []));
      return setsNamed([...arrays, ...args.slice(operand)], false);
    }
    case 'printf': {
      const { options } = readOptions(args.slice(0, 2), { short: 'v' });
      const target = options.find((o) => o.name === 'v')?.value;
      if (target === undefined) return READS;
      return worst([setsNamed([target], false), ...args.slice(1).map((a) => storedCode(`=${a.text}`))]);
    }
    case 'mapfile':
    case 'readarray': {
      const { options, operand } = readOptions(args, { short: 'dnOsuCc' });
      const callback = options.find((o) => o.name === 'C')?.value;
      const sets = setsNamed(args.slice(operand, operand + 1), false);
      return callback === undefined ? sets : worst([sets, atLeastMedium(`runs a command as it reads (${name} -C)`, judge.line(callback.text))]);
    }
    case 'let': // arithmetic: what it assigns, and what its subscripts substitute
      return judge.line(`((${args.map((a) => a.text).join(' ')}))`);
    case 'getopts':
      return setsNamed(args.slice(1, 2), false);
    case 'set':
      return setCommand(args);
    case 'hash': {
      const { options, operand } = readOptions(args, { short: 'p' });
      const path = options.find((o) => o.name === 'p')?.value?.text;
      const names = args.slice(operand).map((a) => a.text);
      return path === undefined ? READS : high(`makes ${names.join(' ') || 'a command'} run ${path} (hash -p)`);
    }
  }
  return undefined;
}

/** declare, typeset, local, readonly and export: the variables they assign (and, with -n, the ones they name). */
function declareCommand(name: string, args: ShellWord[]): Verdict {
  const flags = new Set<string>();
  let at = 0;
  for (; at < args.length; at++) {
    const w = args[at]?.text ?? '';
    if (w === '--') {
      at++;
      break;
    }
    if (!/^-[A-Za-z]/.test(w) && !/^\+[A-Za-z]/.test(w)) break;
    if (w.startsWith('-')) for (const c of w.slice(1)) flags.add(c);
  }
  if (flags.has('f') || flags.has('F')) return READS; // functions, not variables
  const verdicts: Verdict[] = [];
  const names: string[] = [];
  for (const arg of args.slice(at)) {
    const assigned = assignedName(arg);
    if (assigned === undefined) {
      if (arg.dynamic) verdicts.push(unknown(`sets a variable named only when it runs (${name} ${arg.text})`));
      continue;
    }
    names.push(assigned);
    verdicts.push(subscriptRisk(arg.text), storedCode(arg.text));
    if (flags.has('n')) names.push(arg.text.slice(arg.text.indexOf('=') + 1)); // a reference: setting it sets the one it names
  }
  verdicts.push(names.length === 0 ? READS : judgeVariables(names, name === 'export' || flags.has('x')));
  return worst(verdicts);
}

/** Variables set by name (read, printf -v, mapfile): judged, or unknown when a name is known only when it runs. */
function setsNamed(words: ShellWord[], exported: boolean): Verdict {
  const verdicts: Verdict[] = [];
  const names: string[] = [];
  for (const w of words) {
    if (w.dynamic) verdicts.push(unknown(`sets a variable named only when it runs (${w.text})`));
    else {
      const name = /^[A-Za-z_]\w*/.exec(w.text)?.[0];
      if (name !== undefined) names.push(name);
      verdicts.push(subscriptRisk(w.text));
    }
  }
  if (names.length > 0) verdicts.push(judgeVariables(names, exported));
  return worst(verdicts);
}

/**
 * Unknown when an assignment word's value holds `$(`, a backtick or `${`: stored text that a later
 * arithmetic, indirect or prompt expansion may run (`x='a[$(touch P)]'; echo $((x))`).
 */
export function storedCode(text: string): Verdict {
  const value = text.slice(text.indexOf('=') + 1);
  return /\$\(|`|\$\{/.test(value) ? unknown(`stores text that a later expansion may run (${text})`) : READS;
}

/** An array subscript is arithmetic, and a $(...) in it runs: `read 'a[$(rm -rf x)]'`. */
function subscriptRisk(text: string): Verdict {
  const subscript = /^[A-Za-z_]\w*\[(.*)\]/.exec(text)?.[1];
  return subscript !== undefined && /\$\(|`/.test(subscript) ? unknown(`an array subscript runs commands (${text})`) : READS;
}

/** set -a (and -o allexport) exports every variable set after it; set -k puts every NAME=value word in its command's environment. */
function setCommand(args: ShellWord[]): Verdict {
  const verdicts: Verdict[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]?.text ?? '';
    if (w === '--' || w === '-' || !/^[-+]/.test(w)) break;
    for (const c of w.slice(1)) {
      const option = c === 'o' ? args[++i]?.text : c;
      if (!w.startsWith('-')) continue;
      if (option === 'a' || option === 'allexport') verdicts.push(medium(`exports every variable set after it (set ${c === 'o' ? '-o allexport' : '-a'})`));
      if (option === 'k' || option === 'keyword')
        verdicts.push(medium(`puts every NAME=value word in its command's environment (set ${c === 'o' ? '-o keyword' : '-k'})`));
    }
  }
  return worst(verdicts);
}

/** A loader variable as the shell spells it: names are case-sensitive there (`path` is not PATH), but npm reads npm_config_* in any case. */
function isShellLoader(name: string): boolean {
  return isLoaderVariable(name) && (name === name.toUpperCase() || /^npm_config_/i.test(name));
}

function unique(names: string[]): string {
  return [...new Set(names)].join(', ');
}
