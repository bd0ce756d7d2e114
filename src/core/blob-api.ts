import { fail, unwrap } from './errors.js';
import type { CommandMap, WorkspaceManager } from './manager.js';
import type { BlobRecord } from './records.js';

/** The largest blob a workspace takes unless told otherwise (`createWorkspace({ maxBlobBytes })`): 256 MiB. */
export const DEFAULT_MAX_BLOB_BYTES = 256 * 1024 * 1024;

/** `maxBlobBytes` if it is a positive whole number of bytes; else INVALID_ARGUMENT. */
export function checkMaxBlobBytes(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw fail('INVALID_ARGUMENT', `maxBlobBytes must be a positive whole number of bytes, not ${value}`);
  return value;
}

/** `ws.blobs`: content-addressed assets with reference counting. */
export class BlobApi {
  readonly #manager: WorkspaceManager;
  /** Bytes larger than this are refused before anything is stored. */
  readonly maxBytes: number;

  constructor(manager: WorkspaceManager, options: { maxBytes?: number } = {}) {
    this.#manager = manager;
    this.maxBytes = checkMaxBlobBytes(options.maxBytes ?? DEFAULT_MAX_BLOB_BYTES);
  }

  /**
   * Stores bytes (once, however often) and registers them. Reference the blob from
   * image or document blocks by its `sha256`; each reference counts.
   *
   * A registered blob nothing references can be freed by a concurrent release of the
   * same bytes before you reference it. Where that can happen, register with
   * `hold: true` and `release` once your turn references it.
   */
  async register(bytes: Uint8Array, options: { mediaType: string; filename?: string; hold?: boolean }): Promise<BlobRecord> {
    if (!(bytes instanceof Uint8Array)) throw fail('INVALID_ARGUMENT', 'blob bytes must be a Uint8Array (a Buffer is one)');
    if (bytes.byteLength > this.maxBytes) {
      throw fail('BLOB_TOO_LARGE', `the blob is ${bytes.byteLength} bytes; this workspace takes at most ${this.maxBytes} (createWorkspace({ maxBlobBytes }))`, {
        size: bytes.byteLength,
        maxBytes: this.maxBytes,
      });
    }
    // The bytes are stored outside the serializer (a large write must not hold up every command), so the
    // last reference to the same bytes may be released, and the file deleted, between the put and the
    // register. The register then finds no bytes: store them again and retry.
    for (let attempt = 1; ; attempt++) {
      const sha256 = await this.#manager.blobStorage.put(bytes);
      const payload = {
        sha256,
        size: bytes.byteLength,
        mediaType: options?.mediaType,
        filename: options?.filename ?? null,
        ...(options?.hold === true && { hold: true }),
      };
      const result = await this.#manager.dispatch({ type: 'blob:register', payload: payload as CommandMap['blob:register']['payload'] });
      if (result.ok || result.error.code !== 'BLOB_NOT_STORED' || attempt === 3) return unwrap(result);
    }
  }

  /**
   * Deletes blobs nothing references or holds (registered and never used), with their
   * bytes. `before` (ISO time) spares blobs registered since, which a caller may be about to use.
   */
  async collect(options: { before?: string } = {}): Promise<string[]> {
    return unwrap(await this.#manager.dispatch({ type: 'blob:collect', payload: { ...options } })).collected;
  }

  /** The blob's record, or undefined. */
  get(sha256: string): BlobRecord | undefined {
    return this.#manager.workspace().blobs.get(sha256);
  }

  /** The blob's bytes. Throws BLOB_NOT_FOUND for an unregistered digest. */
  async read(sha256: string): Promise<Uint8Array> {
    if (this.get(sha256) === undefined) throw fail('BLOB_NOT_FOUND', `no blob ${sha256} is registered`, { sha256 });
    const bytes = await this.#manager.blobStorage.get(sha256);
    if (bytes === null) throw fail('BLOB_NOT_STORED', `blob ${sha256} is registered but its bytes are missing`, { sha256 });
    return bytes;
  }

  list(): BlobRecord[] {
    return [...this.#manager.workspace().blobs.values()];
  }

  /** Adds an explicit hold (for blobs kept outside turns). */
  async retain(sha256: string): Promise<BlobRecord> {
    return unwrap(await this.#manager.dispatch({ type: 'blob:retain', payload: { sha256 } }));
  }

  /** Removes an explicit hold; the bytes go when nothing references the blob. */
  async release(sha256: string): Promise<BlobRecord> {
    return unwrap(await this.#manager.dispatch({ type: 'blob:release', payload: { sha256 } }));
  }

  /** Records a provider's file id for the blob. */
  async recordRemoteId(sha256: string, provider: string, remoteId: string): Promise<BlobRecord> {
    return unwrap(await this.#manager.dispatch({ type: 'blob:record_remote_id', payload: { sha256, provider, remoteId } }));
  }
}
