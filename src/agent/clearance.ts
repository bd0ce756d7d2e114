/**
 * Clearance (seed 003 section 6): what manual actions staged, waiting for the user to
 * push, discard or defer it. A staged commit lives in git until it is pushed into the
 * files; a pending export is a call the user runs by pushing it. Every decision is
 * recorded and told to the root worker as a system message.
 */
import { fail, toGolemError, unwrap } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { WorkspaceView } from '../core/workspace-index.js';
import type { ClearanceItem } from './ui-adapter.js';
import type { Action } from '../action/action.js';
import { recordsOf, type ClearanceRecord } from './agent-records.js';
import { defaultStagingDir, GitStaging, type StageRef } from '../project/git-staging.js';
import { DiskFiles } from '../project/project-files.js';
import { workspaceFiles } from './workspace-files.js';

export interface ClearanceOptions {
  /** The actions a pending export may name (the user runs them by pushing). */
  actions?: readonly Action[];
}

/** `ws.clearance`: lists, shows and decides clearance items. */
export class ClearanceApi {
  readonly #manager: WorkspaceManager;
  readonly #options: ClearanceOptions;

  constructor(manager: WorkspaceManager, options: ClearanceOptions = {}) {
    this.#manager = manager;
    this.#options = options;
  }

  /** The items waiting for a decision (pending and deferred), or all of them; oldest first. */
  list(options: { all?: boolean; sessionId?: string } = {}): ClearanceRecord[] {
    return clearanceItems(this.#manager.workspace(), options);
  }

  /** One item, by its id or a unique prefix or suffix of it (at least 4 characters). Throws CLEARANCE_NOT_FOUND. */
  get(id: string): ClearanceRecord {
    const items = recordsOf(this.#manager.workspace(), 'clearance');
    return findById(items, id, 'CLEARANCE_NOT_FOUND', 'clearance item');
  }

  /** What the item would change: the unified diff of a staged commit, or the call a pending export would run. */
  async diff(id: string): Promise<string> {
    const item = this.get(id);
    const ref = stageRefOf(item);
    if (ref === undefined) return `${item.description}\n${JSON.stringify(item.metadata, null, 2)}\n`;
    return (await this.#staging(item)).diff(ref);
  }

  /**
   * Pushes an item: a staged commit's changes are written into the files (merged with
   * changes made since, or refused with CLEARANCE_CONFLICT and nothing written), or with
   * `target` committed on that branch instead; a pending export's call is run (with
   * `options.actions`, else the ones this API was made with).
   */
  async push(id: string, options: ClearanceOptions & { target?: string } = {}): Promise<ClearanceRecord> {
    await this.#manager.refresh(); // decided by another process meanwhile? Then nothing is written.
    const item = this.#open(id);
    const ref = stageRefOf(item);
    let outcome: string;
    if (options.target !== undefined) {
      // Committed on a branch, the files left as they are (a staged commit only: a call or an output has no branch to go to).
      if (ref === undefined)
        throw fail('INVALID_ARGUMENT', `clearance item ${item.id} is a ${item.type.replace(/_/g, ' ')}, not a staged commit: push it without a target`, {
          clearanceId: item.id,
        });
      const { commit, files } = await (await this.#staging(item)).pushTo(ref, options.target);
      outcome = `Committed to branch ${options.target} (${commit.slice(0, 12)})${files.length === 0 ? ': it already held these changes' : `: ${files.join(', ')}`}; the files on disk are as they were.`;
    } else if (ref !== undefined) {
      const { files } = await (await this.#staging(item)).push(ref);
      outcome = files.length === 0 ? 'The files already held these changes.' : `Written: ${files.join(', ')}.`;
    } else {
      outcome = await this.#runExport(item, options.actions ?? this.#options.actions ?? []);
    }
    return unwrap(await this.#manager.dispatch({ type: 'clearance:decide', payload: { id: item.id, decision: 'push', outcome } }));
  }

  /** Discards an item: the files stay as they are. */
  async discard(id: string): Promise<ClearanceRecord> {
    await this.#manager.refresh();
    const item = this.#open(id);
    const decided = unwrap(await this.#manager.dispatch({ type: 'clearance:decide', payload: { id: item.id, decision: 'discard' } }));
    const ref = stageRefOf(item);
    if (ref !== undefined) await (await this.#staging(item)).discard(ref).catch(() => undefined); // the branch is only a view; the record is the truth
    return decided;
  }

  /** Leaves an item for later (it stays staged, and later edits join it). */
  async defer(id: string): Promise<ClearanceRecord> {
    const item = this.#open(id);
    return unwrap(await this.#manager.dispatch({ type: 'clearance:decide', payload: { id: item.id, decision: 'defer' } }));
  }

  #open(id: string): ClearanceRecord {
    const item = this.get(id);
    if (item.status === 'pushed' || item.status === 'discarded') {
      throw fail('CLEARANCE_DECIDED', `clearance item ${item.id} was already ${item.status}`, { clearanceId: item.id, status: item.status });
    }
    return item;
  }

  async #staging(item: ClearanceRecord): Promise<GitStaging> {
    const root = item.metadata.root;
    if (typeof root !== 'string') throw fail('CORRUPT_RECORD', `clearance item ${item.id} does not say which project it belongs to`, { clearanceId: item.id });
    const shadowDir = typeof item.metadata.stagingDir === 'string' ? item.metadata.stagingDir : defaultStagingDir(root);
    return GitStaging.open({ root, shadowDir, hidden: workspaceFiles(this.#manager) });
  }

  async #runExport(item: ClearanceRecord, actions: readonly Action[]): Promise<string> {
    const { action: name, input, root } = item.metadata as { action?: unknown; input?: unknown; root?: unknown };
    const action = actions.find((a) => a.name === name);
    if (action === undefined)
      throw fail('INVALID_ARGUMENT', `clearance item ${item.id} runs the action "${String(name)}", which this program does not have`, { clearanceId: item.id });
    const valid = action.validate(input);
    if (!valid.ok) throw valid.error;
    try {
      const output = await action.run(valid.value, typeof root === 'string' ? { files: new DiskFiles(root, { hidden: workspaceFiles(this.#manager) }) } : {});
      return `The user ran it: ${JSON.stringify(output ?? null).slice(0, 2000)}`;
    } catch (error) {
      throw toGolemError(error);
    }
  }
}

/** The clearance items waiting for a decision (pending and deferred), or all of them, of one root session or all; oldest first. */
export function clearanceItems(view: WorkspaceView, options: { all?: boolean; sessionId?: string } = {}): ClearanceRecord[] {
  return recordsOf(view, 'clearance')
    .filter(
      (c) =>
        (options.all === true || c.status === 'pending' || c.status === 'deferred') && (options.sessionId === undefined || c.sessionId === options.sessionId),
    )
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}

/** A clearance record as a UI shows it (seed 003 `ClearanceItem`). */
export function toClearanceItem(record: ClearanceRecord): ClearanceItem {
  return {
    id: record.id,
    type: record.type,
    description: record.description,
    createdAt: Date.parse(record.createdAt),
    metadata: { ...record.metadata, status: record.status },
  };
}

/** The git staging of a staged commit (or a binary output, staged the same way), when the item is one. */
export function stageRefOf(item: ClearanceRecord): StageRef | undefined {
  const m = item.metadata as Partial<StageRef>;
  if (
    (item.type !== 'staged_commit' && item.type !== 'binary_output') ||
    typeof m.branch !== 'string' ||
    typeof m.base !== 'string' ||
    typeof m.head !== 'string' ||
    !Array.isArray(m.files)
  )
    return undefined;
  return { branch: m.branch, base: m.base, head: m.head, files: m.files };
}

/** The record whose id is `id`, or has `id` as a unique prefix or suffix (4 characters or more). */
export function findById<T extends { id: string }>(
  records: readonly T[],
  id: string,
  code: 'CLEARANCE_NOT_FOUND' | 'SESSION_NOT_FOUND' | 'APPROVAL_NOT_FOUND' | 'RUN_NOT_FOUND',
  what: string,
): T {
  const exact = records.find((r) => r.id === id);
  if (exact !== undefined) return exact;
  const matches = id.length >= 4 ? records.filter((r) => r.id.startsWith(id) || r.id.endsWith(id)) : [];
  if (matches.length === 1) return matches[0] as T;
  if (matches.length > 1) throw fail('INVALID_ARGUMENT', `"${id}" matches ${matches.length} ${what}s; give more of the id`, { id });
  throw fail(code, `no ${what} "${id}"`, { id });
}
