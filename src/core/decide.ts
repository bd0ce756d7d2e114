/**
 * How a command is decided and committed on a store other processes write to: which lock
 * it runs under, and when it is decided again. On a store that orders commands per stream
 * (`append`), a command first runs with no lock: commands on other sessions go on meanwhile,
 * and the store refuses it if another process wrote what it read. Decided again after a
 * catch-up, under the lock of its own sessions: one another process's command got in the
 * way of (and, for a while, every command on a session that was just fought over, which
 * would only be refused again), and one refused on a view that missed another process's
 * commit. Under the workspace's lock, which every command without it yields to: one that
 * was got in the way of even under its sessions' locks (a workspace-wide record written by
 * another session's command, which those locks do not keep out), a command with effects or
 * blob records (the bytes and the records must not interleave with another process's), one
 * that reads every session (or every session's record), and every command on a store
 * without streams. So a command is committed or refused for a reason of its own; once under
 * the workspace's lock, only commands already on their way can get in first.
 */
import { GolemError, type Result } from './errors.js';
import type { Lock, Scope } from './streams.js';
import { WORKSPACE_STREAM, type Store } from './store.js';

/** How long a session stays "fought over" after a conflict on it: its commands go straight to its lock meanwhile. */
const CONTENDED_MS = 1_000;
/** Attempts at most before a conflict is reported (each after catching up, under a lock). */
const ATTEMPTS = 12;

/** The sessions this process lately saw fought over by other processes (session -> until when, ms). */
export class Contention {
  readonly #until = new Map<string, number>();

  /** Marks the sessions fought over from now on. */
  mark(streams: readonly string[]): void {
    const until = Date.now() + CONTENDED_MS;
    for (const stream of streams) this.#until.set(stream, until);
    if (this.#until.size > 10_000) this.#forgetPast();
  }

  /** Whether any of them was fought over lately. */
  has(streams: readonly string[]): boolean {
    const now = Date.now();
    return streams.some((stream) => (this.#until.get(stream) ?? 0) > now);
  }

  #forgetPast(): void {
    const now = Date.now();
    for (const [stream, until] of this.#until) if (until <= now) this.#until.delete(stream);
  }
}

export interface Decision<T> {
  store: Store;
  scope: Scope;
  /** Decides the command on the index as it is and commits it; 'lock': it needs the workspace's lock, not the one given. */
  step(lock: Lock): Promise<Result<T> | 'lock'>;
  /** Catches up with what other processes committed; resolves with whether anything was new. */
  catchUp(): Promise<boolean>;
  /** Whether an error is a refusal by a reducer or guard (not the store's). */
  refused(error: GolemError): boolean;
  contention: Contention;
}

/** Decides and commits a command, deciding it again where another process got in the way (see the module's comment). */
export async function decide<T>(d: Decision<T>): Promise<Result<T>> {
  const exclusive = d.store.exclusive?.bind(d.store);
  const optimistic = d.store.append !== undefined && !d.scope.whole;
  const own = d.scope.sessions.length > 0 ? d.scope.sessions : [WORKSPACE_STREAM];
  const under = async (lock: Lock): Promise<Result<T> | 'lock'> => {
    if (lock === 'none') return d.step(lock);
    const run = async () => (await d.catchUp(), d.step(lock));
    return exclusive === undefined ? run() : exclusive(run, lock === 'streams' ? own : undefined);
  };
  let lock: Lock = !optimistic ? 'workspace' : d.contention.has(own) ? 'streams' : 'none';
  // A store without streams or a lock (SQLite): decided on the index as it is, caught up only when refused.
  let outcome = !optimistic && exclusive === undefined ? await d.step(lock) : await under(lock);
  let reconsidered = false;
  for (let attempt = 1; attempt < ATTEMPTS; attempt++) {
    if (outcome === 'lock') {
      lock = 'workspace';
    } else if (!outcome.ok && outcome.error.code === 'STORE_CONFLICT') {
      // Another process wrote first, or holds a lock this command yields to: decided again under its sessions' locks,
      // and if even there something came first (a workspace-wide record another session's command wrote, which its
      // sessions' locks do not keep out), under the workspace's, which every command without it yields to.
      const { lock: yielded, stream } = (outcome.error.details ?? {}) as { lock?: unknown; stream?: unknown };
      if (optimistic && (typeof stream !== 'string' || own.includes(stream))) d.contention.mark(own);
      lock = yielded === 'workspace' || lock !== 'none' ? 'workspace' : 'streams';
      if (!optimistic && attempt >= 4) break;
    } else if (!outcome.ok && !reconsidered && (lock === 'none' || exclusive === undefined) && d.refused(outcome.error)) {
      // Refused on a view that may have missed another process's commit: decided again on the state as it is.
      reconsidered = true;
      if (!(await d.catchUp().catch(() => false))) break;
      if (lock === 'none') lock = 'streams';
    } else break;
    outcome = await under(lock);
  }
  // #step never asks for the workspace's lock under it.
  return outcome === 'lock' ? { ok: false, error: new GolemError('INTERNAL', 'a command asked for the workspace lock under it') } : outcome;
}
