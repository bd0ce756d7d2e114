/**
 * The terminal chat's messages during a run (issue 36): a line typed while the worker runs
 * goes to the session's run through `ws.runs.send` (Enter: `enqueue`, Tab: `steer`), kept in
 * the store's inbox like any wire's; the last one queued from here can be taken back (↑). A
 * message that found no run (it had just ended) comes back to the chat as the next turn.
 */
import type { ContentBlock } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { Workspace } from '../create-workspace.js';
import type { RunMessages } from '../terminal/index.js';

export class ChatInbox implements RunMessages {
  readonly #ws: Workspace;
  readonly #by: string;
  readonly #say: (text: string, level: 'warning' | 'error') => void;
  /** The session open in the chat (its messages are listed), and whether its worker runs now (typed messages go to it). */
  readonly #sessionId: () => string;
  #accepting = false;
  /** The ids of the messages sent from here, oldest first (↑ takes back the newest still waiting). */
  readonly #sent: string[] = [];
  /** Sends not answered yet: the chat waits for them before it looks for what to run next. */
  readonly #sending = new Set<Promise<void>>();
  /** Messages sent once the run had ended: the chat runs them next. */
  readonly #late: string[] = [];

  constructor(ws: Workspace, options: { by: string; sessionId: () => string; say: (text: string, level: 'warning' | 'error') => void }) {
    this.#ws = ws;
    this.#by = options.by;
    this.#sessionId = options.sessionId;
    this.#say = options.say;
  }

  /** Whether messages typed now are sent to the session's run (while the chat's worker runs, between its runs too). */
  accept(on: boolean): void {
    this.#accepting = on;
  }

  send(text: string, policy: 'enqueue' | 'steer'): boolean {
    if (!this.#accepting || text.startsWith('/')) return false;
    const id = this.#ws.manager.newId();
    const blocks: ContentBlock[] = [{ type: 'text', text }];
    const sending = this.#ws.runs.send(this.#sessionId(), { blocks, id }, { policy, by: this.#by }).then(
      (result) => {
        if (result.status === 'idle') this.#late.push(text);
        else this.#sent.push(id);
      },
      (error: unknown) => {
        const reason = GolemError.isInstance(error) ? `[${error.code}] ${error.message}` : String(error);
        this.#say(`Not sent: ${reason}. It was: ${text}`, 'error');
      },
    );
    const tracked = sending.finally(() => this.#sending.delete(tracked));
    this.#sending.add(tracked);
    return true;
  }

  takeBack(): Promise<string | undefined> | undefined {
    if (!this.#accepting) return undefined;
    const mine = new Set(this.#sent);
    // The newest sent from here that still waits, if it is one line of text (the line being typed holds one line).
    const message = this.#ws.runs
      .inbox(this.#sessionId())
      .filter((m) => mine.has(m.id))
      .at(-1);
    const text = message === undefined ? undefined : plainText(message.blocks);
    if (message === undefined || text === undefined || text.includes('\n')) return undefined;
    return this.#ws.runs.unsend(message.id).then(
      () => text,
      (error: unknown) => {
        // Delivered meanwhile: it is the run's now.
        if (!(GolemError.isInstance(error) && error.code === 'MESSAGE_NOT_FOUND')) this.#say(`Could not take it back: ${String(error)}`, 'error');
        return undefined;
      },
    );
  }

  waiting(): { text: string; policy: 'enqueue' | 'steer' | 'interrupt' }[] {
    return this.#ws.runs.inbox(this.#sessionId()).map((m) => ({ text: plainText(m.blocks) ?? '(attachment)', policy: m.policy }));
  }

  /** Waits for the sends in flight: each is in the inbox, or back here to run next (`late`). */
  async settled(): Promise<void> {
    while (this.#sending.size > 0) await Promise.all(this.#sending);
  }

  /** The oldest message sent once the run had ended, to run next; undefined when none. */
  late(): string | undefined {
    return this.#late.shift();
  }
}

/** A message's text, when it is only text. */
function plainText(blocks: readonly ContentBlock[]): string | undefined {
  const texts = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : []));
  return texts.length === blocks.length ? texts.join('') : undefined;
}
