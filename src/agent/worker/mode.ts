/**
 * An action mode (ARCHITECTURE.md, "The agent loop"): how the actions are offered to the
 * model, how the calls are read from its answer, and how their results go back to it. The
 * run's steps ask the mode and never its name; each mode is a module (tools-mode.ts,
 * text-mode.ts, envelope-mode.ts).
 */
import type { Action } from '../../action/action.js';
import type { JsonValue } from '../../core/blocks.js';
import type { GolemError } from '../../core/errors.js';
import type { Turn } from '../../core/records.js';
import type { RespondOptions } from '../../prompt/respond.js';
import type { AIResponse } from '../../protocol/types.js';
import type { ActionOutcome, Call } from './call.js';

/** What an answer asks for: its calls, and why the requests in it that could not be read were not (as the model is told). */
export interface Requests {
  calls: Call[];
  errors: string[];
  /**
   * Set where a mode whose results go back each as it comes read this answer's calls from its
   * text instead (tools mode, when the model wrote instructions instead of calling tools):
   * their results go back together, as the next user turn (`recordTogether`).
   */
  together?: true;
}

/** What a model call gets from the mode besides the prompt. */
export type ModeOffer = Pick<RespondOptions, 'tools' | 'responseFormat' | 'providerOptions'>;

interface ModeCommon {
  /** The actions as the model is offered them (native tools, or a response format with the provider options it needs). */
  offer(actions: ReadonlyMap<string, Action>, providerOptions: RespondOptions['providerOptions']): ModeOffer;
  /** What the system prompt says of the mode, if anything (envelope mode: the protocol). */
  instructions?(): string;
  /** The calls one answer asks for. */
  requests(turn: Turn): Requests;
  /**
   * A supervised call with nobody to ask may pause the run, the call left without a result
   * until `run()` resumes it. Where it may not, the call is refused (and its approval waits).
   */
  readonly pausable: boolean;
  /**
   * Set where answers that ask for nothing readable are counted (envelope mode): the error
   * that ends the run once `inARow` of them came in a row, undefined while the run goes on.
   */
  tooManyInvalid?(inARow: number, errors: readonly string[]): GolemError | undefined;
  /** Set where an answer that asks for nothing more says how the task ended (envelope mode): its decision. */
  decision?(turn: Turn): AIResponse['decision'] | undefined;
  /**
   * How the model asks for an action in this mode, as its context tells it: `name` with
   * `params` (the values are shown as they are, placeholders included).
   */
  howToCall(name: string, params: Record<string, JsonValue>): string;
}

/**
 * A mode: its results go back either each as it comes, as a tool turn of its own (notes
 * may then follow them, and a resumed run picks up the calls that have none), or all of an
 * answer's together after its last call, as the next user turn.
 */
export type ModeProtocol = ModeCommon &
  (
    | {
        readonly results: 'each';
        record(callId: string, result: ActionOutcome): Promise<void>;
        /** The results of an answer whose calls were read from its text (`Requests.together`), as one user turn. */
        recordTogether(results: readonly ActionOutcome[], errors: readonly string[]): Promise<void>;
      }
    | { readonly results: 'together'; record(results: readonly ActionOutcome[], errors: readonly string[]): Promise<void> }
  );
