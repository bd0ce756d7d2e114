/**
 * The UI instances as a stream of AG-UI state events: a STATE_SNAPSHOT of every instance
 * (on connect, and after a gap), then a STATE_DELTA per accepted `patch_ui_state` call,
 * its RFC 6902 operations rebased under `/instances/<id>`. Each event carries a version
 * (`metadata.version`), one more per delta, so a client that misses one knows to ask for
 * a snapshot instead of applying the next to the wrong state.
 *
 * A snapshot is the instances as the events sent so far have them, not the index as it is
 * now: on a store shared by processes the index holds a command before its event is
 * emitted (the lock's release comes between), and a snapshot read from it then would
 * already hold a change whose delta the client is about to get, at the version before it.
 */
import type { StateDeltaEvent, StateSnapshotEvent } from '@ag-ui/core';
import type { WorkspaceManager } from '../core/manager.js';
import { onUiChange, uiInstances, type UIPatchResult } from '../ui/ui-plugin.js';
import { escapePointer, type JsonPatchOperation } from '../ui/patch-engine.js';

/** The client-side state: every instance by id. */
export interface UIState {
  instances: Record<string, unknown>;
}

export type UIStreamEvent = (StateSnapshotEvent | StateDeltaEvent) & { metadata: { version: number } };

export class UIStream {
  readonly #manager: WorkspaceManager;
  readonly #listeners = new Set<(event: UIStreamEvent, text: string) => void>();
  readonly #offs: (() => void)[];
  #version = 0;
  /** Every instance as of the last event sent (the index may be ahead of it: see above). */
  #instances = new Map<string, unknown>();

  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
    this.#load();
    this.#offs = [
      onUiChange(manager.events, (result) => {
        if (result.instance === undefined) this.#instances.delete(result.instanceId);
        else this.#instances.set(result.instanceId, result.instance);
        this.#publish(result);
      }),
      // Another process wrote to the workspace and the index was rebuilt: no delta says what changed, a snapshot does.
      manager.events.on('index:rebuilt', (e) => {
        if (e.collections !== undefined && !e.collections.includes('ui_instance')) return; // caught up on other records only
        this.#load();
        this.#version++;
        this.#emit(this.snapshot());
      }),
    ];
  }

  /** The version of the last delta. */
  get version(): number {
    return this.#version;
  }

  /** Every instance as the events sent so far have them, as a snapshot event at the current version. */
  snapshot(): UIStreamEvent {
    const instances: Record<string, unknown> = Object.fromEntries(this.#instances);
    return {
      type: 'STATE_SNAPSHOT' as StateSnapshotEvent['type'],
      snapshot: { instances } satisfies UIState,
      timestamp: Date.now(),
      metadata: { version: this.#version },
    };
  }

  /** Calls `listener` with each event after the snapshot (a delta; a snapshot after a rebuild) and its JSON, made once; returns the unsubscribe. */
  subscribe(listener: (event: UIStreamEvent, text: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    for (const off of this.#offs) off();
    this.#listeners.clear();
  }

  #load(): void {
    this.#instances = new Map(uiInstances(this.#manager.workspace()).map((record) => [record.id, record.instance]));
  }

  #emit(event: UIStreamEvent): void {
    const text = JSON.stringify(event);
    for (const listener of this.#listeners) listener(event, text);
  }

  #publish(result: UIPatchResult): void {
    this.#emit({ type: 'STATE_DELTA' as StateDeltaEvent['type'], delta: instanceDelta(result), timestamp: Date.now(), metadata: { version: ++this.#version } });
  }
}

/** An accepted `patch_ui_state` call as RFC 6902 operations on the client-side state (`UIState`): rebased under `/instances/<id>`. */
export function instanceDelta(result: UIPatchResult): JsonPatchOperation[] {
  const base = `/instances/${escapePointer(result.instanceId)}`;
  if (result.kind === 'delete') return [{ op: 'remove', path: base }];
  return result.jsonPatch.map((op) => ({ ...op, path: op.path === '' ? base : `${base}${op.path}` }));
}
