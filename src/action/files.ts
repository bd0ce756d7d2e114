/**
 * How actions reach the project's files. An action reads and writes through the
 * `FileAccess` its context gives it: the files on disk when it may change them, or a
 * staging view (seed 003 manual mode) that records its writes as a staged change for
 * the user to review, while its reads see what it staged so far.
 */

/** One file change, as a staging view records it. `content: null` deletes the file. */
export interface FileChange {
  /** Relative to the project root, with '/' separators. */
  path: string;
  content: Buffer | null;
}

export interface FileAccess {
  /** The project root (absolute). */
  readonly root: string;
  /** 'disk' writes the project's files; 'staged' records the writes for clearance. */
  readonly kind: 'disk' | 'staged';
  /**
   * The path relative to the root, with '/' separators, after checking it stays inside
   * the root (symbolic links included). Throws PATH_OUTSIDE_PROJECT, and PATH_PROTECTED
   * for a path in git's data or Golem's workspace.
   */
  relative(path: string): string;
  /**
   * Whether a project-relative path is not the project's (in `.git` or `.golem`, however
   * spelled, or the workspace's own files kept elsewhere in the project): listings leave
   * it out, and `relative` refuses it with PATH_PROTECTED.
   */
  hides?(rel: string): boolean;
  /** The file's bytes, or null when there is none. Throws PATH_OUTSIDE_PROJECT. */
  read(path: string): Promise<Buffer | null>;
  /** Writes (or, with null, deletes) a file. Throws PATH_OUTSIDE_PROJECT. */
  write(path: string, content: Buffer | null): Promise<void>;
}
