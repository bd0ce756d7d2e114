/**
 * Streams: how commands on different sessions commit side by side on a store several
 * processes share (`Store.append`). Each write belongs to a stream (its session, or the
 * workspace-wide records); a command names the streams it read and wrote, and the store
 * refuses it only if another process wrote one of those since the command was decided.
 */
import type { GolemError } from './errors.js';
import { seqMismatch, streamMoved } from './store-errors.js';
import { WORKSPACE_STREAM, type StoredWrite, type StreamCheck } from './store.js';

/** The stream a write belongs to: its owner (a turn's session), a session's record's own session, else the workspace-wide records. */
export function streamOf(write: StoredWrite): string {
  if (write.owner != null) return write.owner;
  return write.collection === 'session' ? write.key : WORKSPACE_STREAM;
}

/** What a command runs under: no lock, its sessions' locks, or the workspace's (see decide.ts). */
export type Lock = 'none' | 'streams' | 'workspace';

/** What a command works on: the sessions it names (loaded and pinned), and whether it reads every session, or every session's record. */
export interface Scope {
  sessions: readonly string[];
  whole: boolean;
}

/**
 * What a command decided on the index at `since` read and writes, by stream: the sessions
 * it works on (read and written both, so two commands on one session never pass each other:
 * a fork and the deletion of its source, say), the streams of its writes, and the
 * workspace-wide records, which every command may read. One that reads every session is
 * refused if anything at all was committed since; one decided under no lock yields to a
 * process that holds or awaits the workspace's lock or a lock on a stream it reads, and one
 * under its streams' locks to the workspace's.
 */
export function streamCheck(stored: readonly StoredWrite[], scope: Scope, since: number, lock: Lock): StreamCheck {
  const write = new Set(scope.sessions);
  for (const w of stored) write.add(streamOf(w));
  return {
    since,
    read: [...new Set([...write, WORKSPACE_STREAM])],
    write: [...write],
    ...(scope.whole && { whole: true }),
    ...(lock !== 'workspace' && { yields: lock === 'none' ? 'streams' : 'workspace' }),
  };
}

/**
 * The refusal of an append whose check fails against the log's last seq and each stream's
 * version (the seq of the last command that wrote it), or undefined: the check every store
 * with `append` makes, in its commit's transaction.
 */
export function streamConflict(check: StreamCheck, last: number, versionOf: (stream: string) => number): GolemError | undefined {
  if (check.whole === true && last !== check.since) return seqMismatch(check.since + 1, last);
  for (const stream of check.read) {
    const version = versionOf(stream);
    if (version > check.since) return streamMoved(stream, version, check.since);
  }
  return undefined;
}

/**
 * A record's JSON text with the number after its last `"seq":` set to `seq` (unchanged if there is none): see
 * `StoredWrite.stamp`. PostgreSQL's golem_stamp does the same. In JSON text `"seq":` cannot stand inside a string (its
 * quotes would be escaped), and a turn's `seq` is followed only by its `createdAt` string, so the last one is its own.
 */
export function stampSeq(json: string, seq: number): string {
  const at = json.lastIndexOf('"seq":');
  if (at === -1) return json;
  const from = at + '"seq":'.length;
  let end = from;
  while (end < json.length && end - from < 25 && json.charCodeAt(end) >= 48 && json.charCodeAt(end) <= 57) end++;
  return end === from ? json : `${json.slice(0, from)}${seq}${json.slice(end)}`;
}

/** The writes with each one marked `stamp` carrying `seq`. */
export function stampWrites(writes: readonly StoredWrite[], seq: number): StoredWrite[] {
  return writes.map((w) => (w.op === 'put' && w.stamp === true ? { ...w, json: stampSeq(w.json, seq) } : w));
}
