/**
 * The terminal's output and its layout: where the last line ended (so a block starts on
 * a line of its own, after one blank line), the root's answer while it streams after
 * `Golem: ` (markdown, drawn a complete line at a time), the columns, and the colors; on
 * a live terminal, the footer kept below everything written (the workers running side by
 * side, then the progress line), with what the user is typing ahead under it.
 */
import { sgr, stripAnsi, type Style } from './ansi.js';
import { MarkdownStream } from './markdown.js';
import { displayWidth } from './text-width.js';

/** How many rows of the answer's line being written a live terminal shows before the line is complete. */
const PREVIEW_ROWS = 6;

/** The label before a message of the assistant and the root worker's streamed answer. */
export const GOLEM_LABEL = 'Golem: ';

/** The output stream, the colors and the columns of a `Screen`. */
export interface ScreenOptions {
  output: NodeJS.WritableStream & { columns?: number };
  color: boolean;
  /** Fixed columns; default: the output's columns, else 80. */
  width: number | undefined;
  /** The output is a terminal that can redraw: a footer (`setFooter`) is kept below everything written. */
  live?: boolean;
}

/** Writes to the terminal and keeps account of the layout. */
export class Screen {
  readonly #output: NodeJS.WritableStream & { columns?: number };
  readonly #color: boolean;
  readonly #fixedWidth: number | undefined;
  /** The last two characters written (without ANSI codes); '' before any output. */
  #tail = '';
  /** The root's answer being streamed: its markdown, and whether its `Golem: ` line is printed. */
  #answer: { markdown: MarkdownStream; started: boolean } | undefined;
  readonly #live: boolean;
  /** The lines kept at the bottom (live terminals only), and how many of them are drawn now. */
  #footer: (() => string[]) | undefined;
  /** The progress line, drawn last in the footer; the lines just above it (the messages waiting for the run). */
  #status: (() => string) | undefined;
  #waiting: (() => string[]) | undefined;
  /** The footer's lines as drawn (to count the rows they take once the terminal is narrower), and lines typed ahead under it. */
  #footerLines: string[] = [];
  #footerDrawn = 0;
  /** What the user is typing while no prompt waits (readline echoes it under the footer): drawn again with the footer. */
  #typing: (() => { text: string; cursor: number }) | undefined;
  /** Dialogs open now (the footer is not drawn while there are any). */
  #suspended = 0;
  /** Called each time the last open dialog closes. */
  readonly #afterDialog = new Set<() => void>();

  constructor(options: ScreenOptions) {
    this.#output = options.output;
    this.#color = options.color;
    this.#fixedWidth = options.width;
    this.#live = options.live === true;
    // A resized terminal reflows the footer's lines: erase the rows they take now, and draw them again at the new width.
    if (this.#live) options.output.on?.('resize', () => this.#resized());
  }

  /** Whether the output redraws (a footer is shown). */
  get live(): boolean {
    return this.#live;
  }

  /** Writes text as it is (above the footer, which is drawn again once the line is complete). */
  write(text: string): void {
    if (text === '') return;
    this.#eraseFooter();
    this.#output.write(text);
    const plain = stripAnsi(text);
    if (plain !== '') this.#tail = (this.#tail + plain).slice(-2);
    this.#drawFooter();
  }

  /**
   * Keeps `render`'s lines at the bottom of a live terminal, below everything written, until
   * it is set to undefined; on other outputs it does nothing. Each line must fit the width
   * (a line that wraps would be left behind when the footer is drawn again).
   */
  setFooter(render: (() => string[]) | undefined): void {
    this.#eraseFooter();
    this.#footer = this.#live ? render : undefined;
    this.#drawFooter();
  }

  /** Keeps a progress line at the bottom of a live terminal (under the footer's other lines), until set to undefined. */
  setStatus(render: (() => string) | undefined): void {
    this.#eraseFooter();
    this.#status = this.#live ? render : undefined;
    this.#drawFooter();
  }

  /**
   * Keeps `render`'s lines just above the progress line (the messages sent to the run that
   * wait for it), while the progress line is shown. Each line must fit the width.
   */
  setWaiting(render: (() => string[]) | undefined): void {
    this.#eraseFooter();
    this.#waiting = this.#live ? render : undefined;
    this.#drawFooter();
  }

  /** Where the screen reads what the user is typing ahead (to write it again under the footer each time the footer is drawn). */
  setTyping(typing: () => { text: string; cursor: number }): void {
    this.#typing = typing;
  }

  /**
   * Runs `dialog` (a prompt readline draws itself) with the footer taken away, and draws it
   * again after: lines the screen did not write must not end up inside it.
   */
  async withoutFooter<T>(dialog: () => Promise<T>): Promise<T> {
    this.#eraseFooter();
    this.#suspended++;
    try {
      return await dialog();
    } finally {
      this.#suspended--;
      this.#drawFooter();
      if (this.#suspended === 0) for (const callback of this.#afterDialog) callback();
    }
  }

  /** Calls `callback` each time the last open dialog closes (to write what waited for it). */
  afterDialog(callback: () => void): void {
    this.#afterDialog.add(callback);
  }

  /** Whether a dialog (a question readline draws) is open now. */
  get asking(): boolean {
    return this.#suspended > 0;
  }

  /** Draws the footer again (its lines may have changed: elapsed times, states). */
  refreshFooter(): void {
    this.#eraseFooter();
    this.#drawFooter();
  }

  #eraseFooter(rows = this.#footerDrawn + this.#cursorRows()): void {
    if (this.#footerDrawn === 0) return;
    // To the first footer line's start, and clear from there down (the line typed ahead with it).
    this.#output.write(`\x1b[${rows}F\x1b[J`);
    this.#footerDrawn = 0;
    this.#footerLines = [];
  }

  #drawFooter(): void {
    // Only under a complete line: an open line (an answer streaming) keeps the footer away until it ends.
    if ((this.#footer === undefined && this.#status === undefined) || this.#suspended > 0 || (this.#tail !== '' && !this.#tail.endsWith('\n'))) return;
    const status = this.#status === undefined ? [] : [...(this.#waiting?.() ?? []), this.#status()];
    const lines = [...this.#preview(), ...(this.#footer?.() ?? []), ...status];
    if (lines.length === 0) return;
    // The cursor where the user left it in the line (moved back from its end).
    const typing = this.#typing?.() ?? { text: '', cursor: 0 };
    const back = displayWidth(typing.text.slice(typing.cursor));
    this.#output.write(lines.map((line) => `${line}\n`).join('') + typing.text + (back > 0 ? `\x1b[${back}D` : ''));
    this.#footerDrawn = lines.length;
    this.#footerLines = lines;
  }

  /** After a resize: each footer line now takes as many rows as the new width needs (terminals reflow long lines). */
  /** The rows the cursor is below the line typed ahead's first (it wrapped, typed wider than the terminal). */
  #cursorRows(): number {
    const typing = this.#typing?.() ?? { text: '', cursor: 0 };
    const at = displayWidth(typing.text.slice(0, typing.cursor));
    const atEnd = typing.cursor >= typing.text.length;
    // At the end of a full row the cursor waits on that row (the terminal wraps with the next character).
    return at <= 0 ? 0 : Math.floor((atEnd ? at - 1 : at) / Math.max(1, this.#output.columns ?? 80));
  }

  #resized(): void {
    if (this.#footerDrawn === 0) return;
    const columns = Math.max(1, this.#output.columns ?? 80);
    const typed = this.#footerDrawn - this.#footerLines.length;
    const rows = this.#footerLines.reduce((sum, line) => sum + Math.max(1, Math.ceil(displayWidth(stripAnsi(line)) / columns)), 0) + typed;
    const typing = displayWidth(this.#typing?.().text ?? '');
    // The cursor is on the line typed ahead, which may itself have wrapped.
    this.#eraseFooter(rows + Math.floor(Math.max(0, typing - 1) / columns));
    this.#drawFooter();
  }

  /** Ends the open line, if one is open. */
  lineStart(): void {
    if (this.#tail !== '' && !this.#tail.endsWith('\n')) this.write('\n');
  }

  /** Leaves one blank line before what comes next (none at the very start). */
  blankLine(): void {
    if (this.#tail === '' || this.#tail === '\n\n') return;
    this.write(this.#tail.endsWith('\n') ? '\n' : '\n\n');
  }

  /** Notes that the terminal moved to the next line by itself (a line typed at a prompt). */
  typedLine(): void {
    this.#tail = '\n';
  }

  /**
   * Notes a line the terminal echoed while no prompt waited (typed ahead): under a footer it
   * is erased with the footer (its number was taken as a command); else it stays, as a line.
   */
  typedAhead(): void {
    if (this.#footerDrawn > 0) this.#footerDrawn++;
    else this.typedLine();
  }

  /** Whether text is painted in colors. */
  get colored(): boolean {
    return this.#color;
  }

  /** The text in `style`, when colors are on. */
  paint(style: Style | undefined, text: string): string {
    if (!this.#color || style === undefined || text === '') return text;
    return sgr(style, text);
  }

  /** An action's outcome: a green ✓ or a red ✗. */
  mark(ok: boolean): string {
    return ok ? this.paint('green', '✓') : this.paint('red', '✗');
  }

  /** The columns to lay text out in. */
  width(): number {
    return Math.max(20, this.#fixedWidth ?? this.#output.columns ?? 80);
  }

  /** Whether the root's answer is streaming (its `Golem: ` line printed). */
  get answering(): boolean {
    return this.#answer !== undefined;
  }

  /**
   * Streams the root's answer (markdown): `Golem: ` before its first line, its later
   * lines indented under the label; each line drawn once it is complete.
   */
  streamAnswer(text: string): void {
    if (this.#answer === undefined) {
      text = text.replace(/^\n+/, '');
      if (text === '') return;
      this.#answer = { markdown: new MarkdownStream({ width: () => this.width() - GOLEM_LABEL.length, color: this.#color }), started: false };
      // Now, not with its first line: the line being written is shown meanwhile (above the footer) where it will stay.
      this.blankLine();
    }
    const lines = this.#answer.markdown.push(text);
    for (const line of lines) this.#answerLine(this.#answer, line);
    if (lines.length === 0 && this.#footerDrawn > 0) this.refreshFooter();
  }

  /** The answer's line being written, at the top of the footer (its last rows only), as it will be drawn once complete. */
  #preview(): string[] {
    const answer = this.#answer;
    if (answer === undefined) return [];
    const rows = answer.markdown.preview();
    return rows.slice(-PREVIEW_ROWS).map((row, i) => {
      const first = i === 0 && !answer.started && rows.length <= PREVIEW_ROWS;
      return (first ? this.paint('bold', GOLEM_LABEL) : ' '.repeat(GOLEM_LABEL.length)) + row;
    });
  }

  #answerLine(answer: { started: boolean }, line: string): void {
    if (!answer.started) {
      answer.started = true;
      this.blankLine();
      this.write(this.paint('bold', GOLEM_LABEL) + line + '\n');
      return;
    }
    this.write((line === '' ? '' : ' '.repeat(GOLEM_LABEL.length) + line) + '\n');
  }

  /** Ends the root's answer (what it held is drawn): the next delta starts a new `Golem: ` line. */
  endAnswer(): void {
    const answer = this.#answer;
    if (answer === undefined) return;
    this.#answer = undefined;
    for (const line of answer.markdown.end()) this.#answerLine(answer, line);
    this.lineStart();
  }
}
