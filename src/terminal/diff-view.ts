/**
 * A diff in the terminal: file headers bold, hunks cyan, each added and removed line's sign
 * in green or red, and its code highlighted in the language of its file's extension (by
 * highlight.js, as on the page), the rest of an added line green and of a removed one red.
 * highlight.js is loaded with the first diff shown, not with the terminal.
 */
import type { DiffLine } from '../project/unified-diff.js';
import { sanitize, type Style } from './ansi.js';
import type { Screen } from './screen.js';

/** The diff's lines as the terminal draws them (painted when the screen paints). */
export async function diffRows(screen: Screen, diff: string): Promise<string[]> {
  const body = sanitize(diff).replace(/\n$/, '');
  if (body === '') return [];
  // Without colors the text is the diff as it is: highlighting would add nothing.
  if (!screen.colored) return body.split('\n');
  const { highlightDiff } = await import('../project/unified-diff.js');
  return highlightDiff(body).map((line) => diffRow(screen, line));
}

function diffRow(screen: Screen, line: DiffLine): string {
  const base = LINE_STYLE[line.kind];
  if (line.tokens === undefined) return screen.paint(base, line.text);
  const sign = line.kind === 'ctx' ? line.sign : screen.paint(base, screen.paint('bold', line.sign));
  // Neighbouring tokens of one color painted as one run.
  const runs: { style: Style | undefined; text: string }[] = [];
  for (const token of line.tokens) {
    const style = tokenStyle(token.className) ?? base;
    const last = runs.at(-1);
    if (last !== undefined && last.style === style) last.text += token.text;
    else runs.push({ style, text: token.text });
  }
  return sign + runs.map((run) => screen.paint(run.style, run.text)).join('');
}

const LINE_STYLE: Record<DiffLine['kind'], Style | undefined> = { file: 'bold', hunk: 'cyan', add: 'green', del: 'red', ctx: undefined, note: 'dim' };

/** The terminal color of a highlight.js token class (the first of its classes that has one); undefined: the line's own. */
function tokenStyle(className: string | undefined): Style | undefined {
  for (const name of className?.split(' ') ?? []) {
    const style = TOKEN_STYLE[name.replace(/^hljs-/, '')];
    if (style !== undefined) return style;
  }
  return undefined;
}

const TOKEN_STYLE: Record<string, Style> = {
  keyword: 'magenta',
  'selector-tag': 'magenta',
  doctag: 'magenta',
  'template-tag': 'magenta',
  type: 'magenta',
  string: 'yellow',
  regexp: 'yellow',
  comment: 'dim',
  quote: 'dim',
  meta: 'dim',
  number: 'cyan',
  literal: 'cyan',
  built_in: 'cyan',
  symbol: 'cyan',
  attr: 'cyan',
  title: 'blue',
  section: 'blue',
  name: 'blue',
  tag: 'blue',
};
