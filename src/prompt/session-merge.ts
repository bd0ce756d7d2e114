/**
 * `session.merge`: a merge turn through `turn:merge`, with the other branch's summary
 * written first when the merge is `as: 'summary'` (a reducer is synchronous: the model is
 * called before the command).
 */
import { fail, unwrap } from '../core/errors.js';
import { forkFamily } from '../core/commands/kit.js';
import { mergedSection } from '../core/commands/index.js';
import type { WorkspaceManager } from '../core/manager.js';
import { turnKey, type MergeMode, type Turn, type TurnRef } from '../core/records.js';
import { commonAncestor } from '../core/turn-tree.js';
import type { ModelAdapter } from '../models/model-adapter.js';
import { withRoleConstraints } from './prompt-builder.js';
import { summarizeInChunks } from './summarizer.js';

/** How `session.merge` merges. */
export interface MergeOptions {
  /** `turns`: the prompt shows the other branch's turns; `summary`: a summary of them stands in their place. */
  as: MergeMode;
  /**
   * The model that writes the summary of a merge `as: 'summary'` (as `/compact` and
   * `respond({ summarize })` take theirs); MODEL_REQUIRED without one.
   */
  model?: ModelAdapter;
  /** The token budget the summarizer works in (default: the session's role's context window, else 128,000). */
  budget?: number;
  /** A caller-chosen id for the merge turn. */
  id?: string;
  signal?: AbortSignal;
}

/** The context window a summary is written in when neither the call nor the role gives one (as a prompt's). */
const DEFAULT_BUDGET = 128_000;

/** Merges `from` (a turn, or a session id: its head) into session `sessionId`; the merge turn. */
export async function mergeInto(manager: WorkspaceManager, sessionId: string, from: TurnRef | string, options: MergeOptions): Promise<Turn> {
  const as = options?.as;
  const ref = typeof from === 'string' ? await headOf(manager, from) : from;
  const payload = { sessionId, from: ref, as, turnId: options?.id ?? manager.newId() };
  if (as !== 'summary') return unwrap(await manager.dispatch({ type: 'turn:merge', payload }));
  if (options.model === undefined) {
    throw fail('MODEL_REQUIRED', 'a merge as a summary needs a model to write the summary: pass { as: "summary", model }', { sessionId });
  }
  // The turns to summarize: this session's family (the turn merged is in it) in memory, checked as the command will.
  await manager.load([sessionId]);
  await manager.load([...forkFamily({ sessionId }, manager.workspace()), ...manager.workspace().headsAt(ref)]);
  const view = manager.workspace();
  const session = view.sessions.get(sessionId);
  if (session === undefined) throw fail('SESSION_NOT_FOUND', `no session with id "${sessionId}"`, { sessionId });
  const base = view.turn(ref) === undefined ? null : commonAncestor(view, session.head, ref);
  // Refused before the model is paid for: the command would refuse it the same way.
  if (base === null || turnKey(base) === turnKey(ref)) return unwrap(await manager.dispatch({ type: 'turn:merge', payload }));
  const role = session.role === null ? undefined : view.roles.get(session.role);
  const budget = options.budget ?? withRoleConstraints({ model: options.model }, role).tokenBudget?.total ?? DEFAULT_BUDGET;
  const summary = await summarizeInChunks(options.model, mergedSection(view, session.head, ref), {
    budget,
    ...(options.signal !== undefined && { signal: options.signal }),
  });
  return unwrap(await manager.dispatch({ type: 'turn:merge', payload: { ...payload, blocks: [{ type: 'text', text: summary }] } }));
}

/** Another session's head, to merge: SESSION_NOT_FOUND for no such session, MERGE_NOTHING when it has no turn yet. */
async function headOf(manager: WorkspaceManager, sessionId: string): Promise<TurnRef> {
  const session = manager.workspace().sessions.get(sessionId);
  if (session === undefined) throw fail('SESSION_NOT_FOUND', `no session with id "${sessionId}"`, { sessionId });
  if (session.head === null) throw fail('MERGE_NOTHING', `session "${sessionId}" has no turns yet: nothing to merge`, { sessionId });
  return session.head;
}
