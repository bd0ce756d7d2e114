/**
 * A client's own tools (AG-UI's frontend tools; the AI SDK's tools without `execute`), as
 * actions of one run: the model sees each as it sees the agent's own; when it calls one, the
 * run's log says so (a `client-call` entry, on which a protocol route ends the client's
 * stream with the call pending), and the action waits until the client's next request
 * carries the result, which `answer` hands over. A result that comes while no run waits for
 * it (the server restarted) is kept for the call, and a run resumed on the session performs
 * the call again and takes it at once.
 */
import { defineJsonSchemaAction, type Action } from '../action/action.js';
import type { JsonObject } from '../core/blocks.js';
import { GolemError } from '../core/errors.js';
import type { RunLog } from '../agent/run-log.js';

/** A tool as the client describes it: its name, what it does, and its input's JSON Schema. */
export interface ClientTool {
  name: string;
  description: string;
  parameters: JsonObject;
}

/** What the client answered: the result's text (or JSON), and whether it is an error. */
export interface ClientResult {
  content: unknown;
  error?: string;
}

/** How long a run waits for a client's result before the model is told there is none (default 10 minutes). */
export const CLIENT_WAIT_MS = 10 * 60_000;

export class ClientCalls {
  /** The calls runs wait for, by session and call (providers that number calls per answer repeat ids across threads). */
  readonly #waiting = new Map<string, { sessionId: string; callId: string; resolve: (result: ClientResult) => void }>();
  /** Results that came for a call no run waited for, by session and call. */
  readonly #kept = new Map<string, ClientResult>();
  readonly #waitMs: number;

  constructor(options: { waitMs?: number } = {}) {
    this.#waitMs = options.waitMs ?? CLIENT_WAIT_MS;
  }

  /** The client's tools as actions of the run whose log is `log` (INVALID_ARGUMENT for a tool whose schema Golem cannot take). */
  actions(tools: readonly ClientTool[], log: RunLog): Action[] {
    return tools.map((tool) =>
      defineJsonSchemaAction<ClientResult>({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.parameters,
        // The client runs it; asking the user again here would ask twice.
        trust: 'autonomous',
        // Performed again when a run resumes: it waits for (or takes) the client's result; it does nothing itself.
        repeatable: true,
        run: (input, ctx) => this.#wait(log, tool.name, input, ctx.callId, ctx.signal),
        render: (result) => (typeof result.content === 'string' ? result.content : JSON.stringify(result.content)),
        failed: (result) => result.error,
      }),
    );
  }

  /** The calls of `sessionId` a run waits for here. */
  waiting(sessionId: string): string[] {
    return [...this.#waiting.values()].flatMap((w) => (w.sessionId === sessionId ? [w.callId] : []));
  }

  /** Hands the client's result to the run waiting for it; false when none waits (it is kept for a resumed run). */
  answer(sessionId: string, callId: string, result: ClientResult): boolean {
    const key = keyOf(sessionId, callId);
    const waiting = this.#waiting.get(key);
    if (waiting !== undefined) {
      waiting.resolve(result);
      return true;
    }
    if (this.#kept.size >= 1000) this.#kept.delete(this.#kept.keys().next().value as string);
    this.#kept.set(key, result);
    return false;
  }

  #wait(log: RunLog, name: string, input: JsonObject, callId: string | undefined, signal: AbortSignal | undefined): Promise<ClientResult> {
    if (callId === undefined) throw new GolemError('INTERNAL', `the client's tool ${name} was called without a call id`);
    const key = keyOf(log.sessionId, callId);
    const kept = this.#kept.get(key);
    if (kept !== undefined) {
      this.#kept.delete(key);
      return Promise.resolve(kept);
    }
    return new Promise((resolve) => {
      const done = (result: ClientResult) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.#waiting.delete(key);
        resolve(result);
      };
      const onAbort = () => done({ content: '', error: 'the run was stopped before the client answered' });
      const timer = setTimeout(() => done({ content: '', error: `the client sent no result within ${Math.round(this.#waitMs / 1000)} s` }), this.#waitMs);
      timer.unref();
      if (signal?.aborted === true) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(key, { sessionId: log.sessionId, callId, resolve: done });
      log.push({ type: 'client-call', call: { callId, name, input } });
    });
  }
}

const keyOf = (sessionId: string, callId: string) => `${sessionId}\n${callId}`;
