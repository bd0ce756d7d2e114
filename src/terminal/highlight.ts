/**
 * Code in the terminal, colored line by line: comments, strings, numbers and the keywords
 * of the common languages. Deliberately small: the colors help reading, they are not a
 * parser (a line is colored on its own, as an answer streams in line by line).
 */
import type { Style } from './ansi.js';
import type { Span } from './styled.js';

const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue def default defer del delete do elif else enum export extends ' +
    'false final finally fn for from func function go if impl implements import in instanceof interface is let loop match mod ' +
    'module mut new nil none not null of or and package pass private protected pub public raise readonly return self static ' +
    'struct super switch this throw throws trait true try type typeof undefined unsafe use var void where while with yield ' +
    'True False None lambda local then end elseif fi done esac echo export'
  ).split(' '),
);

/** Languages whose line comments start with `#` (else `//` and `--` in SQL and Lua). */
const HASH_COMMENTS = /^(py|python|rb|ruby|sh|bash|zsh|shell|console|yaml|yml|toml|r|perl|pl|dockerfile|make|makefile|ini|conf|elixir|ex|nim)$/i;
const DASH_COMMENTS = /^(sql|lua|haskell|hs|elm)$/i;
/** Fences that hold prose or data, not code: shown uncolored. */
const PLAIN = /^(text|txt|plain|md|markdown|diff|patch|log|output)$/i;

/** One line of code in `lang` (the fence's info string) as colored spans. */
export function highlightLine(line: string, lang: string): Span[] {
  if (PLAIN.test(lang)) return lang.toLowerCase().startsWith('diff') || lang.toLowerCase() === 'patch' ? [diffSpan(line)] : [{ text: line, styles: [] }];
  const comment = HASH_COMMENTS.test(lang) ? '#' : DASH_COMMENTS.test(lang) ? '--' : '//';
  const spans: Span[] = [];
  const push = (text: string, styles: readonly Style[]) => {
    const last = spans.at(-1);
    if (last !== undefined && last.styles === styles) last.text += text;
    else spans.push({ text, styles });
  };
  let i = 0;
  while (i < line.length) {
    const rest = line.slice(i);
    if (rest.startsWith(comment) || rest.startsWith('/*')) {
      push(rest, COMMENT);
      break;
    }
    const quote = rest[0];
    if (quote === '"' || quote === "'" || quote === '`') {
      let end = 1;
      while (end < rest.length && rest[end] !== quote) end += rest[end] === '\\' ? 2 : 1;
      push(rest.slice(0, end + 1), STRING);
      i += end + 1;
      continue;
    }
    const number = /^(0x[\da-f]+|\d[\d_]*(\.\d+)?(e[+-]?\d+)?)\b/i.exec(rest);
    if (number !== null && !/[\w$]/.test(line[i - 1] ?? '')) {
      push(number[0], NUMBER);
      i += number[0].length;
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(rest);
    if (word !== null) {
      const next = line[i + word[0].length];
      push(word[0], KEYWORDS.has(word[0]) ? KEYWORD : next === '(' ? CALL : /^[A-Z]/.test(word[0]) ? TYPE : NONE);
      i += word[0].length;
      continue;
    }
    push(rest[0] ?? '', NONE);
    i++;
  }
  return spans;
}

const NONE: readonly Style[] = [];
const COMMENT: readonly Style[] = ['dim', 'italic'];
const STRING: readonly Style[] = ['green'];
const NUMBER: readonly Style[] = ['yellow'];
const KEYWORD: readonly Style[] = ['magenta'];
const CALL: readonly Style[] = ['blue'];
const TYPE: readonly Style[] = ['cyan'];

function diffSpan(line: string): Span {
  if (line.startsWith('@@')) return { text: line, styles: ['cyan'] };
  if (line.startsWith('+')) return { text: line, styles: ['green'] };
  if (line.startsWith('-')) return { text: line, styles: ['red'] };
  return { text: line, styles: [] };
}
