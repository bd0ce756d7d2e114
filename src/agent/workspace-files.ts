/**
 * Where a workspace keeps its own files on disk (its folder, and a database or blob folder
 * kept elsewhere), so that a project that contains them (a workspace kept in `data/` rather
 * than `.golem/`) never shows them to a model: project actions refuse them like `.golem`.
 */
import { join } from 'node:path';
import type { WorkspaceManager } from '../core/manager.js';

/**
 * The absolute paths of the workspace's folder (all of it: database, blobs, chat history and
 * whatever else Golem keeps there, on any store), and of the database (with its WAL and
 * journal files) and blob folder where they lie outside it.
 */
export function workspaceFiles(manager: WorkspaceManager): string[] {
  const paths: string[] = [];
  const { blobStorage: blobs, store, dir } = manager;
  // The folder, and what Golem writes in it by name: when the folder is the project itself (`--dir .`) it cannot be
  // hidden whole, but the chat prompt's history still is.
  if (dir !== undefined) paths.push(dir, join(dir, 'history'));
  if ('dir' in blobs && typeof blobs.dir === 'string') paths.push(blobs.dir);
  if ('path' in store && typeof store.path === 'string' && store.path !== ':memory:') {
    const db = store.path;
    paths.push(...['', '-wal', '-shm', '-journal'].map((suffix) => db + suffix));
  }
  return paths;
}
