/**
 * The chat prompt's history across runs: the messages sent at `golem`'s prompt in one
 * project, a JSON string a line, newest last, in the workspace folder (or, for a workspace
 * with no folder, under ~/.golem). Only what was sent at the chat prompt is kept, never an
 * answer to a question (an approval, a reason, a secret).
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { HISTORY_SIZE, type LineHistory } from '../terminal/line-reader.js';

/** Where a project's history is kept: beside its workspace, or per project folder under ~/.golem. */
export function historyPath(workspaceDir: string, projectRoot: string, home = homedir()): string {
  if (existsSync(workspaceDir) && statSync(workspaceDir).isDirectory()) return join(workspaceDir, 'history');
  const project = createHash('sha256').update(projectRoot).digest('hex').slice(0, 16);
  return join(home, '.golem', 'history', project);
}

/** The commands that end the chat: not kept. */
const LEAVING = /^\/(exit|quit)\s*$/;

/** A history file, read once, appended to as messages are sent, cut back to its last `cap` entries when it holds twice that. */
export class InputHistory implements LineHistory {
  readonly #path: string;
  readonly #cap: number;
  /** Oldest first, as in the file. */
  #entries: string[] | undefined;

  constructor(path: string, cap = HISTORY_SIZE) {
    this.#path = path;
    this.#cap = cap;
  }

  /** The messages kept, newest first, each once (none when the file is missing or unreadable). */
  entries(): string[] {
    return [...new Set([...this.#read()].reverse())];
  }

  add(message: string): void {
    if (LEAVING.test(message)) return; // ↑ in the next run would bring back the way out first
    const entries = this.#read();
    entries.push(message);
    try {
      mkdirSync(dirname(this.#path), { recursive: true, mode: 0o700 });
      if (entries.length >= this.#cap * 2) {
        entries.splice(0, entries.length - this.#cap);
        this.#write(entries);
      } else {
        appendFileSync(this.#path, `${JSON.stringify(message)}\n`, { mode: 0o600 });
      }
    } catch {
      // A history that cannot be written is only a convenience lost; the chat goes on.
    }
  }

  #read(): string[] {
    if (this.#entries !== undefined) return this.#entries;
    let text = '';
    try {
      text = readFileSync(this.#path, 'utf8');
    } catch {
      // No history yet.
    }
    const entries: string[] = [];
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        const entry: unknown = JSON.parse(line);
        if (typeof entry === 'string' && entry !== '') entries.push(entry);
      } catch {
        // A line cut short (two golems writing at once, a crash): skipped.
      }
    }
    this.#entries = entries.slice(-this.#cap);
    try {
      if (entries.length >= this.#cap * 2) this.#write(this.#entries); // the file grew over many runs: cut back
    } catch {
      // Read-only: it is read as it is.
    }
    return this.#entries;
  }

  #write(entries: readonly string[]): void {
    writeFileSync(this.#path, entries.map((e) => `${JSON.stringify(e)}\n`).join(''), { mode: 0o600 });
  }
}
