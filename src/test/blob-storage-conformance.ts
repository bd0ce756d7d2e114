/** The blob storage conformance suite: every BlobStorage implementation passes it unchanged. */
import { describe, expect, it } from 'vitest';
import { sha256Of, type BlobStorage } from '../core/blob-storage.js';

export function describeBlobStorageConformance(name: string, create: () => Promise<BlobStorage>): void {
  describe(`BlobStorage conformance: ${name}`, () => {
    const bytes = new TextEncoder().encode('the same bytes');

    it('stores bytes under their SHA-256 and reads them back', async () => {
      const storage = await create();
      const sha = await storage.put(bytes);
      expect(sha).toBe(sha256Of(bytes));
      expect(sha).toBe('7d95d9eeb9c191ad25da1c2014f6985c9a3094bf5065029ea0a79767f0522ce6'); // sha256sum of the same text
      expect(await storage.has(sha)).toBe(true);
      expect(Buffer.from((await storage.get(sha)) ?? []).toString()).toBe('the same bytes');
      expect(await storage.list()).toEqual([sha]);
      expect(await storage.size()).toBe(bytes.byteLength);
      expect(await storage.sizeOf(sha)).toBe(bytes.byteLength);
      expect(await storage.sizeOf('0'.repeat(64))).toBeNull();
    });

    it('keeps one copy of the same bytes', async () => {
      const storage = await create();
      const a = await storage.put(bytes);
      const b = await storage.put(Uint8Array.from(bytes));
      expect(a).toBe(b);
      expect(await storage.list()).toHaveLength(1);
      expect(await storage.size()).toBe(bytes.byteLength);
    });

    it('stores empty and binary content exactly', async () => {
      const storage = await create();
      const binary = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256);
      const empty = new Uint8Array(0);
      const [b, e] = [await storage.put(binary), await storage.put(empty)];
      expect(await storage.get(b)).toEqual(binary);
      expect(await storage.get(e)).toEqual(empty);
    });

    it('deletes, and deleting what is not there is fine', async () => {
      const storage = await create();
      const sha = await storage.put(bytes);
      await storage.delete(sha);
      await storage.delete(sha);
      expect(await storage.has(sha)).toBe(false);
      expect(await storage.get(sha)).toBeNull();
      expect(await storage.list()).toEqual([]);
    });

    it('answers null for digests it does not hold, malformed ones included', async () => {
      const storage = await create();
      expect(await storage.get('0'.repeat(64))).toBeNull();
      expect(await storage.get('../../etc/passwd')).toBeNull();
      expect(await storage.has('not-a-digest')).toBe(false);
    });

    it('returns copies: changing returned bytes does not change the stored ones', async () => {
      const storage = await create();
      const sha = await storage.put(bytes);
      const got = (await storage.get(sha)) as Uint8Array;
      got[0] = 0;
      expect(await storage.get(sha)).toEqual(bytes);
    });
  });
}
