/**
 * The browser's UIAdapter (seed 003 section 4): what a worker tree asks of a user,
 * carried to every page connected to `golem serve`. Approvals wait for an answer from
 * the page's dialog (any tab; the first answer counts), clearance decisions for the
 * panel, progress and status go out as CUSTOM events, and the tree's streamed work as
 * AG-UI run events (see the server's `workerEvents`).
 */
import type {
  ApprovalRequest,
  ApprovalResult,
  ClearanceDecision,
  ClearanceItem,
  ClearanceResult,
  DiffContent,
  StatusUpdate,
  TaskProgress,
  UIAdapter,
  UIMessage,
} from '../agent/ui-adapter.js';
import type { ServeCustomEvent } from './api-types.js';

type Broadcast = (event: object) => void;

export class BrowserAdapter implements UIAdapter {
  readonly #broadcast: Broadcast;
  /** Approvals a run waits for here, by approval id: answering one resolves its run's question. */
  readonly #approvals = new Map<string, { request: ApprovalRequest; resolve: (result: ApprovalResult) => void }>();
  readonly #decisions = new Map<string, ((decision: ClearanceDecision) => void)[]>();
  readonly #clearanceListeners = new Set<(items: ClearanceItem[]) => void>();
  readonly #inputs: string[] = [];
  readonly #inputWaiters: ((text: string | null) => void)[] = [];
  #messages = 0;
  #closed = false;

  constructor(broadcast: Broadcast) {
    this.#broadcast = broadcast;
  }

  async initialize(): Promise<void> {}

  /** Ends pending `getUserInput` calls with null. Approvals still waiting stay pending in the workspace, for the next server. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#inputWaiters.splice(0)) wake(null);
    this.#approvals.clear();
    this.#decisions.clear();
  }

  /** A message outside a run (a notice, a replayed turn), as one AG-UI text message. */
  async displayMessage(msg: UIMessage): Promise<void> {
    const messageId = `message:${++this.#messages}`;
    this.#broadcast({ type: 'TEXT_MESSAGE_START', messageId, role: msg.role, timestamp: msg.metadata?.timestamp ?? Date.now() });
    this.#broadcast({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: msg.content === '' ? ' ' : msg.content });
    this.#broadcast({ type: 'TEXT_MESSAGE_END', messageId });
  }

  /** The next message the user sends from a page (any session); null once the server stops. */
  getUserInput(): Promise<string | null> {
    const next = this.#inputs.shift();
    if (next !== undefined) return Promise.resolve(next);
    if (this.#closed) return Promise.resolve(null);
    return new Promise((resolve) => this.#inputWaiters.push(resolve));
  }

  /** A message the user sent, for whoever waits in `getUserInput` (kept for the next call otherwise). */
  input(text: string): void {
    const waiter = this.#inputWaiters.shift();
    if (waiter !== undefined) waiter(text);
    else if (this.#inputs.length < 100) this.#inputs.push(text);
  }

  /**
   * Waits for the user's answer in a page. The approval is already pending in the
   * workspace, which is how every page learns of it (a `golem.changed` event, then
   * `/api/state`); the dialog's answer comes back through `answer`. Give the run's
   * `signal`: once it aborts, the question is dropped (the worker records a no).
   */
  requestApproval(request: ApprovalRequest, signal?: AbortSignal): Promise<ApprovalResult> {
    return new Promise((resolve) => {
      // A stopped run no longer waits: its question goes, so a late answer is not taken for it.
      const abandon = () => this.#approvals.delete(request.id);
      if (signal?.aborted === true) return;
      signal?.addEventListener('abort', abandon, { once: true });
      this.#approvals.set(request.id, {
        request,
        resolve: (result) => {
          this.#approvals.delete(request.id);
          signal?.removeEventListener('abort', abandon);
          resolve(result);
        },
      });
    });
  }

  /** Answers an approval a run waits for here; false when none does (it is answered in the workspace instead). */
  answer(approvalId: string, result: ApprovalResult): boolean {
    const waiting = this.#approvals.get(approvalId);
    if (waiting === undefined) return false;
    waiting.resolve(result);
    return true;
  }

  /** The approvals runs wait for here. */
  waitingApprovals(): string[] {
    return [...this.#approvals.keys()];
  }

  /** The root sessions whose runs wait for an answer here. */
  waitingSessions(): Set<string> {
    return new Set([...this.#approvals.values()].map((a) => a.request.workerPath[0]?.id ?? ''));
  }

  notifyClearancePending(items: ClearanceItem[]): void {
    for (const listener of this.#clearanceListeners) listener(items);
    this.#custom({ type: 'CUSTOM', name: 'golem.changed', value: { topics: ['clearance'], sessionIds: [] } });
  }

  /** Waits for the user's decision on an item, made in a page's clearance panel. */
  getClearanceDecision(item: ClearanceItem): Promise<ClearanceDecision> {
    return new Promise((resolve) => {
      const list = this.#decisions.get(item.id) ?? [];
      list.push(resolve);
      this.#decisions.set(item.id, list);
    });
  }

  /** A decision the user made in a page, for whoever waits in `getClearanceDecision`. */
  decided(itemId: string, decision: ClearanceDecision): void {
    for (const resolve of this.#decisions.get(itemId) ?? []) resolve(decision);
    this.#decisions.delete(itemId);
  }

  displayClearanceResult(result: ClearanceResult): void {
    this.#custom({
      type: 'CUSTOM',
      name: 'golem.clearance-result',
      value: { itemId: result.item.id, action: result.decision.action, ok: result.ok, message: result.message },
    });
  }

  onClearanceStateChange(callback: (items: ClearanceItem[]) => void): void {
    this.#clearanceListeners.add(callback);
  }

  showProgress(task: TaskProgress): void {
    this.#custom({ type: 'CUSTOM', name: 'golem.progress', value: { id: task.id, description: task.description, depth: task.depth, status: task.status } });
  }

  updateStatus(status: StatusUpdate): void {
    this.#custom({ type: 'CUSTOM', name: 'golem.status', value: { text: status.text, level: status.level ?? 'info' } });
  }

  async displayDiff(diff: DiffContent): Promise<void> {
    this.#custom({ type: 'CUSTOM', name: 'golem.diff', value: { title: diff.title, diff: diff.diff } });
  }

  #custom(event: ServeCustomEvent): void {
    this.#broadcast({ ...event, timestamp: Date.now() });
  }
}
