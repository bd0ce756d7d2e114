/** The errors every store gives for a commit it refuses, the same whatever the store (so callers and tests can rely on their codes and details). */
import { GolemError } from './errors.js';
import { WORKSPACE_STREAM } from './store.js';

/** A put that would move a record to another owner: two sessions cannot both hold one key (a caller's turn id given twice). */
export function ownerConflict(collection: string, key: string): GolemError {
  return new GolemError('DUPLICATE_ID', `the ${collection} "${key}" already exists and belongs to another session; give it an id of its own`, {
    details: { collection, key },
  });
}

/** A command whose id the log already holds (a caller's id given twice): refused, nothing written. */
export function duplicateCommand(id: string): GolemError {
  return new GolemError('DUPLICATE_ID', `the command log already holds a command with id "${id}"; give each command an id of its own`, { details: { id } });
}

/** The error for a commit at the wrong position in the log. */
export function seqMismatch(seq: number, last: number): GolemError {
  return new GolemError('STORE_CONFLICT', `the command log is at seq ${last}, so the next command must be ${last + 1}, not ${seq}; another writer moved it`, {
    details: { seq, last },
  });
}

/** The error for an append that read a stream another writer has changed since. */
export function streamMoved(stream: string, version: number, seen: number): GolemError {
  const what = stream === WORKSPACE_STREAM ? 'the workspace-wide records' : `session ${stream}`;
  return new GolemError('STORE_CONFLICT', `${what} changed at seq ${version}, after seq ${seen} this command was decided on; another writer moved it`, {
    details: { stream, version, seen },
  });
}

/** The error for an append that yields to a lock another process holds or waits for (`StreamCheck.yields`): decided again under it. */
export function lockAwaited(lock: 'workspace' | 'streams'): GolemError {
  const what = lock === 'workspace' ? 'the workspace lock' : "a session's lock";
  return new GolemError('STORE_CONFLICT', `another process holds or waits for ${what}; this command is decided again under it`, {
    details: { reason: 'lock awaited', lock },
  });
}
