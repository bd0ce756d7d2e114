/**
 * `ws.ui.uploads`: files uploaded for the file fields of model-built UIs (ui-uploads.ts says
 * how long each is held). Every change is a command, so every process sharing the store sees
 * the same uploads, caps and releases.
 */
import { unwrap } from '../core/errors.js';
import type { LapsedHolds } from '../core/doctor.js';
import type { WorkspaceManager } from '../core/manager.js';
import { staleUploads, uiUploads, uploadLimits, uploadQuota, type UIUploadRecord, type UploadLimits } from './ui-uploads.js';

/** A file to hold for a file field: its bytes and what they are, the instance and field, and who uploads it. */
export interface UploadInput {
  instanceId: string;
  key: string;
  bytes: Uint8Array;
  mediaType: string;
  filename: string | null;
  /** The uploading user (null: a server without users). */
  owner: string | null;
}

export class UIUploads {
  readonly #manager: WorkspaceManager;

  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
  }

  /** Every upload held now (sent by a click or not). */
  list(): UIUploadRecord[] {
    return uiUploads(this.#manager.workspace());
  }

  /**
   * Stores a file for an instance's file field and holds it until a click sends it, another file
   * replaces it, it is removed, or `limits.holdMs` passes. UPLOAD_QUOTA when the held bytes would
   * pass the instance's or the user's cap, refused before the bytes are stored; UI_FIELD_NOT_FOUND
   * for an instance without that file field. Uploads past their window are released first.
   */
  async upload(input: UploadInput, limits: Partial<UploadLimits> = {}): Promise<UIUploadRecord> {
    const { holdMs, instanceBytes, userBytes } = uploadLimits(limits);
    await this.releaseStale({ holdMs });
    const target = { instanceId: input.instanceId, key: input.key, owner: input.owner, size: input.bytes.byteLength };
    // Refused from what this process knows before anything is stored; the command decides again on the log as it is.
    const early = uploadQuota(this.list(), target, { instanceBytes, userBytes }).error;
    if (early !== undefined) throw early;
    const id = this.#manager.newId();
    for (let attempt = 1; ; attempt++) {
      const sha256 = await this.#manager.blobStorage.put(input.bytes);
      const result = await this.#manager.dispatch({
        type: 'ui:upload',
        payload: { id, ...target, sha256, mediaType: input.mediaType, filename: input.filename, instanceBytes, userBytes },
      });
      if (result.ok) return result.value;
      // The last holder of the same bytes let them go between the put and the command: store them again.
      if (result.error.code === 'BLOB_NOT_STORED' && attempt < 3) continue;
      // Refused: bytes no record names are not left behind (a register of the same bytes meanwhile stores them again).
      if (this.#manager.workspace().blobs.get(sha256) === undefined) await this.#manager.blobStorage.delete(sha256);
      throw result.error;
    }
  }

  /** Releases `owner`'s uploads of a file on the instance that no click sent (the page's Remove); BLOB_NOT_FOUND when there is none. */
  async remove(instanceId: string, sha256: string, owner: string | null): Promise<UIUploadRecord[]> {
    return unwrap(await this.#manager.dispatch({ type: 'ui:upload_remove', payload: { instanceId, sha256, owner } })).released;
  }

  /**
   * Releases the uploads no click sent within `holdMs` (default one hour) of their upload, as the
   * workspace's clock has it, and answers them. Nothing is logged when this process knows of none due.
   */
  async releaseStale(options: { holdMs?: number } = {}): Promise<UIUploadRecord[]> {
    const { holdMs } = uploadLimits(options);
    if (this.stale({ holdMs }).length === 0) return [];
    return unwrap(await this.#manager.dispatch({ type: 'ui:upload_expire', payload: { holdMs } })).released;
  }

  /** The uploads past their window, for `doctor` to report and, repairing, release (`golem doctor --repair`). */
  lapsedHolds(options: { holdMs?: number } = {}): LapsedHolds {
    const line = (u: UIUploadRecord) => `upload of ${u.sha256} for the UI "${u.instanceId}" (field ${u.key}), held unsent since ${u.createdAt}`;
    return { list: () => this.stale(options).map(line), release: async () => (await this.releaseStale(options)).map(line) };
  }

  /** The uploads no click sent whose window (`holdMs`, default one hour) has passed at `now` (default: the workspace's clock's now): what `releaseStale` releases. */
  stale(options: { holdMs?: number; now?: Date } = {}): UIUploadRecord[] {
    const { holdMs } = uploadLimits(options);
    return staleUploads(this.list(), holdMs, (options.now ?? this.#manager.now()).getTime());
  }
}
