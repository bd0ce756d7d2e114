import { createHash } from 'node:crypto';

/**
 * Where blob bytes live, addressed by their SHA-256. The workspace keeps the
 * records and reference counts; a blob storage only keeps bytes.
 */
export interface BlobStorage {
  readonly kind: string;
  /** Stores the bytes (once: the same bytes twice are one copy) and returns their SHA-256. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes, or null when none are stored under that digest. */
  get(sha256: string): Promise<Uint8Array | null>;
  has(sha256: string): Promise<boolean>;
  /** The size of the stored bytes, or null when none are stored under that digest. */
  sizeOf(sha256: string): Promise<number | null>;
  /** Removes the bytes; removing what is not there is not an error. */
  delete(sha256: string): Promise<void>;
  /** Every digest stored (for checks and repairs). */
  list(): Promise<string[]>;
  /** Bytes stored in all. */
  size(): Promise<number>;
  /**
   * Writes that never finished (a crash mid-write leaves them; no digest names them), with
   * how long ago each was last written to. Optional: storages whose writes are atomic have none.
   */
  partialWrites?(): Promise<{ name: string; ageMs: number }[]>;
  /** Removes one of `partialWrites()`; removing one that is gone is not an error. */
  removePartialWrite?(name: string): Promise<void>;
}

/** The lowercase hex SHA-256 of some bytes. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Blob storage in memory, for tests and throwaway workspaces. */
export class MemoryBlobStorage implements BlobStorage {
  readonly kind = 'memory';
  #blobs = new Map<string, Uint8Array>();

  async put(bytes: Uint8Array): Promise<string> {
    const sha = sha256Of(bytes);
    if (!this.#blobs.has(sha)) this.#blobs.set(sha, Uint8Array.from(bytes));
    return sha;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    const bytes = this.#blobs.get(sha256);
    return bytes === undefined ? null : Uint8Array.from(bytes);
  }

  async has(sha256: string): Promise<boolean> {
    return this.#blobs.has(sha256);
  }

  async sizeOf(sha256: string): Promise<number | null> {
    return this.#blobs.get(sha256)?.byteLength ?? null;
  }

  async delete(sha256: string): Promise<void> {
    this.#blobs.delete(sha256);
  }

  async list(): Promise<string[]> {
    return [...this.#blobs.keys()];
  }

  async size(): Promise<number> {
    let total = 0;
    for (const bytes of this.#blobs.values()) total += bytes.byteLength;
    return total;
  }
}
