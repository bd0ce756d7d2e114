/**
 * `ws.ui`: the instances the model builds (seed 004), and the model's tools on them:
 * `patch_ui_state` (`ws.ui.patch(input)` and the action are one path: the `ui:patch`
 * command), and `get_ui_state` and `list_ui_instances` to read back what it built.
 */
import { z } from 'zod';
import { defineAction, type Action } from '../action/action.js';
import type { WorkspaceManager } from '../core/manager.js';
import { onUiChange, uiInstance, uiInstances, type UIInstanceRecord, type UIPatchResult } from './ui-plugin.js';
import { BLOCK_DATA_DESCRIPTION } from './block-data.js';
import { UICatalog } from './catalog.js';
import { copyJson, isPlainJson } from './json-copy.js';
import { clickPatches, type UIClick } from './ui-click.js';
import { keepSecretsOut, SecretValues } from './secret-values.js';
import type { JsonObject, JsonValue } from '../core/blocks.js';
import { applyPatchInput, PATCH_OPS, type PatchInput, type UIPatchError } from './patch-engine.js';
import { SUBMITTED_VALUES, uiReadActions, type UIReadOptions } from './ui-read.js';
import { UIUploads } from './ui-upload-api.js';
import { shownErrors, storedInstanceId, storedPatchInput } from './ui-scope.js';

/** What a click did: the action, the values it wrote, and the instance's version after; or why it was refused. */
export type UIClickResponse =
  | { ok: true; action: { id: string; label: string; handled: boolean }; values: Record<string, JsonValue>; count?: number; version: number }
  | { ok: false; code: string; message: string };

export type UIPatchResponse = ({ success: true } & UIPatchResult) | { success: false; errors: UIPatchError[] };

export class UIApi {
  readonly #manager: WorkspaceManager;
  /** The secret values of the last accepted click on each live instance, by key: in this process's memory only. */
  readonly #secrets = new SecretValues();
  /** The components the model can build with (built-in and registered): `ws.ui.catalog.register(...)` adds one. */
  readonly catalog: UICatalog;
  /** Files uploaded for file fields, held until a click sends them, they are replaced or removed, or their window passes. */
  readonly uploads: UIUploads;

  constructor(manager: WorkspaceManager, catalog: UICatalog = new UICatalog()) {
    this.#manager = manager;
    this.catalog = catalog;
    this.uploads = new UIUploads(manager);
    // A deleted instance's passwords go with it: deleted here, or by another process (heard when this one catches up).
    onUiChange(manager.events, (result) => result.kind === 'delete' && this.#secrets.drop(result.instanceId));
    manager.events.on('index:rebuilt', (e) => {
      if (e.collections === undefined || e.collections.includes('ui_instance')) this.#secrets.prune((id) => uiInstance(manager.workspace(), id));
    });
  }

  /**
   * Applies one `patch_ui_state` call. Refusals come back as `{ success: false, errors }`
   * with the seed's codes, each naming the patch (its index, -1 for the call) and path;
   * nothing of a refused call is applied. Other failures (a closed workspace) throw.
   * `builtBy`: the session whose agent makes the call (the action passes its worker's), kept
   * on the instance so that a click on it goes to that session.
   */
  async patch(input: PatchInput, options: { builtBy?: string } = {}): Promise<UIPatchResponse> {
    // Not JSON at all: refused here (the command's payload is a JSON object).
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      const refused = applyPatchInput(input, () => undefined);
      return { success: false, errors: refused.ok ? [] : refused.errors };
    }
    // As JSON, the way the model sends it (a value of undefined is no value: MISSING_VALUE at its patch).
    let payload: Record<string, never>;
    try {
      // JSON already (the model's calls are): copied as it is; anything else as JSON would have it.
      payload = isPlainJson(input)
        ? (copyJson(input) as unknown as Record<string, never>)
        : (JSON.parse(
            JSON.stringify(input, (_key, inner: unknown) => {
              if (typeof inner === 'number' && !Number.isFinite(inner)) throw new Error(`${String(inner)} is not a JSON number`);
              return inner;
            }),
          ) as Record<string, never>);
    } catch (error) {
      return {
        success: false,
        errors: [{ code: 'INVALID_STRUCTURE', patchIndex: -1, path: '', message: `the call is not JSON data: ${(error as Error).message}` }],
      };
    }
    // The reducer runs the engine on the instance as the log has it; a refused call writes nothing.
    const applied = await this.#manager.dispatch({
      type: 'ui:patch',
      payload: options.builtBy === undefined ? payload : { ...payload, builtBy: options.builtBy },
    });
    if (applied.ok) return { success: true, ...applied.value };
    if (applied.error.code === 'UI_PATCH_REJECTED') return { success: false, errors: (applied.error.details as { errors: UIPatchError[] }).errors };
    if (applied.error.code === 'INVALID_PAYLOAD')
      return {
        success: false,
        errors: [{ code: 'INVALID_STRUCTURE', patchIndex: -1, path: '', message: `the call is not JSON data: ${applied.error.message}` }],
      };
    throw applied.error;
  }

  /**
   * Applies a user's click (what a page's UI_ACTION carries): the values typed and the
   * action's handlers, checked and turned into patches on the instance as the log has it, as
   * one patch_ui_state call (the `ui:click` command). Refusals come back as `{ ok: false,
   * code, message }`: a seed code, INVALID_VALUE (a field's rule) or INVALID_MESSAGE; nothing
   * of a refused click is applied. A click that writes nothing (no values, no handler) is not logged.
   */
  async click(message: Partial<UIClick>): Promise<UIClickResponse> {
    const refused = (code: string, text: string): UIClickResponse => ({ ok: false, code, message: text });
    let payload: JsonObject;
    try {
      payload = JSON.parse(JSON.stringify(message ?? null)) as JsonObject;
    } catch (error) {
      return refused('INVALID_MESSAGE', `the click is not JSON data: ${(error as Error).message}`);
    }
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
      return refused('INVALID_MESSAGE', 'a click is { instanceId, actionId, values?, count? }');
    const current = typeof payload.instanceId === 'string' ? this.get(payload.instanceId) : undefined;
    // A password's value goes no further than this: the log, the state and the agent get what stands for it.
    const split = keepSecretsOut(current?.instance, payload, (type) => this.catalog.get(type)?.secret === true);
    if (!split.ok) return refused(split.code, split.message);
    payload = split.payload;
    const answered = await this.#checked(payload, current);
    if (answered.ok && current !== undefined) this.#secrets.keep(current, split.secrets);
    return answered;
  }

  /**
   * A password (a `secret` field's value) the user gave in the last accepted click on the
   * instance, for code of your own (an action that signs in with it); undefined when none.
   * Held in this process's memory only: never logged, stored, shown to the model or kept
   * across a restart, and let go when the instance is deleted (here or by another process).
   */
  secret(instanceId: string, key: string): string | undefined {
    return this.#secrets.get(instanceId, key);
  }

  async #checked(payload: JsonObject, current: UIInstanceRecord | undefined): Promise<UIClickResponse> {
    const plan = clickPatches(current?.instance, payload as Partial<UIClick>, this.catalog, (sha256) => this.#manager.workspace().blobs.get(sha256));
    if (!plan.ok) return this.#clicked(payload);
    const done = (version: number): UIClickResponse => ({
      ok: true,
      action: { id: plan.action.id, label: plan.action.label, handled: plan.action.handler !== undefined },
      values: plan.values,
      ...(plan.count !== undefined && { count: plan.count }),
      version,
    });
    // A click that writes nothing (no values, no count, no handler) is answered here; any other is decided in the command.
    return plan.patches.length === 0 ? done(current?.version ?? 0) : this.#clicked(payload);
  }

  /** A click decided in the `ui:click` command, on the instance as the log has it (a click just before this one included). */
  async #clicked(payload: JsonObject): Promise<UIClickResponse> {
    const refused = (code: string, text: string): UIClickResponse => ({ ok: false, code, message: text });
    const applied = await this.#manager.dispatch({ type: 'ui:click', payload });
    if (applied.ok) {
      const { action, values, count, patch } = applied.value;
      return { ok: true, action, values, ...(count !== undefined && { count }), version: patch.version };
    }
    const details = applied.error.details as { code?: string; errors?: UIPatchError[] } | undefined;
    if (applied.error.code === 'UI_ACTION_REFUSED') return refused(details?.code ?? 'INVALID_VALUE', applied.error.message);
    if (applied.error.code === 'UI_PATCH_REJECTED')
      return refused(details?.errors?.[0]?.code ?? 'INVALID_STRUCTURE', details?.errors?.[0]?.message ?? applied.error.message);
    if (applied.error.code === 'INVALID_PAYLOAD') return refused('INVALID_MESSAGE', applied.error.message);
    throw applied.error;
  }

  /** An instance with its version, or undefined. */
  get(instanceId: string): UIInstanceRecord | undefined {
    return uiInstance(this.#manager.workspace(), instanceId);
  }

  list(): UIInstanceRecord[] {
    return uiInstances(this.#manager.workspace());
  }

  /**
   * The model's UI tools: `patch_ui_state` (autonomous unless `trust` says otherwise), and
   * `get_ui_state` and `list_ui_instances` (autonomous, repeatable), which read the instances
   * of the calling session's conversation (its worker tree's root session) and those no agent
   * built; `sees` narrows what a session's agent reads further (golem serve: its user's own), and
   * `scope` keeps each user's ids apart (`createGolemHandler` with users: ui-scope.ts).
   * @example ws.worker({ session, model, actions: [...ws.ui.actions(), ...projectActions()] });
   */
  actions(options: { trust?: Action['trust'] } & UIReadOptions = {}): Action[] {
    const { trust: _trust, ...read } = options;
    return [this.action(options), ...uiReadActions(() => this.#manager.workspace(), read)];
  }

  /**
   * `patch_ui_state` alone as an action (autonomous by default); `actions()` adds the tools that
   * read. With `sees`, an instance another agent built that `sees` says no to is, to this one,
   * not there; with `scope`, the ids are the caller's user's (ui-scope.ts).
   */
  action(options: { trust?: Action['trust'] } & UIReadOptions = {}): Action {
    const catalog = this.catalog;
    const { sees, scope } = options;
    const action = defineAction({
      name: 'patch_ui_state',
      description: '',
      input: PatchUiStateInput,
      trust: options.trust ?? 'autonomous',
      run: async (input, ctx) => {
        const { sessionId } = ctx;
        const view = this.#manager.workspace();
        // Without `sees`, any instance (one no agent built too); with it, only those it lets through (with users: the user's own).
        const mine = (record: UIInstanceRecord) => sessionId === undefined || (sees?.(record, sessionId) ?? true);
        const prefix = sessionId === undefined ? undefined : scope?.(sessionId);
        const { input: call, shown } = storedPatchInput(input as PatchInput, (id) => storedInstanceId(view, prefix, id, mine), prefix);
        const refused = notMine(call, (id) => uiInstance(view, id), mine, shown);
        if (refused !== undefined) return refused;
        // The instance remembers whose agent built it: a click on it goes to that session.
        const response = await this.patch(call, sessionId === undefined ? {} : { builtBy: sessionId });
        if (!response.success) return { success: false, errors: shownErrors(response.errors, shown) };
        return { success: true, kind: response.kind, instanceId: shown.get(response.instanceId) ?? response.instanceId, version: response.version };
      },
    }) as Action;
    // The description and schema the model reads come from the catalog as it is when they are read (a component registered later is in them).
    const base = action.jsonSchema;
    return Object.defineProperties(action, {
      description: { get: () => patchUiStateDescription(catalog), enumerable: true },
      jsonSchema: { get: () => ({ ...base, $defs: catalog.defs() }), enumerable: true },
      toTool: { value: () => ({ name: action.name, description: patchUiStateDescription(catalog), inputSchema: { ...base, $defs: catalog.defs() } }) },
    });
  }
}

/**
 * The refusal for a call naming an instance `mine` says no to (another user's): worded as the
 * engine words an id no instance has, so it tells nothing of whose it is.
 */
function notMine(
  call: PatchInput,
  instance: (id: string) => UIInstanceRecord | undefined,
  mine: (record: UIInstanceRecord) => boolean,
  shown: ReadonlyMap<string, string>,
): { success: false; errors: UIPatchError[] } | undefined {
  const { instanceId, targetInstanceId } = call as PatchInput & { targetInstanceId?: string };
  for (const [id, deleting] of [
    [instanceId, false],
    [targetInstanceId, true],
  ] as const) {
    const record = typeof id === 'string' ? instance(id) : undefined;
    if (id === undefined || record === undefined || mine(record)) continue;
    const named = shown.get(id) ?? id;
    const message = deleting
      ? `there is no instance "${named}" to delete`
      : `there is no instance "${named}"; create it with instanceId "__CREATE__" and newInstanceId "${named}"`;
    return { success: false, errors: [{ code: 'INVALID_INSTANCE', patchIndex: -1, path: '', message }] };
  }
  return undefined;
}

const PatchOperationInput = z.strictObject({
  op: z.enum(PATCH_OPS).describe('set | add | remove | clear | replace'),
  path: z
    .string()
    .describe(
      'state.params.{key}, state.runtime.{key}, blocks, blocks+, blocks-{index}, blocks["id"], blocks-"id" (the same for actions), layout, meta.status, meta.step',
    ),
  value: z.unknown().optional(),
  items: z.array(z.unknown()).optional(),
});

export const PatchUiStateInput = z.strictObject({
  instanceId: z
    .string()
    .min(1)
    .describe('The instance to patch; "__CREATE__" to create one (with newInstanceId), "__DELETE__" to delete one (with targetInstanceId)'),
  newInstanceId: z.string().optional(),
  targetInstanceId: z.string().optional(),
  schemaVersion: z.string().optional().describe('With "__CREATE__" only: the version of your schema, kept with the instance; it cannot change after'),
  patches: z.array(PatchOperationInput),
});

/** What the model reads of patch_ui_state: the grammar, then every component of the catalog. */
function patchUiStateDescription(catalog: UICatalog): string {
  return [
    'Apply structured patches to a UI instance: the only way to build or change the user interface.',
    'Patches apply in order and a call is all or nothing.',
    'Ops: set (the value at its path), replace (as set, but not on one state key), add (to blocks+ or actions+: value, one item or a list, or items), remove (blocks-"id", actions-"id", or one state key), clear (state.params or state.runtime). While an instance is created, set and add first make the meta, state or list they write into when no patch before them did.',
    'Create an instance with instanceId "__CREATE__" and newInstanceId (meta, state, blocks and actions start empty unless your patches set them; schemaVersion may be given then, and only then); delete one with instanceId "__DELETE__", targetInstanceId and no patches.',
    'Blocks: { id, type: "form", bind?: "state.params" (the default) | "state.runtime", props: { fields: [field...], title?, description?, actions?: [action...] (buttons inside the block), visible?, modal? (a dialog while visible), span? (grid columns, 1-4), showProgress?, showStatus?, showImages?, showTable?, showCountInput?, showTaskId? } }.',
    catalog.describe(),
    'Templates: ${state.params.x} or ${state.runtime.x} in labels, descriptions, placeholders, titles, action labels and the value text of markdown, badge and code fields.',
    'visible (on a field, a block\'s props, an action): { path: "state.params.x", equals? | notEquals? | in? | truthy? }, or a list that must all hold.',
    'Input fields take required (a checkbox or switch: it must be on), min/max and pattern (RE2 syntax, the whole value must match) where their type has them. A click on any action sends the values of every input field shown and checks their rules first, in the page and on the server: give a Cancel, or a button that only runs a handler, validate: false.',
    "Fields of one key share one state value (state.params.{key} or state.runtime.{key}, as their block binds). Display fields of a block may share a key (a table and a chart of the same rows); an input field's key is its alone in its block.",
    'Actions are buttons: { id, label, style: primary|secondary|danger, handler?, validate?, visible? }. An action with a handler ({ type: set, path, value } | { type: increment|decrement, path, by? } | { type: toggle, path } | { type: template, path, template }, or a list; path state.params.{key} or state.runtime.{key}) changes the state when clicked, without you; an action without one sends you the click and the form values.',
    'Layout: { type: single|column|row|grid|tabs, columns? (grid, 1-4) }; tabs show one block at a time, named by its title.',
    BLOCK_DATA_DESCRIPTION,
    'Ids are unique (action ids across the instance and its blocks); meta.pageKey never changes; patches carry no version.',
    "This tool's input schema gives every shape under $defs: field (one branch per type, with fieldBase), block, action, layout, visible.",
    'Returns { success: true, kind, instanceId, version }, or { success: false, errors: [{ code, patchIndex, path, message }] } with nothing applied.',
    `get_ui_state reads an instance back: ${SUBMITTED_VALUES}`,
  ].join(' ');
}
