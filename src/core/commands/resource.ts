/** Preference and context commands (seed 001 section 8.6): the memory layer. */
import { z } from 'zod';
import { fail } from '../errors.js';
import { defineCommand } from '../plugin.js';
import { Id, Topic, type ContextEntry, type Preference } from '../records.js';
import { stored, unique } from './kit.js';

const ResourceUpdates = { content: z.string().optional(), topics: z.array(Topic).optional() };
const atLeastOne = (u: object) => Object.keys(u).length > 0;

function requirePreference(preferences: ReadonlyMap<string, Preference>, id: string): Preference {
  const preference = preferences.get(id);
  if (preference === undefined) throw fail('PREFERENCE_NOT_FOUND', `no preference with id "${id}"`, { preferenceId: id });
  return preference;
}

function requireContext(context: ReadonlyMap<string, ContextEntry>, key: string): ContextEntry {
  const entry = context.get(key);
  if (entry === undefined) throw fail('CONTEXT_NOT_FOUND', `no context entry with key "${key}"`, { key });
  return entry;
}

export const preferenceAdd = defineCommand({
  type: 'preference:add',
  description: 'Adds a standing user instruction, scoped by topics.',
  payload: z.strictObject({
    id: Id.optional(),
    content: z.string(),
    topics: z.array(Topic).optional(),
    /**
     * When the preference was stated (seed 001 5.0.0's preferences carry one): it becomes the
     * record's createdAt and updatedAt, in UTC, so the conflict rule ranks it by that age.
     * No later than the command itself.
     */
    timestamp: z.iso.datetime({ offset: true }).optional(),
  }),
  reduce(payload, ctx) {
    const id = payload.id ?? ctx.newId();
    if (ctx.index.preferences.has(id)) throw fail('DUPLICATE_ID', `a preference with id "${id}" already exists`, { preferenceId: id });
    const stated = payload.timestamp === undefined ? ctx.now : new Date(payload.timestamp).toISOString();
    if (Date.parse(stated) > Date.parse(ctx.now)) {
      throw fail('INVALID_ARGUMENT', `the preference's timestamp ${payload.timestamp ?? ''} is later than the command's (${ctx.now})`, {
        preferenceId: id,
        timestamp: payload.timestamp,
      });
    }
    const preference: Preference = { id, content: payload.content, topics: unique(payload.topics ?? []), createdAt: stated, updatedAt: stated };
    return stored('preference', id, preference);
  },
});

export const preferenceUpdate = defineCommand({
  type: 'preference:update',
  description: "Changes a preference's content or topics.",
  payload: z.strictObject({ id: Id, updates: z.strictObject(ResourceUpdates).refine(atLeastOne, 'give at least one field to update') }),
  reduce(payload, ctx) {
    const preference = requirePreference(ctx.index.preferences, payload.id);
    const { content, topics } = payload.updates;
    const next: Preference = {
      ...preference,
      ...(content !== undefined && { content }),
      ...(topics !== undefined && { topics: unique(topics) }),
      updatedAt: ctx.now,
    };
    return stored('preference', next.id, next);
  },
});

export const preferenceDelete = defineCommand({
  type: 'preference:delete',
  description: 'Removes a preference; refused while a role or session uses it.',
  readsEverySession: true,
  payload: z.strictObject({ id: Id }),
  reduce(payload, ctx) {
    const preference = requirePreference(ctx.index.preferences, payload.id);
    const roles = [...ctx.index.roles.values()].filter((r) => r.preferences.includes(preference.id)).map((r) => r.name);
    const sessions = [...ctx.index.sessions.values()].filter((s) => s.preferences.includes(preference.id)).map((s) => s.id);
    if (roles.length + sessions.length > 0) {
      throw fail('PREFERENCE_IN_USE', `Cannot delete preference – still referenced by ${roles.length} role(s) and ${sessions.length} session(s)`, {
        preferenceId: preference.id,
        roles,
        sessions,
      });
    }
    return { writes: [{ op: 'delete', collection: 'preference', key: preference.id }], result: preference };
  },
});

export const contextAdd = defineCommand({
  type: 'context:add',
  description: 'Adds a snippet of knowledge for retrieval.',
  payload: z.strictObject({ key: Id, content: z.string(), topics: z.array(Topic).optional(), source: z.string().nullable().optional() }),
  reduce(payload, ctx) {
    if (ctx.index.context.has(payload.key)) throw fail('DUPLICATE_ID', `a context entry with key "${payload.key}" already exists`, { key: payload.key });
    const entry: ContextEntry = {
      key: payload.key,
      content: payload.content,
      topics: unique(payload.topics ?? []),
      source: payload.source ?? null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    return stored('context', entry.key, entry);
  },
});

export const contextUpdate = defineCommand({
  type: 'context:update',
  description: "Changes a context entry's content, topics or source.",
  payload: z.strictObject({
    key: Id,
    updates: z.strictObject({ ...ResourceUpdates, source: z.string().nullable().optional() }).refine(atLeastOne, 'give at least one field to update'),
  }),
  reduce(payload, ctx) {
    const entry = requireContext(ctx.index.context, payload.key);
    const { content, topics, source } = payload.updates;
    const next: ContextEntry = {
      ...entry,
      ...(content !== undefined && { content }),
      ...(topics !== undefined && { topics: unique(topics) }),
      ...(source !== undefined && { source }),
      updatedAt: ctx.now,
    };
    return stored('context', next.key, next);
  },
});

export const contextDelete = defineCommand({
  type: 'context:delete',
  description: 'Removes a context entry.',
  payload: z.strictObject({ key: Id }),
  reduce(payload, ctx) {
    const entry = requireContext(ctx.index.context, payload.key);
    return { writes: [{ op: 'delete', collection: 'context', key: entry.key }], result: entry };
  },
});
