/**
 * A worker tree's stream of work (`WorkerEvent`) as AG-UI events, framed as a stock AG-UI
 * client (`@ag-ui/client`) checks a run: RUN_STARTED first; then each model call's text as a
 * TEXT_MESSAGE_START/CONTENT/END, its reasoning as REASONING_*, and its calls as
 * TOOL_CALL_START/ARGS/END (parented to the answer's turn), each call's result as a
 * TOOL_CALL_RESULT when it ran; a sub-worker as a STEP_STARTED/STEP_FINISHED named after it,
 * with a CUSTOM `golem.worker` event for its state (what it does now, since when), so a page
 * can show workers running side by side apart; and RUN_FINISHED last, whose outcome says how
 * the run ended (success, an interrupt for an approval, cancelled), or RUN_ERROR with the
 * cause's own code. Nothing of the run follows its end.
 *
 * One translator per run (or per stream of one: a client that resumes a run gets one of its
 * own). It keeps each worker's open message and the open steps, so a run ended early still
 * closes them before its end.
 */
import type { BaseEvent, Interrupt, Message } from '@ag-ui/core';
import type { ApprovalRecord } from '../agent/agent-plugin.js';
import type { WorkerEvent } from '../agent/ui-adapter.js';
import { answerText } from '../agent/worker/outcome.js';
import type { WorkerState } from './api-types.js';
import type { RunEnd, RunLogEntry } from '../agent/run-log.js';
import { ApprovalAnswerSchema } from './views.js';
import { z } from 'zod';

export type RunEvent = BaseEvent & Record<string, unknown>;

export interface RunEventOptions {
  /** The AG-UI id of a model's call (default: the call's own id; a page's socket prefixes the run's, to tell runs apart). */
  toolCallId?: (callId: string) => string;
  /** The AG-UI id of a call's result message (default `<callId>:result`). */
  resultId?: (callId: string, turnId: string | undefined) => string;
  /** Which turn made each call of earlier runs (a resumed run performs them), for their results' ids. */
  callTurns?: ReadonlyMap<string, string>;
}

/** The answers an approval interrupt takes, as a JSON Schema (the resume's payload). */
const APPROVAL_ANSWER_SCHEMA = z.toJSONSchema(ApprovalAnswerSchema) as Record<string, unknown>;

export class RunEventTranslator {
  readonly #threadId: string;
  readonly #runId: string;
  readonly #options: RunEventOptions;
  /** The message each worker is streaming now. */
  readonly #open = new Map<string, string>();
  /** The sub-workers of this run as the last `golem.worker` event showed them. */
  readonly #workers = new Map<string, WorkerState>();
  /** The steps (sub-workers) started and not finished. */
  readonly #steps = new Set<string>();
  /** Which turn made each call seen in this run. */
  readonly #callTurns = new Map<string, string>();
  /** Client calls the run stopped on, with no result yet. */
  readonly #pending: string[] = [];
  #next = 0;
  #started = false;
  #ended = false;

  /** `threadId`: the conversation (the root session's id); `runId`: this run (or this client's stream of it). */
  constructor(threadId: string, runId: string, options: RunEventOptions = {}) {
    this.#threadId = threadId;
    this.#runId = runId;
    this.#options = options;
  }

  /** Whether the run's end went out. */
  get ended(): boolean {
    return this.#ended;
  }

  /** RUN_STARTED, for a stream that opens the run itself (its root's worker-start then opens nothing). */
  start(): RunEvent[] {
    if (this.#started) return [];
    this.#started = true;
    return [{ type: 'RUN_STARTED', timestamp: Date.now(), threadId: this.#threadId, runId: this.#runId } as RunEvent];
  }

  /**
   * A worker event's AG-UI events. The root's worker-start opens the run (unless `start` did);
   * the root's worker-end closes it with the status it says (a stream with the run's log closes
   * it with `end` instead, which knows the cause's code).
   */
  translate(event: WorkerEvent): RunEvent[] {
    if (this.#ended) return [];
    if (event.type === 'worker-end' && isRoot(event)) {
      const status = event.status;
      return this.end(status === 'failed' ? { error: { code: 'RUN_FAILED', message: event.text || 'the run failed' } } : { status, text: event.text });
    }
    const out = this.#translate(event);
    const state = event.worker.depth > 0 ? this.#state(event) : undefined;
    return state === undefined ? out : [...out, { type: 'CUSTOM', timestamp: Date.now(), name: 'golem.worker', value: state } as RunEvent];
  }

  /**
   * A run log's entry: an event as `translate`, a client call the run waits for (kept for
   * the end's pending calls), or the end (see `end`). `messages`: the thread's messages, for
   * a MESSAGES_SNAPSHOT just before the end.
   */
  entry(entry: RunLogEntry, messages?: () => Message[]): RunEvent[] {
    switch (entry.type) {
      case 'event':
        return entry.event.type === 'worker-end' && isRoot(entry.event) ? [] : this.translate(entry.event);
      case 'client-call':
        this.#pending.push(entry.call.callId);
        return [];
      case 'approval':
        return []; // the page asks through its dialog; a protocol stream ends on it with an interrupt
      case 'end':
        return [...(messages === undefined || this.#ended ? [] : [snapshot(messages())]), ...this.end(endOf(entry.end))];
    }
  }

  /**
   * Closes what is open and ends the run: RUN_FINISHED with its outcome, or RUN_ERROR. For
   * a stream that stops following a run still going (it waits for the client's own tools),
   * or that had no run to follow: `{ status: 'open' }`, a success with no result of its own
   * (and the client calls it stopped on, pending).
   */
  end(how: RunOutcome): RunEvent[] {
    if (this.#ended) return [];
    this.#ended = true;
    const timestamp = Date.now();
    const e = (type: string, fields: Record<string, unknown>): RunEvent => ({ type, timestamp, ...fields }) as RunEvent;
    const out: RunEvent[] = [...this.start()];
    for (const workerId of [...this.#open.keys()]) out.push(...this.#close(workerId, e));
    for (const step of [...this.#steps].reverse()) out.push(e('STEP_FINISHED', { stepName: step }));
    this.#steps.clear();
    const ids = { threadId: this.#threadId, runId: this.#runId };
    if ('error' in how) return [...out, e('RUN_ERROR', { message: how.error.message, code: how.error.code, ...ids })];
    if (how.status === 'paused')
      return [
        ...out,
        e('RUN_FINISHED', { ...ids, outcome: { type: 'interrupt', interrupts: [interruptOf(how.approval, this.#toolCallId(how.approval.callId))] } }),
      ];
    if (how.status === 'aborted') return [...out, e('RUN_FINISHED', { ...ids, outcome: { type: 'cancelled' } })];
    const pending = this.#pending.map((id) => this.#toolCallId(id));
    return [
      ...out,
      e('RUN_FINISHED', {
        ...ids,
        ...(how.status !== 'open' && { result: { status: how.status, text: how.text } }),
        outcome: { type: 'success', ...(pending.length > 0 && { pendingToolCallIds: pending }) },
      }),
    ];
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
        if (isRoot(event)) return this.start();
        this.#steps.add(step);
        return [...this.start(), e('STEP_STARTED', { stepName: step })];
      case 'text-delta': {
        if (event.text === '') return [];
        const out: RunEvent[] = [...this.start()];
        let messageId = this.#open.get(worker.id);
        if (messageId === undefined) {
          messageId = `${this.#runId}:m${++this.#next}`;
          this.#open.set(worker.id, messageId);
          out.push(e('TEXT_MESSAGE_START', { messageId, role: 'assistant' }));
        }
        out.push(e('TEXT_MESSAGE_CONTENT', { messageId, delta: event.text }));
        return out;
      }
      case 'answer':
        // Recorded: the page shows the turn now, not the streamed copy (an action may wait for an approval a long time).
        return this.#close(worker.id, e);
      case 'step': {
        // The answer as recorded: its reasoning, and the calls it asks for (their results come as each runs).
        const out: RunEvent[] = [...this.start(), ...this.#close(worker.id, e)];
        const thinking = event.turn.blocks.flatMap((b) => (b.type === 'thinking' && b.thinking !== '' ? [b.thinking] : [])).join('\n');
        if (thinking !== '') {
          const messageId = `${event.turn.id}:reasoning`;
          out.push(
            e('REASONING_START', { messageId }),
            e('REASONING_MESSAGE_START', { messageId, role: 'reasoning' }),
            e('REASONING_MESSAGE_CONTENT', { messageId, delta: thinking }),
            e('REASONING_MESSAGE_END', { messageId }),
            e('REASONING_END', { messageId }),
          );
        }
        for (const block of event.turn.blocks) {
          if (block.type !== 'tool_use' || block.providerExecuted === true) continue;
          this.#callTurns.set(block.callId, event.turn.id);
          const toolCallId = this.#toolCallId(block.callId);
          out.push(
            e('TOOL_CALL_START', { toolCallId, toolCallName: block.name, parentMessageId: event.turn.id }),
            e('TOOL_CALL_ARGS', { toolCallId, delta: JSON.stringify(block.args) }),
            e('TOOL_CALL_END', { toolCallId }),
          );
        }
        return out;
      }
      case 'action': {
        const content = typeof event.output === 'string' ? event.output : JSON.stringify(event.output);
        const out: RunEvent[] = [...this.start(), ...this.#close(worker.id, e)];
        if (event.callId === undefined) {
          // A worker that does not say which call it answers: the call and its result together.
          const toolCallId = `${this.#runId}:t${++this.#next}`;
          out.push(
            e('TOOL_CALL_START', { toolCallId, toolCallName: event.name }),
            e('TOOL_CALL_ARGS', { toolCallId, delta: JSON.stringify(event.input) }),
            e('TOOL_CALL_END', { toolCallId }),
          );
          return [...out, e('TOOL_CALL_RESULT', { messageId: `${toolCallId}:result`, toolCallId, role: 'tool', content })];
        }
        const index = this.#pending.indexOf(event.callId);
        if (index >= 0) this.#pending.splice(index, 1);
        const turnId = this.#callTurns.get(event.callId) ?? this.#options.callTurns?.get(event.callId);
        const messageId = this.#options.resultId?.(event.callId, turnId) ?? `${event.callId}:result`;
        return [...out, e('TOOL_CALL_RESULT', { messageId, toolCallId: this.#toolCallId(event.callId), role: 'tool', content })];
      }
      case 'worker-end': {
        const out = this.#close(worker.id, e);
        if (!this.#steps.delete(step)) return out;
        return [...out, e('STEP_FINISHED', { stepName: step })];
      }
    }
  }

  #toolCallId(callId: string): string {
    return this.#options.toolCallId?.(callId) ?? callId;
  }

  #close(workerId: string, e: (type: string, fields: Record<string, unknown>) => RunEvent): RunEvent[] {
    const messageId = this.#open.get(workerId);
    if (messageId === undefined) return [];
    this.#open.delete(workerId);
    return [e('TEXT_MESSAGE_END', { messageId })];
  }
}

/**
 * The translator for the pages' socket, which carries every session's runs: each call's ids
 * begin with the run's (`<run>:<call>`), so a page tells apart the runs it shows side by side.
 */
export function pageTranslator(threadId: string, runId: string): RunEventTranslator {
  return new RunEventTranslator(threadId, runId, { toolCallId: (callId) => `${runId}:${callId}`, resultId: (callId) => `${runId}:${callId}:result` });
}

/** How a run ended, as its last event says it. */
export type RunOutcome =
  | { error: { code: string; message: string } }
  | { status: 'paused'; approval: ApprovalRecord }
  | { status: 'aborted' }
  | { status: 'open' }
  | { status: 'done' | 'question' | 'step_limit' | 'waiting'; text: string };

/** A run log's end as the outcome its last event says. */
export function endOf(end: RunEnd): RunOutcome {
  if (end.error !== undefined) return { error: { code: end.error.code, message: end.error.message } };
  const { outcome } = end;
  if (outcome.status === 'paused' && outcome.approval !== undefined) return { status: 'paused', approval: outcome.approval };
  if (outcome.status === 'aborted') return { status: 'aborted' };
  if (outcome.status === 'error') return { error: { code: outcome.error?.code ?? 'RUN_FAILED', message: outcome.error?.message ?? 'the run failed' } };
  // The model gave up (envelope mode's ABORT): its message says why.
  if (outcome.status === 'failed') return { error: { code: 'RUN_FAILED', message: outcome.decision?.message ?? 'the model gave up on the task' } };
  return { status: outcome.status === 'question' || outcome.status === 'step_limit' ? outcome.status : 'done', text: answerText(outcome) };
}

/** An approval the run waits for, as an AG-UI interrupt: what is asked, of which call, by which worker, and the answers it takes. */
export function interruptOf(approval: ApprovalRecord, toolCallId: string): Interrupt {
  return {
    id: approval.id,
    reason: 'approval',
    message: approval.description,
    toolCallId,
    responseSchema: APPROVAL_ANSWER_SCHEMA,
    metadata: {
      golem: {
        action: approval.action,
        input: approval.input,
        type: approval.type,
        risk: approval.risk,
        details: approval.details,
        workerPath: approval.workerPath,
      },
    },
  };
}

function snapshot(messages: Message[]): RunEvent {
  return { type: 'MESSAGES_SNAPSHOT', timestamp: Date.now(), messages } as unknown as RunEvent;
}

function isRoot(event: WorkerEvent): boolean {
  return event.worker.depth === 0 && (event.type !== 'worker-start' || event.parent === null);
}
