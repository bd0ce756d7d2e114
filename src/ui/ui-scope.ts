/**
 * UI instance ids per user (issue 35, finding 11). The ids are the model's ("signup"), easy to
 * guess and to reuse: with users, one namespace for all would let the first user to take an id
 * keep it from everyone, and "an instance exists already" would tell another user's agent that
 * someone holds it. So with users an agent's instances are kept under its user's prefix
 * (`u<16 hex digits of the user's SHA-256>:signup`), and the model, and its user's app over
 * AG-UI and the AI SDK stream, know them by the id the model gave. Instances kept under a bare
 * id (made before ids were scoped, or by the app with `ws.ui.patch`) are still found by it when
 * they are the caller's. Without users nothing changes: the prefix is none.
 */
import { createHash } from 'node:crypto';
import type { WorkspaceView } from '../core/workspace-index.js';
import { CREATE_INSTANCE, DELETE_INSTANCE, type PatchInput, type UIPatchError } from './patch-engine.js';
import { uiInstance, type UIInstanceRecord } from './ui-plugin.js';

/** The prefix `user`'s instance ids are kept under. */
export function userScope(user: string): string {
  return `u${createHash('sha256').update(user).digest('hex').slice(0, 16)}:`;
}

/**
 * The id under which the agents of `user` keep the instance they call `id` (null: no users,
 * the id itself), for an app that reads it with `ws.ui.get`.
 * @example ws.ui.get(userInstanceId('ann', 'signup'))
 */
export function userInstanceId(user: string | null, id: string): string {
  return user === null ? id : userScope(user) + id;
}

/** The id a stored instance is known by under `prefix` (undefined: no users): without the prefix, when it has it. */
export function shownInstanceId(prefix: string | undefined, id: string): string {
  return prefix !== undefined && id.startsWith(prefix) ? id.slice(prefix.length) : id;
}

/**
 * The stored instance a caller under `prefix` means by `id`: its own under the prefix when there
 * is one; else one kept under the bare id that `mine` accepts; else the id under the prefix
 * (none yet: a create makes it there).
 */
export function storedInstanceId(view: WorkspaceView, prefix: string | undefined, id: string, mine: (record: UIInstanceRecord) => boolean): string {
  if (prefix === undefined) return id;
  const scoped = prefix + id;
  if (uiInstance(view, scoped) !== undefined) return scoped;
  const bare = uiInstance(view, id);
  return bare !== undefined && mine(bare) ? id : scoped;
}

/** A model's `patch_ui_state` call with its ids as stored, and the map back to the ids it gave. */
export function storedPatchInput(
  input: PatchInput,
  stored: (id: string) => string,
  prefix: string | undefined,
): { input: PatchInput; shown: Map<string, string> } {
  const shown = new Map<string, string>();
  if (prefix === undefined) return { input, shown };
  const map = (id: string, create = false): string => {
    if (typeof id !== 'string' || id === '' || id === CREATE_INSTANCE || id === DELETE_INSTANCE) return id;
    const to = create ? prefix + id : stored(id);
    shown.set(to, id);
    return to;
  };
  const { newInstanceId, targetInstanceId } = input;
  // A new id takes the prefix, whatever is kept under the bare one (unless that is the caller's: it exists).
  const created = newInstanceId === undefined ? undefined : stored(newInstanceId) === newInstanceId ? newInstanceId : map(newInstanceId, true);
  return {
    input: {
      ...input,
      instanceId: map(input.instanceId),
      ...(created !== undefined && { newInstanceId: created }),
      ...(targetInstanceId !== undefined && { targetInstanceId: map(targetInstanceId) }),
    },
    shown,
  };
}

/** Errors with each stored id in their messages written as the caller knows it. */
export function shownErrors(errors: UIPatchError[], shown: ReadonlyMap<string, string>): UIPatchError[] {
  if (shown.size === 0) return errors;
  return errors.map((error) => ({ ...error, message: [...shown].reduce((text, [from, to]) => text.replaceAll(`"${from}"`, `"${to}"`), error.message) }));
}
