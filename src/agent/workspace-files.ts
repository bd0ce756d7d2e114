/**
 * Where a workspace keeps its own files on disk (its SQLite database and blob folder), so
 * that a project that contains them (a workspace kept in `data/` rather than `.golem/`)
 * never shows them to a model: project actions refuse them like `.golem`.
 */
import type { WorkspaceManager } from '../core/manager.js';

/** The absolute paths of the workspace's database (with its WAL and journal files) and blob folder, those it has. */
export function workspaceFiles(manager: WorkspaceManager): string[] {
  const paths: string[] = [];
  const { blobStorage: blobs, store } = manager;
  if ('dir' in blobs && typeof blobs.dir === 'string') paths.push(blobs.dir);
  if ('path' in store && typeof store.path === 'string' && store.path !== ':memory:') {
    const db = store.path;
    paths.push(...['', '-wal', '-shm', '-journal'].map((suffix) => db + suffix));
  }
  return paths;
}
