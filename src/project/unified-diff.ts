/**
 * A unified diff read line by line (git's, with `diff --git` and `---`/`+++` headers; a file
 * edit's, with `+++ path` alone; or a plain line diff with no headers): what each line is,
 * its code without the sign, and the file it belongs to, whose extension names the language
 * to highlight it in. Each side of each file is highlighted as one text, so a string or a
 * comment that spans lines is colored across them.
 */
import { highlightLines, type CodeToken } from './code-highlight.js';

/** What a line of a diff is: a file header, a hunk header, an added, removed or kept line, or other text (`\ No newline`). */
export type DiffLineKind = 'file' | 'hunk' | 'add' | 'del' | 'ctx' | 'note';

/** A line of a diff: its kind, its whole text, and for added, removed and kept lines their sign and code. */
export interface DiffLine {
  kind: DiffLineKind;
  text: string;
  /** `+`, `-` or ` ` (added, removed, kept lines); '' for the others. */
  sign: string;
  /** The line without its sign (the whole line for the others). */
  code: string;
  /** The code's tokens, when its file's language is known (see `highlightDiff`). */
  tokens?: CodeToken[];
}

/** The language highlight.js knows a file by, from its extension; undefined for others (shown plain). */
export function languageOfPath(path: string): string | undefined {
  const name = path.trim().split(/[\\/]/).pop() ?? '';
  if (/^(dockerfile|makefile)$/i.test(name)) return undefined;
  const ext = /\.([^.]+)$/.exec(name)?.[1]?.toLowerCase();
  return ext === undefined ? undefined : EXTENSIONS[ext];
}

const EXTENSIONS: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  json: 'json',
  jsonc: 'json',
  py: 'python',
  rs: 'rust',
  go: 'go',
  sql: 'sql',
  css: 'css',
  html: 'xml',
  htm: 'xml',
  xml: 'xml',
  svg: 'xml',
  md: 'markdown',
  markdown: 'markdown',
  yml: 'yaml',
  yaml: 'yaml',
  sh: 'bash',
  bash: 'bash',
  zsh: 'bash',
};

/** The diff's lines, each with what it is (no highlighting). */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.replace(/\n$/, '').split('\n');
  let inHunk = false;
  return lines.map((text) => {
    if (text.startsWith('diff ')) inHunk = false;
    if (/^(diff |index |--- |\+\+\+ |new file mode|deleted file mode|similarity index|rename (from|to) )/.test(text)) {
      // `--- ` and `+++ ` are headers before a hunk; inside one they are a removed `-- ` or an added `++ `.
      if (!/^(--- |\+\+\+ )/.test(text) || !inHunk) return { kind: 'file', text, sign: '', code: text };
    }
    if (text.startsWith('@@')) {
      inHunk = true;
      return { kind: 'hunk', text, sign: '', code: text };
    }
    const sign = text[0];
    if (sign === '+' || sign === '-' || sign === ' ') return { kind: sign === '+' ? 'add' : sign === '-' ? 'del' : 'ctx', text, sign, code: text.slice(1) };
    if (text === '') return { kind: 'ctx', text, sign: ' ', code: '' };
    return { kind: 'note', text, sign: '', code: text };
  });
}

/**
 * The diff's lines with their code's tokens: the language of each file from its header's
 * path (`+++ b/src/app.ts`), or `language` for a diff without headers. Lines of a file in
 * no known language have none.
 */
export function highlightDiff(diff: string, language?: string): DiffLine[] {
  const lines = diffLines(diff);
  let start = 0;
  let lang = language;
  const flush = (end: number) => {
    if (lang !== undefined) highlightFile(lines.slice(start, end), lang);
    start = end;
  };
  lines.forEach((line, i) => {
    if (line.kind !== 'file') return;
    const path = pathOf(line.text);
    if (path === undefined) return;
    flush(i);
    lang = languageOfPath(path) ?? language;
  });
  flush(lines.length);
  return lines;
}

/** The path a file header names (the new one, or the old one when the file is deleted). */
function pathOf(header: string): string | undefined {
  const named = /^(?:\+\+\+|---) (?:[ab]\/)?(.+?)\s*$/.exec(header)?.[1];
  if (named !== undefined) return named === '/dev/null' ? undefined : named;
  return /^diff --git a\/.+ b\/(.+)$/.exec(header)?.[1];
}

/** Highlights one file's lines: the old side (kept and removed lines) and the new side (kept and added), each as one text. */
function highlightFile(lines: DiffLine[], language: string): void {
  for (const side of ['del', 'add'] as const) {
    const own = lines.filter((l) => l.kind === side || l.kind === 'ctx');
    const tokens = highlightLines(own.map((l) => l.code).join('\n'), language);
    if (tokens === null) return;
    own.forEach((line, i) => {
      if (line.kind === side || side === 'add') line.tokens = tokens[i] ?? [];
    });
  }
}
