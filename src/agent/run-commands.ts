/**
 * Run leases (`run:*`): which process runs a session's agent now. A process claims the
 * lease before it runs, renews it while it runs and releases it at the end; one whose
 * lease lapsed (its process died, or stalls) may be taken over by another process, which
 * resumes the run from the log. While a lease is live, the guard below refuses every other
 * process's writes to the session and its sub-workers' sessions, so a holder that stalls
 * and wakes up finds its run taken and writes nothing more.
 */
import { z } from 'zod';
import { defineCommand, fail, GolemError, Id, requireSession, type Command, type CommandGuard, type WorkspaceView, type Write } from '../core/index.js';
import { LeaseProcess, type RunLease } from './agent-records.js';
import { claimedRecord, endedRecord, RunEnd } from './run-records.js';
import { ChunkPayload, chunkWrite } from './run-event-store.js';

/** How long a lease lasts unless renewed, at most (a day). */
const MAX_TTL_MS = 86_400_000;
const Ttl = z.number().int().min(100).max(MAX_TTL_MS);

/** Claims the run of a session: refused with SESSION_BUSY while another holder's lease is live. */
export const runClaim = defineCommand({
  type: 'run:claim',
  description: "Claims the lease on a session's run (a fresh claim, the holder's own again, or a lapsed one taken over).",
  payload: z.strictObject({
    sessionId: Id,
    holder: z.string().min(1),
    by: z.string().default(''),
    process: LeaseProcess.optional(),
    resumable: z.boolean().optional(),
    runId: z.string().min(1),
    ttlMs: Ttl,
    /** The holder whose lease is taken though still live: the claimant found its process gone (on the same machine). */
    takeOver: z.string().min(1).optional(),
  }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const worker = ctx.index.collection('worker').get(payload.sessionId);
    if (worker !== undefined) {
      throw fail('INVALID_ARGUMENT', `session "${payload.sessionId}" is a sub-worker's; its run is its root's, "${worker.rootSessionId}": claim that`, {
        sessionId: payload.sessionId,
        rootSessionId: worker.rootSessionId,
      });
    }
    const earlier = ctx.index.collection('run').get(payload.sessionId);
    // One run at a time, also within the holder: a second run of its own is refused while the first's lease is live.
    const mine = earlier?.holder === payload.holder && earlier.runId === payload.runId;
    if (earlier !== undefined && !mine && live(earlier, ctx.now) && payload.takeOver !== earlier.holder) throw busy(earlier);
    const lease: RunLease = {
      sessionId: payload.sessionId,
      holder: payload.holder,
      by: payload.by,
      ...(payload.process !== undefined && { process: payload.process }),
      ...(payload.resumable !== undefined && { resumable: payload.resumable }),
      runId: payload.runId,
      claimedAt: ctx.now,
      expiresAt: after(ctx.now, payload.ttlMs),
      takeovers: (earlier?.takeovers ?? 0) + (earlier !== undefined && earlier.holder !== payload.holder ? 1 : 0),
    };
    // The run's own record (run-records.ts): a new run, or this one again (taken over, resumed).
    return { writes: [{ op: 'put', collection: 'run', key: lease.sessionId, value: lease }, claimedRecord(ctx, lease)], result: lease };
  },
});

/** Extends the holder's lease; LEASE_LOST when another process took the run over (or it was released). */
export const runRenew = defineCommand({
  type: 'run:renew',
  description: "Extends the holder's lease on a session's run.",
  payload: z.strictObject({ sessionId: Id, holder: z.string().min(1), runId: z.string().min(1), ttlMs: Ttl }),
  reduce(payload, ctx) {
    const lease = ctx.index.collection('run').get(payload.sessionId);
    if (lease === undefined || lease.holder !== payload.holder || lease.runId !== payload.runId) {
      throw new GolemError(
        'LEASE_LOST',
        lease === undefined
          ? `run ${payload.runId} of session "${payload.sessionId}" holds no lease (it was released, or never claimed)`
          : `run ${payload.runId} of session "${payload.sessionId}" lost its lease: run ${lease.runId} of ${lease.by || lease.holder} holds it now`,
        { details: { sessionId: payload.sessionId, ...(lease !== undefined && { holder: lease.holder, runId: lease.runId }) } },
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
  payload: z.strictObject({
    sessionId: Id,
    holder: z.string().min(1),
    runId: z.string().min(1),
    end: RunEnd.optional(),
    /** The run's last events, its end among them: kept in the same commit, so a follower sees the end as the lease goes. */
    events: ChunkPayload.optional(),
  }),
  reduce(payload, ctx) {
    const lease = ctx.index.collection('run').get(payload.sessionId);
    if (lease === undefined || lease.holder !== payload.holder || lease.runId !== payload.runId) return { writes: [], result: { released: false } };
    // The run's record ends with it (or pauses), with what it used.
    const writes: Write[] = [{ op: 'delete', collection: 'run', key: lease.sessionId }, ...endedRecord(ctx, payload.runId, payload.end)];
    if (payload.events !== undefined) writes.push(chunkWrite(ctx, payload.runId, payload.sessionId, payload.events));
    return { writes, result: { released: true } };
  },
});

/**
 * The user's decisions taken from any page: the process running the session takes them from
 * the workspace (an approval's answer), and messages for the run's inbox (accepted or taken
 * back while it runs: its holder delivers them). A clearance decision is not one of them: it adds a
 * turn to the session, which would move the head under the running agent.
 */
const DECISIONS = new Set(['approval:answer', 'inbox:add', 'inbox:remove']);

/**
 * Refuses a change to a session (or to one of its sub-workers' sessions) whose run another
 * handle holds a live lease on: SESSION_BUSY, nothing written. What a command changes is read
 * from its writes, whatever its payload names.
 */
export const runLeaseGuard: CommandGuard = (command, ctx) => {
  if (command.type.startsWith('run:') || DECISIONS.has(command.type)) return;
  for (const root of rootsWritten(ctx.index, ctx.writes)) {
    const lease = ctx.index.collection('run').get(root);
    if (lease !== undefined && lease.holder !== ctx.instanceId && live(lease, command.timestamp)) throw busy(lease, command);
  }
};

/** The lease on the run a session belongs to (its root's, for a sub-worker's session). */
export function leaseOf(view: WorkspaceView, sessionId: string): RunLease | undefined {
  return view.collection('run').get(rootOf(view, sessionId));
}

/**
 * The root sessions whose records the writes change: a session record, or a record that
 * names its session (a turn, a call, an approval or clearance item, a worker and its root).
 */
export function rootsWritten(view: WorkspaceView, writes: readonly Write[]): Set<string> {
  const roots = new Set<string>();
  for (const w of writes) {
    if (w.collection === 'session') roots.add(rootOf(view, w.key));
    if (w.collection === 'trust' && w.key.startsWith('session:')) roots.add(rootOf(view, w.key.slice('session:'.length))); // a session's trust modes
    const value = w.op === 'put' ? w.value : w.collection === 'turn' ? view.turns.get(w.key) : view.collection(w.collection as 'run').get(w.key);
    const named = value as { rootSessionId?: unknown; sessionId?: unknown; builtBy?: unknown } | null | undefined;
    // A UI instance belongs to the session whose agent built it.
    const id = typeof named?.rootSessionId === 'string' ? named.rootSessionId : typeof named?.sessionId === 'string' ? named.sessionId : named?.builtBy;
    if (typeof id === 'string') roots.add(rootOf(view, id));
  }
  return roots;
}

function rootOf(view: WorkspaceView, sessionId: string): string {
  return view.collection('worker').get(sessionId)?.rootSessionId ?? sessionId;
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
    `${command === undefined ? '' : `${command.type} refused: `}session "${lease.sessionId}" is being run by ${who} (its lease runs to ${lease.expiresAt}); wait for that run to end or stop it there. If that process is gone, its lease lapses then and a golem serve takes the run over`,
    { details: { sessionId: lease.sessionId, holder: lease.holder, runId: lease.runId, expiresAt: lease.expiresAt } },
  );
}
