/**
 * The UI domain (`ui:*`), added to every workspace: the instances the model builds with
 * `patch_ui_state` (seed 004). One command, `ui:patch`, carries a whole call; its reducer
 * runs the patch engine on the instance as the log has it, so a call is applied all or
 * not at all, in the command log like every other change.
 */
import { z } from 'zod';
import { JsonObject } from '../core/blocks.js';
import { fail } from '../core/errors.js';
import { defineCommand, type CommandMapOf, type WorkspaceExtension } from '../core/plugin.js';
import { Id, Timestamp } from '../core/records.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { builtinCatalog, type UICatalog } from './catalog.js';
import { applyPatchInput, type JsonPatchOperation } from './patch-engine.js';
import { UIInstance } from './schema.js';

/** An instance as stored: its id, the schema instance, and a version counted up by every accepted call. */
export const UIInstanceRecord = z.strictObject({
  id: z.string(),
  instance: UIInstance,
  version: z.number().int().min(1),
  /** The session whose agent last patched it (absent if none did, or before Golem kept it): a click on it goes there. */
  builtBy: Id.optional(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type UIInstanceRecord = z.infer<typeof UIInstanceRecord>;

/** What an accepted call did. */
export interface UIPatchResult {
  kind: 'create' | 'update' | 'delete';
  instanceId: string;
  /** The instance after the call (undefined once deleted). */
  instance: UIInstanceRecord['instance'] | undefined;
  /** Its version after the call (the deleted one's last version, for a delete). */
  version: number;
  /** The call as RFC 6902 JSON Patch on the instance, for clients that hold the previous version. */
  jsonPatch: JsonPatchOperation[];
}

/** The UI instance with this id, if there is one. */
export function uiInstance(view: WorkspaceView, id: string): UIInstanceRecord | undefined {
  return view.collection('ui_instance').get(id);
}

/** Every UI instance. */
export function uiInstances(view: WorkspaceView): UIInstanceRecord[] {
  return [...view.collection('ui_instance').values()];
}

/** The `ui:patch` command, checking fields with `catalog` (the workspace's, which its user may add to). */
export const uiPatchCommand = (catalog: UICatalog) =>
  defineCommand({
    type: 'ui:patch',
    description: 'Applies one patch_ui_state call (seed 004): all its patches, or none.',
    // The call as the model makes it; with `builtBy`, the session whose agent made it.
    payload: JsonObject,
    reduce(payload, ctx) {
      const { builtBy, ...rest } = payload;
      const call = typeof builtBy === 'string' ? rest : payload;
      const outcome = applyPatchInput(call, (id) => uiInstance(ctx.index, id)?.instance, catalog);
      if (!outcome.ok) {
        const first = outcome.errors[0];
        throw fail(
          'UI_PATCH_REJECTED',
          `patch_ui_state refused: ${first?.code ?? ''} at patch ${first?.patchIndex ?? -1} (${first?.path ?? ''}): ${first?.message ?? ''}`,
          { errors: outcome.errors },
        );
      }
      const before = uiInstance(ctx.index, outcome.instanceId);
      if (outcome.kind === 'delete') {
        const result: UIPatchResult = { kind: 'delete', instanceId: outcome.instanceId, instance: undefined, version: before?.version ?? 0, jsonPatch: [] };
        return { writes: [{ op: 'delete', collection: 'ui_instance', key: outcome.instanceId }], result };
      }
      const record: UIInstanceRecord = {
        id: outcome.instanceId,
        instance: outcome.instance,
        version: (before?.version ?? 0) + 1,
        ...(typeof builtBy === 'string' ? { builtBy } : before?.builtBy !== undefined && { builtBy: before.builtBy }),
        createdAt: before?.createdAt ?? ctx.now,
        updatedAt: ctx.now,
      };
      const result: UIPatchResult = {
        kind: outcome.kind,
        instanceId: record.id,
        instance: record.instance,
        version: record.version,
        jsonPatch: outcome.jsonPatch,
      };
      return { writes: [{ op: 'put', collection: 'ui_instance', key: record.id, value: record }], result };
    },
  });

/** The UI domain, its fields checked with `catalog` (the built-in components when none is given). */
export function uiExtension(catalog: UICatalog = builtinCatalog()): WorkspaceExtension {
  return { name: 'ui', collections: { ui_instance: UIInstanceRecord }, commands: [uiPatchCommand(catalog)] };
}

declare module '../core/manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends CommandMapOf<ReturnType<typeof uiPatchCommand>> {}
}

declare module '../core/workspace-index.js' {
  interface CollectionMap {
    ui_instance: UIInstanceRecord;
  }
}
