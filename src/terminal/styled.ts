/**
 * Styled text for the terminal: runs of text each in its own styles, wrapped at word
 * boundaries to a width (wide characters counted as two columns), then painted.
 */
import { sgrAll, type Style } from './ansi.js';
import { graphemes, graphemeWidth } from './text-width.js';

/** A run of text in one set of styles. */
export interface Span {
  text: string;
  styles: readonly Style[];
}

/** One terminal column's worth of a span: a grapheme, its width and its styles. */
interface Cell {
  g: string;
  w: number;
  styles: readonly Style[];
}

/** The columns the spans take. */
export function spansWidth(spans: readonly Span[]): number {
  let width = 0;
  for (const span of spans) for (const g of graphemes(span.text)) width += graphemeWidth(g);
  return width;
}

/**
 * The spans laid out in lines of at most `width` columns: broken at spaces, a word longer
 * than a line cut where the line ends. Spaces at the ends of lines are dropped; a newline
 * in a span starts a new line.
 */
export function wrapSpans(spans: readonly Span[], width: number): Span[][] {
  const room = Math.max(1, width);
  const lines: Cell[][] = [];
  let line: Cell[] = [];
  let used = 0;
  let space: Cell[] = [];
  let word: Cell[] = [];
  let wordWidth = 0;
  const endLine = () => {
    lines.push(line);
    line = [];
    used = 0;
  };
  const placeWord = () => {
    if (word.length === 0) return;
    const spaceWidth = line.length === 0 ? 0 : space.reduce((sum, c) => sum + c.w, 0);
    if (used + spaceWidth + wordWidth > room && line.length > 0) {
      endLine();
      space = [];
    }
    if (line.length > 0) line.push(...space);
    used += line.length > 0 ? spaceWidth : 0;
    for (const cell of word) {
      if (used + cell.w > room && line.length > 0) endLine();
      line.push(cell);
      used += cell.w;
    }
    word = [];
    wordWidth = 0;
    space = [];
  };
  for (const span of spans) {
    for (const g of graphemes(span.text)) {
      if (g === '\n') {
        placeWord();
        endLine();
        space = [];
      } else if (g === ' ' || g === '\t') {
        placeWord();
        space.push({ g: ' ', w: 1, styles: span.styles });
      } else {
        const w = graphemeWidth(g);
        word.push({ g, w, styles: span.styles });
        wordWidth += w;
      }
    }
  }
  placeWord();
  if (line.length > 0 || lines.length === 0) lines.push(line);
  return lines.map(toSpans);
}

/** The spans cut into lines of at most `width` columns wherever the width ends, every space kept (for code). */
export function breakSpans(spans: readonly Span[], width: number): Span[][] {
  const room = Math.max(1, width);
  const lines: Cell[][] = [[]];
  let used = 0;
  for (const span of spans) {
    for (const g of graphemes(span.text)) {
      const w = graphemeWidth(g);
      if (used + w > room && used > 0) {
        lines.push([]);
        used = 0;
      }
      lines.at(-1)?.push({ g, w, styles: span.styles });
      used += w;
    }
  }
  return lines.map(toSpans);
}

function toSpans(cells: readonly Cell[]): Span[] {
  const spans: Span[] = [];
  for (const cell of cells) {
    const last = spans.at(-1);
    if (last !== undefined && sameStyles(last.styles, cell.styles)) last.text += cell.g;
    else spans.push({ text: cell.g, styles: cell.styles });
  }
  return spans;
}

function sameStyles(a: readonly Style[], b: readonly Style[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}

/** The spans as one string: each in its styles when `color` is on, else plain. */
export function paintSpans(spans: readonly Span[], color: boolean): string {
  return spans.map((s) => (color ? sgrAll(s.styles, s.text) : s.text)).join('');
}
