/**
 * The log a claimed run pushes its events to (issue 36): it goes on after the events the run
 * kept before (a run resumed or taken over under its id), and keeps its batches in the store
 * (`run:events`, and the last with the run's release: see run-event-store.ts).
 */
import { GolemError, unwrap } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import { chunksOf, encodeBatch, type ChunkPayload } from './run-event-store.js';
import { RunLog, type RunLogBatch } from './run-log.js';

/** A claimed run's log, and how its batches are numbered for the store. */
export interface Keeper {
  log: RunLog;
  /** Whether its events are kept in the store. */
  keeps: boolean;
  /** A batch as the next chunk (taking its number): what the release keeps. */
  encode(batch: RunLogBatch): ChunkPayload;
}

export async function keeperOf(manager: WorkspaceManager, sessionId: string, runId: string, options: { keep: boolean; batchMs?: number }): Promise<Keeper> {
  // What the run kept before, as the store has it now (a take-over must not count too few of the last holder's).
  await manager.refresh();
  await manager.load([sessionId]);
  let chunk = 0;
  let first = 1;
  for (const kept of chunksOf(manager.workspace(), runId)) {
    chunk = kept.chunk + 1;
    first = kept.first + kept.count;
  }
  const holder = manager.instanceId;
  return {
    keeps: options.keep,
    encode: (batch) => encodeBatch(batch, chunk++, sessionId),
    log: new RunLog(sessionId, runId, {
      first,
      ...(options.batchMs !== undefined && { batchMs: options.batchMs }),
      ...(options.keep && {
        // The store says under which number it kept the chunk (the next free one: see chunkWrite).
        keep: async (batch) => {
          const events = encodeBatch(batch, chunk, sessionId);
          chunk = unwrap(await manager.dispatch({ type: 'run:events', payload: { sessionId, runId, holder, events } })).chunk + 1;
        },
        onKeepError: (error: unknown) => {
          // Taken over: the new holder keeps what follows.
          if (!(GolemError.isInstance(error) && error.code === 'LEASE_LOST')) manager.events.emit('listener:error', { type: 'runs:events', error });
        },
      }),
    }),
  };
}
