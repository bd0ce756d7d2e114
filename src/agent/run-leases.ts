/**
 * A process's side of run leases (`run:*`, run-commands.ts): claims a session's run,
 * renews the lease while the run lasts, releases it at the end, and lists the runs whose
 * holder's lease lapsed, for another process to take over and resume from the log.
 *
 * While this process holds a run, each of its own writes to that session must still find
 * the lease its own in the store: a process that stalled past its lease, and wakes up
 * after another took the run over (or even finished it), gets LEASE_LOST for every write
 * and its run ends, writing nothing.
 */
import { GolemError, type WorkspaceManager } from '../core/index.js';
import type { RunLease } from './agent-records.js';
import { leaseOf, live } from './run-commands.js';

export interface RunLeaseOptions {
  /** How long a lease lasts unless renewed (default 15 s); it is renewed every third of that. */
  ttlMs?: number;
  /** Who this process is, for people reading a refusal or the log (e.g. "golem serve, pid 4711 on build-2"). */
  by?: string;
}

/** A lease this process holds. */
export interface HeldLease {
  readonly sessionId: string;
  readonly runId: string;
  /** Stops renewing and ends the lease (if it is still this process's). */
  release(): Promise<void>;
}

export const DEFAULT_LEASE_TTL_MS = 15_000;

export class RunLeases {
  readonly ttlMs: number;
  readonly #manager: WorkspaceManager;
  readonly #by: string;
  /** Root sessions whose run this process holds, by session id: their run id. */
  readonly #held = new Map<string, string>();
  readonly #removeGuard: () => void;

  constructor(manager: WorkspaceManager, options: RunLeaseOptions = {}) {
    const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!Number.isInteger(ttlMs) || ttlMs < 100 || ttlMs > 86_400_000) {
      throw new GolemError('INVALID_ARGUMENT', `a run lease lasts from 100 ms to a day (ttlMs), not ${String(options.ttlMs)}`);
    }
    this.ttlMs = ttlMs;
    this.#manager = manager;
    this.#by = options.by ?? '';
    this.#removeGuard = manager.addGuard((command, ctx) => {
      if (command.type.startsWith('run:')) return;
      const sessionId = (command.payload as { sessionId?: unknown } | null)?.sessionId;
      if (typeof sessionId !== 'string') return;
      const lease = leaseOf(ctx.index, sessionId);
      const root = lease?.sessionId ?? ctx.index.collection('worker').get(sessionId)?.rootSessionId ?? sessionId;
      if (this.#held.has(root) && lease?.holder !== ctx.instanceId) throw lost(root, lease);
    });
  }

  /**
   * Claims the session's run for this process (SESSION_BUSY while another holds a live
   * lease) and renews it until released. `onLost` is called once if a renewal finds the
   * run taken over: stop the run then.
   */
  async claim(sessionId: string, runId: string, onLost: (error: GolemError) => void): Promise<HeldLease> {
    const claimed = await this.#manager.dispatch({
      type: 'run:claim',
      payload: { sessionId, holder: this.#manager.instanceId, by: this.#by, runId, ttlMs: this.ttlMs },
    });
    if (!claimed.ok) throw claimed.error;
    this.#held.set(sessionId, runId);
    let released = false;
    let lost = false;
    let renewing: Promise<unknown> = Promise.resolve();
    const timer = setInterval(
      () => {
        renewing = this.#manager
          .dispatch({ type: 'run:renew', payload: { sessionId, holder: this.#manager.instanceId, ttlMs: this.ttlMs } })
          .then((renewed) => {
            // A store that failed for a moment is tried again at the next tick; a lease taken over is gone for good.
            if (renewed.ok || released || renewed.error.code !== 'LEASE_LOST') return;
            lost = true;
            clearInterval(timer);
            onLost(renewed.error);
          });
      },
      Math.max(50, Math.floor(this.ttlMs / 3)),
    );
    timer.unref();
    return {
      sessionId,
      runId,
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(timer);
        // Until now the run's writes needed the lease (even once lost); from here this process writes as anyone does.
        if (this.#held.get(sessionId) === runId) this.#held.delete(sessionId);
        await renewing;
        if (lost || this.#manager.closed) return;
        // Left to lapse when it cannot be released now (the store is down): another process takes the run over then, and finds it ended.
        await this.#manager.dispatch({ type: 'run:release', payload: { sessionId, holder: this.#manager.instanceId } });
      },
    };
  }

  /** Whether this process holds the session's run. */
  holds(sessionId: string): boolean {
    return this.#held.has(sessionId);
  }

  /** The leases other processes held that lapsed by `now`: runs to take over (their sessions may be gone). */
  lapsed(now: Date = new Date()): RunLease[] {
    const at = now.toISOString();
    return [...this.#manager.workspace().collection('run').values()].filter((l) => l.holder !== this.#manager.instanceId && !live(l, at));
  }

  /** Stops guarding (the held runs' leases are left as they are). */
  dispose(): void {
    this.#removeGuard();
  }
}

function lost(sessionId: string, lease: RunLease | undefined): GolemError {
  const now = lease === undefined ? 'holds no lease any more' : `is held by ${lease.by === '' ? lease.holder : lease.by} now`;
  return new GolemError('LEASE_LOST', `this process's lease on the run of session "${sessionId}" lapsed and the run ${now}; it writes nothing more`, {
    details: { sessionId, ...(lease !== undefined && { holder: lease.holder }) },
  });
}
