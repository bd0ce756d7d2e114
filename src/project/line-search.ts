/**
 * Lines that match a model's regular expression, found off the main thread: the pattern is
 * RE2 (re2js), so its time is linear in the text whatever the pattern, and it runs in a
 * worker thread under a time budget, so even a slow linear search (a pattern of a thousand
 * states over a megabyte line) never keeps the server from answering, and is cut off when
 * the budget runs out (SEARCH_TIMEOUT) or the run stops.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { RE2JS } from 're2js';
import { fail } from '../core/errors.js';

/** What a model is told of search_files' pattern syntax. */
export const SEARCH_SYNTAX = 'RE2 syntax, like ripgrep and Go: no lookahead, lookbehind or backreferences; \\d \\w \\b are ASCII';

/** A matching line: its number (from 1) and where the match starts. */
export interface LineMatch {
  line: number;
  index: number;
  text: string;
}

/** The worker: compiles the pattern once, then answers each text with its matching lines (at most `cap`). */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { RE2JS } = require(workerData.re2js);
const re = RE2JS.compile(workerData.pattern, workerData.flags);
parentPort.on('message', ({ text, cap }) => {
  const lines = text.split(/\\r?\\n/);
  if (lines.at(-1) === '') lines.pop();
  const matches = [];
  for (let i = 0; i < lines.length && matches.length < cap; i++) {
    const line = lines[i];
    if (!re.test(line)) continue;
    const m = re.matcher(line);
    matches.push({ line: i + 1, index: m.find() ? m.start() : 0, text: line });
  }
  parentPort.postMessage(matches);
});
`;

const re2jsPath = createRequire(import.meta.url).resolve('re2js');

/**
 * A search with one pattern over several texts (`lines`, one file at a time), in one worker,
 * within `budgetMs` in all. `close` ends it. A pattern RE2 cannot compile is INVALID_ARGUMENT.
 */
export class LineSearch {
  readonly #worker: Worker;
  readonly #deadline: number;
  readonly #budgetMs: number;
  readonly #signal: AbortSignal | undefined;

  constructor(pattern: string, options: { ignoreCase: boolean; budgetMs: number; signal?: AbortSignal | undefined }) {
    const flags = options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0;
    try {
      RE2JS.compile(pattern, flags);
    } catch (error) {
      throw fail(
        'INVALID_ARGUMENT',
        `"${pattern}" is not a pattern search_files takes (${SEARCH_SYNTAX}): ${(error as Error).message.replace(/^error parsing regexp: /, '')}. Fix the pattern (escape ( ) [ ] { } . * + ? | \\ ^ $ to match them literally) and search again.`,
        { pattern },
      );
    }
    this.#budgetMs = options.budgetMs;
    this.#deadline = Date.now() + options.budgetMs;
    this.#signal = options.signal;
    this.#worker = new Worker(WORKER, { eval: true, workerData: { re2js: re2jsPath, pattern, flags } });
    this.#worker.unref();
    // Between texts nobody waits on it: an error then must not take the process down (the next text is refused).
    this.#worker.on('error', () => undefined);
  }

  /** The lines of `text` that match (at most `cap`). */
  lines(text: string, cap: number): Promise<LineMatch[]> {
    const worker = this.#worker;
    this.#signal?.throwIfAborted();
    return new Promise<LineMatch[]>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        this.#signal?.removeEventListener('abort', onAbort);
      };
      const onMessage = (matches: LineMatch[]) => {
        done();
        resolve(matches);
      };
      const onError = (error: Error) => {
        done();
        reject(fail('INTERNAL', `the search stopped: ${error.message}`, { cause: error }));
      };
      const onAbort = () => {
        done();
        void worker.terminate();
        reject(this.#signal?.reason as Error);
      };
      const timer = setTimeout(
        () => {
          done();
          void worker.terminate();
          reject(
            fail(
              'SEARCH_TIMEOUT',
              `the search took longer than its ${this.#budgetMs / 1000} s budget and was stopped; narrow it with path or glob, or a simpler pattern`,
            ),
          );
        },
        Math.max(0, this.#deadline - Date.now()),
      );
      worker.on('message', onMessage);
      worker.once('error', onError);
      this.#signal?.addEventListener('abort', onAbort, { once: true });
      worker.postMessage({ text, cap });
    });
  }

  /** Ends the worker. */
  async close(): Promise<void> {
    await this.#worker.terminate();
  }
}
