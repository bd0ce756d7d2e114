/** Role and persona commands (seed 001 section 8.4). */
import { z } from 'zod';
import { fail } from '../errors.js';
import { defineCommand, type ReducerContext } from '../plugin.js';
import { Id, RoleConstraints, Topic, type Role } from '../records.js';
import { requirePreferences, stored, unique } from './kit.js';

const RoleFields = {
  label: z.string().nullable().optional(),
  /** The system prompt of the role. */
  persona: z.string(),
  /** Model constraints: temperature, maxTokens and contextWindow are applied to every prompt; model names the one meant. */
  constraints: RoleConstraints.optional(),
  topics: z.array(Topic).optional(),
  /** Ids of the preferences this role applies by default. */
  preferences: z.array(Id).optional(),
};

function requireRoleExists(ctx: ReducerContext, name: string): Role {
  const role = ctx.index.roles.get(name);
  if (role === undefined) throw fail('ROLE_NOT_FOUND', `no role named "${name}"`, { role: name });
  return role;
}

export const roleAdd = defineCommand({
  type: 'role:add',
  description: 'Registers a persona.',
  payload: z.strictObject({ name: Id, ...RoleFields }),
  reduce(payload, ctx) {
    if (ctx.index.roles.has(payload.name)) throw fail('DUPLICATE_ID', `a role named "${payload.name}" already exists`, { role: payload.name });
    requirePreferences(ctx.index, payload.preferences);
    const role: Role = {
      name: payload.name,
      label: payload.label ?? null,
      persona: payload.persona,
      constraints: payload.constraints ?? {},
      topics: unique(payload.topics ?? []),
      preferences: unique(payload.preferences ?? []),
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    return stored('role', role.name, role);
  },
});

export const roleUpdate = defineCommand({
  type: 'role:update',
  description: "Changes a role's persona, constraints, topics or default preferences.",
  payload: z.strictObject({
    name: Id,
    updates: z
      .strictObject({ ...RoleFields, persona: RoleFields.persona.optional() })
      .refine((u) => Object.keys(u).length > 0, 'give at least one field to update'),
  }),
  reduce(payload, ctx) {
    const role = requireRoleExists(ctx, payload.name);
    const u = payload.updates;
    requirePreferences(ctx.index, u.preferences);
    const next: Role = {
      ...role,
      ...(u.label !== undefined && { label: u.label }),
      ...(u.persona !== undefined && { persona: u.persona }),
      ...(u.constraints !== undefined && { constraints: u.constraints }),
      ...(u.topics !== undefined && { topics: unique(u.topics) }),
      ...(u.preferences !== undefined && { preferences: unique(u.preferences) }),
      updatedAt: ctx.now,
    };
    return stored('role', role.name, next);
  },
});

export const roleDelete = defineCommand({
  type: 'role:delete',
  description: 'Removes a role; refused while a session uses it.',
  readsEverySession: true,
  payload: z.strictObject({ name: Id }),
  reduce(payload, ctx) {
    const role = requireRoleExists(ctx, payload.name);
    const users = [...ctx.index.sessionsWithRole(role.name)];
    if (users.length > 0) {
      throw fail('ROLE_IN_USE', `Cannot delete role – still referenced by sessions (${users.length}: ${users.slice(0, 5).join(', ')})`, {
        role: role.name,
        sessions: users,
      });
    }
    return { writes: [{ op: 'delete', collection: 'role', key: role.name }], result: role };
  },
});
