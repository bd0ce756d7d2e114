/**
 * Files uploaded for the file fields of model-built UIs, as records of the workspace (the
 * `ui_upload` collection), so that every process sees what is held (issue 35, finding 9).
 * Each upload takes one explicit hold on its blob; the blob's bytes go when the last hold or
 * reference goes (the core's reference counts), so bytes something else uses stay.
 *
 * An upload is held, not yet submitted, until a click sends it (the instance's state then names
 * it). Held uploads are released when another file is uploaded for the same field by the same
 * user, when the user removes them, and when their window passes; their bytes are capped per
 * instance and per user (UPLOAD_QUOTA). A submitted upload is kept while the instance's state
 * names it, and released when a click or a patch_ui_state call replaces or clears it, or the
 * instance is deleted (`settleUploads`, in the same command as the change).
 */
import { z } from 'zod';
import { Sha256 } from '../core/blocks.js';
import { applyBlobDelta, newBlobRecord } from '../core/commands/kit.js';
import { fail, type GolemError } from '../core/errors.js';
import { defineCommand, type Effect, type ReducerContext } from '../core/plugin.js';
import { Id, Timestamp } from '../core/records.js';
import type { Write } from '../core/store.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { fileFieldBlobs } from './instance-checks.js';
import type { UIInstance } from './schema.js';

/** One file uploaded for a file field: who uploaded it, for which instance and field, and whether a click has sent it. */
export const UIUploadRecord = z.strictObject({
  id: Id,
  /** The instance (its key in `ui_instance`) and the file field's key. */
  instanceId: z.string(),
  key: z.string(),
  sha256: Sha256,
  size: z.number().int().nonnegative(),
  /** The user who uploaded it (null: a server without users). */
  owner: z.string().nullable(),
  /** A click sent it: the instance's state names it, and it is no longer counted against the caps. */
  submitted: z.boolean(),
  createdAt: Timestamp,
});
export type UIUploadRecord = z.infer<typeof UIUploadRecord>;

/** How long an upload no click sent is held, and how many such bytes an instance and a user may hold. */
export interface UploadLimits {
  /** Milliseconds an upload no click has sent is kept (default one hour). */
  holdMs: number;
  /** Bytes of such uploads one instance may hold (default 64 MiB). */
  instanceBytes: number;
  /** Bytes of such uploads one user may hold, over every instance (default 256 MiB; without users, the server's one user). */
  userBytes: number;
}

/** The limits unless told otherwise: one hour, 64 MiB per instance, 256 MiB per user. */
export const DEFAULT_UPLOAD_LIMITS: Readonly<UploadLimits> = Object.freeze({
  holdMs: 3_600_000,
  instanceBytes: 64 * 1024 * 1024,
  userBytes: 256 * 1024 * 1024,
});

/** The limits given over the defaults, each checked (INVALID_ARGUMENT names a wrong one). */
export function uploadLimits(given: Partial<UploadLimits> = {}): UploadLimits {
  const limits = { ...DEFAULT_UPLOAD_LIMITS, ...given };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 0)
      throw fail('INVALID_ARGUMENT', `uploads.${name} is a whole number (milliseconds or bytes), not ${String(value)}`);
  }
  return limits;
}

/** Every upload the workspace holds. */
export function uiUploads(view: WorkspaceView): UIUploadRecord[] {
  return [...view.collection('ui_upload').values()];
}

/** What an upload is for: the instance and field, the user, and its size. */
export interface UploadTarget {
  instanceId: string;
  key: string;
  owner: string | null;
  size: number;
}

/**
 * The held (not submitted) uploads a new one for `target` replaces (the same user's for the same
 * field), and the UPLOAD_QUOTA error when the rest plus it pass a cap; undefined error when it fits.
 */
export function uploadQuota(
  uploads: readonly UIUploadRecord[],
  target: UploadTarget,
  limits: Pick<UploadLimits, 'instanceBytes' | 'userBytes'>,
): { replaced: UIUploadRecord[]; error?: GolemError } {
  const held = uploads.filter((u) => !u.submitted);
  const replaced = held.filter((u) => u.instanceId === target.instanceId && u.key === target.key && u.owner === target.owner);
  const kept = held.filter((u) => !replaced.includes(u));
  const sum = (list: UIUploadRecord[]) => list.reduce((total, u) => total + u.size, 0);
  const caps = [
    { scope: 'instance', limitBytes: limits.instanceBytes, heldBytes: sum(kept.filter((u) => u.instanceId === target.instanceId)) },
    { scope: 'user', limitBytes: limits.userBytes, heldBytes: sum(kept.filter((u) => u.owner === target.owner)) },
  ] as const;
  const over = caps.find((cap) => cap.heldBytes + target.size > cap.limitBytes);
  if (over === undefined) return { replaced };
  const whose = over.scope === 'instance' ? `the UI "${target.instanceId}"` : 'you';
  return {
    replaced,
    error: fail(
      'UPLOAD_QUOTA',
      `${whose} already hold${over.scope === 'user' ? '' : 's'} ${over.heldBytes.toLocaleString('en')} bytes of files not yet sent, and this file (${target.size.toLocaleString('en')} bytes) would pass the cap of ${over.limitBytes.toLocaleString('en')}: send or remove one first`,
      { ...over, sizeBytes: target.size },
    ),
  };
}

/** The writes that release uploads: their records deleted and their holds given back (bytes nothing else holds deleted after the commit). */
function releaseWrites(ctx: ReducerContext, released: readonly UIUploadRecord[], extraHolds: ReadonlyMap<string, number> = new Map()) {
  const holds = new Map(extraHolds);
  for (const u of released) holds.set(u.sha256, (holds.get(u.sha256) ?? 0) - 1);
  const blob = applyBlobDelta(ctx, new Map(), holds);
  const writes: Write[] = [...released.map((u) => ({ op: 'delete' as const, collection: 'ui_upload', key: u.id })), ...blob.writes];
  return { writes, effects: blob.effects };
}

/**
 * What a change to an instance does to its uploads, in the same command: one its state now
 * names becomes submitted; a submitted one it no longer names is released; all of them go with
 * a deleted instance (`instance` undefined). Held uploads it does not name wait for their window.
 */
export function settleUploads(ctx: ReducerContext, instanceId: string, instance: UIInstance | undefined): { writes: Write[]; effects: Effect[] } {
  const ours = uiUploads(ctx.index).filter((u) => u.instanceId === instanceId);
  if (ours.length === 0) return { writes: [], effects: [] };
  const named = instance === undefined ? new Set<string>() : fileFieldBlobs(instance);
  const released = ours.filter((u) => instance === undefined || (u.submitted && !named.has(u.sha256)));
  const sent = ours.filter((u) => !u.submitted && named.has(u.sha256));
  const { writes, effects } = releaseWrites(ctx, released);
  for (const u of sent) writes.push({ op: 'put', collection: 'ui_upload', key: u.id, value: { ...u, submitted: true } });
  return { writes, effects };
}

const Bytes = z.number().int().nonnegative();

/**
 * `ui:upload`: a file stored for an instance's file field, recorded with a hold on its blob (the
 * blob registered in the same command when it is new). The same user's held upload for the
 * same field is released; UPLOAD_QUOTA when held bytes would pass a cap.
 */
export const uiUploadCommand = defineCommand({
  type: 'ui:upload',
  description: "Records a file uploaded for a UI's file field, holding its blob until a click sends it, it is replaced or removed, or its window passes.",
  payload: z.strictObject({
    id: Id,
    instanceId: z.string().min(1),
    key: z.string().min(1),
    owner: z.string().nullable(),
    sha256: Sha256,
    size: Bytes,
    mediaType: z.string().min(1),
    filename: z.string().nullable(),
    /** The caps (UploadLimits) the server that took the file keeps. */
    instanceBytes: Bytes,
    userBytes: Bytes,
  }),
  async reduce(payload, ctx) {
    const instance = ctx.index.collection('ui_instance').get(payload.instanceId)?.instance;
    const field = instance?.blocks.flatMap((b) => b.props?.fields ?? []).find((f) => f.key === payload.key && f.type === 'file');
    if (field === undefined) throw fail('UI_FIELD_NOT_FOUND', `the UI "${payload.instanceId}" has no file field "${payload.key}"`);
    const { replaced, error } = uploadQuota(uiUploads(ctx.index), payload, payload);
    if (error !== undefined) throw error;
    const registered = ctx.index.blobs.get(payload.sha256);
    const fresh = registered === undefined ? await newBlobRecord(ctx, payload) : undefined;
    const released = releaseWrites(ctx, replaced, fresh === undefined ? new Map([[payload.sha256, 1]]) : new Map());
    const record: UIUploadRecord = {
      id: payload.id,
      instanceId: payload.instanceId,
      key: payload.key,
      sha256: payload.sha256,
      size: payload.size,
      owner: payload.owner,
      submitted: false,
      createdAt: ctx.now,
    };
    const writes: Write[] = [
      ...(fresh === undefined ? [] : [{ op: 'put' as const, collection: 'blob', key: fresh.sha256, value: { ...fresh, refCount: 1, holds: 1 } }]),
      ...released.writes,
      { op: 'put', collection: 'ui_upload', key: record.id, value: record },
    ];
    return { writes, effects: released.effects, result: record };
  },
});

/** `ui:upload_remove`: the user took a file back before sending it (BLOB_NOT_FOUND when they hold no such upload on the instance). */
export const uiUploadRemoveCommand = defineCommand({
  type: 'ui:upload_remove',
  description: 'Releases the held uploads of a file a user removed from a UI before a click sent it.',
  payload: z.strictObject({ instanceId: z.string().min(1), sha256: Sha256, owner: z.string().nullable() }),
  reduce(payload, ctx) {
    const released = uiUploads(ctx.index).filter(
      (u) => !u.submitted && u.instanceId === payload.instanceId && u.sha256 === payload.sha256 && u.owner === payload.owner,
    );
    if (released.length === 0) throw fail('BLOB_NOT_FOUND', `no file ${payload.sha256} uploaded for the UI "${payload.instanceId}" and not yet sent`);
    return { ...releaseWrites(ctx, released), result: { released } };
  },
});

/** `ui:upload_expire`: releases the uploads no click sent within `holdMs` of their upload, as the command's clock has it. */
export const uiUploadExpireCommand = defineCommand({
  type: 'ui:upload_expire',
  description: 'Releases the uploads no click sent within their window.',
  payload: z.strictObject({ holdMs: Bytes }),
  reduce(payload, ctx) {
    const released = staleUploads(uiUploads(ctx.index), payload.holdMs, Date.parse(ctx.now));
    return { ...releaseWrites(ctx, released), result: { released } };
  },
});

/** The uploads no click sent whose window (`holdMs` from their upload) has passed at `now` (milliseconds). */
export function staleUploads(uploads: readonly UIUploadRecord[], holdMs: number, now: number): UIUploadRecord[] {
  return uploads.filter((u) => !u.submitted && Date.parse(u.createdAt) + holdMs <= now);
}
