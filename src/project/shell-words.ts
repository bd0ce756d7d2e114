/**
 * A command line read the way a POSIX shell reads it, far enough to judge what it runs: its
 * simple commands (split at ; & && | || newlines and parentheses), each as words with the
 * quoting removed (`r''m`, `"rm"`, `\rm` and `$'\x72m'` are all `rm`), its redirections, and
 * the command lines nested in it ($(...), backticks, <(...), >(...)), to be judged too, what a
 * command is fed (a heredoc's body, the command piping into it) and the variables that
 * expansions assign (`${X:=...}`).
 */

/** One word, its quotes and backslashes removed; `dynamic` when part of it is only known when it runs ($VAR, $(...)). */
export interface ShellWord {
  text: string;
  dynamic: boolean;
  quoted: boolean;
  /** When the word has unquoted braces: its text with the quoted characters backslash-escaped, for brace expansion. */
  brace?: string;
  /** Where in `text` the first part known only when it runs starts (`$X`, `${X}`, `$(...)`): before it the word is literal. */
  dynamicAt?: number;
}

/** A redirection: its operator (`>`, `>>`, `&>`, `<`, `<<`...) and its target word. */
export interface ShellRedirect {
  op: string;
  target: ShellWord | undefined;
  /** A heredoc's body (`<<`, `<<-`), as written. */
  body?: string;
}

/** One simple command: its words (assignments first, as written), its redirections, and the command piping into it. */
export interface SimpleCommand {
  words: ShellWord[];
  redirects: ShellRedirect[];
  pipedFrom?: SimpleCommand;
}

/** A command line read: its commands, the command lines nested in it, the variables its expansions assign; `problem` when it cannot be read. */
export interface ShellLine {
  commands: SimpleCommand[];
  nested: string[];
  assigned: string[];
  problem?: string;
}

/** `${NAME=...}` and `${NAME:=...}` assign NAME when it is unset (or empty). */
const EXPANSION_ASSIGNS = /\$\{([A-Za-z_]\w*):?=/g;
/** An assignment in arithmetic: `x = 1`, `x += 2`, `x <<= 1` (not `x == 1`, `x <= 1`). */
const ARITHMETIC_ASSIGNS = /([A-Za-z_]\w*)(?:\[[^\]]*\])?\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)/g;
/** A word that assigns an array when a parenthesis follows: `NAME=(` or `NAME+=(`. */
const ARRAY_ASSIGNMENT = /^[A-Za-z_]\w*\+?=$/;

const ANSI_C: Record<string, string> = { n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v' };

/** Reads a command line into its simple commands and nested command lines. */
export function readShellLine(line: string): ShellLine {
  const commands: SimpleCommand[] = [];
  const nested: string[] = [];
  const assigned: string[] = [];
  let words: ShellWord[] = [];
  let redirects: ShellRedirect[] = [];
  let word: ShellWord | undefined;
  /** The word with its quoted characters escaped, and whether it has an unquoted brace. */
  let pattern = '';
  let braced = false;
  let redirect: string | undefined;
  let pipeSource: SimpleCommand | undefined;
  let inArray = false;
  const heredocs: { delimiter: string; strip: boolean; quoted: boolean; redirect: ShellRedirect }[] = [];
  const add = (text: string, dynamic = false, quoted = false) => {
    word ??= { text: '', dynamic: false, quoted: false };
    word.text += text;
    pattern += quoted || dynamic ? text.replace(/[\\{},.]/g, '\\$&') : text;
    if (!quoted && !dynamic && text.includes('{')) braced = true;
    if (dynamic) {
      word.dynamicAt ??= word.text.length - text.length;
      word.dynamic = true;
    }
    if (quoted) word.quoted = true;
  };
  const dropWord = () => {
    word = undefined;
    pattern = '';
    braced = false;
  };
  const endWord = () => {
    if (word === undefined) return;
    if (braced && pattern.includes('}')) word.brace = pattern;
    if (redirect === undefined) words.push(word);
    else {
      const target: ShellRedirect = { op: redirect, target: word };
      if (redirect === '<<' || redirect === '<<-') heredocs.push({ delimiter: word.text, strip: redirect === '<<-', quoted: word.quoted, redirect: target });
      redirects.push(target);
      redirect = undefined;
    }
    dropWord();
  };
  const endCommand = () => {
    endWord();
    if (redirect !== undefined) redirects.push({ op: redirect, target: undefined });
    redirect = undefined;
    if (words.length > 0 || redirects.length > 0) {
      commands.push(pipeSource === undefined ? { words, redirects } : { words, redirects, pipedFrom: pipeSource });
      pipeSource = undefined;
    }
    words = [];
    redirects = [];
  };
  const fail = (problem: string): ShellLine => ({ commands, nested, assigned, problem });
  /** Text expanded as between double quotes (a heredoc's body, arithmetic): its substitutions and assignments. */
  const readExpanded = (text: string) => {
    const inner = readShellLine(`"${text.replace(/"/g, '\\"')}"`);
    nested.push(...inner.nested);
    assigned.push(...inner.assigned);
  };
  /** An arithmetic expression: what it substitutes, and the variables it assigns (`x = 1`, `x += 2`). */
  const readArithmetic = (expression: string) => {
    readExpanded(expression);
    for (const m of expression.matchAll(ARITHMETIC_ASSIGNS)) assigned.push(m[1] ?? '');
  };

  /** After `$` at i: the index past what it expands, the expansion added to the word. */
  const dollar = (i: number, inDouble: boolean): number | undefined => {
    const next = line[i + 1];
    if (next === '(') {
      const arithmetic = line[i + 2] === '(';
      const end = closing(line, i + 1, '(', ')');
      if (end === undefined) return undefined;
      const inner = line.slice(i + 2, end);
      if (arithmetic) readArithmetic(inner.slice(1, -1));
      else nested.push(inner);
      add(line.slice(i, end + 1), true);
      return end + 1;
    }
    if (next === '{') {
      const end = closing(line, i + 1, '{', '}');
      if (end === undefined) return undefined;
      const inner = line.slice(i + 2, end);
      if (/\$\(|`/.test(inner)) nested.push(inner);
      for (const m of `\${${inner}`.matchAll(EXPANSION_ASSIGNS)) assigned.push(m[1] ?? '');
      add(line.slice(i, end + 1), true);
      return end + 1;
    }
    if (next === "'" && !inDouble) {
      let text = '';
      let j = i + 2;
      for (; j < line.length && line[j] !== "'"; j++) {
        if (line[j] !== '\\') {
          text += line[j];
          continue;
        }
        const e = line[++j] ?? '';
        const hex = /^x([0-9a-fA-F]{1,2})/.exec(line.slice(j));
        const octal = /^[0-7]{1,3}/.exec(line.slice(j));
        if (hex !== null) {
          text += String.fromCharCode(parseInt(hex[1] ?? '0', 16));
          j += hex[0].length - 1;
        } else if (octal !== null) {
          text += String.fromCharCode(parseInt(octal[0], 8));
          j += octal[0].length - 1;
        } else text += ANSI_C[e] ?? e;
      }
      if (j >= line.length) return undefined;
      add(text, false, true);
      return j + 1;
    }
    if (next === '"' && !inDouble) return i + 1; // $"...": a locale string, read as "..."
    const name = /^(?:[A-Za-z_]\w*|[0-9@*#?$!-])/.exec(line.slice(i + 1));
    if (name === null) {
      add('$');
      return i + 1;
    }
    add(`$${name[0]}`, true);
    return i + 1 + name[0].length;
  };

  const backtick = (i: number): number | undefined => {
    let inner = '';
    let j = i + 1;
    for (; j < line.length && line[j] !== '`'; j++) {
      if (line[j] === '\\' && /[`\\$]/.test(line[j + 1] ?? '')) j++;
      inner += line[j];
    }
    if (j >= line.length) return undefined;
    nested.push(inner);
    add(line.slice(i, j + 1), true);
    return j + 1;
  };

  let i = 0;
  while (i < line.length) {
    const c = line[i] ?? '';
    if (c === '\\') {
      if (line[i + 1] !== '\n') add(line[i + 1] ?? '', false, true);
      i += 2;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) return fail('a quote that does not end');
      add(line.slice(i + 1, end), false, true);
      i = end + 1;
    } else if (c === '"') {
      add('', false, true);
      let j = i + 1;
      for (; j < line.length && line[j] !== '"';) {
        const d = line[j] ?? '';
        if (d === '\\' && /[$`"\\\n]/.test(line[j + 1] ?? '')) {
          if (line[j + 1] !== '\n') add(line[j + 1] ?? '');
          j += 2;
        } else if (d === '$') {
          const after = dollar(j, true);
          if (after === undefined) return fail('a $( or ${ that does not end');
          j = after;
        } else if (d === '`') {
          const after = backtick(j);
          if (after === undefined) return fail('a backtick that does not end');
          j = after;
        } else {
          add(d, false, true);
          j++;
        }
      }
      if (j >= line.length) return fail('a quote that does not end');
      i = j + 1;
    } else if (c === '$') {
      const after = dollar(i, false);
      if (after === undefined) return fail('a $( or ${ that does not end');
      i = after;
    } else if (c === '`') {
      const after = backtick(i);
      if (after === undefined) return fail('a backtick that does not end');
      i = after;
    } else if ((c === '<' || c === '>') && line[i + 1] === '(') {
      const end = closing(line, i + 1, '(', ')');
      if (end === undefined) return fail('a process substitution that does not end');
      nested.push(line.slice(i + 2, end));
      add(line.slice(i, end + 1), true);
      i = end + 1;
    } else if (c === '#' && word === undefined) {
      while (i < line.length && line[i] !== '\n') i++;
    } else if (inArray && (/\s/.test(c) || c === ')')) {
      if (c === ')') inArray = false;
      add(c === ')' ? ')' : ' ');
      i++;
    } else if (c === '(' && word === undefined && words.length === 0 && arithmeticEnd(line, i) !== undefined) {
      const end = arithmeticEnd(line, i) ?? i; // (( arithmetic ))
      readArithmetic(line.slice(i + 2, end - 1));
      i = end + 1;
    } else if (c === '(' && word !== undefined && !word.quoted && ARRAY_ASSIGNMENT.test(word.text)) {
      inArray = true;
      add('(');
      i++;
    } else if (c === '\n') {
      endCommand();
      i++;
      for (const heredoc of heredocs.splice(0)) {
        const body: string[] = [];
        for (;;) {
          if (i >= line.length) break;
          const eol = line.indexOf('\n', i);
          const raw = line.slice(i, eol < 0 ? line.length : eol);
          const text = heredoc.strip ? raw.replace(/^\t+/, '') : raw;
          i = eol < 0 ? line.length : eol + 1;
          if (text === heredoc.delimiter) break;
          body.push(text);
        }
        const joined = body.join('\n');
        heredoc.redirect.body = joined;
        if (!heredoc.quoted) readExpanded(joined); // its expansions run, as in double quotes
      }
    } else if (c === '&' && line[i + 1] === '>') {
      endWord();
      redirect = line[i + 2] === '>' ? '&>>' : '&>';
      i += redirect.length;
    } else if (c === '|' && line[i + 1] !== '|') {
      endCommand();
      pipeSource = commands.at(-1);
      i += line[i + 1] === '&' ? 2 : 1;
    } else if (c === '|') {
      endCommand();
      i += 2;
    } else if (c === ';' || c === '&' || c === '(' || c === ')') {
      endCommand();
      i++;
    } else if (c === '<' || c === '>') {
      if (word !== undefined && !word.quoted && !word.dynamic && /^\d+$/.test(word.text)) dropWord(); // the 2 of 2>
      endWord();
      const op = /^(?:<<<|<<-|<<|<>|<&|>>|>\||>&|<|>)/.exec(line.slice(i))?.[0] ?? c;
      redirect = op;
      i += op.length;
    } else if (/\s/.test(c)) {
      endWord();
      i++;
    } else {
      add(c);
      i++;
    }
  }
  endCommand();
  return { commands, nested, assigned };
}

/** Where `((` at `open` ends as an arithmetic command (the index of its last `)`), or undefined when it is not one. */
function arithmeticEnd(line: string, open: number): number | undefined {
  if (line[open + 1] !== '(') return undefined;
  const end = closing(line, open, '(', ')');
  return end !== undefined && closing(line, open + 1, '(', ')') === end - 1 ? end : undefined;
}

/** The index of the bracket closing the one at `open`, skipping quotes and nested pairs; undefined when it does not close. */
function closing(line: string, open: number, left: string, right: string): number | undefined {
  let depth = 0;
  for (let j = open; j < line.length; j++) {
    const c = line[j];
    if (c === '\\') j++;
    else if (c === "'") {
      const end = line.indexOf("'", j + 1);
      if (end < 0) return undefined;
      j = end;
    } else if (c === left) depth++;
    else if (c === right && --depth === 0) return j;
  }
  return undefined;
}
