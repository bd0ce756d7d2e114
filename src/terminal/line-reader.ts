/**
 * The terminal's input: one readline interface for the chat prompt and the questions.
 * Lines typed while no prompt waits are kept for the chat prompt; dialogs run one at a time.
 * The chat prompt has a history (↑/↓, kept by a `LineHistory` across runs) and completion
 * (Tab); a question can be answered by a single key, but not by keys typed as it came
 * (see `ANSWER_DELAY_MS`); a lone Esc interrupts like Ctrl-C. While no prompt waits (a run
 * is in progress), a message typed is sent to the run: Enter queues it, Tab steers with it,
 * and ↑ on an empty line takes the last one queued back into the line (`onMessage`, `onTakeBack`).
 */
import { createInterface, type Interface } from 'node:readline';
import { sanitize } from './ansi.js';
import type { Screen } from './screen.js';

const BRACKETED_PASTE_ON = '\x1b[?2004h';
const BRACKETED_PASTE_OFF = '\x1b[?2004l';

/** How many messages the chat prompt's history holds. */
export const HISTORY_SIZE = 500;

/**
 * How long a question answered by a single key waits, after it appears and after the last
 * key typed, before a key answers it: keys typed as it came (a follow-up the user was
 * writing) are dropped, as a browser's permission prompt ignores input for as long.
 */
export const ANSWER_DELAY_MS = 500;

/** Where the chat prompt's history is kept between runs. */
export interface LineHistory {
  /** The messages sent at the chat prompt, newest first. */
  entries(): string[];
  /** Keeps a message sent at the chat prompt (never an answer to a question). */
  add(message: string): void;
}

/** Completes the chat prompt's line on Tab: the candidates, and the end of the line they replace. */
export type Completer = (line: string) => [string[], string];

/** How a message typed during a run goes to it: Enter queues it for after the run, Tab steers the run with it. */
export type RunMessagePolicy = 'enqueue' | 'steer';

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
  /**
   * Sees a message typed on a terminal while no prompt waits (a run is in progress), on Enter
   * (`enqueue`) or Tab (`steer`); true when it was sent (it leaves the line, and is kept in
   * the history). Otherwise Enter keeps it for the chat prompt, and Tab leaves it in the line.
   */
  onMessage?: (text: string, policy: RunMessagePolicy) => boolean;
  /**
   * ↑ on an empty line while no prompt waits: takes the last message queued back, its text
   * put in the line once it is taken; undefined when there is none to take back (↑ then goes
   * through the history, as always).
   */
  onTakeBack?: () => Promise<string | undefined> | undefined;
  /** The chat prompt's history across runs (default: this run's only). */
  history?: LineHistory;
  /** Tab completion at the chat prompt. */
  complete?: Completer;
}

/** A prompt waiting for its line (see `LineReader.#reader`). */
interface Question {
  chat: boolean;
  words: readonly string[];
  resolve: (read: Read) => void;
  armed: boolean;
}

/** Reads the lines typed at the terminal's prompts. */
export class LineReader {
  readonly #input: NodeJS.ReadableStream;
  readonly #output: NodeJS.WritableStream;
  readonly #screen: Screen;
  readonly #terminal: boolean;
  readonly #onSigint: () => void;
  readonly #onTypedAhead: ((line: string) => boolean) | undefined;
  readonly #onMessage: ((text: string, policy: RunMessagePolicy) => boolean) | undefined;
  readonly #onTakeBack: (() => Promise<string | undefined> | undefined) | undefined;
  /** The history, kept away from readline for the ↑ that takes a queued message back (given back after it). */
  #hiddenHistory: string[] | undefined;
  readonly #history: LineHistory | undefined;
  readonly #complete: Completer | undefined;
  #rl: Interface | undefined;
  /** Inside a bracketed paste (the terminal said so). */
  #pasting = false;
  /** The lines of a message still being typed or pasted. */
  #pieces: string[] = [];
  /** Bracketed paste asked of the terminal (and to be given back when done). */
  #pasteMode = false;
  #closed = false;
  readonly #typedAhead: string[] = [];
  /**
   * The prompt waiting; the first letters of its `words` answer it at once, without Enter.
   * Such a question is not `armed` until the keyboard has been quiet since it appeared.
   */
  #reader: Question | undefined;
  /** When the last key came (performance.now()), and whether keys were dropped at the question waiting. */
  #lastKeyAt = -Infinity;
  #dropped = false;
  /** The word a key just answered: the next line, if it is the rest of that word or empty (typed out of habit), is dropped. */
  #answeredWord: string | undefined;
  #dialogs: Promise<void> = Promise.resolve();
  #openDialogs = 0;

  constructor(options: LineReaderOptions) {
    this.#input = options.input;
    this.#output = options.output;
    this.#screen = options.screen;
    this.#terminal = options.terminal;
    this.#onSigint = options.onSigint;
    this.#onTypedAhead = options.onTypedAhead;
    this.#onMessage = options.onMessage;
    this.#onTakeBack = options.onTakeBack;
    this.#history = options.history;
    this.#complete = options.complete;
  }

  /** The readline interface, created the first time; undefined once closed. */
  open(): Interface | undefined {
    if (this.#rl !== undefined || this.#closed) return this.#rl;
    const rl = createInterface({
      input: this.#input,
      output: this.#output,
      terminal: this.#terminal,
      crlfDelay: Infinity,
      history: this.#terminal ? (this.#history?.entries().slice(0, HISTORY_SIZE) ?? []) : [],
      historySize: HISTORY_SIZE,
      removeHistoryDuplicates: true,
      // Only the chat prompt completes (a question's answer is not a command).
      completer: (line: string): [string[], string] => (this.#reader?.chat === true && this.#complete !== undefined ? this.#complete(line) : [[], line]),
    });
    if (this.#terminal) {
      // Bracketed paste: the terminal marks what is pasted, so a pasted block is one message, not one per line.
      this.#output.write(BRACKETED_PASTE_ON);
      this.#pasteMode = true;
      // Readline's own listener has seen the key already (it was added first); this one sees it before.
      this.#input.prependListener('keypress', (_text: string | undefined, key: Key | undefined) => this.#beforeKey(rl, key));
      this.#input.on('keypress', (text: string | undefined, key: Key | undefined) => this.#onKey(rl, text, key));
    }
    rl.on('line', (raw: string) => {
      // Readline put the line in its history: only whole messages sent at the chat prompt stay there (below).
      if (this.#terminal && historyOf(rl)[0] === raw) historyOf(rl).shift();
      const word = this.#answeredWord;
      this.#answeredWord = undefined;
      // Enter at a question that does not take answers yet: the line (already emptied) is dropped.
      if (this.#reader?.armed === false) {
        this.#dropped = true;
        this.#screen.typedLine();
        rl.prompt();
        return;
      }
      if (word !== undefined && this.#pieces.length === 0 && word.startsWith(word.charAt(0) + raw.trim().toLowerCase())) {
        if (this.#reader === undefined) this.#screen.typedAhead();
        else {
          this.#screen.typedLine();
          rl.prompt();
        }
        return;
      }
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
        if (this.#onTypedAhead?.(line) === true) return;
        // On a terminal, a message for the run in progress (piped lines wait: a question may take them).
        if (this.#terminal && line.trim() !== '' && this.#onMessage?.(line, 'enqueue') === true) {
          this.#remember(rl, line);
          return;
        }
        // Kept for the history only once the chat prompt takes it: from piped input, a question may take it instead.
        this.#typedAhead.push(line);
        return;
      }
      this.#reader = undefined;
      if (reader.chat) this.#remember(rl, line);
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
  read(prompt: string, chat: boolean, words: readonly string[] = []): Promise<Read> {
    const rl = this.open();
    const ahead = chat || !this.#terminal ? this.#typedAhead.shift() : undefined;
    if (ahead !== undefined) {
      if (chat && rl !== undefined) this.#remember(rl, ahead);
      this.#screen.write(prompt + sanitize(ahead) + '\n');
      return Promise.resolve({ kind: 'line', text: ahead });
    }
    if (rl === undefined || this.#closed) {
      this.#screen.write(prompt + '\n');
      return Promise.resolve({ kind: 'end' });
    }
    return new Promise((resolve) => {
      const keyed = this.#terminal && words.length > 0;
      const reader: Question = { chat, words: this.#terminal ? words.map((w) => w.toLowerCase()) : [], resolve, armed: !keyed };
      this.#reader = reader;
      if (keyed) {
        // A question answered by a key starts empty, and takes no key until the keyboard has been quiet a moment.
        this.#dropped = false;
        this.#clearLine(rl);
        rl.setPrompt('');
        rl.prompt();
        this.#armWhenQuiet(rl, reader, prompt, performance.now());
      } else if (this.#terminal) {
        rl.setPrompt(prompt);
        rl.prompt();
      } else {
        this.#screen.write(prompt);
      }
    });
  }

  /**
   * Offers the question's answer line once no key came for `ANSWER_DELAY_MS`, since it
   * appeared (`shownAt`) and since the last key; until then keys are dropped (`#onKey`).
   */
  #armWhenQuiet(rl: Interface, reader: Question, prompt: string, shownAt: number): void {
    const wait = ANSWER_DELAY_MS - (performance.now() - Math.max(shownAt, this.#lastKeyAt));
    if (wait > 0) {
      setTimeout(() => this.#armWhenQuiet(rl, reader, prompt, shownAt), wait).unref();
      return;
    }
    if (this.#reader !== reader || this.#closed) return;
    reader.armed = true;
    this.#clearLine(rl);
    if (this.#dropped) this.#screen.write(this.#screen.paint('dim', '(the keys typed as the question came were not taken as an answer)') + '\n');
    rl.setPrompt(prompt);
    rl.prompt();
  }

  /** Empties the line being typed (what readline holds and shows). */
  #clearLine(rl: Interface): void {
    if (rl.line === '') return;
    rl.write(null, { ctrl: true, name: 'e' });
    rl.write(null, { ctrl: true, name: 'u' });
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

  /**
   * A key at the terminal, after readline has taken it in: the marks of a bracketed paste;
   * a lone Esc (not the start of an arrow key's sequence) interrupts like Ctrl-C, except at
   * the chat prompt; a question's answer key (the first letter of one of its words) sends
   * itself, without Enter, once the question is armed (before, every key is dropped).
   */
  #onKey(rl: Interface, text: string | undefined, key: Key | undefined): void {
    if (this.#hiddenHistory !== undefined) {
      setHistory(rl, this.#hiddenHistory);
      this.#hiddenHistory = undefined;
    }
    this.#lastKeyAt = performance.now();
    if (key?.name === 'paste-start') this.#pasting = true;
    else if (key?.name === 'paste-end') this.#pasting = false;
    if (this.#pasting || this.#closed) return;
    const reader = this.#reader;
    if (key?.name === 'escape' && key.sequence === '\x1b') {
      if (reader?.chat !== true) this.#onSigint();
      return;
    }
    // Tab while a run is in progress: what is typed steers it (no completion then: no chat prompt waits).
    if (key?.name === 'tab' && reader === undefined && key.shift !== true && key.ctrl !== true && key.meta !== true) {
      const message = [...this.#pieces, rl.line].join('\n');
      if (message.trim() !== '' && this.#onMessage?.(message, 'steer') === true) {
        this.#pieces = [];
        this.#clearLine(rl);
        this.#remember(rl, message);
      }
      return;
    }
    // A question not yet armed: the key (typed before the user could have read it) is dropped.
    if (reader?.armed === false) {
      if (rl.line !== '') this.#dropped = true;
      this.#clearLine(rl);
      return;
    }
    if (reader === undefined || text === undefined || text.length !== 1) return;
    const answer = text.toLowerCase();
    const word = reader.words.find((w) => w.startsWith(answer));
    if (word === undefined || rl.line.toLowerCase() !== answer) return;
    rl.write(null, { name: 'return' });
    this.#answeredWord = word;
  }

  /**
   * Before readline sees a key: ↑ on an empty line while a run is in progress takes the last
   * message queued back, when there is one; readline is shown no history for that key, so
   * the line stays empty until the message's text comes back.
   */
  #beforeKey(rl: Interface, key: Key | undefined): void {
    if (key?.name !== 'up' || key.ctrl === true || key.meta === true || key.shift === true) return;
    if (this.#closed || this.#pasting || this.#reader !== undefined || rl.line !== '' || this.#pieces.length > 0) return;
    const back = this.#onTakeBack?.();
    if (back === undefined) return;
    this.#hiddenHistory = historyOf(rl);
    setHistory(rl, []);
    void back.then((text) => {
      if (text !== undefined && !this.#closed) rl.write(text);
    });
  }

  /** Keeps a message sent at the chat prompt in this run's history (↑) and the next runs'. */
  #remember(rl: Interface, message: string): void {
    if (message.trim() === '') return;
    if (this.#terminal) {
      const history = historyOf(rl);
      const seen = history.indexOf(message);
      if (seen !== -1) history.splice(seen, 1);
      history.unshift(message);
      if (history.length > HISTORY_SIZE) history.length = HISTORY_SIZE;
    }
    this.#history?.add(message);
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

/** A key as readline's keypress event gives it. */
interface Key {
  name?: string;
  sequence?: string;
  ctrl?: boolean;
  meta?: boolean;
  shift?: boolean;
}

/** Readline's history, newest first (a terminal interface's; @types/node leaves the field out). */
function historyOf(rl: Interface): string[] {
  return (rl as Interface & { history: string[] }).history;
}

function setHistory(rl: Interface, history: string[]): void {
  (rl as Interface & { history: string[] }).history = history;
}
