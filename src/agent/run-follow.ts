/**
 * Following a run from any process (issue 36): its events as its holder keeps them in the store
 * (run-event-store.ts), read a chunk at a time and told each with its seq, live until it ends.
 * A follower in the holder's own process is woken by the holder's commands; one in another
 * process by the store's notice of them (PostgreSQL), or, on a store that sends none (SQLite),
 * by catching up every FOLLOW_POLL_MS while it follows.
 */
import { GolemError } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import { leaseOf, live } from './run-commands.js';
import { chunksOf, decodeChunk, errorOf, type DecodeContext } from './run-event-store.js';
import type { SeqEntry } from './run-log.js';
import { isEnded } from './run-records.js';

export interface FollowOptions {
  /** Only the events after this seq (a client's `Last-Event-ID`); default: from the run's first. */
  after?: number;
  /** Stops following. */
  signal?: AbortSignal;
}

/** How often a follower on SQLite catches up with other processes' commands, to read a run's new events. */
const FOLLOW_POLL_MS = 50;

/**
 * A run's events, from any process: those kept so far (after `after`), then each as it is
 * kept (in a batch, some milliseconds after the holder pushed it), until the run's end, or
 * until it pauses (its end says so; follow again after that end's seq once it resumes). A run
 * that ended without keeping its end (its process was gone) ends with its record's error.
 * RUN_NOT_FOUND for no such run; INVALID_ARGUMENT for a bad `after`.
 */
export async function* followRun(manager: WorkspaceManager, id: string, options: FollowOptions = {}): AsyncGenerator<SeqEntry, void, undefined> {
  const after = options.after ?? 0;
  if (!Number.isSafeInteger(after) || after < 0)
    throw new GolemError('INVALID_ARGUMENT', `after is a seq (a whole number from 0), not ${String(options.after)}`);
  if (manager.workspace().collection('run_record').get(id) === undefined) await manager.refresh();
  const record = manager.workspace().collection('run_record').get(id);
  if (record === undefined) throw new GolemError('RUN_NOT_FOUND', `no run with id "${id}"`, { details: { runId: id } });
  const { sessionId } = record;
  // Woken by a command of this process, or another's (caught up from the store's notice, or a poll on SQLite).
  let wake: (() => void) | undefined;
  const poke = () => wake?.();
  const offs = [manager.events.on('command', poke), manager.events.on('index:rebuilt', poke)];
  const poll = manager.store.subscribe === undefined ? setInterval(() => void manager.refresh().catch(poke), FOLLOW_POLL_MS) : undefined;
  poll?.unref();
  const signal = options.signal;
  signal?.addEventListener('abort', poke);
  const ctx: DecodeContext = { sessionId, workers: new Map(), turn: (ref) => manager.workspace().turn(ref) };
  let next = 0;
  let last = 0;
  /** The highest seq told: one told again (two holders kept the same seq about a take-over) is not. */
  let told = after;
  try {
    for (;;) {
      if (signal?.aborted === true || manager.closed) return;
      const waking = new Promise<void>((resolve) => (wake = resolve));
      await manager.load([sessionId]);
      let read = false;
      for (const chunk of [...chunksOf(manager.workspace(), id, next)]) {
        read = true;
        next = chunk.chunk + 1;
        // A sub-worker's steps name its session's turns.
        const workers = chunk.items.flatMap((item) => (typeof item.worker === 'string' && item.worker !== sessionId ? [item.worker] : []));
        const unloaded = [...new Set(workers)].filter((w) => manager.workspace().sessions.has(w) && !manager.workspace().isLoaded(w));
        if (unloaded.length > 0) await manager.load(unloaded);
        last = Math.max(last, chunk.first + chunk.count - 1);
        for (const item of decodeChunk(chunk, ctx)) {
          if (item.seq <= told) continue;
          told = item.seq;
          yield item;
          if (item.entry.type === 'end') return;
        }
      }
      if (read) continue;
      const now = manager.workspace().collection('run_record').get(id);
      // Paused with its end not kept (its process let it go while it waited): nothing follows until it resumes.
      if (now?.status === 'paused' && leaseOf(manager.workspace(), sessionId)?.runId !== id) return;
      // Running, but nobody will carry it on: another run claimed its session, or its lease lapsed and its process (one
      // that lets no other take its runs over: golem ask, the terminal, MCP) is gone. It is over for a follower.
      const lease = leaseOf(manager.workspace(), sessionId);
      const orphaned = now?.status === 'running' && (lease?.runId !== id || (lease.resumable === false && !live(lease, new Date().toISOString())));
      if (now !== undefined && (isEnded(now) || orphaned)) {
        const why = orphaned ? `run ${id}'s process is gone and no other can carry it on` : `run ${id} ended (${now.status}) without keeping its end`;
        const error = errorOf(now.error ?? { code: 'RUN_ENDED', message: why });
        if (last + 1 > told) yield { seq: last + 1, entry: { type: 'end', end: { error } } };
        return;
      }
      await waking;
    }
  } finally {
    for (const off of offs) off();
    clearInterval(poll);
    signal?.removeEventListener('abort', poke);
  }
}
