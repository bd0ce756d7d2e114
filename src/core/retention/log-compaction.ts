/**
 * How a store compacts its log (`Store.compactLog`), decided on the oldest rows: the
 * checkpoint at the front (if any) and the entries after it while they are older than
 * the cut, never the last entry. The stores run it inside their own transaction.
 */
import { LOG_CHECKPOINT, type LogCheckpoint } from '../store.js';

/** A log row as compaction reads it: `bytes` is what the row holds (payload, writes, id...). */
export interface CompactionRow {
  seq: number;
  type: string;
  payload: string;
  timestamp: string;
  bytes: number;
}

/** What to do: delete `deleted`, turn row `to` into a checkpoint with `checkpoint`; nothing when `removed` is 0. */
export interface CompactionPlan {
  removed: number;
  bytes: number;
  deleted: number[];
  to: number;
  checkpoint: LogCheckpoint;
  /** The checkpoint entry's text (payload) and id. */
  payload: string;
  id: string;
  /** The checkpoint entry's type (`LOG_CHECKPOINT`). */
  type: typeof LOG_CHECKPOINT;
}

/**
 * The plan for `rows` (the log's oldest, by seq, the last entry left out), at most `limit`
 * entries replaced, each with a timestamp before `before`.
 */
export function planCompaction(rows: readonly CompactionRow[], before: string, limit: number): CompactionPlan | undefined {
  const cut = Date.parse(before);
  let at = 0;
  let carried: LogCheckpoint | undefined;
  const first = rows[0];
  if (first?.type === LOG_CHECKPOINT) {
    carried = JSON.parse(first.payload) as LogCheckpoint;
    at = 1;
  }
  const taken: CompactionRow[] = [];
  for (; at < rows.length && taken.length < limit; at++) {
    const row = rows[at] as CompactionRow;
    if (!(Date.parse(row.timestamp) < cut)) break;
    taken.push(row);
  }
  const last = taken.at(-1);
  if (last === undefined) return undefined;
  const checkpoint: LogCheckpoint = {
    from: carried?.from ?? (taken[0] as CompactionRow).seq,
    to: last.seq,
    commands: (carried?.commands ?? 0) + taken.length,
  };
  const payload = JSON.stringify(checkpoint);
  const deleted = [...(carried !== undefined ? [(first as CompactionRow).seq] : []), ...taken.slice(0, -1).map((r) => r.seq)];
  const bytes = taken.reduce((sum, r) => sum + r.bytes, 0) + (carried !== undefined ? (first as CompactionRow).bytes : 0) - payload.length;
  return {
    removed: taken.length,
    bytes: Math.max(0, bytes),
    deleted,
    to: last.seq,
    checkpoint,
    payload,
    id: `${LOG_CHECKPOINT}:${last.seq}`,
    type: LOG_CHECKPOINT,
  };
}
