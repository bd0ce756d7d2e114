/**
 * A run's log (run-log.ts) as the chunks of one assistant message of the AI SDK's UI message
 * stream: each model call is a step (`start-step` … `finish-step`), its streamed text a text
 * part, the thinking in its answer reasoning parts (whole, once the answer is recorded), each
 * call of the root worker a tool part (its input when its turn to run comes, then its output,
 * its error, or the user's no), and the run's end: `finish`, the approval request of the call
 * it paused on, `abort`, or `error` with Golem's code. A sub-worker's work is not shown, except
 * a call of its that waits for the user's approval. One translator per stream: it keeps the
 * open step and text part.
 *
 * A tool part's id is `<turn>:<call>` (`toolCallIdOf`): the answer that made the call, and the
 * model's id for it, which some providers repeat in every answer (`call_0`).
 *
 * A run resumed after an approval continues the message the client has. A client that comes
 * back to such a run rebuilds the message from the stream, so the message's earlier turns
 * (`turns`) or earlier runs' logs (`resumedBy`, `endOfCycle`) can be told first.
 */
import type { ApprovalRecord } from '../agent/agent-plugin.js';
import type { ContentBlock, JsonValue } from '../core/blocks.js';
import type { GolemError } from '../core/errors.js';
import type { Turn } from '../core/records.js';
import type { WorkerEvent } from '../agent/ui-adapter.js';
import type { RunEnd, RunLogEntry } from '../agent/run-log.js';
import type { OpenCall } from './thread-approvals.js';
import type { FinishReason, UIInstancePart, UIMessageChunk } from './ui-message-stream.js';

/** A tool part's id: the call's answer (turn) and the model's id for the call. */
export const toolCallIdOf = (turnId: string, callId: string) => `${turnId}:${callId}`;

/** An approval the request that started a run answered, and whether the answer was yes. */
export interface AnsweredCall {
  approval: ApprovalRecord;
  approved: boolean;
}

/** The message a stream builds, and what the client's copy of it shows already. */
export interface MessageContext {
  /** The assistant message's id: the `start` chunk's. */
  messageId: string;
  /** The calls (tool part ids) the client's message shows already (the message a resumed run continues): their input is not sent again. */
  shown?: Iterable<string>;
  /** The approvals the request that started the run answered. */
  answered?: readonly AnsweredCall[];
  /** The calls of the message's last answer that have not run yet (a resumed run performs them), in order. */
  waiting?: readonly OpenCall[];
}

/** A call waiting for its turn to be shown. */
interface PendingPart {
  id: string;
  name: string;
  input: JsonValue;
}

/**
 * The calls of an answer run one after another, and a run pauses at the first one that waits
 * for an approval: so each call is shown as its turn to run comes (the first with the answer,
 * the next once the one before it is done). A message whose run paused then ends with the
 * call that waits, the calls after it not yet shown, and the AI SDK's
 * `lastAssistantMessageIsCompleteWithApprovalResponses` sends the answer back by itself.
 */
export class UIMessageChunks {
  readonly #messageId: string;
  readonly #shown: Set<string>;
  /** The answered calls, by part id: whether the answer was yes. */
  readonly #answered = new Map<string, boolean>();
  /** Each worker's calls by the model's id (`callKey`), as part ids: its last answer's. */
  readonly #calls = new Map<string, string>();
  /** The calls of the answer whose turn to run has not come yet, in order. */
  #pending: PendingPart[];
  /** Whether a step is open: none; its text streams; its answer is recorded (its calls run). */
  #step: 'none' | 'streaming' | 'answered' = 'none';
  /** The text part open now. */
  #text: string | undefined;
  #next = 0;

  constructor(context: MessageContext) {
    this.#messageId = context.messageId;
    this.#shown = new Set(context.shown);
    this.resumedBy(context.answered ?? []);
    for (const call of context.waiting ?? []) this.#calls.set(callKey(undefined, call.callId), toolCallIdOf(call.turnId, call.callId));
    this.#pending = (context.waiting ?? []).flatMap((call) => {
      const id = toolCallIdOf(call.turnId, call.callId);
      return this.#shown.has(id) ? [] : [{ id, name: call.name, input: call.input }];
    });
  }

  /** The first chunk. */
  start(): UIMessageChunk[] {
    return [{ type: 'start', messageId: this.#messageId }];
  }

  /** The message goes on with a run these answers resumed (its calls, a sub-worker's among them, are reported as answered). */
  resumedBy(answered: readonly AnsweredCall[]): void {
    for (const { approval, approved } of answered) {
      const id = toolCallIdOf(approval.turnId, approval.callId);
      this.#answered.set(id, approved);
      this.#calls.set(callKey(approval.sessionId === approval.rootSessionId ? undefined : approval.sessionId, approval.callId), id);
    }
  }

  /**
   * The message's turns from before the run (the answers and results after the user's
   * message), with the approvals on record for their calls, as the chunks that build them.
   */
  turns(turns: readonly Turn[], approvals: readonly ApprovalRecord[]): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    const asked = new Map(approvals.map((a) => [toolCallIdOf(a.turnId, a.callId), a]));
    for (const [index, turn] of turns.entries()) {
      if (turn.role === 'assistant') {
        out.push(...this.#flush(asked), ...this.#openStep('answered'), ...this.#blocks(turn, true));
        // The calls that ran (their results follow, before the next answer), and the one whose turn came after them.
        const next = turns.findIndex((t, j) => j > index && t.role === 'assistant');
        const done = new Set(resultsOf(turns.slice(index + 1, next === -1 ? undefined : next)).map((b) => this.#idOf(undefined, b.callId)));
        while (this.#pending[0] !== undefined && done.has(this.#pending[0].id)) out.push(...this.#showNext(asked));
        out.push(...this.#showNext(asked));
      } else if (turn.role === 'tool') {
        for (const b of resultsOf([turn])) {
          const id = this.#idOf(undefined, b.callId);
          out.push(...this.#showUpTo(id, asked));
          if (!this.#shown.has(id)) continue;
          out.push(asked.get(id)?.status === 'denied' ? { type: 'tool-output-denied', toolCallId: id } : output(id, b.isError !== true, recorded(textOf(b))));
        }
      }
    }
    return out;
  }

  /**
   * The sub-workers' calls these answers resumed, as they were shown when they asked: a step
   * of their own, the call and its approval request (told after `turns`, their run's output follows).
   */
  askedBy(answered: readonly AnsweredCall[]): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    for (const { approval } of answered) {
      if (approval.sessionId === approval.rootSessionId || this.#shown.has(toolCallIdOf(approval.turnId, approval.callId))) continue;
      out.push(...this.#asked(approval), ...this.#closeStep());
    }
    return out;
  }

  /** The result of the call an approval is for, as a session recorded it (a sub-worker's call, whose result is not in the thread's turns). */
  static result(approval: ApprovalRecord, result: Extract<ContentBlock, { type: 'tool_result' }>): UIMessageChunk[] {
    const id = toolCallIdOf(approval.turnId, approval.callId);
    if (approval.status === 'denied') return [{ type: 'tool-output-denied', toolCallId: id }];
    return [output(id, result.isError !== true, recorded(textOf(result)))];
  }

  /** A UI instance the run built or changed. */
  ui(part: UIInstancePart): UIMessageChunk[] {
    return [{ type: 'data-ui', id: part.instanceId, data: part }];
  }

  /** The chunks for one entry of the run's log. */
  entry(entry: RunLogEntry): UIMessageChunk[] {
    if (entry.type === 'event') return this.#event(entry.event);
    if (entry.type === 'end') return this.#end(entry.end);
    return []; // a client's own tool (the chat route offers none), or a page's dialog (`paused`)
  }

  /** The end of an earlier run of the message (one that paused on an approval), told before the run that goes on: without its `finish`. */
  endOfCycle(entry: Extract<RunLogEntry, { type: 'end' }>): UIMessageChunk[] {
    return this.#end(entry.end).filter((chunk) => chunk.type !== 'finish');
  }

  /** The run waits for this approval (in memory, for a page's dialog): the message ends with its request. */
  paused(approval: ApprovalRecord): UIMessageChunk[] {
    return [...this.#closeText(), ...this.#asked(approval), ...this.#closeStep(), { type: 'finish', finishReason: 'tool-calls' }];
  }

  /** The message ends here (told from the turns, nothing running): the open step closed, then `finish`. */
  finish(finishReason: FinishReason): UIMessageChunk[] {
    return [...this.#closeStep(), { type: 'finish', finishReason }];
  }

  #event(event: WorkerEvent): UIMessageChunk[] {
    const root = event.worker.depth === 0;
    switch (event.type) {
      case 'text-delta': {
        if (!root || event.text === '') return [];
        const out = this.#step === 'streaming' ? [] : [...this.#flush(), ...this.#openStep('streaming')];
        if (this.#text === undefined) {
          this.#text = `text-${++this.#next}`;
          out.push({ type: 'text-start', id: this.#text });
        }
        out.push({ type: 'text-delta', id: this.#text, delta: event.text });
        return out;
      }
      case 'answer':
        return root ? this.#closeText() : [];
      case 'step': {
        const worker = root ? undefined : event.worker.id;
        for (const b of event.turn.blocks) if (b.type === 'tool_use') this.#calls.set(callKey(worker, b.callId), toolCallIdOf(event.turn.id, b.callId));
        if (!root) return [];
        const out = this.#step === 'streaming' ? this.#closeText() : [...this.#flush(), ...this.#openStep('answered')];
        this.#step = 'answered';
        // The text streamed already; the rest of the answer is known now, and its first call runs.
        return [...out, ...this.#blocks(event.turn, false), ...this.#showNext()];
      }
      case 'action': {
        if (event.callId === undefined) return [];
        const id = this.#idOf(root ? undefined : event.worker.id, event.callId);
        // A sub-worker's call is shown only once it asked for approval (the answer is this run's).
        if (!root && !this.#answered.has(id)) return [];
        const out = this.#showUpTo(id);
        if (!this.#shown.has(id)) {
          this.#shown.add(id);
          out.push(input(id, event.name, event.input));
        }
        out.push(this.#answered.get(id) === false ? { type: 'tool-output-denied', toolCallId: id } : output(id, event.ok, event.output));
        // The next call of the answer runs now.
        return root ? [...out, ...this.#showNext()] : out;
      }
      default:
        return [];
    }
  }

  #end(end: RunEnd): UIMessageChunk[] {
    if (end.error !== undefined) return [...this.#closeText(), ...this.#flush(), ...this.#closeStep(), failure(end.error)];
    const { outcome } = end;
    if (outcome.status === 'paused' && outcome.approval !== undefined) return this.paused(outcome.approval);
    // The calls that never ran (the run failed or was stopped first), as the model made them.
    const out = [...this.#closeText(), ...this.#flush()];
    switch (outcome.status) {
      case 'error':
        return [...out, ...this.#closeStep(), outcome.error === undefined ? { type: 'error', errorText: 'INTERNAL: the run failed' } : failure(outcome.error)];
      case 'aborted':
        return [...out, ...this.#closeStep(), { type: 'abort', reason: 'the run was stopped' }];
      case 'done':
        return [...out, ...this.finish('stop')];
      default:
        // The step limit (the model asked for more), or an end a root worker does not reach here.
        return [...out, ...this.finish('other')];
    }
  }

  /** The call an approval is for, shown with its request (a sub-worker's call: a step of its own, the one the answer completes). */
  #asked(approval: ApprovalRecord): UIMessageChunk[] {
    const id = toolCallIdOf(approval.turnId, approval.callId);
    const out = this.#showUpTo(id);
    if (!this.#shown.has(id)) {
      this.#shown.add(id);
      out.push(...this.#openStep('answered'), input(id, approval.action, approval.input));
    }
    out.push(approvalRequest(approval));
    return out;
  }

  /**
   * Reasoning parts for an answer's blocks, text parts when `text` (its text did not stream
   * here), the calls the provider ran with their results; its own calls wait their turn.
   */
  #blocks(turn: Turn, text: boolean): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    this.#pending = [];
    for (const b of turn.blocks) {
      if (b.type === 'thinking' && b.thinking !== '') {
        const id = `reasoning-${++this.#next}`;
        out.push({ type: 'reasoning-start', id }, { type: 'reasoning-delta', id, delta: b.thinking }, { type: 'reasoning-end', id });
      } else if (b.type === 'text' && text && b.text !== '') {
        const id = `text-${++this.#next}`;
        out.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: b.text }, { type: 'text-end', id });
      } else if (b.type === 'tool_use') {
        const id = toolCallIdOf(turn.id, b.callId);
        this.#calls.set(callKey(undefined, b.callId), id);
        if (this.#shown.has(id)) continue;
        if (b.providerExecuted !== true) this.#pending.push({ id, name: b.name, input: b.args });
        else {
          this.#shown.add(id);
          out.push(input(id, b.name, b.args, true));
        }
      } else if (b.type === 'server_tool_result') {
        out.push({ ...output(toolCallIdOf(turn.id, b.callId), b.isError !== true, b.output), providerExecuted: true });
      }
    }
    return out;
  }

  /** A worker's call as its part id (its last answer's call of that id). */
  #idOf(worker: string | undefined, callId: string): string {
    return this.#calls.get(callKey(worker, callId)) ?? callId;
  }

  /** Shows the next call of the answer (its turn to run came), with its approval when one was asked (`asked`, while earlier turns are told). */
  #showNext(asked?: ReadonlyMap<string, ApprovalRecord>): UIMessageChunk[] {
    const call = this.#pending.shift();
    if (call === undefined || this.#shown.has(call.id)) return [];
    this.#shown.add(call.id);
    const approval = asked?.get(call.id);
    return approval === undefined ? [input(call.id, call.name, call.input)] : [input(call.id, call.name, call.input), approvalRequest(approval)];
  }

  /** Shows the answer's calls up to this one (those before it did not report). */
  #showUpTo(id: string, asked?: ReadonlyMap<string, ApprovalRecord>): UIMessageChunk[] {
    const at = this.#pending.findIndex((call) => call.id === id);
    const out: UIMessageChunk[] = [];
    for (let i = 0; i <= at; i++) out.push(...this.#showNext(asked));
    return out;
  }

  /** Shows the calls of the answer that will not run now. */
  #flush(asked?: ReadonlyMap<string, ApprovalRecord>): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    while (this.#pending.length > 0) out.push(...this.#showNext(asked));
    return out;
  }

  /** Opens a step (closing the one before, if any). */
  #openStep(next: 'streaming' | 'answered'): UIMessageChunk[] {
    const out = this.#closeStep();
    this.#step = next;
    out.push({ type: 'start-step' });
    return out;
  }

  #closeStep(): UIMessageChunk[] {
    const out = this.#closeText();
    if (this.#step !== 'none') out.push({ type: 'finish-step' });
    this.#step = 'none';
    return out;
  }

  #closeText(): UIMessageChunk[] {
    const id = this.#text;
    if (id === undefined) return [];
    this.#text = undefined;
    return [{ type: 'text-end', id }];
  }
}

/** A worker's call by the model's id: the root's (`worker` undefined), or a sub-worker's session's. */
const callKey = (worker: string | undefined, callId: string) => `${worker ?? ''}\n${callId}`;

function resultsOf(turns: readonly Turn[]): Extract<ContentBlock, { type: 'tool_result' }>[] {
  return turns.flatMap((t) => t.blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : [])));
}

/** A result's text, as the model read it. */
const textOf = (result: Extract<ContentBlock, { type: 'tool_result' }>) => result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');

function input(toolCallId: string, toolName: string, value: JsonValue, providerExecuted?: true): UIMessageChunk {
  return { type: 'tool-input-available', toolCallId, toolName, input: value, ...(providerExecuted === true && { providerExecuted }) };
}

/** A call's result: its output, or (failed) what the model was told of the failure. */
function output(toolCallId: string, ok: boolean, value: JsonValue): Extract<UIMessageChunk, { type: 'tool-output-available' | 'tool-output-error' }> {
  if (ok) return { type: 'tool-output-available', toolCallId, output: value };
  return { type: 'tool-output-error', toolCallId, errorText: typeof value === 'string' ? value : JSON.stringify(value) };
}

function approvalRequest(approval: ApprovalRecord): UIMessageChunk {
  return {
    type: 'tool-approval-request',
    approvalId: approval.id,
    toolCallId: toolCallIdOf(approval.turnId, approval.callId),
    approvalDescriptor: { description: approval.description, risk: approval.risk, workerPath: approval.workerPath },
  };
}

function failure(error: GolemError): UIMessageChunk {
  return { type: 'error', errorText: `${error.code}: ${error.message}` };
}

/**
 * A result as the session recorded it (text), as the action gave it: an output that was an
 * object or a list was recorded as its JSON, so it is read back as one.
 */
function recorded(text: string): JsonValue {
  if (!/^[[{]/.test(text)) return text;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}
