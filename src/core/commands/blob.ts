/** Blob commands (seed 001 section 8.5). The bytes are stored before `blob:register` is dispatched. */
import { z } from 'zod';
import { blobRefsOf, Sha256 } from '../blocks.js';
import { fail } from '../errors.js';
import { ALL_SESSIONS, defineCommand, type ReducerContext } from '../plugin.js';
import type { BlobRecord } from '../records.js';
import { applyBlobDelta, newBlobRecord, stored } from './kit.js';

function requireBlob(ctx: ReducerContext, sha256: string): BlobRecord {
  const record = ctx.index.blobs.get(sha256);
  if (record === undefined) throw fail('BLOB_NOT_FOUND', `no blob ${sha256} is registered`, { sha256 });
  return record;
}

export const blobRegister = defineCommand({
  type: 'blob:register',
  description: 'Records stored bytes by their SHA-256; registering the same bytes again returns the existing record.',
  payload: z.strictObject({
    sha256: Sha256,
    size: z.number().int().nonnegative(),
    mediaType: z.string().min(1),
    filename: z.string().nullable().optional(),
    /** Also take an explicit hold, in the same command (see BlobApi.register). */
    hold: z.boolean().optional(),
  }),
  async reduce(payload, ctx) {
    const existing = ctx.index.blobs.get(payload.sha256);
    if (existing !== undefined) {
      if (payload.hold !== true) return { writes: [], result: existing };
      const held: BlobRecord = { ...existing, refCount: existing.refCount + 1, holds: existing.holds + 1 };
      return stored('blob', held.sha256, held);
    }
    const fresh = await newBlobRecord(ctx, payload);
    const record: BlobRecord = payload.hold === true ? { ...fresh, refCount: 1, holds: 1 } : fresh;
    return stored('blob', record.sha256, record);
  },
});

export const blobRetain = defineCommand({
  type: 'blob:retain',
  description: 'Adds an explicit hold on a blob, keeping its bytes until released.',
  payload: z.strictObject({ sha256: Sha256 }),
  reduce(payload, ctx) {
    const record = requireBlob(ctx, payload.sha256);
    const { writes } = applyBlobDelta(ctx, new Map(), new Map([[record.sha256, 1]]));
    return { writes, result: { ...record, refCount: record.refCount + 1, holds: record.holds + 1 } };
  },
});

export const blobRelease = defineCommand({
  type: 'blob:release',
  description: 'Removes an explicit hold; the bytes are deleted when nothing references the blob any more.',
  payload: z.strictObject({ sha256: Sha256 }),
  reduce(payload, ctx) {
    const record = requireBlob(ctx, payload.sha256);
    if (record.holds === 0) {
      throw fail('BLOB_NOT_HELD', `blob ${record.sha256} has no explicit hold to release (turn references are released by deleting the turns)`, {
        sha256: record.sha256,
      });
    }
    const { writes, effects } = applyBlobDelta(ctx, new Map(), new Map([[record.sha256, -1]]));
    return { writes, effects, result: { ...record, refCount: record.refCount - 1, holds: record.holds - 1 } };
  },
});

export const blobRecordRemoteId = defineCommand({
  type: 'blob:record_remote_id',
  description: "Maps a blob to a provider's file id, so prompts can reference the upload instead of resending bytes.",
  payload: z.strictObject({ sha256: Sha256, provider: z.string().min(1), remoteId: z.string().min(1) }),
  reduce(payload, ctx) {
    const record = requireBlob(ctx, payload.sha256);
    const next: BlobRecord = { ...record, remoteIds: { ...record.remoteIds, [payload.provider]: payload.remoteId } };
    return stored('blob', next.sha256, next);
  },
});

export const blobCollect = defineCommand({
  type: 'blob:collect',
  description: 'Deletes blobs that nothing references or holds (registered but never used), with their bytes.',
  payload: z.strictObject({
    /** Only blobs registered before this time (default: all): leaves alone blobs a caller is about to reference. */
    before: z.iso.datetime({ offset: true }).optional(),
    /** Only these blobs (default: any). */
    only: z.array(Sha256).optional(),
  }),
  reduce(payload, ctx) {
    const before = payload.before === undefined ? Infinity : Date.parse(payload.before);
    const only = payload.only === undefined ? undefined : new Set(payload.only);
    const unused = [...ctx.index.blobs.values()].filter((b) => b.refCount === 0 && Date.parse(b.createdAt) < before && (only?.has(b.sha256) ?? true));
    return {
      writes: unused.map((b) => ({ op: 'delete' as const, collection: 'blob', key: b.sha256 })),
      effects: unused.map((b) => () => ctx.blobStorage.delete(b.sha256)),
      result: { collected: unused.map((b) => b.sha256) },
    };
  },
});

export const blobRecount = defineCommand({
  type: 'blob:recount',
  description: "Sets each blob's reference count to its holds plus the turns that reference it (golem doctor --repair).",
  payload: z.strictObject({}),
  // It counts the references in every turn of the workspace: every session loads (a repair, run rarely).
  sessions: () => [ALL_SESSIONS],
  reduce(_payload, ctx) {
    const references = new Map<string, number>();
    for (const turn of ctx.index.turns.values()) for (const sha256 of blobRefsOf(turn.blocks)) references.set(sha256, (references.get(sha256) ?? 0) + 1);
    const fixed: BlobRecord[] = [];
    for (const blob of ctx.index.blobs.values()) {
      const refCount = blob.holds + (references.get(blob.sha256) ?? 0);
      if (blob.refCount !== refCount) fixed.push({ ...blob, refCount });
    }
    return { writes: fixed.map((b) => ({ op: 'put' as const, collection: 'blob', key: b.sha256, value: b })), result: { fixed: fixed.map((b) => b.sha256) } };
  },
});
