/**
 * Cursors of lists paged newest first (sessions, runs): where the last item of a page stands
 * in the order, its time and id, opaque to callers.
 */
import { fail } from './errors.js';

/** A record's place in a newest-first order: its time, and its id for a total order. */
export interface CursorPoint {
  at: string;
  id: string;
}

/** Newest first; ties by id, so the order is total and a page boundary is exact. */
export function newestFirst(a: CursorPoint, b: CursorPoint): number {
  return b.at.localeCompare(a.at) || a.id.localeCompare(b.id);
}

export function encodeCursor(point: CursorPoint): string {
  return Buffer.from(JSON.stringify([point.at, point.id])).toString('base64url');
}

/** The point a cursor names; INVALID_ARGUMENT for one no list gave. */
export function decodeCursor(cursor: string): CursorPoint {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof at === 'string' && typeof id === 'string') return { at, id };
  } catch {
    // falls through to the error below
  }
  throw fail('INVALID_ARGUMENT', `the cursor "${cursor.slice(0, 60)}" is not one list() returned`, { cursor: cursor.slice(0, 200) });
}
