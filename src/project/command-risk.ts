/**
 * How risky a command line looks, for the approval request of run_command: read as the shell
 * reads it (shell-words.ts), each simple command judged by the program it runs (command-rules.ts),
 * the line as risky as its riskiest part.
 */
import type { Risk } from '../action/approval.js';
import { judgeProgram, READS, worst, type Judge, type Verdict } from './command-rules.js';
import { isLoaderVariable } from './loader-variables.js';
import { readShellLine, type ShellWord, type SimpleCommand } from './shell-words.js';

/** A command line's risk and, in a few words, why. */
export interface CommandRisk {
  risk: Risk;
  reason: string;
}

/** Folders a system program runs from: `/bin/rm` is judged as `rm`. */
const SYSTEM_DIRS = /^\/(?:usr\/(?:local\/)?)?s?bin$|^\/opt\/homebrew\/bin$/;
/** Words of the shell's own grammar in front of a command. */
const KEYWORDS = new Set(['!', '{', '}', 'then', 'do', 'else', 'elif', 'if', 'while', 'until', 'time', 'done', 'fi', 'esac']);
/** Commands whose words are data (for x in ...; case x in ...). */
const SYNTAX = new Set(['for', 'case', 'select', 'in', 'function']);
const MAX_DEPTH = 8;

/**
 * How risky a command line looks, and why: 'high' for the obviously destructive or hidden
 * (rm -rf, git push, git reset --hard, sudo, curl | sh, dd, mkfs, chmod -R, writing to a device,
 * LD_PRELOAD or GIT_CONFIG_* in front of a command), 'unknown' when it runs a program the rules
 * do not know (a project script, a program named at run time), 'medium' when it writes, runs a
 * project's scripts or other programs (npm test, make, node -e, bash -c, sed -i, tee, > file,
 * find -exec, xargs, git -c, rg --pre, environment assignments...), 'low' only when every part
 * of it only reads (ls, cat, grep, git status/diff/log). `\rm`, `/bin/rm`, `"rm"` and `r''m`
 * are all `rm`. A hint for the user, not a sandbox.
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
  if (depth > MAX_DEPTH) return { verdict: { risk: 'unknown', reason: 'commands nested too deeply to read' }, tags: new Set() };
  const read = readShellLine(line);
  if (read.problem !== undefined) return { verdict: { risk: 'unknown', reason: `the shell cannot read it (${read.problem})` }, tags: new Set() };
  const verdicts: Verdict[] = [];
  const tags = new Set<string>();
  const judge: Judge = {
    line: (text) => {
      const inner = judgeLine(text, depth + 1);
      for (const tag of inner.tags) tags.add(tag);
      return inner.verdict;
    },
    words: (words) => judgeWords(words, judge, tags),
  };
  for (const command of read.commands) verdicts.push(judgeCommand(command, judge, tags));
  for (const nested of read.nested) verdicts.push(judge.line(nested));
  if (tags.has('download') && tags.has('interpreter')) verdicts.push({ risk: 'high', reason: 'downloads code and runs it' });
  return { verdict: worst(verdicts), tags };
}

function judgeCommand(command: SimpleCommand, judge: Judge, tags: Set<string>): Verdict {
  const verdicts = command.redirects.map(judgeRedirect);
  verdicts.push(judgeWords(command.words, judge, tags));
  return worst(verdicts);
}

function judgeRedirect({ op, target }: SimpleCommand['redirects'][number]): Verdict {
  if (op.startsWith('<') && op !== '<>') return READS;
  if (target === undefined) return { risk: 'unknown', reason: `a redirection (${op}) with no target` };
  const to = target.text;
  if (!target.dynamic && (op === '>&' || op === '<&') && /^(?:\d+|-)$/.test(to)) return READS;
  if (!target.dynamic && /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/.test(to)) return READS;
  if (!target.dynamic && to.startsWith('/dev/')) return { risk: 'high', reason: `writes to the device ${to}` };
  return { risk: 'medium', reason: target.dynamic ? 'writes to a file named when it runs' : `writes to ${to}` };
}

/** A simple command's words: assignments, then the program and its arguments. */
function judgeWords(all: ShellWord[], judge: Judge, tags: Set<string>): Verdict {
  let words = all;
  while (words[0] !== undefined && !words[0].quoted && KEYWORDS.has(words[0].text)) words = words.slice(1);
  const first = words[0];
  if (first === undefined) return READS;
  if (!first.quoted && SYNTAX.has(first.text)) return READS;
  const verdicts: Verdict[] = [];
  let at = 0;
  const assigned: string[] = [];
  for (; at < words.length; at++) {
    const name = /^([A-Za-z_]\w*)=/.exec(words[at]?.text ?? '')?.[1];
    if (name === undefined) break;
    assigned.push(name);
  }
  if (assigned.length > 0) verdicts.push(judgeAssignments(assigned));
  const program = words[at];
  if (program === undefined) return worst(verdicts);
  verdicts.push(judgeRun(program, words.slice(at + 1), judge, tags));
  return worst(verdicts);
}

/** Environment assignments in front of a command (or `env NAME=value`): never low. */
function judgeAssignments(names: string[]): Verdict {
  const loaders = names.filter(isLoaderVariable);
  if (loaders.length > 0) return { risk: 'high', reason: `${loaders.join(', ')} can make the program load or run other code` };
  return { risk: 'medium', reason: `sets ${names.join(', ')} in the environment` };
}

function judgeRun(program: ShellWord, args: ShellWord[], judge: Judge, tags: Set<string>): Verdict {
  if (program.dynamic) return { risk: 'unknown', reason: 'runs a program named only when it runs' };
  const path = program.text;
  const slash = path.lastIndexOf('/');
  const name = slash < 0 ? path : path.slice(slash + 1);
  const verdict = judgeProgram(name, args, judge);
  if (verdict.tag !== undefined) tags.add(verdict.tag);
  if (slash >= 0 && !SYSTEM_DIRS.test(path.slice(0, slash)) && verdict.risk !== 'high') {
    return { risk: 'unknown', reason: `runs ${path}, a program the rules do not know` };
  }
  return verdict;
}
