/**
 * A worker tree's stream of work (`WorkerEvent`) as AG-UI events: the root's run is
 * RUN_STARTED … RUN_FINISHED (or RUN_ERROR), a sub-worker is a STEP_STARTED/STEP_FINISHED
 * named after it, streamed text is a TEXT_MESSAGE_START/CONTENT/END, and each action a
 * TOOL_CALL_START/ARGS/END with its TOOL_CALL_RESULT. A sub-worker's state also goes as a
 * CUSTOM `golem.worker` event (what it does now, since when), so a page can show workers
 * running side by side apart. One translator per run: it keeps the open message of each
 * worker, so text around an action becomes two messages.
 */
import type { BaseEvent } from '@ag-ui/core';
import type { WorkerEvent } from '../agent/ui-adapter.js';
import type { WorkerState } from './api-types.js';

export type RunEvent = BaseEvent & Record<string, unknown>;

export class RunEventTranslator {
  readonly #threadId: string;
  readonly #runId: string;
  /** The message each worker is streaming now. */
  readonly #open = new Map<string, string>();
  /** The sub-workers of this run as the last `golem.worker` event showed them. */
  readonly #workers = new Map<string, WorkerState>();
  #next = 0;

  /** `threadId`: the conversation (the root session's id); `runId`: this run. */
  constructor(threadId: string, runId: string) {
    this.#threadId = threadId;
    this.#runId = runId;
  }

  translate(event: WorkerEvent): RunEvent[] {
    const out = this.#translate(event);
    const state = event.worker.depth > 0 ? this.#state(event) : undefined;
    return state === undefined ? out : [...out, { type: 'CUSTOM', timestamp: Date.now(), name: 'golem.worker', value: state } as RunEvent];
  }

  /** A sub-worker's state after `event` (undefined when the event changes nothing shown). */
  #state(event: WorkerEvent): WorkerState | undefined {
    const { worker } = event;
    const known = this.#workers.get(worker.id);
    let next: WorkerState | undefined;
    switch (event.type) {
      case 'worker-start':
        next = {
          id: worker.id,
          parentId: event.parent?.id ?? null,
          depth: worker.depth,
          task: worker.task,
          status: 'running',
          activity: 'starting',
          startedAt: Date.now(),
          endedAt: null,
          ...(event.batch !== undefined && { batch: event.batch }),
        };
        break;
      case 'text-delta':
        if (known !== undefined && known.activity !== 'writing') next = { ...known, activity: 'writing' };
        break;
      case 'step':
        if (known !== undefined) next = { ...known, activity: event.requested > 0 ? `step ${event.step}: ${event.requested} action(s)` : `step ${event.step}` };
        break;
      case 'action':
        if (known !== undefined) next = { ...known, activity: `${event.name} ${event.ok ? '✓' : '✗'}` };
        break;
      case 'worker-end':
        if (known !== undefined) next = { ...known, status: event.status, activity: event.status, endedAt: Date.now() };
        break;
      default:
        break;
    }
    if (next === undefined) return undefined;
    if (next.endedAt === null) this.#workers.set(worker.id, next);
    else this.#workers.delete(worker.id);
    return next;
  }

  #translate(event: WorkerEvent): RunEvent[] {
    const timestamp = Date.now();
    const e = (type: string, fields: Record<string, unknown>): RunEvent => ({ type, timestamp, ...fields }) as RunEvent;
    const worker = event.worker;
    const step = `worker ${worker.id} (depth ${worker.depth})`;
    switch (event.type) {
      case 'worker-start':
        return [
          worker.depth === 0 && event.parent === null
            ? e('RUN_STARTED', { threadId: this.#threadId, runId: this.#runId })
            : e('STEP_STARTED', { stepName: step }),
        ];
      case 'text-delta': {
        if (event.text === '') return [];
        const out: RunEvent[] = [];
        let messageId = this.#open.get(worker.id);
        if (messageId === undefined) {
          messageId = `${this.#runId}:m${++this.#next}`;
          this.#open.set(worker.id, messageId);
          out.push(e('TEXT_MESSAGE_START', { messageId, role: 'assistant' }));
        }
        out.push(e('TEXT_MESSAGE_CONTENT', { messageId, delta: event.text }));
        return out;
      }
      case 'step':
        return []; // the answer closed its message already; its actions follow as their own events
      case 'answer':
        // Recorded: the page shows the turn now, not the streamed copy (an action may wait for an approval a long time).
        return this.#close(worker.id, e);
      case 'action': {
        const toolCallId = `${this.#runId}:t${++this.#next}`;
        return [
          ...this.#close(worker.id, e),
          e('TOOL_CALL_START', { toolCallId, toolCallName: event.name }),
          e('TOOL_CALL_ARGS', { toolCallId, delta: JSON.stringify(event.input) }),
          e('TOOL_CALL_END', { toolCallId }),
          e('TOOL_CALL_RESULT', {
            messageId: `${toolCallId}:result`,
            toolCallId,
            content: typeof event.output === 'string' ? event.output : JSON.stringify(event.output),
          }),
        ];
      }
      case 'worker-end': {
        const out = this.#close(worker.id, e);
        if (worker.depth > 0) return [...out, e('STEP_FINISHED', { stepName: step })];
        if (event.status === 'failed')
          return [
            ...out,
            e('RUN_ERROR', { message: event.text === '' ? 'the run failed' : event.text, code: 'RUN_FAILED', threadId: this.#threadId, runId: this.#runId }),
          ];
        return [...out, e('RUN_FINISHED', { threadId: this.#threadId, runId: this.#runId, result: { status: event.status, text: event.text } })];
      }
    }
  }

  #close(workerId: string, e: (type: string, fields: Record<string, unknown>) => RunEvent): RunEvent[] {
    const messageId = this.#open.get(workerId);
    if (messageId === undefined) return [];
    this.#open.delete(workerId);
    return [e('TEXT_MESSAGE_END', { messageId })];
  }
}
