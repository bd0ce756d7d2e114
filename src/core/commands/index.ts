/** The core commands of seed 001, every one defined with `defineCommand`. */
import type { CommandMapOf } from '../plugin.js';
import { blobCollect, blobRecordRemoteId, blobRecount, blobRegister, blobRelease, blobRetain } from './blob.js';
import { contextAdd, contextDelete, contextUpdate, preferenceAdd, preferenceDelete, preferenceUpdate } from './resource.js';
import { roleAdd, roleDelete, roleUpdate } from './role.js';
import { sessionCreate, sessionDelete, sessionFork, sessionRoleSwitch, sessionUpdate } from './session.js';
import { turnAdd, turnBranch, turnDelete, turnEdit, turnSwitch } from './turn.js';
import { turnMerge, turnPick } from './turn-merge.js';
import { workspaceCreate, workspaceSync, workspaceUpdate } from './workspace.js';

export const CORE_COMMANDS = [
  workspaceCreate,
  workspaceUpdate,
  workspaceSync,
  sessionCreate,
  sessionFork,
  sessionUpdate,
  sessionDelete,
  sessionRoleSwitch,
  turnAdd,
  turnEdit,
  turnBranch,
  turnDelete,
  turnSwitch,
  turnMerge,
  turnPick,
  roleAdd,
  roleUpdate,
  roleDelete,
  preferenceAdd,
  preferenceUpdate,
  preferenceDelete,
  contextAdd,
  contextUpdate,
  contextDelete,
  blobRegister,
  blobRetain,
  blobRelease,
  blobRecordRemoteId,
  blobCollect,
  blobRecount,
] as const;

/** Each core command's payload (as callers write it) and result. */
export type CoreCommandMap = CommandMapOf<(typeof CORE_COMMANDS)[number]>;

export { WORKSPACE_SYNC } from './workspace.js';
export type { RemovalResult, TurnDeleteResult } from './turn.js';
export { TurnInput } from './kit.js';
export { branchName, mergedSection, type MergedBranch } from './turn-merge.js';
