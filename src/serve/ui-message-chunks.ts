/**
 * A run's log (run-log.ts) as the chunks of one assistant message of the AI SDK's UI message
 * stream: each model call is a step (`start-step` … `finish-step`), its streamed text a text
 * part, the thinking in its answer reasoning parts, each call of the root worker a tool part
 * (its input when its turn to run comes, then its output, its error, or the user's no), and
 * the run's end: `finish`, the approval request of the call it paused on, `abort`, or `error`
 * with Golem's code. A sub-worker's work is not shown, except a call of its that waits for the
 * user's approval. One translator per stream: it keeps the open step and text part.
 *
 * A run resumed after an approval continues the message the client has. A client that comes
 * back to such a run rebuilds the message from the stream, so the turns of the message from
 * before the run (`turns`) can be sent first.
 */
import type { ApprovalRecord } from '../agent/agent-plugin.js';
import type { ContentBlock, JsonValue } from '../core/blocks.js';
import type { GolemError } from '../core/errors.js';
import type { Turn } from '../core/records.js';
import type { WorkerEvent } from '../agent/ui-adapter.js';
import type { RunEnd, RunLogEntry } from './run-log.js';
import type { FinishReason, UIInstancePart, UIMessageChunk } from './ui-message-stream.js';

/** A call of an answer, as the model made it. */
export interface PendingCall {
  callId: string;
  name: string;
  input: JsonValue;
}

/** The message a stream builds, and what the client's copy of it shows already. */
export interface MessageContext {
  /** The assistant message's id: the `start` chunk's. */
  messageId: string;
  /** The calls the client's message shows already (the message a resumed run continues): their input is not sent again. */
  shown?: Iterable<string>;
  /** The calls whose approval the request that started the run answered, and whether the answer was yes. */
  answered?: ReadonlyMap<string, boolean>;
  /** The calls of the message's last answer that have not run yet (a resumed run performs them), in order. */
  waiting?: readonly PendingCall[];
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
  readonly #answered: ReadonlyMap<string, boolean>;
  /** The calls of the answer whose turn to run has not come yet, in order. */
  #pending: PendingCall[];
  /** While the message's earlier turns are told: the approval of each call of the answer told now. */
  #approvals = new Map<string, ApprovalRecord>();
  /** Whether a step is open: none; its text streams; its answer is recorded (its calls run). */
  #step: 'none' | 'streaming' | 'answered' = 'none';
  /** The text part open now. */
  #text: string | undefined;
  #next = 0;

  constructor(context: MessageContext) {
    this.#messageId = context.messageId;
    this.#shown = new Set(context.shown);
    this.#answered = context.answered ?? new Map();
    this.#pending = (context.waiting ?? []).filter((call) => !this.#shown.has(call.callId));
  }

  /** The first chunk. */
  start(): UIMessageChunk[] {
    return [{ type: 'start', messageId: this.#messageId }];
  }

  /**
   * The message's turns from before the run (the answers and results after the user's
   * message), with the approvals on record for their calls, as the chunks that build them.
   */
  turns(turns: readonly Turn[], approvals: readonly ApprovalRecord[]): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    const done = new Set(turns.flatMap((t) => t.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.callId] : []))));
    const denied = new Set<string>();
    for (const turn of turns) {
      if (turn.role === 'assistant') {
        this.#approvals = new Map(approvals.filter((a) => a.turnId === turn.id).map((a) => [a.callId, a]));
        for (const approval of this.#approvals.values()) if (approval.status === 'denied') denied.add(approval.callId);
        out.push(...this.#flush(), ...this.#openStep('answered'), ...this.#blocks(turn.blocks, true));
        // The calls that ran, and the one whose turn came after them (the run paused on it, or performs it now).
        while (this.#pending[0] !== undefined && done.has(this.#pending[0].callId)) out.push(...this.#showNext());
        out.push(...this.#showNext());
      } else if (turn.role === 'tool') {
        for (const b of turn.blocks) {
          if (b.type !== 'tool_result') continue;
          out.push(...this.#showUpTo(b.callId));
          if (!this.#shown.has(b.callId)) continue;
          const text = b.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
          out.push(denied.has(b.callId) ? { type: 'tool-output-denied', toolCallId: b.callId } : output(b.callId, b.isError !== true, recorded(text)));
        }
      }
    }
    this.#approvals = new Map();
    return out;
  }

  /** A UI instance the run built or changed. */
  ui(part: UIInstancePart): UIMessageChunk[] {
    return [{ type: 'data-ui', id: part.instanceId, data: part }];
  }

  /** The chunks for one entry of the run's log. */
  entry(entry: RunLogEntry): UIMessageChunk[] {
    if (entry.type === 'event') return this.#event(entry.event);
    if (entry.type === 'end') return this.#end(entry.end);
    return []; // a client's own tool: the chat route offers none
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
        if (!root) return [];
        const out = this.#step === 'streaming' ? this.#closeText() : [...this.#flush(), ...this.#openStep('answered')];
        this.#step = 'answered';
        // The text streamed already; the rest of the answer is known now, and its first call runs.
        return [...out, ...this.#blocks(event.turn.blocks, false), ...this.#showNext()];
      }
      case 'action': {
        const { callId } = event;
        // A sub-worker's call is shown only once it asked for approval (the answer is this run's).
        if (callId === undefined || (!root && !this.#answered.has(callId))) return [];
        const out = this.#showUpTo(callId);
        if (!this.#shown.has(callId)) {
          this.#shown.add(callId);
          out.push(input(callId, event.name, event.input));
        }
        out.push(this.#answered.get(callId) === false ? { type: 'tool-output-denied', toolCallId: callId } : output(callId, event.ok, event.output));
        // The next call of the answer runs now.
        return root ? [...out, ...this.#showNext()] : out;
      }
      default:
        return [];
    }
  }

  #end(end: RunEnd): UIMessageChunk[] {
    const out = this.#closeText();
    if (end.error !== undefined) return [...out, ...this.#flush(), ...this.#closeStep(), failure(end.error)];
    const { outcome } = end;
    const finish = (finishReason: FinishReason): UIMessageChunk[] => [...out, ...this.#closeStep(), { type: 'finish', finishReason }];
    if (outcome.status === 'paused' && outcome.approval !== undefined) {
      const { approval } = outcome;
      out.push(...this.#showUpTo(approval.callId));
      if (!this.#shown.has(approval.callId)) {
        // A sub-worker's call: a step of its own (its model call), the one the answer completes.
        this.#shown.add(approval.callId);
        out.push(...this.#openStep('answered'), input(approval.callId, approval.action, approval.input));
      }
      out.push(approvalRequest(approval));
      return finish('tool-calls');
    }
    // The calls that never ran (the run failed or was stopped first), as the model made them.
    out.push(...this.#flush());
    switch (outcome.status) {
      case 'error':
        return [...out, ...this.#closeStep(), outcome.error === undefined ? { type: 'error', errorText: 'INTERNAL: the run failed' } : failure(outcome.error)];
      case 'aborted':
        return [...out, ...this.#closeStep(), { type: 'abort', reason: 'the run was stopped' }];
      case 'done':
        return finish('stop');
      default:
        // The step limit (the model asked for more), or an end a root worker does not reach here.
        return finish('other');
    }
  }

  /**
   * Reasoning parts for an answer's blocks, text parts when `text` (its text did not stream
   * here), the calls the provider ran with their results; its own calls wait their turn.
   */
  #blocks(blocks: readonly ContentBlock[], text: boolean): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    this.#pending = [];
    for (const b of blocks) {
      if (b.type === 'thinking' && b.thinking !== '') {
        const id = `reasoning-${++this.#next}`;
        out.push({ type: 'reasoning-start', id }, { type: 'reasoning-delta', id, delta: b.thinking }, { type: 'reasoning-end', id });
      } else if (b.type === 'text' && text && b.text !== '') {
        const id = `text-${++this.#next}`;
        out.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: b.text }, { type: 'text-end', id });
      } else if (b.type === 'tool_use' && !this.#shown.has(b.callId)) {
        if (b.providerExecuted !== true) this.#pending.push({ callId: b.callId, name: b.name, input: b.args });
        else {
          this.#shown.add(b.callId);
          out.push(input(b.callId, b.name, b.args, true));
        }
      } else if (b.type === 'server_tool_result') {
        out.push({ ...output(b.callId, b.isError !== true, b.output), providerExecuted: true });
      }
    }
    return out;
  }

  /** Shows the next call of the answer (its turn to run came), with its approval while earlier turns are told. */
  #showNext(): UIMessageChunk[] {
    const call = this.#pending.shift();
    if (call === undefined || this.#shown.has(call.callId)) return [];
    this.#shown.add(call.callId);
    const approval = this.#approvals.get(call.callId);
    return approval === undefined ? [input(call.callId, call.name, call.input)] : [input(call.callId, call.name, call.input), approvalRequest(approval)];
  }

  /** Shows the answer's calls up to this one (those before it did not report). */
  #showUpTo(callId: string): UIMessageChunk[] {
    const at = this.#pending.findIndex((call) => call.callId === callId);
    const out: UIMessageChunk[] = [];
    for (let i = 0; i <= at; i++) out.push(...this.#showNext());
    return out;
  }

  /** Shows the calls of the answer that will not run now. */
  #flush(): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    while (this.#pending.length > 0) out.push(...this.#showNext());
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

/** The calls of the last answer among `turns` that have no result after it yet, in order (a resumed run performs them). */
export function waitingCalls(turns: readonly Turn[]): PendingCall[] {
  const at = turns.findLastIndex((t) => t.role === 'assistant');
  const answer = turns[at];
  if (answer === undefined) return [];
  const done = new Set(turns.slice(at + 1).flatMap((t) => t.blocks.flatMap((b) => (b.type === 'tool_result' ? [b.callId] : []))));
  return answer.blocks.flatMap((b) =>
    b.type === 'tool_use' && b.providerExecuted !== true && !done.has(b.callId) ? [{ callId: b.callId, name: b.name, input: b.args }] : [],
  );
}

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
    toolCallId: approval.callId,
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
