/**
 * Small helpers the core reducers share. Those an extension's reducers need too
 * (`requireSession`, `makeTurn`, `putSession`, `stored`) are part of the plugin API:
 * `src/core/index.ts` names them.
 */
import { z } from 'zod';
import { blobRefsOf, ContentBlock, JsonObject } from '../blocks.js';
import { fail } from '../errors.js';
import type { Write } from '../store.js';
import type { Effect, ReducerContext } from '../plugin.js';
import { Id, turnKey, TurnRole, type BlobRecord, type Session, type Turn, type TurnRef } from '../records.js';
import type { CollectionMap, CollectionName, WorkspaceView } from '../workspace-index.js';
import { historyStarts, pathLength, SessionView, sweep, walkAncestors } from '../turn-tree.js';

/** The content of a new turn, as callers give it. */
export const TurnInput = z.strictObject({
  /** A caller-chosen id (makes retries idempotent: a second add with the same id is refused). */
  id: Id.optional(),
  role: TurnRole,
  blocks: z.array(ContentBlock),
  meta: JsonObject.optional(),
});
export type TurnInput = z.input<typeof TurnInput>;

/**
 * The session with this id, for a reducer that needs it to exist: throws
 * `SESSION_NOT_FOUND` (which refuses the command) when there is none.
 */
export function requireSession(index: WorkspaceView, sessionId: string): Session {
  const session = index.sessions.get(sessionId);
  if (session === undefined) throw fail('SESSION_NOT_FOUND', `no session with id "${sessionId}"`, { sessionId });
  return session;
}

/**
 * For a synchronous read of a session's turns: throws SESSION_NOT_LOADED while they are
 * not in memory (`await session.load()` first; the async reads load by themselves).
 */
export function requireLoaded(index: WorkspaceView, sessionId: string): void {
  if (!index.isLoaded(sessionId)) {
    throw fail('SESSION_NOT_LOADED', `session "${sessionId}" is not in memory; await session.load() before reading it synchronously`, { sessionId });
  }
}

export function requireTurn(index: WorkspaceView, ref: TurnRef): Turn {
  const turn = index.turn(ref);
  if (turn === undefined) {
    const exists = index.node(ref.id) !== undefined;
    throw fail(
      'TURN_NOT_FOUND',
      exists ? `turn "${ref.id}" has no version ${ref.version} (it may have been deleted)` : `no turn with id "${ref.id}" (it may have been deleted)`,
      { turnId: ref.id, version: ref.version },
    );
  }
  return turn;
}

export function requireNode(index: WorkspaceView, turnId: string) {
  const node = index.node(turnId);
  if (node === undefined) throw fail('TURN_NOT_FOUND', `no turn with id "${turnId}" (it may have been deleted)`, { turnId });
  return node;
}

/** Checks that every blob the blocks reference is registered. */
export function requireBlobs(index: WorkspaceView, blocks: readonly ContentBlock[]): void {
  for (const sha256 of blobRefsOf(blocks)) {
    if (!index.blobs.has(sha256)) throw fail('BLOB_NOT_FOUND', `the blob ${sha256} is not registered; register it before referencing it`, { sha256 });
  }
}

/**
 * A new turn version, stamped with the command's seq and time: for a reducer that adds a
 * turn as part of its own command (then `appendTurn` writes it at the session's head).
 */
export function makeTurn(
  ctx: ReducerContext,
  fields: { id: string; version: number; parent: TurnRef | null; sessionId: string; role: Turn['role']; blocks: ContentBlock[]; meta?: JsonObject | undefined },
): Turn {
  return {
    id: fields.id,
    version: fields.version,
    parent: fields.parent,
    sessionId: fields.sessionId,
    role: fields.role,
    blocks: fields.blocks,
    meta: fields.meta ?? {},
    seq: ctx.seq,
    createdAt: ctx.now,
  };
}

export function refOf(turn: Turn): TurnRef {
  return { id: turn.id, version: turn.version };
}

/**
 * The change that puts one record and answers with it: a reducer's whole result when its
 * command writes one record. The record's type follows a collection declared in `CollectionMap`.
 *
 * @example
 * reduce: (payload, ctx) => stored('note', payload.id, { id: payload.id, text: payload.text }),
 */
export function stored<K extends CollectionName>(collection: K, key: string, record: CollectionMap[K]): { writes: Write[]; result: CollectionMap[K] };
/** A record of a collection not declared in `CollectionMap` (the core's own, or an undeclared one). */
export function stored<R, N extends string = string>(collection: N extends CollectionName ? never : N, key: string, record: R): { writes: Write[]; result: R };
export function stored<R>(collection: string, key: string, record: R): { writes: Write[]; result: R } {
  return { writes: [{ op: 'put', collection, key, value: record }], result: record };
}

export function putTurn(turn: Turn): Write {
  return { op: 'put', collection: 'turn', key: turnKey(turn), value: turn };
}

/**
 * The write that stores a session record as it is given (e.g. a new session, or one with a
 * new head: give it its `length` with `withLength` first).
 */
export function putSession(session: Session): Write {
  return { op: 'put', collection: 'session', key: session.id, value: session };
}

/**
 * The session with its `length` (the turns on the path to its head) brought up to date: kept
 * as it was while the head stays, one more when `added` (a turn this command writes) is the
 * new head on top of the old one, else counted on the path. A session whose turns are not in
 * memory (a command that did not name it) is left without one, to be counted when read,
 * rather than given a wrong one.
 */
export function withLength(index: WorkspaceView, session: Session, added?: Turn): Session {
  const before = index.sessions.get(session.id);
  const known = (ref: TurnRef | null): number | undefined =>
    ref === null ? 0 : before?.length !== undefined && sameRef(ref, before.head) ? before.length : undefined;
  const counted = (ref: TurnRef | null) => (index.isLoaded(session.id) ? pathLength(index, ref) : undefined);
  let length = known(session.head);
  if (length === undefined && added !== undefined && sameRef(session.head, added)) {
    const below = known(added.parent) ?? counted(added.parent);
    length = below === undefined ? undefined : below + 1;
  }
  length ??= counted(session.head);
  // In the schema's order (a rebuild reads records back in it, and the index must equal a rebuild).
  const { length: _stale, createdAt, updatedAt, ...rest } = session;
  return { ...rest, ...(length !== undefined && { length }), createdAt, updatedAt };
}

/**
 * The record of bytes the blob storage holds and no record names yet, nothing referencing or
 * holding it: for a reducer that registers a blob as part of its own command. BLOB_NOT_STORED
 * when the storage has no such bytes (store them, then dispatch again); INVALID_PAYLOAD when
 * their size is not `size`.
 */
export async function newBlobRecord(
  ctx: ReducerContext,
  blob: { sha256: string; size: number; mediaType: string; filename?: string | null | undefined },
): Promise<BlobRecord> {
  const storedSize = await ctx.blobStorage.sizeOf(blob.sha256);
  if (storedSize === null) {
    throw fail('BLOB_NOT_STORED', `the blob storage holds no bytes for ${blob.sha256}; store them first (ws.blobs.register does both)`, {
      sha256: blob.sha256,
    });
  }
  if (storedSize !== blob.size) {
    throw fail('INVALID_PAYLOAD', `blob ${blob.sha256} is ${storedSize} bytes in storage, not ${blob.size}`, { sha256: blob.sha256, size: storedSize });
  }
  return {
    sha256: blob.sha256,
    size: blob.size,
    mediaType: blob.mediaType,
    filename: blob.filename ?? null,
    refCount: 0,
    holds: 0,
    remoteIds: {},
    createdAt: ctx.now,
  };
}

/** Adds up blob reference changes: +1 per reference of added blocks, -1 per reference of removed ones. */
export function countRefs(delta: Map<string, number>, blocks: readonly ContentBlock[], sign: 1 | -1): Map<string, number> {
  for (const sha256 of blobRefsOf(blocks)) delta.set(sha256, (delta.get(sha256) ?? 0) + sign);
  return delta;
}

/**
 * The writes (and after-commit deletions of bytes) for a set of reference count
 * changes. `holds` changes with explicit retains and releases.
 */
export function applyBlobDelta(
  ctx: ReducerContext,
  delta: ReadonlyMap<string, number>,
  holdsDelta: ReadonlyMap<string, number> = new Map(),
): { writes: Write[]; effects: Effect[]; released: string[] } {
  const writes: Write[] = [];
  const effects: Effect[] = [];
  const released: string[] = [];
  for (const sha256 of new Set([...delta.keys(), ...holdsDelta.keys()])) {
    const record = ctx.index.blobs.get(sha256);
    if (record === undefined) throw fail('BLOB_NOT_FOUND', `the blob ${sha256} is not registered`, { sha256 });
    const holds = record.holds + (holdsDelta.get(sha256) ?? 0);
    const refCount = record.refCount + (delta.get(sha256) ?? 0) + (holdsDelta.get(sha256) ?? 0);
    if (holds < 0 || refCount < holds) throw fail('INTERNAL', `the reference count of blob ${sha256} would go negative`, { sha256 });
    if (refCount === 0) {
      writes.push({ op: 'delete', collection: 'blob', key: sha256 });
      effects.push(() => ctx.blobStorage.delete(sha256));
      released.push(sha256);
    } else {
      const next: BlobRecord = { ...record, refCount, holds };
      writes.push({ op: 'put', collection: 'blob', key: sha256, value: next });
    }
  }
  return { writes, effects, released };
}

export function requireRole(index: WorkspaceView, role: string | null | undefined): void {
  if (role != null && !index.roles.has(role)) throw fail('ROLE_NOT_FOUND', `no role named "${role}"`, { role });
}

export function requirePreferences(index: WorkspaceView, ids: readonly string[] | undefined): void {
  for (const id of ids ?? []) {
    if (!index.preferences.has(id)) throw fail('PREFERENCE_NOT_FOUND', `no preference with id "${id}"`, { preferenceId: id });
  }
}

/** The items without repeats, first occurrence kept. */
export function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

export function sameRef(a: TurnRef | null | undefined, b: TurnRef | null | undefined): boolean {
  if (a == null || b == null) return a == b;
  return a.id === b.id && a.version === b.version;
}

/** Sessions other than `except` whose head or fork point is at `ref`. */
export function pinnedByOthers(index: WorkspaceView, ref: TurnRef, except: string): boolean {
  for (const id of index.headsAt(ref)) if (id !== except) return true;
  for (const id of index.forksAt(ref)) if (id !== except) return true;
  return false;
}

/** Garbage-collects from `start`: what no live session can see any more after `session` changes. */
export function collect(index: WorkspaceView, start: Iterable<Turn>, deleted: Set<string>, after: { dying?: string; session: Session }): Set<string> {
  const { session, dying } = after;
  // The collection walks up through the session's fork ancestry and what its merges brought in: it must all be in the
  // index, or turns above a gap would be left behind unreachable. The manager loads it with the session; a gap is a
  // bug, refused before any write.
  const at = walkAncestors(index, historyStarts(index, session));
  if (at !== undefined)
    throw fail('INTERNAL', `session "${session.id}": its history is not all in memory (${at.id}@${at.version} is missing)`, { sessionId: session.id });
  return sweep(index, start, deleted, {
    isLive: (id) => id !== dying && index.sessions.has(id),
    isPinned: (ref) =>
      pinnedByOthers(index, ref, session.id) || (session.id !== dying && (sameRef(ref, session.head) || sameRef(ref, session.forkedFrom?.turn))),
  });
}

/** A view of what the session sees, with a check that throws TURN_NOT_IN_SESSION. */
export function viewOf(index: WorkspaceView, session: Session): SessionView & { require(ref: TurnRef): Turn } {
  const view = new SessionView(index, session);
  return Object.assign(view, {
    require(ref: TurnRef): Turn {
      const turn = requireTurn(index, ref);
      if (!view.sees(ref)) {
        throw fail('TURN_NOT_IN_SESSION', `turn "${ref.id}" version ${ref.version} is not part of session "${session.id}"`, {
          sessionId: session.id,
          turnId: ref.id,
          version: ref.version,
        });
      }
      return turn;
    },
  });
}

/** Delete writes for a set of turns, counting their released blob references into `delta`. */
export function removeTurns(index: WorkspaceView, deleted: ReadonlySet<string>, delta: Map<string, number>): { writes: Write[]; refs: TurnRef[] } {
  const writes: Write[] = [];
  const refs: TurnRef[] = [];
  for (const key of deleted) {
    const turn = index.turns.get(key) as Turn;
    countRefs(delta, turn.blocks, -1);
    writes.push({ op: 'delete', collection: 'turn', key });
    refs.push(refOf(turn));
  }
  return { writes, refs };
}

/**
 * The fork family of `payload.sessionId`, which a command must hold when it needs every
 * version of a node or every turn below one (an edit numbers its new version after all
 * the others; a deletion must see what hangs below or merged from it): the sessions whose
 * turns its fork ancestry and its merges' history pass (loaded with it), every live
 * session forked from one of those or from a session since deleted (whose kept turns may
 * hang below), and their forks in turn. A merge may only bring in history of the same
 * family, so every session that merged from this one's turns is among them.
 */
export function forkFamily(payload: unknown, view: WorkspaceView): string[] {
  const start = (payload as { sessionId?: unknown } | null)?.sessionId;
  if (typeof start !== 'string') return [];
  const held = new Set([start]);
  const session = view.sessions.get(start);
  if (session !== undefined) walkAncestors(view, historyStarts(view, session), (turn) => void held.add(turn.sessionId));
  for (let grew = true; grew;) {
    grew = false;
    for (const s of view.sessions.values()) {
      const from = s.forkedFrom?.sessionId;
      if (from === undefined || held.has(s.id) || !(held.has(from) || !view.sessions.has(from))) continue;
      held.add(s.id);
      grew = true;
    }
  }
  held.delete(start);
  return [...held];
}
