/** Workspace commands (seed 001 section 8.1). */
import { z } from 'zod';
import { JsonObject } from '../blocks.js';
import { fail } from '../errors.js';
import { stored } from './kit.js';
import { defineCommand } from '../plugin.js';
import { Id, WORKSPACE_KEY, type WorkspaceMeta } from '../records.js';

export const workspaceCreate = defineCommand({
  type: 'workspace:create',
  description: "Initialises the workspace's metadata (done once, when a workspace is first opened).",
  payload: z.strictObject({ id: Id.optional(), name: z.string().optional(), settings: JsonObject.optional() }),
  reduce(payload, ctx) {
    if (ctx.index.meta !== undefined) throw fail('WORKSPACE_EXISTS', `the workspace "${ctx.index.meta.id}" is already created`);
    const meta: WorkspaceMeta = {
      id: payload.id ?? ctx.newId(),
      name: payload.name ?? 'workspace',
      settings: payload.settings ?? {},
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    return stored('workspace', WORKSPACE_KEY, meta);
  },
});

export const workspaceUpdate = defineCommand({
  type: 'workspace:update',
  description: 'Renames the workspace or replaces settings keys (a null value removes the key).',
  payload: z.strictObject({ name: z.string().optional(), settings: JsonObject.optional() }),
  reduce(payload, ctx) {
    const meta = ctx.index.meta;
    if (meta === undefined) throw fail('INTERNAL', 'the workspace has no metadata');
    const settings = { ...meta.settings };
    for (const [key, value] of Object.entries(payload.settings ?? {})) {
      if (value === null) delete settings[key];
      else settings[key] = value;
    }
    const next: WorkspaceMeta = { ...meta, ...(payload.name !== undefined && { name: payload.name }), settings, updatedAt: ctx.now };
    return stored('workspace', WORKSPACE_KEY, next);
  },
});

/** The name of the command that rebuilds the index; the manager runs the rebuild after it commits. */
export const WORKSPACE_SYNC = 'workspace:sync';

export const workspaceSync = defineCommand({
  type: WORKSPACE_SYNC,
  description: 'Rebuilds the index from the store (after it was changed behind the workspace, or to verify it).',
  payload: z.strictObject({}),
  reduce() {
    return { writes: [], result: { rebuilt: true as const } };
  },
});
