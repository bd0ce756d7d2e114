import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Sha256 } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import { sha256Of, type BlobStorage } from '../core/blob-storage.js';

const TEMP_PREFIX = '.tmp-';
const TEMP_NAME = /^\.tmp-[0-9a-f]{16}$/;

/**
 * Blob files under one folder, named by their SHA-256 (`<dir>/<sha256>`).
 * A write goes to a temporary file, is fsynced, then renamed into place, so a
 * blob file is either whole or absent.
 */
export class FsBlobStorage implements BlobStorage {
  readonly kind = 'fs';
  readonly dir: string;
  #ready: Promise<void> | undefined;

  constructor(dir: string) {
    this.dir = dir;
  }

  async put(bytes: Uint8Array): Promise<string> {
    await this.#ensureDir();
    const sha = sha256Of(bytes);
    const target = join(this.dir, sha);
    if (await exists(target)) return sha;
    const temp = join(this.dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
    try {
      const handle = await open(temp, 'wx');
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, target);
      await syncDir(this.dir);
    } catch (cause) {
      await rm(temp, { force: true });
      throw new GolemError('STORE_ERROR', `cannot write blob ${sha}: ${(cause as Error).message}`, { cause });
    }
    return sha;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    if (!Sha256.safeParse(sha256).success) return null;
    try {
      return new Uint8Array(await readFile(join(this.dir, sha256)));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async has(sha256: string): Promise<boolean> {
    return Sha256.safeParse(sha256).success && (await exists(join(this.dir, sha256)));
  }

  async sizeOf(sha256: string): Promise<number | null> {
    if (!Sha256.safeParse(sha256).success) return null;
    try {
      return (await stat(join(this.dir, sha256))).size;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(sha256: string): Promise<void> {
    if (!Sha256.safeParse(sha256).success) return;
    await rm(join(this.dir, sha256), { force: true });
  }

  async list(): Promise<string[]> {
    try {
      return (await readdir(this.dir)).filter((name) => Sha256.safeParse(name).success);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  async partialWrites(): Promise<{ name: string; ageMs: number }[]> {
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((name) => TEMP_NAME.test(name));
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
    const out: { name: string; ageMs: number }[] = [];
    for (const name of names) {
      const info = await stat(join(this.dir, name)).catch((error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error as Error)));
      if (info !== undefined) out.push({ name, ageMs: Math.max(0, Date.now() - info.mtimeMs) });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  async removePartialWrite(name: string): Promise<void> {
    if (!TEMP_NAME.test(name)) throw new GolemError('INVALID_ARGUMENT', `"${name.slice(0, 100)}" is not the name of a partial blob write`);
    await rm(join(this.dir, name), { force: true });
  }

  async size(): Promise<number> {
    let total = 0;
    for (const sha of await this.list()) total += (await stat(join(this.dir, sha))).size;
    return total;
  }

  #ensureDir(): Promise<void> {
    this.#ready ??= mkdir(this.dir, { recursive: true }).then(() => undefined);
    return this.#ready;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}
