/**
 * The terminal's output and its layout: where the last line ended (so a block starts on
 * a line of its own, after one blank line), the root's answer while it streams after
 * `Golem: `, the columns, and the colors.
 */
import { sgr, stripAnsi, type Style } from './ansi.js';

/** The label before a message of the assistant and the root worker's streamed answer. */
export const GOLEM_LABEL = 'Golem: ';

/** The output stream, the colors and the columns of a `Screen`. */
export interface ScreenOptions {
  output: NodeJS.WritableStream & { columns?: number };
  color: boolean;
  /** Fixed columns; default: the output's columns, else 80. */
  width: number | undefined;
}

/** Writes to the terminal and keeps account of the layout. */
export class Screen {
  readonly #output: NodeJS.WritableStream & { columns?: number };
  readonly #color: boolean;
  readonly #fixedWidth: number | undefined;
  /** The last two characters written (without ANSI codes); '' before any output. */
  #tail = '';
  /** The root's answer being streamed: `Golem: ` is printed and the line may be open. */
  #answer: { indent: boolean } | undefined;

  constructor(options: ScreenOptions) {
    this.#output = options.output;
    this.#color = options.color;
    this.#fixedWidth = options.width;
  }

  /** Writes text as it is. */
  write(text: string): void {
    if (text === '') return;
    this.#output.write(text);
    const plain = stripAnsi(text);
    if (plain !== '') this.#tail = (this.#tail + plain).slice(-2);
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

  /** Streams the root's answer: `Golem: ` first, its later lines indented under the label. */
  streamAnswer(text: string): void {
    if (this.#answer === undefined) {
      text = text.replace(/^\n+/, '');
      if (text === '') return;
      this.blankLine();
      this.write(this.paint('bold', GOLEM_LABEL));
      this.#answer = { indent: false };
    }
    const answer = this.#answer;
    text.split('\n').forEach((piece, i) => {
      if (i > 0) {
        this.write('\n');
        answer.indent = true;
      }
      if (piece === '') return;
      this.write((answer.indent ? ' '.repeat(GOLEM_LABEL.length) : '') + piece);
      answer.indent = false;
    });
  }

  /** Ends the root's answer: the next delta starts a new `Golem: ` line. */
  endAnswer(): void {
    if (this.#answer === undefined) return;
    this.#answer = undefined;
    this.lineStart();
  }
}
