/**
 * The run a protocol stream follows (issue 36): one this process holds (its log, told as
 * pushed) or one another process holds (its events as kept in the store, `ws.runs.follow`).
 * Either way each entry comes with its seq, which the stream sends as its SSE event id,
 * `<runId>:<seq>`, on the last event it makes of the entry; a client that comes back with
 * that id as `Last-Event-ID` gets what follows it, each event once.
 */
import type { RunLog, RunLogEntry } from '../agent/run-log.js';
import { leaseOf, live } from '../agent/run-commands.js';
import type { RunLease } from '../agent/agent-records.js';
import { GolemError, toGolemError } from '../core/errors.js';
import type { Workspace } from '../create-workspace.js';

export interface RunSource {
  readonly runId: string;
  readonly sessionId: string;
  /** Tells `listener` each entry after seq `after`, then each new one to the end; returns the stop. */
  follow(listener: (entry: RunLogEntry, seq: number) => void, after?: number): () => void;
}

/** A run this process holds, through its log. */
export function localSource(log: RunLog): RunSource {
  return {
    runId: log.runId,
    sessionId: log.sessionId,
    follow: (listener, after = 0) => log.follow((entry, index) => listener(entry, log.first + index), Math.max(0, after + 1 - log.first)),
  };
}

/**
 * The run another process holds on the session now (its lease is live), followed through the
 * events it keeps; undefined when none does. A failure to follow ends it with its error.
 */
export async function elsewhereSource(ws: Workspace, sessionId: string): Promise<RunSource | undefined> {
  const { manager } = ws;
  await manager.refresh();
  const lease = leaseOf(manager.workspace(), sessionId);
  return lease !== undefined && heldElsewhere(ws, lease, new Date().toISOString()) ? leaseSource(ws, lease) : undefined;
}

/** Whether the lease is another process's, live at `now`. */
export function heldElsewhere(ws: Workspace, lease: RunLease, now: string): boolean {
  return lease.holder !== ws.manager.instanceId && live(lease, now);
}

/** The run a lease holds, followed through the events its holder keeps; it always ends with an end entry. */
export function leaseSource(ws: Workspace, lease: RunLease): RunSource {
  const { runId, sessionId } = lease;
  return {
    runId,
    sessionId,
    follow: (listener, after = 0) => {
      const stop = new AbortController();
      void (async () => {
        let last = after;
        let ended = false;
        try {
          for await (const { seq, entry } of ws.runs.follow(runId, { after, signal: stop.signal })) {
            last = seq;
            ended = entry.type === 'end';
            listener(entry, seq);
          }
          // It paused without keeping its end (its process let it go while it waited): the stream ends, and says so.
          const paused = new GolemError('RUN_ENDED', `run ${runId} paused; it goes on where it is answered, and can be followed again then`);
          if (!ended && !stop.signal.aborted) listener({ type: 'end', end: { error: paused } }, last + 1);
        } catch (error) {
          if (!stop.signal.aborted) listener({ type: 'end', end: { error: toGolemError(error) } }, last + 1);
        }
      })();
      return () => stop.abort();
    },
  };
}

/** The SSE event id of a run's entry. */
export const eventId = (runId: string, seq: number) => `${runId}:${seq}`;

/** The seq a client's `Last-Event-ID` names in run `runId` (0: none, or another run's). */
export function afterOf(request: Request, runId: string): number {
  const header = request.headers.get('last-event-id');
  const at = header?.lastIndexOf(':') ?? -1;
  if (header === null || header === undefined || at === -1 || header.slice(0, at) !== runId) return 0;
  const seq = Number(header.slice(at + 1));
  return Number.isSafeInteger(seq) && seq > 0 ? seq : 0;
}
