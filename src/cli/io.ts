/** What the `golem` command reads and writes: its streams, its folder and its stop signal. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  /** The terminal, for the chat (default: the process's stdin and stdout). */
  input?: NodeJS.ReadableStream;
  output?: NodeJS.WritableStream;
  /** Ends a long-running command (`serve`) as Ctrl-C would. */
  signal?: AbortSignal;
}
