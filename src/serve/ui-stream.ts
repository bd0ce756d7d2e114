/**
 * The UI instances as a stream of AG-UI state events: a STATE_SNAPSHOT of every instance
 * (on connect, and after a gap), then a STATE_DELTA per accepted `patch_ui_state` call,
 * its RFC 6902 operations rebased under `/instances/<id>`. Each event carries a version
 * (`metadata.version`), one more per delta, so a client that misses one knows to ask for
 * a snapshot instead of applying the next to the wrong state.
 */
import type { StateDeltaEvent, StateSnapshotEvent } from '@ag-ui/core';
import type { WorkspaceManager } from '../workspace/manager.js';
import { uiInstances, type UIPatchResult } from '../ui/extension.js';
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

  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
    this.#offs = [
      manager.events.on('ui:patch', (e) => this.#publish(e.result as UIPatchResult)),
      // Another process wrote to the workspace and the index was rebuilt: no delta says what changed, a snapshot does.
      manager.events.on('index:rebuilt', () => {
        this.#version++;
        this.#emit(this.snapshot());
      }),
    ];
  }

  /** The version of the last delta. */
  get version(): number {
    return this.#version;
  }

  /** Every instance now, as a snapshot event at the current version. */
  snapshot(): UIStreamEvent {
    const instances: Record<string, unknown> = {};
    for (const record of uiInstances(this.#manager.workspace())) instances[record.id] = record.instance;
    return { type: 'STATE_SNAPSHOT' as StateSnapshotEvent['type'], snapshot: { instances } satisfies UIState, timestamp: Date.now(), metadata: { version: this.#version } };
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

  #emit(event: UIStreamEvent): void {
    const text = JSON.stringify(event);
    for (const listener of this.#listeners) listener(event, text);
  }

  #publish(result: UIPatchResult): void {
    const base = `/instances/${escapePointer(result.instanceId)}`;
    const delta: JsonPatchOperation[] =
      result.kind === 'delete' ? [{ op: 'remove', path: base }] : result.jsonPatch.map((op) => ({ ...op, path: op.path === '' ? base : `${base}${op.path}` }));
    this.#emit({ type: 'STATE_DELTA' as StateDeltaEvent['type'], delta, timestamp: Date.now(), metadata: { version: ++this.#version } });
  }
}
