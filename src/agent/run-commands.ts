/**
 * Run leases (`run:*`): which process runs a session's agent now. A process claims the
 * lease before it runs, renews it while it runs and releases it at the end; one whose
 * lease lapsed (its process died, or stalls) may be taken over by another process, which
 * resumes the run from the log. While a lease is live, the guard below refuses every other
 * process's writes to the session and its sub-workers' sessions, so a holder that stalls
 * and wakes up finds its run taken and writes nothing more.
 */
import { z } from 'zod';
import { defineCommand, GolemError, Id, requireSession, type Command, type CommandGuard, type WorkspaceView } from '../core/index.js';
import type { RunLease } from './agent-records.js';

/** How long a lease lasts unless renewed, at most (a day). */
const MAX_TTL_MS = 86_400_000;
const Ttl = z.number().int().min(100).max(MAX_TTL_MS);

/** Claims the run of a session: refused with SESSION_BUSY while another holder's lease is live. */
export const runClaim = defineCommand({
  type: 'run:claim',
  description: "Claims the lease on a session's run (a fresh claim, the holder's own again, or a lapsed one taken over).",
  payload: z.strictObject({ sessionId: Id, holder: z.string().min(1), by: z.string().default(''), runId: z.string().min(1), ttlMs: Ttl }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const earlier = ctx.index.collection('run').get(payload.sessionId);
    if (earlier !== undefined && earlier.holder !== payload.holder && live(earlier, ctx.now)) throw busy(earlier);
    const lease: RunLease = {
      sessionId: payload.sessionId,
      holder: payload.holder,
      by: payload.by,
      runId: payload.runId,
      claimedAt: ctx.now,
      expiresAt: after(ctx.now, payload.ttlMs),
      takeovers: (earlier?.takeovers ?? 0) + (earlier !== undefined && earlier.holder !== payload.holder ? 1 : 0),
    };
    return { writes: [{ op: 'put', collection: 'run', key: lease.sessionId, value: lease }], result: lease };
  },
});

/** Extends the holder's lease; LEASE_LOST when another process took the run over (or it was released). */
export const runRenew = defineCommand({
  type: 'run:renew',
  description: "Extends the holder's lease on a session's run.",
  payload: z.strictObject({ sessionId: Id, holder: z.string().min(1), ttlMs: Ttl }),
  reduce(payload, ctx) {
    const lease = ctx.index.collection('run').get(payload.sessionId);
    if (lease === undefined || lease.holder !== payload.holder) {
      throw new GolemError(
        'LEASE_LOST',
        lease === undefined
          ? `the run of session "${payload.sessionId}" holds no lease any more`
          : `the run of session "${payload.sessionId}" was taken over by ${lease.by || lease.holder} after this process's lease lapsed`,
        { details: { sessionId: payload.sessionId, ...(lease !== undefined && { holder: lease.holder }) } },
      );
    }
    const renewed: RunLease = { ...lease, expiresAt: after(ctx.now, payload.ttlMs) };
    return { writes: [{ op: 'put', collection: 'run', key: lease.sessionId, value: renewed }], result: renewed };
  },
});

/** Ends the holder's lease (the run ended); a lease another holder took is left alone. */
export const runRelease = defineCommand({
  type: 'run:release',
  description: "Releases the holder's lease on a session's run.",
  payload: z.strictObject({ sessionId: Id, holder: z.string().min(1) }),
  reduce(payload, ctx) {
    const lease = ctx.index.collection('run').get(payload.sessionId);
    if (lease === undefined || lease.holder !== payload.holder) return { writes: [], result: { released: false } };
    return { writes: [{ op: 'delete', collection: 'run', key: lease.sessionId }], result: { released: true } };
  },
});

/** Commands that name a session without changing it. */
const READS_ONLY = new Set(['session:fork']);

/**
 * Refuses a command on a session (or one of its sub-workers' sessions) whose run another
 * handle holds a live lease on: SESSION_BUSY, nothing written.
 */
export const runLeaseGuard: CommandGuard = (command, ctx) => {
  if (command.type.startsWith('run:') || READS_ONLY.has(command.type)) return;
  const sessionId = (command.payload as { sessionId?: unknown } | null)?.sessionId;
  if (typeof sessionId !== 'string') return;
  const lease = leaseOf(ctx.index, sessionId);
  if (lease !== undefined && lease.holder !== ctx.instanceId && live(lease, command.timestamp)) throw busy(lease, command);
};

/** The lease on the run a session belongs to (its root's, for a sub-worker's session). */
export function leaseOf(view: WorkspaceView, sessionId: string): RunLease | undefined {
  const root = view.collection('worker').get(sessionId)?.rootSessionId ?? sessionId;
  return view.collection('run').get(root);
}

/** Whether the lease is still live at `now` (an ISO timestamp). */
export function live(lease: RunLease, now: string): boolean {
  return Date.parse(lease.expiresAt) > Date.parse(now);
}

function after(now: string, ms: number): string {
  return new Date(Date.parse(now) + ms).toISOString();
}

function busy(lease: RunLease, command?: Command): GolemError {
  const who = lease.by === '' ? `another process (${lease.holder})` : lease.by;
  return new GolemError(
    'SESSION_BUSY',
    `${command === undefined ? '' : `${command.type} refused: `}session "${lease.sessionId}" is being run by ${who} (its lease runs to ${lease.expiresAt}); wait for that run to end, or stop it there`,
    { details: { sessionId: lease.sessionId, holder: lease.holder, expiresAt: lease.expiresAt } },
  );
}
