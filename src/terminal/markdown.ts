/**
 * Markdown drawn on the terminal, from marked's tokens: bold and italic, headings, lists,
 * quotes, inline code, fenced code (colored), tables in box lines, and links with their
 * address. An answer streams in: each complete line is drawn as it arrives and never
 * drawn again (a table waits for its last row, as its columns depend on every row).
 * Without colors the text stays readable: inline code keeps its backticks, and the layout
 * (bullets, indents, rules, boxes) is the same.
 */
import { lexer, type Token, type Tokens } from 'marked';
import type { Style } from './ansi.js';
import { highlightLine } from './highlight.js';
import { breakSpans, paintSpans, spansWidth, wrapSpans, type Span } from './styled.js';
import { cutTo } from './text-width.js';

/** How a `MarkdownStream` lays out its lines. */
export interface MarkdownOptions {
  /** The columns to fit in (read again for each line, so a resized terminal is followed). */
  width: () => number;
  color: boolean;
}

const BULLETS = ['•', '◦', '▪'];
const FENCE = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/;
const TABLE_DELIMITER = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

/** Markdown text in, terminal lines out (without their newlines), a complete line at a time. */
export class MarkdownStream {
  readonly #options: MarkdownOptions;
  /** The start of a line not yet complete. */
  #pending = '';
  /** Inside a fenced code block: its fence and language. */
  #fence: { marker: string; indent: number; lang: string } | undefined;
  /** Lines held for a table: the header (unconfirmed until the delimiter row comes) and its rows. */
  #table: { lines: string[]; confirmed: boolean } | undefined;
  /** Whether a line was drawn yet, and whether the last one was blank. */
  #drawn = false;
  #blank = false;
  /** The ordered lists open, by indent: the number their next item takes. */
  #lists: { indent: number; next: number }[] = [];

  constructor(options: MarkdownOptions) {
    this.#options = options;
  }

  /** Takes more of the text; the lines it completes, drawn. */
  push(text: string): string[] {
    // No control characters from the model's text reach the terminal (escape codes among them); only the renderer's own.
    // eslint-disable-next-line no-control-regex
    this.#pending += text.replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '');
    const out: string[] = [];
    for (let end = this.#pending.indexOf('\n'); end >= 0; end = this.#pending.indexOf('\n')) {
      const line = this.#pending.slice(0, end);
      this.#pending = this.#pending.slice(end + 1);
      this.#line(line, out);
    }
    return out;
  }

  /**
   * The line not yet complete as it would be drawn if it ended now, for a live terminal to
   * show meanwhile (never kept: the line is drawn for good once complete). A paragraph's
   * line or a code line only; nothing for the lines whose drawing depends on what follows.
   */
  preview(): string[] {
    const line = this.#pending.replace(/\t/g, '    ').trimEnd();
    if (line.trim() === '' || this.#table !== undefined) return [];
    const width = this.#options.width();
    if (this.#fence !== undefined) {
      const code = [{ text: line.replace(new RegExp(`^ {0,${this.#fence.indent}}`), ''), styles: [] }];
      return breakSpans(code, width - 2).map((piece) => paintSpans([{ text: '  ', styles: [] }, ...piece], this.#options.color));
    }
    if (FENCE.test(line) || line.includes('|')) return [];
    const indent = Math.min(line.length - line.trimStart().length, 12);
    // Emphasis or code opened and not yet closed is drawn closed, so the marks never show.
    const tokens = lexer(closeOpenMarks(line.trimStart()));
    if (tokens.length !== 1 || tokens[0]?.type !== 'paragraph') return [];
    return blocks(tokens, { width: width - indent, color: this.#options.color, level: 0 }).map((drawn) => ' '.repeat(indent) + drawn);
  }

  /** The text is complete: draws what was held (the last line, a table, an open code block). */
  end(): string[] {
    const out: string[] = [];
    if (this.#pending !== '') this.#line(this.#pending, out);
    this.#pending = '';
    this.#flushTable(out);
    this.#fence = undefined;
    return out;
  }

  #line(raw: string, out: string[]): void {
    const line = raw.replace(/\t/g, '    ').trimEnd();
    if (this.#fence !== undefined) {
      const fence = this.#fence;
      if (line.trim().startsWith(fence.marker) && line.trim().replace(/[`~]/g, '') === '') {
        this.#fence = undefined;
        return;
      }
      const code = line.replace(new RegExp(`^ {0,${fence.indent}}`), '');
      const spans = this.#options.color ? highlightLine(code, fence.lang) : [{ text: code, styles: [] }];
      // A line wider than the room goes on on the next, every space kept (code is not reflowed).
      for (const piece of breakSpans(spans, this.#options.width() - 2))
        this.#emit(out, paintSpans([{ text: '  ', styles: [] }, ...piece], this.#options.color));
      return;
    }
    if (this.#table !== undefined) {
      const table = this.#table;
      if (!table.confirmed && TABLE_DELIMITER.test(line) && line.includes('-')) {
        table.lines.push(line);
        table.confirmed = true;
        return;
      }
      if (table.confirmed && line.trim() !== '' && line.includes('|')) {
        table.lines.push(line);
        return;
      }
      this.#flushTable(out);
    }
    const fence = FENCE.exec(line);
    if (fence !== null) {
      this.#blankLine(out);
      this.#fence = { marker: fence[2] ?? '```', indent: fence[1]?.length ?? 0, lang: fence[3] ?? '' };
      return;
    }
    if (line.includes('|') && !line.trimStart().startsWith('>')) {
      this.#table = { lines: [line], confirmed: false };
      return;
    }
    this.#block(line, out);
  }

  /** A line outside code and tables: a heading, a list item, a quote, a rule or a paragraph's line. */
  #block(line: string, out: string[]): void {
    if (line.trim() === '') {
      this.#blankLine(out);
      return;
    }
    const indent = Math.min(line.length - line.trimStart().length, 12);
    const width = this.#options.width() - indent;
    const tokens = lexer(line.trimStart());
    const heading = tokens.some((t) => t.type === 'heading');
    if (heading) this.#blankLine(out);
    this.#number(tokens, indent);
    for (const drawn of blocks(tokens, { width, color: this.#options.color, level: Math.floor(indent / 2) })) {
      this.#emit(out, ' '.repeat(indent) + drawn);
    }
  }

  /**
   * Items of one ordered list, each lexed on its own line, are numbered on from the first
   * (as markdown does: `1.` on every item still counts 1, 2, 3); a line less indented than
   * the list, other than a blank one, ends it.
   */
  #number(tokens: readonly Token[], indent: number): void {
    const list = tokens.length === 1 && tokens[0]?.type === 'list' ? (tokens[0] as Tokens.List) : undefined;
    this.#lists = this.#lists.filter((l) => l.indent < indent || (l.indent === indent && list?.ordered === true));
    if (list === undefined || !list.ordered) return;
    const open = this.#lists.find((l) => l.indent === indent);
    if (open === undefined) this.#lists.push({ indent, next: (typeof list.start === 'number' ? list.start : 1) + list.items.length });
    else {
      list.start = open.next;
      open.next += list.items.length;
    }
  }

  #flushTable(out: string[]): void {
    const table = this.#table;
    if (table === undefined) return;
    this.#table = undefined;
    if (!table.confirmed) {
      for (const line of table.lines) this.#block(line, out);
      return;
    }
    this.#blankLine(out);
    for (const drawn of blocks(lexer(table.lines.join('\n')), { width: this.#options.width(), color: this.#options.color, level: 0 })) {
      this.#emit(out, drawn);
    }
  }

  /** One blank line between blocks: none at the start, never two. */
  #blankLine(out: string[]): void {
    if (!this.#drawn || this.#blank) return;
    out.push('');
    this.#blank = true;
  }

  #emit(out: string[], line: string): void {
    out.push(line);
    this.#drawn = true;
    this.#blank = line === '';
  }
}

/** All of `text` drawn at once (a message shown again, a whole answer). */
export function renderMarkdown(text: string, options: { width: number; color: boolean }): string[] {
  const stream = new MarkdownStream({ width: () => options.width, color: options.color });
  return [...stream.push(text), ...stream.end()];
}

interface Layout {
  width: number;
  color: boolean;
  /** How deep in lists (the bullet's shape). */
  level: number;
}

/** Block tokens as terminal lines. */
function blocks(tokens: readonly Token[], layout: Layout): string[] {
  const out: string[] = [];
  const { width, color } = layout;
  const paint = (spans: Span[][]) => spans.map((line) => paintSpans(line, color));
  for (const token of tokens) {
    switch (token.type) {
      case 'space':
        break;
      case 'heading': {
        const t = token as Tokens.Heading;
        const lines = wrapSpans(inline(t.tokens, ['bold'], color), width);
        out.push(...paint(lines));
        if (t.depth <= 2) {
          const rule = (t.depth === 1 ? '═' : '─').repeat(Math.min(width, Math.max(...lines.map(spansWidth))));
          out.push(color ? paintSpans([{ text: rule, styles: ['dim'] }], true) : rule);
        }
        break;
      }
      case 'paragraph':
      case 'text': {
        const t = token as Tokens.Paragraph | Tokens.Text;
        out.push(...paint(wrapSpans(t.tokens === undefined ? [{ text: decode(t.text), styles: [] }] : inline(t.tokens, [], color), width)));
        break;
      }
      case 'list': {
        const t = token as Tokens.List;
        const start = typeof t.start === 'number' ? t.start : 1;
        t.items.forEach((item, i) => {
          const bullet = t.ordered ? `${start + i}.` : (BULLETS[layout.level % BULLETS.length] ?? '•');
          const check = item.task ? (item.checked === true ? '[x] ' : '[ ] ') : '';
          const marker = `${bullet} ${check}`;
          const body = blocks(
            item.tokens.filter((x) => x.type !== 'checkbox'),
            { ...layout, width: width - marker.length, level: layout.level + 1 },
          );
          body.forEach((line, j) =>
            out.push(
              (j === 0 ? (color ? paintSpans([{ text: bullet, styles: ['cyan'] }], true) + marker.slice(bullet.length) : marker) : ' '.repeat(marker.length)) +
                line,
            ),
          );
        });
        break;
      }
      case 'blockquote': {
        const t = token as Tokens.Blockquote;
        const bar = color ? paintSpans([{ text: '│ ', styles: ['dim'] }], true) : '│ ';
        for (const line of blocks(t.tokens, { ...layout, width: width - 2 })) out.push(bar + line);
        break;
      }
      case 'hr': {
        const rule = '─'.repeat(Math.min(width, 40));
        out.push(color ? paintSpans([{ text: rule, styles: ['dim'] }], true) : rule);
        break;
      }
      case 'code': {
        const t = token as Tokens.Code;
        for (const line of t.text.split('\n'))
          out.push(paintSpans([{ text: '  ', styles: [] }, ...(color ? highlightLine(line, t.lang ?? '') : [{ text: line, styles: [] }])], color));
        break;
      }
      case 'table':
        out.push(...table(token as Tokens.Table, layout));
        break;
      default:
        // html, definitions and anything else: their text as written (a terminal shows no HTML).
        for (const line of ('raw' in token && typeof token.raw === 'string' ? token.raw : '').replace(/\n+$/, '').split('\n')) {
          out.push(...paint(wrapSpans([{ text: line, styles: [] }], width)));
        }
    }
  }
  return out;
}

/** Inline tokens as spans, each in the styles of what it is inside. */
function inline(tokens: readonly Token[] | undefined, styles: readonly Style[], color: boolean): Span[] {
  const spans: Span[] = [];
  for (const token of tokens ?? []) {
    switch (token.type) {
      case 'strong':
        spans.push(...inline((token as Tokens.Strong).tokens, [...styles, 'bold'], color));
        break;
      case 'em':
        spans.push(...inline((token as Tokens.Em).tokens, [...styles, 'italic'], color));
        break;
      case 'del':
        spans.push(...inline((token as Tokens.Del).tokens, [...styles, 'strike'], color));
        break;
      case 'codespan': {
        const text = decode((token as Tokens.Codespan).text);
        spans.push(color ? { text, styles: [...styles, 'yellow'] } : { text: `\`${text}\``, styles });
        break;
      }
      case 'br':
        spans.push({ text: '\n', styles });
        break;
      case 'link': {
        const t = token as Tokens.Link;
        const label = inline(t.tokens, [...styles, 'blue', 'underline'], color);
        const text = label.map((s) => s.text).join('');
        spans.push(...label);
        if (text !== t.href && `mailto:${text}` !== t.href) spans.push({ text: ` (${t.href})`, styles: [...styles, 'dim'] });
        break;
      }
      case 'image': {
        const t = token as Tokens.Image;
        spans.push({ text: `[image: ${t.text}]`, styles: [...styles, 'dim'] }, { text: ` (${t.href})`, styles: [...styles, 'dim'] });
        break;
      }
      case 'text':
      case 'escape': {
        const t = token as Tokens.Text;
        if (t.tokens !== undefined && t.tokens.length > 0) spans.push(...inline(t.tokens, styles, color));
        else spans.push({ text: decode(t.text), styles });
        break;
      }
      default:
        spans.push({ text: 'raw' in token && typeof token.raw === 'string' ? token.raw : '', styles });
    }
  }
  return spans;
}

/** A table in box lines, its columns as wide as their text or shared out to fit `width`. */
function table(t: Tokens.Table, layout: Layout): string[] {
  const { color } = layout;
  const rows = [t.header, ...t.rows].map((row) => row.map((cell) => inline(cell.tokens, cell.header ? ['bold'] : [], color)));
  const columns = t.header.length;
  const natural = Array.from({ length: columns }, (_, c) => Math.max(1, ...rows.map((row) => (row[c] === undefined ? 0 : spansWidth(row[c])))));
  // Borders: '│ ' before each cell, ' │' after the last, ' │ ' between.
  const room = Math.max(columns * 3, layout.width - (3 * columns + 1));
  const widths = fitColumns(natural, room);
  const border = (left: string, middle: string, right: string) => {
    const text = left + widths.map((w) => '─'.repeat(w + 2)).join(middle) + right;
    return color ? paintSpans([{ text, styles: ['dim'] }], true) : text;
  };
  const bar = color ? paintSpans([{ text: '│', styles: ['dim'] }], true) : '│';
  const out = [border('┌', '┬', '┐')];
  rows.forEach((row, r) => {
    const cells = widths.map((w, c) => wrapSpans(row[c] ?? [], w));
    const height = Math.max(...cells.map((lines) => lines.length));
    for (let i = 0; i < height; i++) {
      const parts = widths.map((w, c) => {
        const line = cells[c]?.[i] ?? [];
        const pad = Math.max(0, w - spansWidth(line));
        const align = t.align[c];
        const left = align === 'right' ? pad : align === 'center' ? Math.floor(pad / 2) : 0;
        return ' '.repeat(left) + paintSpans(line, color) + ' '.repeat(pad - left);
      });
      out.push(`${bar} ${parts.join(` ${bar} `)} ${bar}`);
    }
    if (r === 0) out.push(border('├', '┼', '┤'));
  });
  out.push(border('└', '┴', '┘'));
  return out.map((line) => (layout.width < 8 ? cutTo(line, layout.width) : line));
}

/** Column widths that fit `room`: the narrow ones keep their width, the wide ones share what is left. */
function fitColumns(natural: readonly number[], room: number): number[] {
  const widths = [...natural];
  while (widths.reduce((a, b) => a + b, 0) > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if ((widths[widest] ?? 0) <= 3) break;
    widths[widest] = (widths[widest] ?? 0) - 1;
  }
  return widths;
}

/**
 * A line being written with the emphasis and code it opened closed (innermost first), and a
 * mark just typed with nothing after it dropped: `Use **bold te` is drawn as `Use **bold te**`.
 */
export function closeOpenMarks(line: string): string {
  if ((line.match(/`/g) ?? []).length % 2 === 1) {
    // Inside code every other mark is text.
    return /`\s*$/.test(line) ? line.replace(/`\s*$/, '') : `${line}\``;
  }
  const outside = line.replace(/`[^`]*`/g, (code) => ' '.repeat(code.length));
  const open: { mark: string; at: number }[] = [];
  for (const mark of ['**', '__', '~~', '*', '_']) {
    const pattern =
      mark.length === 2
        ? new RegExp(`\\${mark[0]}\\${mark[1]}`, 'g')
        : new RegExp(`(?<![\\${mark}\\w])\\${mark}(?=[^\\s\\${mark}])|(?<=[^\\s\\${mark}])\\${mark}(?![\\${mark}\\w])`, 'g');
    const masked = mark.length === 1 ? outside.replace(/\*\*|__|^\s*[*_-]\s/g, (m) => ' '.repeat(m.length)) : outside;
    const found = [...masked.matchAll(pattern)];
    if (found.length % 2 === 1) open.push({ mark, at: found.at(-1)?.index ?? 0 });
  }
  let text = line;
  for (const { mark, at } of open.sort((a, b) => b.at - a.at)) {
    if (text.slice(at + mark.length).trim() === '') text = text.slice(0, at) + text.slice(at + mark.length);
    else text += mark;
  }
  return text;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Text with the HTML entities markdown allows turned into their characters. */
function decode(text: string): string {
  return text.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (all, name: string) => {
    if (name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 31 && code <= 0x10ffff && (code < 0x7f || code > 0x9f) ? String.fromCodePoint(code) : all;
    }
    return ENTITIES[name.toLowerCase()] ?? all;
  });
}
