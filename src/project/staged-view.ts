/**
 * The staging view: a FileAccess of kind 'staged' whose reads see pending writes, then
 * the staged content, then the disk, and whose writes are recorded, not made.
 */
import type { FileAccess, FileChange } from '../action/files.js';
import { writablePath } from './project-files.js';

/** A FileAccess of kind 'staged' whose writes are recorded, not made. */
export type StagingView = FileAccess & { changes(): FileChange[] };

/** The staging view: pending writes, then the staged content, then the disk. */
export class StagedView implements FileAccess {
  readonly root: string;
  readonly kind = 'staged' as const;
  readonly #pending = new Map<string, Buffer | null>();
  readonly #disk: FileAccess;
  /** A read of the staged content of a path (null content: staged as deleted), or null when the path is not staged. */
  readonly #staged: (path: string) => Promise<Buffer | null> | null;

  constructor(disk: FileAccess, staged: (path: string) => Promise<Buffer | null> | null) {
    this.#disk = disk;
    this.#staged = staged;
    this.root = disk.root;
  }

  /** The project-relative path of `path` (see FileAccess). */
  relative(path: string): string {
    return this.#disk.relative(path);
  }

  /** The content a write through this view left, else the staged content, else the disk's. */
  async read(path: string): Promise<Buffer | null> {
    const rel = this.#disk.relative(path);
    if (this.#pending.has(rel)) return copy(this.#pending.get(rel) ?? null);
    return this.#staged(rel) ?? this.#disk.read(rel);
  }

  /** Whether the disk's files leave a path out (see FileAccess). */
  hides(rel: string): boolean {
    return this.#disk.hides?.(rel) ?? false;
  }

  /** Records the write (null: a deletion); nothing is written. */
  async write(path: string, content: Buffer | null): Promise<void> {
    this.#pending.set(writablePath(this.root, this.#disk.relative(path)), copy(content));
  }

  /** The writes made through this view, one per path (the last), sorted by path. */
  changes(): FileChange[] {
    return [...this.#pending].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([path, content]) => ({ path, content: copy(content) }));
  }
}

function copy(content: Buffer | null): Buffer | null {
  return content === null ? null : Buffer.from(content);
}
