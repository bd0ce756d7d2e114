/**
 * The browser domain (`browser:*`), added to every workspace through the extension
 * mechanism: executor sessions (opened and closed outside the model) and the variables
 * SAVE_VARIABLE saves. Secrets are never here: they live in the process that was given
 * them and are filled in at the executor.
 */
import { z } from 'zod';
import { fail } from '../core/errors.js';
import { defineCommand, requireSession, stored, type CommandMapOf, type WorkspaceExtension } from '../core/index.js';
import { Id, Timestamp } from '../core/records.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import { VARIABLE_NAME } from '../protocol/browser-commands.js';

/** A browser session: one tab in its own context, used by one Golem session. */
export const BrowserSessionRecord = z.strictObject({
  id: Id,
  /** The Golem session whose task drives it. */
  sessionId: Id,
  status: z.enum(['open', 'closed']),
  openedAt: Timestamp,
  closedAt: Timestamp.nullable(),
});
export type BrowserSessionRecord = z.infer<typeof BrowserSessionRecord>;

/** A saved variable: the value of `${name}` in the Golem session's later commands. */
export const BrowserVariable = z.strictObject({
  sessionId: Id,
  name: z.string().regex(VARIABLE_NAME),
  value: z.string(),
  /** The browser session that saved it. */
  browserSessionId: Id,
  updatedAt: Timestamp,
});
export type BrowserVariable = z.infer<typeof BrowserVariable>;

/** The longest value a variable keeps (a page's whole text is no variable). */
export const MAX_VARIABLE_LENGTH = 10_000;

const variableKey = (sessionId: string, name: string) => `${sessionId}/${name}`;

export const browserSessionOpen = defineCommand({
  type: 'browser:session_open',
  description: 'Records a browser session opened for a Golem session.',
  payload: z.strictObject({ id: Id.optional(), sessionId: Id }),
  reduce(payload, ctx) {
    requireSession(ctx.index, payload.sessionId);
    const id = payload.id ?? ctx.newId();
    if (ctx.index.collection('browser_session').has(id)) throw fail('DUPLICATE_ID', `a browser session "${id}" already exists`, { id });
    return stored('browser_session', id, { id, sessionId: payload.sessionId, status: 'open' as const, openedAt: ctx.now, closedAt: null });
  },
});

export const browserSessionClose = defineCommand({
  type: 'browser:session_close',
  description: 'Records that a browser session was closed.',
  payload: z.strictObject({ id: Id }),
  reduce(payload, ctx) {
    const record = ctx.index.collection('browser_session').get(payload.id);
    if (record === undefined) throw fail('BROWSER_SESSION_NOT_FOUND', `no browser session "${payload.id}"`, { id: payload.id });
    if (record.status === 'closed') return stored('browser_session', record.id, record);
    return stored('browser_session', record.id, { ...record, status: 'closed' as const, closedAt: ctx.now });
  },
});

export const browserVariableSet = defineCommand({
  type: 'browser:variable_set',
  description: 'Saves a variable (SAVE_VARIABLE) for the Golem session of a browser session.',
  payload: z.strictObject({
    browserSessionId: Id,
    name: z.string().regex(VARIABLE_NAME, 'a variable name is letters, digits and _, not starting with a digit'),
    value: z.string().max(MAX_VARIABLE_LENGTH),
  }),
  reduce(payload, ctx) {
    const browser = ctx.index.collection('browser_session').get(payload.browserSessionId);
    if (browser === undefined) throw fail('BROWSER_SESSION_NOT_FOUND', `no browser session "${payload.browserSessionId}"`, { id: payload.browserSessionId });
    const variable: BrowserVariable = {
      sessionId: browser.sessionId,
      name: payload.name,
      value: payload.value,
      browserSessionId: browser.id,
      updatedAt: ctx.now,
    };
    return stored('browser_variable', variableKey(browser.sessionId, payload.name), variable);
  },
});

/** The variables saved for a Golem session, by name. */
export function browserVariables(view: WorkspaceView, sessionId: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of view.collection('browser_variable').values()) {
    if (v.sessionId === sessionId) out[v.name] = v.value;
  }
  return out;
}

/** The browser sessions recorded for a Golem session (every one, when no id is given). */
export function browserSessions(view: WorkspaceView, sessionId?: string): BrowserSessionRecord[] {
  const all = [...view.collection('browser_session').values()];
  return sessionId === undefined ? all : all.filter((s) => s.sessionId === sessionId);
}

export const browserExtension: WorkspaceExtension = {
  name: 'browser',
  collections: { browser_session: BrowserSessionRecord, browser_variable: BrowserVariable },
  commands: [browserSessionOpen, browserSessionClose, browserVariableSet],
};

declare module '../core/manager.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface CommandMap extends CommandMapOf<typeof browserSessionOpen | typeof browserSessionClose | typeof browserVariableSet> {}
}

declare module '../core/workspace-index.js' {
  interface CollectionMap {
    browser_session: BrowserSessionRecord;
    browser_variable: BrowserVariable;
  }
}
