/**
 * The model reads what it built (issue 23): `get_ui_state` (one instance as stored, its state
 * with what the user sent by clicking an action) and `list_ui_instances` (the instances of its conversation),
 * beside `patch_ui_state`. A session's agent reads the instances of its own conversation (its
 * worker tree's root session) and those no agent built; another conversation's instance is,
 * to it, not there. Results are sized for a model: a large instance is cut, and says what was cut.
 */
import { z } from 'zod';
import { defineAction, type Action } from '../action/action.js';
import type { JsonObject } from '../core/blocks.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { fitJson } from './fit-json.js';
import type { UIPatchError } from './patch-engine.js';
import { uiInstance, uiInstances, type UIInstanceRecord } from './ui-plugin.js';
import { shownErrors, shownInstanceId, storedInstanceId } from './ui-scope.js';
import { inConversation, rootOf } from './ui-visibility.js';

/** How long an instance's JSON may be in get_ui_state's answer before it is cut (characters). */
export const UI_READ_MAX_CHARS = 20_000;
/** How many instances list_ui_instances names at most. */
export const UI_LIST_MAX = 50;
/** How many cuts get_ui_state names at most (it says how many more there were). */
const CUTS_SHOWN = 20;

export interface UIReadOptions {
  /**
   * A further rule for a session's agent (golem serve's: only its own user's instances): an
   * instance its conversation may read is read only when this says yes too.
   */
  sees?: (instance: UIInstanceRecord, sessionId: string) => boolean;
  /**
   * The prefix a session's agent's instance ids are kept under (`createGolemHandler` with users:
   * its user's, ui-scope.ts), or undefined for none: the agent knows them by the ids it gave.
   */
  scope?: (sessionId: string) => string | undefined;
}

/** What get_ui_state answers: the instance as the page has it, or the refusal patch_ui_state would give for an unknown id. */
export type UIStateRead =
  | {
      success: true;
      instanceId: string;
      version: number;
      updatedAt: string;
      /** meta, state (params, runtime), blocks, actions, layout: cut when `cut` is there. */
      instance: JsonObject;
      /** Present when the instance was too large to show whole. */
      cut?: { note: string; paths: string[] };
    }
  | { success: false; errors: UIPatchError[] };

/** One instance as list_ui_instances names it. */
export interface UIInstanceSummary {
  instanceId: string;
  pageKey: string;
  status: string;
  step: { current: number; total: number };
  version: number;
  /** How many blocks, fields (of all blocks) and actions it has. */
  blocks: number;
  fields: number;
  actions: number;
  updatedAt: string;
  /** True when get_ui_state shortens it (over UI_READ_MAX_CHARS as JSON). */
  large?: true;
}

export interface UIInstanceList {
  instances: UIInstanceSummary[];
  /** How many there are, listed or not. */
  total: number;
  /** Present when not all are listed. */
  note?: string;
}

/**
 * Whether the agent of session `sessionId` may read an instance: one its conversation (the root
 * session of its worker tree) built, or one no agent built; every instance to a caller outside a
 * session (undefined). `sees` narrows it further.
 */
export function readableBy(view: WorkspaceView, record: UIInstanceRecord, sessionId: string | undefined, options: UIReadOptions = {}): boolean {
  if (sessionId === undefined) return true;
  return inConversation(view, record, rootOf(view, sessionId)) && (options.sees?.(record, sessionId) ?? true);
}

/** One instance as `sessionId`'s agent may read it (see `readableBy`), cut to size. */
export function readUiState(view: WorkspaceView, instanceId: string, sessionId: string | undefined, options: UIReadOptions = {}): UIStateRead {
  const record = uiInstance(view, instanceId);
  if (record === undefined || !readableBy(view, record, sessionId, options)) {
    return {
      success: false,
      errors: [{ code: 'INVALID_INSTANCE', patchIndex: -1, path: 'instanceId', message: `no UI instance "${instanceId}"; list_ui_instances names them` }],
    };
  }
  const read = { success: true as const, instanceId: record.id, version: record.version, updatedAt: record.updatedAt };
  const instance = record.instance as JsonObject;
  const fitted = fitJson(instance, UI_READ_MAX_CHARS);
  if (fitted.fits && fitted.cuts.length === 0) return { ...read, instance };
  const chars = JSON.stringify(instance).length.toLocaleString('en-US');
  if (!fitted.fits) {
    const { meta, state, blocks, actions } = record.instance;
    const counts = `${many(blocks.length, 'block')}, ${many(fieldCount(record), 'field')}, ${many(actions.length, 'action')}, ${many(Object.keys(state.params).length, 'key')} in state.params and ${Object.keys(state.runtime).length} in state.runtime`;
    return {
      ...read,
      instance: { meta },
      cut: { note: `The instance is ${chars} characters as JSON, too large to show even shortened: only its meta is shown. It has ${counts}.`, paths: [] },
    };
  }
  const more = fitted.cuts.length - CUTS_SHOWN;
  return {
    ...read,
    instance: fitted.value as JsonObject,
    cut: {
      note: `The instance is ${chars} characters as JSON, more than the ${UI_READ_MAX_CHARS.toLocaleString('en-US')} shown here: the values at these paths are shortened, so they are not the whole values (do not write them back as they are).`,
      paths: [...fitted.cuts.slice(0, CUTS_SHOWN).map((c) => `${c.path}: ${c.what}`), ...(more > 0 ? [`and ${more} more cuts`] : [])],
    },
  };
}

/** The instances `sessionId`'s agent may read (see `readableBy`), most recently changed first, at most UI_LIST_MAX. */
export function listUiInstances(view: WorkspaceView, sessionId: string | undefined, options: UIReadOptions = {}): UIInstanceList {
  const readable = uiInstances(view)
    .filter((record) => readableBy(view, record, sessionId, options))
    .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.id.localeCompare(b.id));
  const instances = readable.slice(0, UI_LIST_MAX).map((record): UIInstanceSummary => {
    const { meta, blocks, actions } = record.instance;
    return {
      instanceId: record.id,
      pageKey: meta.pageKey,
      status: meta.status,
      step: meta.step,
      version: record.version,
      blocks: blocks.length,
      fields: fieldCount(record),
      actions: actions.length,
      updatedAt: record.updatedAt,
      ...(JSON.stringify(record.instance).length > UI_READ_MAX_CHARS && { large: true as const }),
    };
  });
  const left = readable.length - instances.length;
  return { instances, total: readable.length, ...(left > 0 && { note: `${left} more, changed longer ago, are not listed` }) };
}

/** `get_ui_state` and `list_ui_instances` as actions (autonomous, repeatable: they only read). */
export function uiReadActions(view: () => WorkspaceView, options: UIReadOptions = {}): Action[] {
  return [
    defineAction({
      name: 'get_ui_state',
      description: GET_UI_STATE_DESCRIPTION,
      input: z.strictObject({ instanceId: z.string().min(1).max(200).describe('The instance to read (list_ui_instances names them)') }),
      repeatable: true,
      run: ({ instanceId }, ctx) => {
        const [at, prefix] = [view(), scopeOf(ctx.sessionId, options)];
        const stored = storedInstanceId(at, prefix, instanceId, (record) => readableBy(at, record, ctx.sessionId, options));
        const read = readUiState(at, stored, ctx.sessionId, options);
        return read.success ? { ...read, instanceId } : { ...read, errors: shownErrors(read.errors, new Map([[stored, instanceId]])) };
      },
    }) as Action,
    defineAction({
      name: 'list_ui_instances',
      description: LIST_UI_INSTANCES_DESCRIPTION,
      input: z.strictObject({}),
      repeatable: true,
      run: (_input, ctx) => {
        const list = listUiInstances(view(), ctx.sessionId, options);
        const prefix = scopeOf(ctx.sessionId, options);
        return { ...list, instances: list.instances.map((i) => ({ ...i, instanceId: shownInstanceId(prefix, i.instanceId) })) };
      },
    }) as Action,
  ];
}

function scopeOf(sessionId: string | undefined, options: UIReadOptions): string | undefined {
  return sessionId === undefined ? undefined : options.scope?.(sessionId);
}

function fieldCount(record: UIInstanceRecord): number {
  return record.instance.blocks.reduce((n, block) => n + (block.props?.fields?.length ?? 0), 0);
}

function many(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * What the state of an instance holds of the user's input, as get_ui_state's and patch_ui_state's
 * descriptions both say it: what a click sent, not what the page holds unsent.
 */
export const SUBMITTED_VALUES =
  'its state holds the values the user sent by clicking one of its actions (written into the state its blocks bind, state.params by default); what they typed without clicking is not there.';

const GET_UI_STATE_DESCRIPTION = [
  'Read one UI instance back as it is stored, with the values the user sent.',
  'Returns { success: true, instanceId, version, updatedAt, instance: { meta, state: { params, runtime }, blocks, actions, layout? } }:',
  'blocks carry their fields; state.params and state.runtime hold the values by key (the keys patch_ui_state sets with state.params.{key}).',
  `Of the user's input, ${SUBMITTED_VALUES}`,
  'Use it to see what the user sent, or the instance as it is now before you patch it.',
  'A large instance is shortened: then cut: { note, paths } says which values were cut (a cut value is not the whole value; do not write it back).',
  'An instance you cannot read (another conversation\'s) or that does not exist: { success: false, errors: [{ code: "INVALID_INSTANCE", patchIndex: -1, path: "instanceId", message }] }.',
].join(' ');

const LIST_UI_INSTANCES_DESCRIPTION = [
  "List the UI instances you can read, most recently changed first: as the agent of a conversation, the ones your conversation built with patch_ui_state and ones the application made for it; called from outside any conversation, all of the workspace's.",
  'Returns { instances: [{ instanceId, pageKey, status, step, version, blocks, fields, actions, updatedAt, large? }], total, note? }:',
  'blocks, fields and actions are counts; large: true means get_ui_state will shorten it.',
  `At most ${UI_LIST_MAX} are listed: total says how many there are, and note how many were left out. It does not show the values the user sent: get_ui_state does.`,
].join(' ');
