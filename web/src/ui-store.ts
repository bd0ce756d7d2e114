/**
 * The model-built UIs as the socket streams them: a snapshot replaces them, a delta applies
 * only on the next version. On a gap or a failing operation the store waits for a snapshot
 * (the caller sends SNAPSHOT_REQUEST) and ignores deltas until it comes.
 */
import { applyPatch, parsePointer } from './json-patch.js';
import type { PatchOp, UISnapshot } from './types.js';

export interface UiStore {
  state: UISnapshot;
  /** The version of the last event applied; null before the first snapshot. */
  version: number | null;
  /** The stream version that last touched each instance. */
  touched: Record<string, number>;
  awaitingSnapshot: boolean;
}

export const emptyStore: UiStore = { state: { instances: {} }, version: null, touched: {}, awaitingSnapshot: false };

export interface StoreUpdate {
  store: UiStore;
  /** The instances the event changed. */
  touchedIds: string[];
  /** Ask the server for a snapshot. */
  resync: boolean;
}

export function applySnapshot(store: UiStore, snapshot: UISnapshot, version: number): StoreUpdate {
  const instances = snapshot.instances ?? {};
  const ids = Object.keys(instances);
  const touched: Record<string, number> = { ...store.touched };
  for (const id of ids) touched[id] = version;
  return { store: { state: { instances }, version, touched, awaitingSnapshot: false }, touchedIds: ids, resync: false };
}

export function applyDelta(store: UiStore, delta: readonly PatchOp[], version: number): StoreUpdate {
  if (store.awaitingSnapshot) return { store, touchedIds: [], resync: false };
  if (store.version === null || version !== store.version + 1) return { store: { ...store, awaitingSnapshot: true }, touchedIds: [], resync: true };
  let state: UISnapshot;
  try {
    state = applyPatch(store.state, delta);
  } catch {
    return { store: { ...store, awaitingSnapshot: true }, touchedIds: [], resync: true };
  }
  const ids = new Set<string>();
  // The instances an operation wrote, and the one a move took from.
  for (const path of delta.flatMap((op) => (op.op === 'move' && op.from !== undefined ? [op.path, op.from] : [op.path]))) {
    const [head, id] = parsePointer(path);
    if (head === 'instances' && id !== undefined) ids.add(id);
  }
  const touched: Record<string, number> = { ...store.touched };
  for (const id of ids) touched[id] = version;
  return { store: { state, version, touched, awaitingSnapshot: false }, touchedIds: [...ids], resync: false };
}

/** The instances a conversation shows: those of the store its detail allows (its own), in the store's order. */
export function shownInstances(store: UiStore, allowed: readonly string[]): string[] {
  return Object.keys(store.state.instances).filter((id) => allowed.includes(id));
}

/** Instances the update brought that the store did not hold before it. */
export function newInstances(before: UiStore, update: StoreUpdate): string[] {
  return update.touchedIds.filter((id) => before.state.instances[id] === undefined && update.store.state.instances[id] !== undefined);
}
