/**
 * Streams: how commands on different sessions commit side by side on a store several
 * processes share (`Store.append`). Each write belongs to a stream (its session, or the
 * workspace-wide records); a command names the streams it read and wrote, and the store
 * refuses it only if another process wrote one of those since the command was decided.
 */
import type { GolemError } from './errors.js';
import { seqMismatch, streamMoved } from './store-errors.js';
import { ALL_SESSIONS } from './plugin.js';
import { WORKSPACE_STREAM, type StoredWrite, type StreamCheck } from './store.js';

/** The stream a write belongs to: its owner (a turn's session), a session's record's own session, else the workspace-wide records. */
export function streamOf(write: StoredWrite): string {
  if (write.owner != null) return write.owner;
  return write.collection === 'session' ? write.key : WORKSPACE_STREAM;
}

/**
 * What a command decided on the index at `since` read and writes, by stream: the sessions
 * it works on (read and written both, so two commands on one session never pass each other:
 * a fork and the deletion of its source, say), the streams of its writes, and the
 * workspace-wide records, which every command may read. One that read every session is
 * refused if anything at all was committed since; one decided without the workspace lock
 * yields to a process that holds it or waits for it.
 */
export function streamCheck(stored: readonly StoredWrite[], sessions: readonly string[] | typeof ALL_SESSIONS, since: number, locked: boolean): StreamCheck {
  const write = new Set(sessions === ALL_SESSIONS ? [] : sessions);
  for (const w of stored) write.add(streamOf(w));
  return {
    since,
    read: [...new Set([...write, WORKSPACE_STREAM])],
    write: [...write],
    ...(sessions === ALL_SESSIONS && { whole: true }),
    ...(!locked && { yields: true }),
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

const LAST_SEQ = /^([\s\S]*)"seq":[0-9]+/;

/** A record's JSON text with its last `"seq"` key set to `seq` (see `StoredWrite.stamp`); PostgreSQL's golem_append does the same. */
export function stampSeq(json: string, seq: number): string {
  return json.replace(LAST_SEQ, (_all, before: string) => `${before}"seq":${seq}`);
}

/** The writes with each one marked `stamp` carrying `seq`. */
export function stampWrites(writes: readonly StoredWrite[], seq: number): StoredWrite[] {
  return writes.map((w) => (w.op === 'put' && w.stamp === true ? { ...w, json: stampSeq(w.json, seq) } : w));
}
