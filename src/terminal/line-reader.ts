/**
 * The terminal's input: one readline interface for the chat prompt and the questions.
 * Lines typed while no prompt waits are kept for the chat prompt; dialogs run one at a time.
 */
import { createInterface, type Interface } from 'node:readline';
import { sanitize } from './ansi.js';
import type { Screen } from './screen.js';

const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';

/** What the user typed at a prompt, or why there is nothing. */
export type Read = { kind: 'line'; text: string } | { kind: 'end' } | { kind: 'interrupt' };

/** The streams of a `LineReader`, and what readline's SIGINT (Ctrl-C) calls. */
export interface LineReaderOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  screen: Screen;
  /** The output is a terminal: readline draws the prompt and echoes what is typed. */
  terminal: boolean;
  onSigint: () => void;
  /** Sees a line typed while no prompt waits; true when it took the line (it is then not kept for the chat prompt). */
  onTypedAhead?: (line: string) => boolean;
}

/** Reads the lines typed at the terminal's prompts. */
export class LineReader {
  readonly #input: NodeJS.ReadableStream;
  readonly #output: NodeJS.WritableStream;
  readonly #screen: Screen;
  readonly #terminal: boolean;
  readonly #onSigint: () => void;
  readonly #onTypedAhead: ((line: string) => boolean) | undefined;
  #rl: Interface | undefined;
  /** Inside a bracketed paste (the terminal said so). */
  #pasting = false;
  /** The lines of a message still being typed or pasted. */
  #pieces: string[] = [];
  /** Bracketed paste asked of the terminal (and to be given back when done). */
  #pasteMode = false;
  #closed = false;
  readonly #typedAhead: string[] = [];
  #reader: { chat: boolean; resolve: (read: Read) => void } | undefined;
  #dialogs: Promise<void> = Promise.resolve();
  #openDialogs = 0;

  constructor(options: LineReaderOptions) {
    this.#input = options.input;
    this.#output = options.output;
    this.#screen = options.screen;
    this.#terminal = options.terminal;
    this.#onSigint = options.onSigint;
    this.#onTypedAhead = options.onTypedAhead;
  }

  /** The readline interface, created the first time; undefined once closed. */
  open(): Interface | undefined {
    if (this.#rl !== undefined || this.#closed) return this.#rl;
    const rl = createInterface({ input: this.#input, output: this.#output, terminal: this.#terminal, crlfDelay: Infinity });
    if (this.#terminal) {
      // Bracketed paste: the terminal marks what is pasted, so a pasted block is one message, not one per line.
      this.#output.write(BRACKETED_PASTE_ON);
      this.#pasteMode = true;
      this.#input.on('keypress', (_text: string, key: { name?: string } | undefined) => {
        if (key?.name === 'paste-start') this.#pasting = true;
        else if (key?.name === 'paste-end') this.#pasting = false;
      });
    }
    rl.on('line', (raw: string) => {
      // A line pasted with others, or ended with a backslash at the chat prompt, waits for the rest of its message.
      const continued = !this.#pasting && raw.endsWith('\\') && this.#reader?.chat === true;
      if (this.#pasting || continued) {
        this.#pieces.push(continued ? raw.slice(0, -1) : raw);
        if (this.#terminal) this.#screen.typedLine();
        if (continued && this.#terminal) {
          rl.setPrompt('… ');
          rl.prompt();
        }
        return;
      }
      const line = [...this.#pieces, raw].join('\n');
      this.#pieces = [];
      const reader = this.#reader;
      if (reader === undefined) {
        if (this.#terminal) this.#screen.typedAhead();
        if (this.#onTypedAhead?.(line) !== true) this.#typedAhead.push(line);
        return;
      }
      this.#reader = undefined;
      this.#echo(line);
      reader.resolve({ kind: 'line', text: line });
    });
    rl.on('close', () => {
      this.#closed = true;
      this.#pasteModeOff();
      const reader = this.#reader;
      this.#reader = undefined;
      // A message still being written (a backslash line, a paste) is not lost when the input ends: it is sent as it is.
      const pending = this.#pieces.join('\n');
      this.#pieces = [];
      if (reader !== undefined) {
        this.#screen.write('\n');
        reader.resolve(pending === '' ? { kind: 'end' } : { kind: 'line', text: pending });
      } else if (pending !== '') this.#typedAhead.push(pending);
    });
    rl.on('SIGINT', () => this.#onSigint());
    this.#rl = rl;
    return rl;
  }

  /** Closes the readline interface; a pending prompt resolves as end of input. */
  close(): void {
    this.#pasteModeOff();
    this.#closed = true;
    this.#rl?.close();
  }

  /**
   * Prompts and reads a line. The chat prompt takes lines typed ahead first; a question
   * does so only from piped input, so a keystroke typed early never answers an approval.
   */
  read(prompt: string, chat: boolean): Promise<Read> {
    const rl = this.open();
    const ahead = chat || !this.#terminal ? this.#typedAhead.shift() : undefined;
    if (ahead !== undefined) {
      this.#screen.write(prompt + sanitize(ahead) + '\n');
      return Promise.resolve({ kind: 'line', text: ahead });
    }
    if (rl === undefined || this.#closed) {
      this.#screen.write(prompt + '\n');
      return Promise.resolve({ kind: 'end' });
    }
    return new Promise((resolve) => {
      this.#reader = { chat, resolve };
      if (this.#terminal) {
        rl.setPrompt(prompt);
        rl.prompt();
      } else {
        this.#screen.write(prompt);
      }
    });
  }

  /**
   * Runs dialogs one at a time (parallel workers may ask for approval together); with
   * none running, the dialog starts at once, so a key pressed right after finds it.
   */
  exclusive<T>(dialog: () => Promise<T>): Promise<T> {
    const run = this.#openDialogs === 0 ? dialog() : this.#dialogs.then(dialog);
    this.#openDialogs++;
    this.#dialogs = run.then(
      () => void this.#openDialogs--,
      () => void this.#openDialogs--,
    );
    return run;
  }

  /**
   * What Ctrl-C does to a waiting prompt. At the chat prompt when not `busy`: clears the
   * typed text, or on an empty line ends the input. At a question: answers it as
   * interrupted. True when that is all Ctrl-C does; false when the run is to be stopped.
   */
  interrupt(busy: boolean): boolean {
    const reader = this.#reader;
    // Ctrl-C while a message of several lines is being written drops it, and the prompt starts again.
    if (reader?.chat === true && this.#pieces.length > 0 && this.#rl !== undefined) {
      this.#pieces = [];
      if (this.#terminal) {
        this.#rl.write(null, { ctrl: true, name: 'e' });
        this.#rl.write(null, { ctrl: true, name: 'u' });
        this.#screen.write('\n');
        this.#rl.setPrompt('> ');
        this.#rl.prompt();
      }
      return true;
    }
    if (reader?.chat === true && !busy) {
      if (this.#terminal && this.#rl !== undefined && this.#rl.line !== '') {
        this.#rl.write(null, { ctrl: true, name: 'e' });
        this.#rl.write(null, { ctrl: true, name: 'u' });
        return true;
      }
      this.#reader = undefined;
      this.#screen.write('\n');
      reader.resolve({ kind: 'end' });
      return true;
    }
    if (reader?.chat === false) {
      this.#reader = undefined;
      this.#screen.write('\n');
      reader.resolve({ kind: 'interrupt' });
      if (!busy) return true;
    }
    return false;
  }

  /** Gives the terminal its plain paste back (once). */
  #pasteModeOff(): void {
    if (!this.#pasteMode) return;
    this.#pasteMode = false;
    this.#output.write(BRACKETED_PASTE_OFF);
  }

  /** After a line is typed at a prompt: the terminal has moved to the next line; other output shows the line. */
  #echo(line: string): void {
    if (this.#terminal) this.#screen.typedLine();
    else this.#screen.write(sanitize(line) + '\n');
  }
}
