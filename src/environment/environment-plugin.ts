/**
 * The environment domain (`environment:*`), added to every workspace through the
 * extension mechanism: environments' editable values persist, replay and audit like any
 * other state.
 */
import { z } from 'zod';
import { defineCommand, type CommandMapOf, type WorkspaceExtension } from '../core/plugin.js';
import { Id, Timestamp } from '../core/records.js';
import type { CommandLogEntry } from '../core/store.js';

/** The persisted values of one environment's editable fields. */
export const EnvironmentState = z.strictObject({
  id: Id,
  values: z.record(z.string(), z.string().nullable()),
  updatedAt: Timestamp,
});
export type EnvironmentState = z.infer<typeof EnvironmentState>;

export const environmentUpdate = defineCommand({
  type: 'environment:update',
  description: "Records new values of an environment's editable fields (validated by the environment before it dispatches).",
  payload: z.strictObject({ environmentId: Id, values: z.record(z.string().min(1), z.string().nullable()) }),
  reduce(payload, ctx) {
    const previous = ctx.index.collection('environment').get(payload.environmentId);
    const state: EnvironmentState = { id: payload.environmentId, values: { ...previous?.values, ...payload.values }, updatedAt: ctx.now };
    return { writes: [{ op: 'put', collection: 'environment', key: state.id, value: state }], result: state };
  },
});

export const environmentExtension: WorkspaceExtension = {
  name: 'environment',
  collections: { environment: EnvironmentState },
  commands: [environmentUpdate],
};

/**
 * An environment's values as they were once the command log reached `seq` (a turn's seq
 * is the seq of the command that created it): what the model saw at that turn.
 */
export function environmentValuesAt(log: readonly CommandLogEntry[], environmentId: string, seq: number): Record<string, string | null> {
  const values: Record<string, string | null> = {};
  for (const entry of log) {
    if (entry.seq > seq) break;
    if (entry.type !== 'environment:update') continue;
    const payload = entry.payload as { environmentId?: unknown; values?: Record<string, string | null> };
    if (payload.environmentId === environmentId) Object.assign(values, payload.values);
  }
  return values;
}

declare module '../core/manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends CommandMapOf<typeof environmentUpdate> {}
}

declare module '../core/workspace-index.js' {
  interface CollectionMap {
    environment: EnvironmentState;
  }
}
