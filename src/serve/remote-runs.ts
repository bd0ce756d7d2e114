/**
 * The runs other processes hold, followed for the pages of this `golem serve` (issue 36): a
 * page shows a run live whichever process on the store runs it. Heard of on catching up with
 * another process's claim (the store's notice on PostgreSQL), each is followed through the
 * events its holder keeps (`ws.runs.follow`), translated as this server's own runs are, to its
 * end; or until this server claims the session itself (a take-over), when its own log tells
 * the pages.
 */
import type { Workspace } from '../create-workspace.js';
import { pageTranslator } from './run-events.js';
import { heldElsewhere, leaseSource } from './run-source.js';

export class RemoteRuns {
  readonly #ws: Workspace;
  readonly #broadcast: (event: object) => void;
  /** Whether this server runs (or is about to run) the session itself. */
  readonly #here: (sessionId: string) => boolean;
  /** The runs followed now: by session, the stop. */
  readonly #followed = new Map<string, () => void>();
  readonly #off: () => void;
  #closed = false;

  constructor(ws: Workspace, broadcast: (event: object) => void, here: (sessionId: string) => boolean) {
    this.#ws = ws;
    this.#broadcast = broadcast;
    this.#here = here;
    this.#off = ws.manager.events.on('index:rebuilt', (event) => {
      if (event.collections === undefined || event.collections.includes('run')) this.#follow();
    });
  }

  /** Stops following the session's run (this server holds it now). */
  stop(sessionId: string): void {
    this.#followed.get(sessionId)?.();
    this.#followed.delete(sessionId);
  }

  close(): void {
    this.#closed = true;
    this.#off();
    for (const stop of this.#followed.values()) stop();
    this.#followed.clear();
  }

  /** Starts following each run another process holds now that is not followed yet. */
  #follow(): void {
    const { manager } = this.#ws;
    if (this.#closed || manager.closed) return;
    const now = new Date().toISOString();
    for (const lease of manager.workspace().collection('run').values()) {
      const id = lease.sessionId;
      if (!heldElsewhere(this.#ws, lease, now) || this.#followed.has(id) || this.#here(id)) continue;
      const pages = pageTranslator(id, lease.runId);
      const stop = leaseSource(this.#ws, lease).follow((entry) => {
        for (const event of pages.entry(entry)) this.#broadcast(event);
        if (entry.type === 'end' && this.#followed.get(id) === stop) this.#followed.delete(id);
      });
      this.#followed.set(id, stop);
    }
  }
}
