/**
 * The UI domain (`ui:*`), added to every workspace: the instances the model builds with
 * `patch_ui_state` (seed 004). One command, `ui:patch`, carries a whole call; its reducer
 * runs the patch engine on the instance as the log has it, so a call is applied all or
 * not at all, in the command log like every other change.
 */
import { z } from 'zod';
import type { JsonObject, JsonValue } from '../core/blocks.js';
import { fail } from '../core/errors.js';
import { defineCommand, type CommandMapOf, type ReducerContext, type WorkspaceExtension } from '../core/plugin.js';
import { Id, Timestamp } from '../core/records.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { builtinCatalog, type UICatalog } from './catalog.js';
import { isPlainJson } from './json-copy.js';
import { applyPatchInput, type JsonPatchOperation } from './patch-engine.js';
import { clickPatches, type UIClick } from './ui-click.js';
import { UIInstance } from './schema.js';
import { settleUploads, uiUploadCommand, uiUploadExpireCommand, UIUploadRecord, uiUploadRemoveCommand } from './ui-uploads.js';

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

/** A command's payload: a JSON object (checked by a walk; the core's JsonObject schema is a hundred times slower on a large table). */
const JsonPayload = z.custom<JsonObject>((value) => isPlainJson(value) && value !== null && typeof value === 'object' && !Array.isArray(value), {
  message: 'the payload is a JSON object',
});

/** Applies one call to the instances as `ctx.index` has them: the writes and what the call did, or UI_PATCH_REJECTED with the seed's codes. */
function applyCall(call: unknown, ctx: ReducerContext, catalog: UICatalog, builtBy: string | undefined) {
  const outcome = applyPatchInput(call, (id) => uiInstance(ctx.index, id)?.instance, catalog);
  if (!outcome.ok) {
    const first = outcome.errors[0];
    throw fail(
      'UI_PATCH_REJECTED',
      `patch_ui_state refused: ${first?.code ?? ''} at patch ${first?.patchIndex ?? -1} (${first?.path ?? ''}): ${first?.message ?? ''}`,
      {
        errors: outcome.errors,
      },
    );
  }
  const before = uiInstance(ctx.index, outcome.instanceId);
  // The instance's uploads follow it: sent ones kept while its state names them (ui-uploads.ts).
  const uploads = settleUploads(ctx, outcome.instanceId, outcome.kind === 'delete' ? undefined : outcome.instance);
  if (outcome.kind === 'delete') {
    const result: UIPatchResult = { kind: 'delete', instanceId: outcome.instanceId, instance: undefined, version: before?.version ?? 0, jsonPatch: [] };
    return { writes: [{ op: 'delete' as const, collection: 'ui_instance', key: outcome.instanceId }, ...uploads.writes], effects: uploads.effects, result };
  }
  const record: UIInstanceRecord = {
    id: outcome.instanceId,
    instance: outcome.instance,
    version: (before?.version ?? 0) + 1,
    ...(builtBy !== undefined ? { builtBy } : before?.builtBy !== undefined && { builtBy: before.builtBy }),
    createdAt: before?.createdAt ?? ctx.now,
    updatedAt: ctx.now,
  };
  const result: UIPatchResult = { kind: outcome.kind, instanceId: record.id, instance: record.instance, version: record.version, jsonPatch: outcome.jsonPatch };
  return { writes: [{ op: 'put' as const, collection: 'ui_instance', key: record.id, value: record }, ...uploads.writes], effects: uploads.effects, result };
}

/** The `ui:patch` command, checking fields with `catalog` (the workspace's, which its user may add to). */
export const uiPatchCommand = (catalog: UICatalog) =>
  defineCommand({
    type: 'ui:patch',
    description: 'Applies one patch_ui_state call (seed 004): all its patches, or none.',
    // The call as the model makes it; with `builtBy`, the session whose agent made it.
    payload: JsonPayload,
    reduce(payload, ctx) {
      const { builtBy, ...rest } = payload;
      return typeof builtBy === 'string' ? applyCall(rest, ctx, catalog, builtBy) : applyCall(payload, ctx, catalog, undefined);
    },
  });

/** What a click did: the action clicked, what it sent, and the call it made. */
export interface UIClickResult {
  action: { id: string; label: string; handled: boolean };
  values: Record<string, JsonValue>;
  count?: number;
  patch: UIPatchResult;
}

/**
 * The `ui:click` command: a user's click, checked and turned into patches on the instance as
 * the log has it (ui-click.ts), then applied as one patch_ui_state call. UI_ACTION_REFUSED
 * (details.code: the seed's, INVALID_VALUE or INVALID_MESSAGE) when the click is refused.
 */
export const uiClickCommand = (catalog: UICatalog) =>
  defineCommand({
    type: 'ui:click',
    description: "Applies a user's click on a model-built UI: the values typed and the action's handlers, as one patch_ui_state call.",
    payload: JsonPayload,
    reduce(payload, ctx) {
      const click = payload as Partial<UIClick>;
      const plan = clickPatches(
        typeof click.instanceId === 'string' ? uiInstance(ctx.index, click.instanceId)?.instance : undefined,
        click,
        catalog,
        (sha256) => ctx.index.blobs.get(sha256),
      );
      if (!plan.ok) throw fail('UI_ACTION_REFUSED', plan.message, { code: plan.code });
      const { writes, effects, result: patch } = applyCall({ instanceId: click.instanceId, patches: plan.patches }, ctx, catalog, undefined);
      const result: UIClickResult = {
        action: { id: plan.action.id, label: plan.action.label, handled: plan.action.handler !== undefined },
        values: plan.values,
        ...(plan.count !== undefined && { count: plan.count }),
        patch,
      };
      return { writes, effects, result };
    },
  });

/**
 * Calls `listener` on every accepted change to an instance, in commit order: a patch_ui_state
 * call (`ui:patch`, with the session whose agent made it) or a user's click (`ui:click`).
 */
export function onUiChange(events: WorkspaceManager['events'], listener: (result: UIPatchResult, builtBy: string | undefined) => void): () => void {
  const offs = [
    events.on('ui:patch', (e) => listener(e.result, typeof e.command.payload.builtBy === 'string' ? e.command.payload.builtBy : undefined)),
    events.on('ui:click', (e) => listener(e.result.patch, undefined)),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/** The UI domain, its fields checked with `catalog` (the built-in components when none is given). */
export function uiExtension(catalog: UICatalog = builtinCatalog()): WorkspaceExtension {
  return {
    name: 'ui',
    collections: { ui_instance: UIInstanceRecord, ui_upload: UIUploadRecord },
    commands: [uiPatchCommand(catalog), uiClickCommand(catalog), uiUploadCommand, uiUploadRemoveCommand, uiUploadExpireCommand],
  };
}

declare module '../core/manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends CommandMapOf<
    ReturnType<typeof uiPatchCommand> | ReturnType<typeof uiClickCommand> | typeof uiUploadCommand | typeof uiUploadRemoveCommand | typeof uiUploadExpireCommand
  > {}
}

declare module '../core/workspace-index.js' {
  interface CollectionMap {
    ui_instance: UIInstanceRecord;
    ui_upload: UIUploadRecord;
  }
}
