/** Shared test helpers: temp folders, a deterministic clock and ids, snapshots, a supervised action. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect } from 'vitest';
import { z } from 'zod';
import { createWorkspace, defineAction, type Action, type CreateWorkspaceOptions, type StoredRecord, type Workspace } from '../src/index.js';
import { ownerOf, WorkspaceIndex } from '../src/core/workspace-index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh temporary folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'golem-test-'));
  dirs.push(dir);
  return dir;
}

const workspaces: Workspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0).reverse()) await ws.close();
});

/** A workspace (`createWorkspace`), closed after the test, the last opened first. */
export async function openClosed(options: CreateWorkspaceOptions = {}): Promise<Workspace> {
  const ws = await createWorkspace(options);
  workspaces.push(ws);
  return ws;
}

/** The code of the error a promise rejects with ('no error' when it resolves). */
export const codeOf = async (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'no error',
    (error: unknown) => (error instanceof Error && 'code' in error ? String(error.code) : String(error)),
  );

/** A clock that advances one millisecond per reading, from a fixed instant. */
export function steppingClock(start = Date.UTC(2026, 0, 1)): () => Date {
  let now = start;
  return () => new Date(now++);
}

/** Ids 'id-1', 'id-2', ... */
export function countingIds(prefix = 'id'): () => string {
  let n = 0;
  return () => `${prefix}-${++n}`;
}

export type StoreKind = 'memory' | 'sqlite';
export const STORE_KINDS: StoreKind[] = ['memory', 'sqlite'];

/** A workspace on the given kind of store (SQLite in a temp folder), deterministic by default. */
export async function openWorkspace(kind: StoreKind, options: CreateWorkspaceOptions = {}): Promise<Workspace> {
  return createWorkspace({
    clock: steppingClock(),
    newId: countingIds(),
    ...(kind === 'sqlite' && options.dir === undefined && options.store === undefined && { dir: tempDir(), durability: 'normal' }),
    ...options,
  });
}

/** Records sorted by collection and key, for order-insensitive comparison. */
export function sorted(records: Iterable<StoredRecord>): StoredRecord[] {
  return [...records].sort((a, b) => a.collection.localeCompare(b.collection) || a.key.localeCompare(b.key));
}

/** Loads into `ws` the sessions whose records are among `records` (an index snapshot of another process, say). */
export async function loadOwnersOf(ws: Workspace, records: Iterable<StoredRecord>): Promise<void> {
  const owners = new Set<string>();
  for (const r of records) {
    const owner = ownerOf(r.collection, r.value);
    if (owner !== null) owners.add(owner);
  }
  await ws.manager.load([...owners]);
}

/** Everything the workspace's index holds. */
export function indexSnapshot(ws: Workspace): StoredRecord[] {
  return sorted(ws.manager.workspace().records());
}

/**
 * Asserts the index equals one rebuilt from the store, for what it holds: every
 * workspace-wide record, and every record of each session loaded (no more, no less).
 */
export async function expectIndexMatchesStore(ws: Workspace): Promise<void> {
  const view = ws.manager.workspace();
  const held = (await ws.manager.store.load()).filter((r) => {
    const owner = ownerOf(r.collection, r.value);
    return owner === null || view.isLoaded(owner);
  });
  const rebuilt = new WorkspaceIndex();
  rebuilt.rebuild(held, (await ws.manager.store.stats()).commands);
  expect(sorted(rebuilt.records())).toEqual(indexSnapshot(ws));
  expect(sorted(held)).toEqual(indexSnapshot(ws));
}

export const text = (value: string) => ({ type: 'text' as const, text: value });

/**
 * A supervised action that "deploys" to a target: it asks before it runs (a high-risk
 * command), and `deploys` lists the targets it ran for, so a test sees whether and how
 * often an approved call was performed.
 */
export function deployAction(): { deploy: Action; deploys: string[] } {
  const deploys: string[] = [];
  const deploy = defineAction({
    name: 'deploy',
    description: 'Deploys the site to a target.',
    input: z.strictObject({ target: z.string() }),
    trust: 'supervised',
    describe: ({ target }) => ({ type: 'command', description: `Deploy the site to ${target}`, details: { target }, risk: 'high' }),
    run: ({ target }) => {
      deploys.push(target);
      return `deployed to ${target}`;
    },
  }) as Action;
  return { deploy, deploys };
}
