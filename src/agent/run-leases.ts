/**
 * A process's side of run leases (`run:*`, run-commands.ts): claims a session's run,
 * renews the lease while the run lasts, releases it at the end, and lists the runs whose
 * holder's lease lapsed, for another process to take over and resume from the log.
 *
 * While this process holds a run, each of its own changes to that session (and to its
 * sub-workers') must still find the lease its own, live, in the store: a process that
 * stalled past its lease, and wakes up after another took the run over (or even finished
 * it), gets LEASE_LOST for every such write, and its run ends having written nothing.
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { GolemError, type WorkspaceManager } from '../core/index.js';
import type { LeaseProcess, RunLease } from './agent-records.js';
import { live, rootsWritten } from './run-commands.js';
import type { RunEnd } from './run-records.js';
import type { ChunkPayload } from './run-event-store.js';

export interface RunLeaseOptions {
  /** How long a lease lasts unless renewed (default 30 s); it is renewed every third of that. */
  ttlMs?: number;
  /** Who this process is, for people reading a refusal or the log (e.g. "golem serve, pid 4711 on build-2"). */
  by?: string;
  /** This process, so that a claimant on this machine can tell it is gone (default: `processIdentity(process.pid)`). */
  process?: LeaseProcess;
  /**
   * Whether a `golem serve` may take this process's runs over and resume them with its own
   * agent (default true). The terminal's and `golem ask`'s runs are not: their own front end resumes them.
   */
  resumable?: boolean;
}

/** A lease this process holds. */
export interface HeldLease {
  readonly sessionId: string;
  readonly runId: string;
  /** Stops renewing and ends the lease (if it is still this run's), and the run's record with `end` (run-records.ts), keeping the run's last `events`. */
  release(end?: RunEnd, events?: ChunkPayload): Promise<void>;
}

export const DEFAULT_LEASE_TTL_MS = 30_000;

interface Held {
  runId: string;
  timer: NodeJS.Timeout;
}

export class RunLeases {
  readonly ttlMs: number;
  readonly #manager: WorkspaceManager;
  readonly #by: string;
  readonly #process: LeaseProcess;
  readonly #resumable: boolean;
  /** The root sessions whose run this process holds (from the claim until the run's release, even once lost). */
  readonly #held = new Map<string, Held>();
  readonly #removeGuard: () => void;

  constructor(manager: WorkspaceManager, options: RunLeaseOptions = {}) {
    const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
    if (!Number.isInteger(ttlMs) || ttlMs < 100 || ttlMs > 86_400_000) {
      throw new GolemError('INVALID_ARGUMENT', `a run lease lasts from 100 ms to a day (ttlMs), not ${String(options.ttlMs)}`);
    }
    this.ttlMs = ttlMs;
    this.#manager = manager;
    this.#by = options.by ?? '';
    this.#process = options.process ?? processIdentity(process.pid);
    this.#resumable = options.resumable ?? true;
    this.#removeGuard = manager.addGuard((command, ctx) => {
      if (command.type.startsWith('run:')) return;
      for (const root of rootsWritten(ctx.index, ctx.writes)) {
        const held = this.#held.get(root);
        if (held === undefined) continue;
        const lease = ctx.index.collection('run').get(root);
        if (lease?.holder !== ctx.instanceId || lease.runId !== held.runId || !live(lease, command.timestamp)) throw lost(root, held.runId, lease);
      }
    });
  }

  /**
   * Claims the session's run for this process (SESSION_BUSY while another run holds a live
   * lease) and renews it until released. `onLost` is called once if a renewal finds the run
   * taken over or released: stop the run then (its writes to the session are refused).
   */
  async claim(sessionId: string, runId: string, onLost: (error: GolemError) => void, who: { by?: string; resumable?: boolean } = {}): Promise<HeldLease> {
    const holder = this.#manager.instanceId;
    const asked = Date.now();
    const earlier = this.#manager.workspace().collection('run').get(sessionId);
    // A holder on this machine whose process is gone (killed, crashed) is not waited for: its lease is taken at once.
    const takeOver = earlier !== undefined && this.#gone(earlier) ? { takeOver: earlier.holder } : {};
    const claimed = await this.#manager.dispatch({
      type: 'run:claim',
      payload: {
        sessionId,
        holder,
        by: who.by ?? this.#by,
        process: this.#process,
        resumable: who.resumable ?? this.#resumable,
        runId,
        ttlMs: this.ttlMs,
        ...takeOver,
      },
    });
    if (!claimed.ok) throw claimed.error;
    let released = false;
    let lost = false;
    let renewing: Promise<unknown> | undefined;
    const renew = async () => {
      const renewed = await this.#manager.dispatch({ type: 'run:renew', payload: { sessionId, holder, runId, ttlMs: this.ttlMs } });
      // A store that failed for a moment is tried again at the next tick; a lease taken over is gone for good.
      if (renewed.ok || released || lost || renewed.error.code !== 'LEASE_LOST') return;
      lost = true;
      clearInterval(timer);
      onLost(renewed.error);
    };
    const timer = setInterval(
      () => {
        // One renewal at a time: a slow store does not pile them up.
        renewing ??= renew().finally(() => (renewing = undefined));
      },
      Math.max(50, Math.floor(this.ttlMs / 3)),
    );
    timer.unref();
    this.#held.set(sessionId, { runId, timer });
    // A claim that waited long (a busy store) runs from when it was asked: renewed at once, not a third of a lease later.
    if (Date.now() - asked > this.ttlMs / 3) renewing = renew().finally(() => (renewing = undefined));
    return {
      sessionId,
      runId,
      release: async (end?: RunEnd, events?: ChunkPayload) => {
        if (released) return;
        released = true;
        clearInterval(timer);
        // Until now the run's writes needed its lease (even once lost); from here this process writes as anyone does.
        if (this.#held.get(sessionId)?.runId === runId) this.#held.delete(sessionId);
        await renewing;
        if (lost || this.#manager.closed) return;
        // Left to lapse when it cannot be released now (the store is down): a process that takes the run over finds it ended.
        await this.#manager.dispatch({
          type: 'run:release',
          payload: { sessionId, holder, runId, ...(end !== undefined && { end }), ...(events !== undefined && { events }) },
        });
      },
    };
  }

  /** Whether this process holds the session's run. */
  holds(sessionId: string): boolean {
    return this.#held.has(sessionId);
  }

  /**
   * The resumable runs of other processes whose lease lapsed by `now`, or whose process on
   * this machine is gone: runs to take over (their sessions may be gone).
   */
  lapsed(now: Date = new Date()): RunLease[] {
    const at = now.toISOString();
    return [...this.#manager.workspace().collection('run').values()].filter(
      (l) => l.holder !== this.#manager.instanceId && l.resumable !== false && (!live(l, at) || this.#gone(l)),
    );
  }

  /**
   * For a cancel of the run: its holder when its process, on this machine, is gone though its
   * lease is live (caught up with the store first), so the run is cancelled at once instead of
   * waiting for the lease to lapse and another process to take it over.
   */
  async goneHolder(runId: string): Promise<{ holderGone?: string }> {
    await this.#manager.refresh();
    const lease = [...this.#manager.workspace().collection('run').values()].find((l) => l.runId === runId);
    return lease !== undefined && this.#gone(lease) ? { holderGone: lease.holder } : {};
  }

  /** Whether the lease's holder ran on this machine, in this pid namespace, and its process is no more. */
  #gone(lease: RunLease): boolean {
    const holder = lease.process;
    const mine = this.#process;
    if (lease.holder === this.#manager.instanceId || holder?.machine === undefined || holder.machine !== mine.machine || holder.host !== mine.host)
      return false;
    if (holder.pid === mine.pid) return holder.start !== undefined && holder.start !== mine.start;
    try {
      process.kill(holder.pid, 0);
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH'; // EPERM: it lives, as another user
    }
    const now = stateOf(holder.pid);
    // Ended and not reaped yet, or the pid is another process's now.
    return now.zombie || (holder.start !== undefined && now.start !== undefined && now.start !== holder.start);
  }

  /** Stops guarding and renewing (the held runs' leases are left to lapse). */
  dispose(): void {
    this.#removeGuard();
    for (const held of this.#held.values()) clearInterval(held.timer);
    this.#held.clear();
  }
}

function lost(sessionId: string, runId: string, lease: RunLease | undefined): GolemError {
  const now =
    lease === undefined
      ? 'holds no lease any more (another process took the run over and ended it)'
      : lease.runId === runId
        ? `let its lease lapse at ${lease.expiresAt} (its renewals did not get through), so another process may take it over`
        : `was taken over: run ${lease.runId} of ${lease.by === '' ? lease.holder : lease.by} holds its lease now`;
  return new GolemError('LEASE_LOST', `run ${runId} of session "${sessionId}" ${now}; it writes nothing more`, {
    details: { sessionId, runId, ...(lease !== undefined && { holder: lease.holder }) },
  });
}

/**
 * A process on this machine as a lease records it: the machine's name, the pid, and on Linux
 * the boot id with the pid namespace (what the pid means something in) and its start time.
 */
export function processIdentity(pid: number): LeaseProcess {
  const identity: LeaseProcess = { host: hostname(), pid };
  try {
    identity.machine = `${readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim()}/${readlinkSync('/proc/self/ns/pid')}`;
  } catch {
    return identity; // not Linux: without a machine, a holder is never judged gone before its lease lapses
  }
  const { start } = stateOf(pid);
  return start === undefined ? identity : { ...identity, start };
}

/** The process's start time and whether it ended and waits to be reaped (a zombie), from /proc. */
function stateOf(pid: number): { start?: string; zombie: boolean } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // After the command's closing parenthesis: the state (field 3), ..., the start time (field 22).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { ...(fields[19] !== undefined && { start: fields[19] }), zombie: fields[0] === 'Z' };
  } catch {
    return { zombie: false };
  }
}
