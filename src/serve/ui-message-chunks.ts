/**
 * A run's log (run-log.ts) as the chunks of one assistant message of the AI SDK's UI message
 * stream: each model call is a step (`start-step` … `finish-step`), its streamed text a text
 * part, the thinking in its answer reasoning parts, each call of the root worker a tool part
 * (its input once the answer is recorded, then its output, its error, or the user's no), and
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

/** The message a stream builds, and what the client's copy of it shows already. */
export interface MessageContext {
  /** The assistant message's id: the `start` chunk's. */
  messageId: string;
  /** The calls the client's message shows already (the message a resumed run continues): their input is not sent again. */
  shown?: Iterable<string>;
  /** The calls whose approval the request that started the run answered, and whether the answer was yes. */
  answered?: ReadonlyMap<string, boolean>;
}

export class UIMessageChunks {
  readonly #messageId: string;
  readonly #shown: Set<string>;
  readonly #answered: ReadonlyMap<string, boolean>;
  /** Whether a step is open: none; its text streams; its answer is recorded (its calls run). */
  #step: 'none' | 'streaming' | 'answered' = 'none';
  /** The text part open now. */
  #text: string | undefined;
  #next = 0;

  constructor(context: MessageContext) {
    this.#messageId = context.messageId;
    this.#shown = new Set(context.shown);
    this.#answered = context.answered ?? new Map();
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
    /** The approval of each call shown so far. */
    const asked = new Map<string, ApprovalRecord>();
    for (const turn of turns) {
      if (turn.role === 'assistant') {
        out.push(...this.#openStep('answered'), ...this.#blocks(turn.blocks, true));
        for (const b of turn.blocks) {
          const approval = b.type === 'tool_use' ? approvals.find((a) => a.turnId === turn.id && a.callId === b.callId) : undefined;
          if (approval === undefined) continue;
          asked.set(approval.callId, approval);
          out.push(approvalRequest(approval));
        }
      } else if (turn.role === 'tool') {
        for (const b of turn.blocks) {
          if (b.type !== 'tool_result' || !this.#shown.has(b.callId)) continue;
          const text = b.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
          if (asked.get(b.callId)?.status === 'denied') out.push({ type: 'tool-output-denied', toolCallId: b.callId });
          else out.push(output(b.callId, b.isError !== true, recorded(text)));
        }
      }
    }
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
        const out = this.#step === 'streaming' ? [] : this.#openStep('streaming');
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
        const out = this.#step === 'streaming' ? this.#closeText() : this.#openStep('answered');
        this.#step = 'answered';
        // The text streamed already; the rest of the answer is known now.
        return [...out, ...this.#blocks(event.turn.blocks, false)];
      }
      case 'action': {
        const { callId } = event;
        // A sub-worker's call is shown only once it asked for approval (the answer is this run's).
        if (callId === undefined || (!root && !this.#answered.has(callId))) return [];
        if (this.#answered.get(callId) === false) return [{ type: 'tool-output-denied', toolCallId: callId }];
        return [output(callId, event.ok, event.output)];
      }
      default:
        return [];
    }
  }

  #end(end: RunEnd): UIMessageChunk[] {
    const out = this.#closeText();
    if (end.error !== undefined) return [...out, ...this.#closeStep(), failure(end.error)];
    const { outcome } = end;
    const finish = (finishReason: FinishReason): UIMessageChunk[] => [...out, ...this.#closeStep(), { type: 'finish', finishReason }];
    switch (outcome.status) {
      case 'paused': {
        const approval = outcome.approval;
        if (approval === undefined) return finish('other');
        // A sub-worker's call: the client has no part for it yet.
        if (!this.#shown.has(approval.callId)) out.push(input(approval.callId, approval.action, approval.input));
        out.push(approvalRequest(approval));
        return finish('tool-calls');
      }
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

  /** Reasoning and tool parts for an answer's blocks (and text parts, when `text`: its text did not stream here). */
  #blocks(blocks: readonly ContentBlock[], text: boolean): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    for (const b of blocks) {
      if (b.type === 'thinking' && b.thinking !== '') {
        const id = `reasoning-${++this.#next}`;
        out.push({ type: 'reasoning-start', id }, { type: 'reasoning-delta', id, delta: b.thinking }, { type: 'reasoning-end', id });
      } else if (b.type === 'text' && text && b.text !== '') {
        const id = `text-${++this.#next}`;
        out.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: b.text }, { type: 'text-end', id });
      } else if (b.type === 'tool_use' && !this.#shown.has(b.callId)) {
        this.#shown.add(b.callId);
        out.push(input(b.callId, b.name, b.args, b.providerExecuted));
      } else if (b.type === 'server_tool_result') {
        const chunk = output(b.callId, b.isError !== true, b.output);
        out.push({ ...chunk, providerExecuted: true });
      }
    }
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
