/**
 * How risky a command line looks, for the approval request of run_command.
 */
import type { Risk } from '../action/approval.js';

/** Where a command starts: the line's start, after a control operator, a quote, or a wrapper such as sudo or xargs. */
const AT = String.raw`(?:^|[;&|(\n\x60'"]|\$\()\s*(?:(?:sudo|doas|xargs|env|nohup|time|command|exec|nice)\s+(?:-\S+\s+)*)*(?:\w+=\S*\s+)*`;
const GIT = String.raw`git(?:\s+-[Cc]\s+\S+|\s+--?[\w-]+(?:=\S+)?)*\s+`;
const DESTRUCTIVE = [
  new RegExp(String.raw`${AT}rm\b[^;&|\n]*\s(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\b`),
  new RegExp(String.raw`(?:^|[;&|(\n\x60'"]|\$\()\s*(?:sudo|doas|su)\b`),
  new RegExp(String.raw`${AT}${GIT}push\b`),
  new RegExp(String.raw`${AT}${GIT}reset\b[^;&|\n]*\s--hard\b`),
  new RegExp(String.raw`${AT}${GIT}clean\b[^;&|\n]*\s(?:-[a-zA-Z]*f|--force)`),
  new RegExp(String.raw`${AT}dd(?=\s|$)`),
  new RegExp(String.raw`${AT}mkfs(?:\.\w+)?(?=\s|$)`),
  new RegExp(String.raw`${AT}(?:chmod|chown|chgrp)\b[^;&|\n]*\s(?:-[a-zA-Z]*R|--recursive)\b`),
  new RegExp(String.raw`${AT}find\b[^;&|\n]*\s-delete\b`),
  new RegExp(String.raw`${AT}(?:shutdown|reboot|halt|poweroff)\b`),
  /\b(?:curl|wget)\b[^;&\n]*\|\s*(?:sudo\s+)?(?:\S*\/)?(?:ba|da|k|z|fi)?sh\b/,
  /\b(?:ba|da|k|z)?sh\b[^;&|\n]*(?:<\(|\$\(|`)\s*(?:curl|wget)\b/,
  /[0-9&]?>>?\s*\/dev\/(?!(?:null|stdout|stderr|tty)\b|fd\/)/,
];
const READ_ONLY = new Set([
  'ls',
  'cat',
  'pwd',
  'echo',
  'grep',
  'rg',
  'head',
  'tail',
  'wc',
  'which',
  'file',
  'stat',
  'du',
  'df',
  'tree',
  'date',
  'whoami',
  'uname',
]);
const READ_ONLY_GIT = new Set(['status', 'diff', 'log', 'show', 'blame', 'ls-files', 'rev-parse', 'grep', 'shortlog', 'describe']);

/**
 * How risky a command line looks, for an approval request: 'high' for the obviously
 * destructive (rm -rf, git push, git reset --hard, sudo, curl | sh, dd, mkfs, chmod -R,
 * writing to a device...), 'low' when every command in it only reads (ls, cat, grep,
 * git status/diff/log, npm test...), 'medium' otherwise. A hint for the user, not a
 * sandbox.
 */
export function commandRisk(command: string): Risk {
  if (DESTRUCTIVE.some((pattern) => pattern.test(command))) return 'high';
  const segments = shellSegments(command);
  if (segments === null) return 'medium';
  return segments.every(readOnly) ? 'low' : 'medium';
}

function readOnly(segment: string[]): boolean {
  const words = segment.filter((w, i) => !segment.slice(0, i + 1).every((v) => /^\w+=/.test(v))); // leading VAR=value
  const [first, second, third] = words;
  if (first === undefined || READ_ONLY.has(first)) return true;
  if (first === 'find') return !words.some((w) => /^-(?:exec|execdir|ok|okdir|delete|fprint|fprintf|fls)$/.test(w));
  if (first === 'git') return second !== undefined && READ_ONLY_GIT.has(second);
  if (first === 'npm') return second === 'test' || second === 't' || second === 'ls' || (second === 'run' && third === 'test');
  return false;
}

/**
 * The simple commands of a command line, split at ; & | and new lines outside quotes, as
 * words; null when it does more than run commands that read (command substitution, or
 * output redirected to a file).
 */
function shellSegments(command: string): string[][] | null {
  const segments: string[][] = [];
  let words: string[] = [];
  let word = '';
  let quote: "'" | '"' | undefined;
  const endWord = () => {
    if (word !== '') words.push(word);
    word = '';
  };
  const endSegment = () => {
    endWord();
    if (words.length > 0) segments.push(words);
    words = [];
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i] ?? '';
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (c === '`' || (c === '$' && command[i + 1] === '(') || (c === '<' && command[i + 1] === '(')) return null;
    else if (quote === '"') {
      if (c === '"') quote = undefined;
      else word += c;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '>') {
      const target = /^>?\s*(&[0-9-]|\/dev\/null\b)/.exec(command.slice(i + 1));
      if (target === null) return null;
      if (/^[0-9]*$/.test(word)) word = ''; // the '2' of '2>&1'
      endWord();
      i += target[0].length;
    } else if (c === ';' || c === '&' || c === '|' || c === '\n') endSegment();
    else if (/\s/.test(c)) endWord();
    else word += c;
  }
  endSegment();
  return segments;
}
