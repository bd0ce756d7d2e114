/**
 * How risky a command line looks, for the approval request of run_command: read as the shell
 * reads it (shell-words.ts), each simple command judged by the program it runs (command-rules.ts),
 * the line as risky as its riskiest part.
 */
import type { Risk } from '../action/approval.js';
import { expandBraces } from './brace-expansion.js';
import { judgeProgram } from './command-rules.js';
import { high, medium, READS, unknown, worst, type Judge, type Verdict } from './command-verdict.js';
import { readShellLine, type ShellRedirect, type ShellWord, type SimpleCommand } from './shell-words.js';
import { protectedName } from './protected-paths.js';
import { assignedName, judgeVariables, storedCode } from './variable-rules.js';

/** A command line's risk and, in a few words, why. */
export interface CommandRisk {
  risk: Risk;
  reason: string;
}

/** Folders a system program runs from: `/bin/rm` is judged as `rm`. */
const SYSTEM_DIRS = /^\/(?:usr\/(?:local\/)?)?s?bin$|^\/opt\/homebrew\/bin$/;
/** Words of the shell's own grammar in front of a command. */
const KEYWORDS = new Set(['!', '{', '}', 'then', 'do', 'else', 'elif', 'if', 'while', 'until', 'time', 'done', 'fi', 'esac', 'coproc']);
/** Commands whose words are data (for x in ...; case x in ...). */
const SYNTAX = new Set(['for', 'case', 'select', 'in', 'function']);
/** Files git runs or takes programs from: a write to one is a program git will run. */
const GIT_RUNS = /(?:^|\/)\.git\/+(?:hooks(?:\/|$)|config$)/i;
const MAX_DEPTH = 8;

/**
 * How risky a command line looks, and why: 'high' for the obviously destructive or hidden
 * (rm -rf, git push, git reset --hard, sudo, curl | sh, dd, mkfs, chmod -R, writing to a device
 * or to .git/hooks, PATH, LD_PRELOAD or GIT_CONFIG_* set however: in front of a command, by
 * export, read or printf -v), 'unknown' when it runs a program the rules do not know (a project
 * script, a program named at run time or by brace expansion), 'medium' when it writes, runs a
 * project's scripts or other programs (npm test, make, cargo, node -e, bash -c, sed -i, tee,
 * > file, find -exec, xargs, git -c, rg --pre, environment assignments...), 'low' only when
 * every part of it only reads (ls, cat, grep, git status/diff/log) or sets a shell variable of
 * a harmless name. `\rm`, `/bin/rm`, `"rm"` and `r''m` are all `rm`; wrappers (env, nice,
 * timeout, xargs, busybox...) are seen through; abbreviated long options (`--recur`) count as
 * the option; what a shell reads from a here-string, heredoc or `echo ... |` is judged too.
 * A hint for the user, not a sandbox.
 */
export function assessCommand(command: string): CommandRisk {
  const { verdict } = judgeLine(command, 0);
  return { risk: verdict.risk, reason: verdict.reason };
}

/** The risk alone (see `assessCommand`). */
export function commandRisk(command: string): Risk {
  return assessCommand(command).risk;
}

interface LineVerdict {
  verdict: Verdict;
  tags: Set<string>;
}

function judgeLine(line: string, depth: number): LineVerdict {
  if (depth > MAX_DEPTH) return { verdict: unknown('commands nested too deeply to read'), tags: new Set() };
  const read = readShellLine(line);
  if (read.problem !== undefined) return { verdict: unknown(`the shell cannot read it (${read.problem})`), tags: new Set() };
  const tags = new Set<string>();
  const judgeWith = (input: string | undefined): Judge => {
    const judge: Judge = {
      input,
      line: (text) => {
        const inner = judgeLine(text, depth + 1);
        for (const tag of inner.tags) tags.add(tag);
        return inner.verdict;
      },
      words: (words) => judgeWords(words, judge, tags),
    };
    return judge;
  };
  const verdicts: Verdict[] = read.commands.map((command) => judgeCommand(command, judgeWith(commandInput(command)), tags));
  for (const nested of read.nested) verdicts.push(judgeWith(undefined).line(nested));
  if (read.assigned.length > 0) verdicts.push(judgeVariables(read.assigned, false));
  // ${!name} and ${name@P} expand text as a name or a prompt, which can run what the text holds
  if (/\$\{![A-Za-z_]\w*(?![\w*]|\[[@*]\])/.test(line)) verdicts.push(unknown('an indirect expansion (${!name}) may run what a later expansion finds'));
  if (/\$\{[^}]*@P\}/.test(line)) verdicts.push(unknown('a prompt expansion (${name@P}) runs the commands its text holds'));
  if (tags.has('download') && tags.has('interpreter')) verdicts.push(high('downloads code and runs it'));
  return { verdict: worst(verdicts), tags };
}

function judgeCommand(command: SimpleCommand, judge: Judge, tags: Set<string>): Verdict {
  const verdicts = command.redirects.map(judgeRedirect);
  verdicts.push(judgeWords(command.words, judge, tags));
  return worst(verdicts);
}

/** What a command reads on its standard input when the line spells it: a here-string, a heredoc's body, what echo or printf pipes in. */
function commandInput(command: SimpleCommand): string | undefined {
  const input = command.redirects.filter((r) => r.op.startsWith('<') && r.op !== '<&' && r.op !== '<>').at(-1);
  if (input?.op === '<<<') return input.target === undefined ? undefined : `${input.target.text}\n`;
  if (input?.op === '<<' || input?.op === '<<-') return input.body;
  if (input !== undefined || command.pipedFrom === undefined) return undefined;
  const [program, ...args] = command.pipedFrom.words.map((w) => w.text);
  if (program === 'cat' && args.length === 0) return commandInput(command.pipedFrom); // cat <<EOF | sh
  if (program === 'echo') return args.filter((a, i) => !(i === 0 && /^-[neE]+$/.test(a))).join(' ');
  if (program === 'printf') return args.join(' ').replace(/\\n/g, '\n');
  return undefined;
}

function judgeRedirect({ op, target }: ShellRedirect): Verdict {
  if (op.startsWith('<') && op !== '<>') return target === undefined ? READS : readsWorkspace(target.text);
  if (target === undefined) return unknown(`a redirection (${op}) with no target`);
  const to = target.text;
  if (!target.dynamic && (op === '>&' || op === '<&') && /^(?:\d+|-)$/.test(to)) return READS;
  if (!target.dynamic && /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/.test(to)) return READS;
  if (!target.dynamic && to.startsWith('/dev/')) return high(`writes to the device ${to}`);
  if (GIT_RUNS.test(to)) return high(`writes to ${to}, git's hooks or configuration, which git runs`);
  return medium(target.dynamic ? 'writes to a file named when it runs' : `writes to ${to}`);
}

/** A simple command's words: assignments, then the program and its arguments. */
function judgeWords(all: ShellWord[], judge: Judge, tags: Set<string>): Verdict {
  let words = all;
  while (words[0] !== undefined && !words[0].quoted && (KEYWORDS.has(words[0].text) || words[0].text === 'function')) {
    const keyword = words[0].text;
    words = words.slice(keyword === 'function' ? 2 : 1); // function NAME { body }: the body is judged
    if (keyword === 'time') while (words[0]?.text === '-p' || words[0]?.text === '--') words = words.slice(1);
  }
  const first = words[0];
  if (first === undefined) return READS;
  if (!first.quoted && SYNTAX.has(first.text)) return READS;
  const verdicts: Verdict[] = [];
  let at = 0;
  const assigned: string[] = [];
  for (; at < words.length; at++) {
    const word = words[at];
    const name = word === undefined ? undefined : assignedName(word);
    if (name === undefined) break;
    assigned.push(name);
  }
  const expanded = expandWords(words.slice(at));
  if (expanded.verdict !== undefined) verdicts.push(expanded.verdict);
  const [program, ...args] = expanded.words;
  verdicts.push(judgeVariables(assigned, program !== undefined), ...words.slice(0, at).map((w) => storedCode(w.text)));
  if (program === undefined) return worst(verdicts);
  const run = judgeRun(program, args, judge, tags);
  verdicts.push(run);
  const hook = args.find((a) => GIT_RUNS.test(a.text));
  if (hook !== undefined) verdicts.push(high(`names ${hook.text}, git's hooks or configuration, which git runs (a write there runs later)`));
  verdicts.push(...args.map((a) => readsWorkspace(a.text)));
  return worst(verdicts);
}

/** Medium when a word names Golem's workspace or git's data (`.golem`, `.git` in any spelling, a `workspace.db`). */
function readsWorkspace(word: string): Verdict {
  const named = word.split(/[/\\=]/).find((part) => protectedName(part) !== undefined || /^workspace\.db(?:-wal|-shm)?$/i.test(part));
  return named === undefined ? READS : medium(`reads Golem's workspace files or git's data (${word})`);
}

/** The words after brace expansion (`{rm,-rf,x}` is three words); unknown when the program's name comes from one. */
function expandWords(words: ShellWord[]): { words: ShellWord[]; verdict?: Verdict } {
  if (!words.some((w) => w.brace !== undefined)) return { words };
  const out: ShellWord[] = [];
  for (const word of words) {
    const texts = word.brace === undefined ? [word.text] : expandBraces(word.brace);
    if (texts === undefined) return { words, verdict: unknown(`a brace expansion too large to read (${word.text})`) };
    out.push(...texts.map((text) => ({ text, dynamic: word.dynamic, quoted: word.quoted })));
  }
  const programBraced = words[0]?.brace !== undefined && out[0]?.text !== words[0]?.text;
  return programBraced ? { words: out, verdict: unknown(`brace expansion spells the program (${words[0]?.text ?? ''})`) } : { words: out };
}

function judgeRun(program: ShellWord, args: ShellWord[], judge: Judge, tags: Set<string>): Verdict {
  if (program.dynamic) return unknown('runs a program named only when it runs');
  const path = program.text;
  const slash = path.lastIndexOf('/');
  const name = slash < 0 ? path : path.slice(slash + 1);
  const verdict = judgeProgram(name, args, judge);
  if (verdict.tag !== undefined) tags.add(verdict.tag);
  if (slash >= 0 && !SYSTEM_DIRS.test(path.slice(0, slash)) && verdict.risk !== 'high') {
    return unknown(`runs ${path}, a program the rules do not know`);
  }
  return verdict;
}
