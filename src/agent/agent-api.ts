/** `ws.trust` and `ws.approvals`: the trust settings, grants and pending approvals of a workspace (seed 003). */
import { unwrap } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import type { Trust } from '../action/action.js';
import { findById } from './clearance.js';
import { recordsOf, type ApprovalRecord, type Grant, type TrustOverrides } from './agent-records.js';
import type { ApprovalResult } from './ui-adapter.js';

export class TrustApi {
  readonly #manager: WorkspaceManager;

  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
  }

  /** Sets an action's mode for the workspace, or for one session; null goes back to the default. */
  async set(action: string, mode: Trust | null, options: { sessionId?: string } = {}): Promise<TrustOverrides> {
    return unwrap(await this.#manager.dispatch({ type: 'trust:set', payload: { action, mode, sessionId: options.sessionId ?? null } }));
  }

  /** The modes set for the workspace ('workspace') and for each session ('session:<id>'). */
  overrides(): TrustOverrides[] {
    return recordsOf(this.#manager.workspace(), 'trust');
  }

  /** Every standing 'always' and 'session' grant. */
  grants(): Grant[] {
    return recordsOf(this.#manager.workspace(), 'grant');
  }

  /** Removes a grant: the calls it covered ask again. */
  async revoke(grantId: string): Promise<Grant> {
    return unwrap(await this.#manager.dispatch({ type: 'grant:revoke', payload: { id: grantId } }));
  }
}

export class ApprovalApi {
  readonly #manager: WorkspaceManager;

  constructor(manager: WorkspaceManager) {
    this.#manager = manager;
  }

  /** The approvals waiting for an answer (of one conversation, when given), oldest first. */
  pending(options: { rootSessionId?: string } = {}): ApprovalRecord[] {
    return recordsOf(this.#manager.workspace(), 'approval')
      .filter((a) => a.status === 'pending' && (options.rootSessionId === undefined || a.rootSessionId === options.rootSessionId))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  }

  /** One approval by id (or a unique start or end of it). Throws APPROVAL_NOT_FOUND. */
  get(id: string): ApprovalRecord {
    return findById(recordsOf(this.#manager.workspace(), 'approval'), id, 'APPROVAL_NOT_FOUND', 'approval');
  }

  /**
   * Answers an approval; the run waiting for it goes on when it is resumed (`worker.run()`).
   * Give `fingerprint` (from the request you showed) to refuse the answer if it is not that call.
   */
  async answer(id: string, result: ApprovalResult, options: { fingerprint?: string } = {}): Promise<ApprovalRecord> {
    const approval = this.get(id);
    return unwrap(
      await this.#manager.dispatch({
        type: 'approval:answer',
        payload: { id: approval.id, ...answerOf(result), ...(options.fingerprint !== undefined && { fingerprint: options.fingerprint }) },
      }),
    );
  }
}

/** A UI's answer as the `approval:answer` command takes it. */
export function answerOf(result: ApprovalResult): { answer: 'yes' | 'no' | 'always' | 'session'; reason?: string } {
  if (result.approved === true) return { answer: 'yes' };
  if (result.approved === 'always') return { answer: 'always' };
  if (result.approved === 'session') return { answer: 'session' };
  return result.reason === undefined || result.reason === '' ? { answer: 'no' } : { answer: 'no', reason: result.reason };
}
