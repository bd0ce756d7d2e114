/**
 * An action: the unit of capability a model can ask for (ARCHITECTURE.md, "The agent
 * loop"). Its input schema is a Zod schema; the JSON Schema the model sees is generated
 * from it once and compiled with ajv, and every input is validated before `run`, with
 * errors a model can read and correct.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';
import type { ContentBlock, JsonObject } from '../core/blocks.js';
import { fail, GolemError, toGolemError, type Result } from '../core/errors.js';
import type { PromptTool } from '../models/prompt.js';
import type { FileAccess } from './files.js';
import type { ApprovalRequest, Risk } from './approval.js';
import { schemaCompiler } from '../core/json-schema.js';

/** Who may run an action (seed 003): the model alone, the model after the user agrees, or only the user. */
export type Trust = 'autonomous' | 'supervised' | 'manual';

/** One problem with an input, at a JSON path. */
export interface InputIssue {
  /** Where, as a JSON Pointer into the input ('' for the input itself). */
  path: string;
  message: string;
}

/** What an action's `run` gets besides its input. */
export interface ActionContext {
  signal?: AbortSignal;
  /** The id of the model's call this run answers. */
  callId?: string;
  /** The answer (turn version) that made the call. */
  turn?: { id: string; version: number };
  /** The session of the worker whose call this runs (where the call and its result are recorded). */
  sessionId?: string;
  /**
   * The project's files, when the worker has a project: the files on disk, or (manual
   * mode) a staging view whose writes become a clearance item.
   */
  files?: FileAccess;
}

/**
 * How a call ends its worker's run (`Action.endsRun`): the worker hands the run back to the
 * worker that gave it its task, with a question (`ask_parent`); or the call has no result
 * yet because it waits for approval `approvalId`, which nobody can answer now (a sub-worker's
 * call), and the run pauses until it is answered.
 */
export type RunEnd = { type: 'question'; question: string } | { type: 'paused'; approvalId: string };

/** How a supervised call is put to the user (seed 003 `ApprovalRequest` without the worker path). */
export interface ApprovalDescription {
  type: ApprovalRequest['type'];
  description: string;
  details: unknown;
  risk: Risk;
}

export interface Action<I = unknown, O = unknown> {
  readonly name: string;
  readonly description: string;
  readonly trust: Trust;
  /** The input's JSON Schema, as generated from the Zod schema (what the model is shown). */
  readonly jsonSchema: JsonObject;
  /** Checks an input: the typed value, or ACTION_INPUT_INVALID with every issue and a message for the model. */
  validate(input: unknown): Result<I>;
  run(input: I, ctx: ActionContext): Promise<O> | O;
  /** How a call is described when it asks for approval. */
  describe(input: I): ApprovalDescription;
  /**
   * What an 'always' or 'session' grant for this call covers: calls with the same key
   * are granted too. Default: the exact input.
   */
  grantKey(input: I): string;
  /**
   * True when the action changes nothing but files, through `ctx.files`: in manual mode
   * it then runs on a staging view and its changes wait for clearance. Other manual
   * actions wait as a whole call for the user to run.
   */
  readonly stages: boolean;
  /**
   * True when running a call again does no harm: it only reads, or sets what it sets to
   * the same value. A run resumed after a crash runs such a call again if it never got its
   * result; any other action's call that was started is not repeated, and the model is told
   * its outcome is unknown. Default false.
   */
  readonly repeatable: boolean;
  /**
   * Reads again what `trust`, `grantKey` and `describe` depend on, just before a call is put
   * to the trust policy: an MCP tool lists its server's tools again, so a tool the server
   * changed is decided on as it is now, even before the server's notice of the change arrives.
   * A failure fails the call (nothing runs on a stale decision).
   */
  recheck?(signal?: AbortSignal): Promise<void>;
  /** How a run's output is shown to the model (default: as JSON). */
  render?(output: O): string;
  /**
   * Why a run that returned counts as failed, or undefined when it did not (a command that
   * exited with 1 returned, and failed). Default: an output `{ success: false, error }` failed.
   */
  failed?(output: O): string | undefined;
  /** Set on an action whose call can end its worker's run: what the output says of the run (undefined: it goes on). */
  endsRun?(output: O): RunEnd | undefined;
  /**
   * The part of an output that a later one of the same key makes obsolete (a page
   * snapshot): shown after the rendered text, kept in full in the session, and left out of
   * prompts once a newer observation with the key follows (the turn's `meta.observation`).
   */
  observe?(output: O): Observation | undefined;
  /**
   * Images the output carries, already stored as the workspace's blobs (an MCP tool's
   * screenshot): they go back to the model with the result, so it sees them.
   */
  media?(output: O): Media[];
  /**
   * Content blocks the call's result turn carries besides the result, for people and front
   * ends (a plan's `task:proposal`); models are not sent them.
   */
  blocks?(output: O): ContentBlock[];
  /**
   * The action puts its calls to the user itself, in its run (`propose_plan` asks the user to
   * accept the plan it records, as its mode says): the worker runs it without asking first,
   * whatever its mode. Default false.
   */
  readonly asksItself?: boolean;
  /** The action as a tool in a prompt. */
  toTool(): PromptTool;
}

/** An image of an output, held in blob storage. */
export interface Media {
  sha256: string;
  mediaType: string;
}

/** What an action saw, which a newer observation with the same key makes obsolete (`key`: e.g. 'browser:<tab id>'). */
export interface Observation {
  key: string;
  text: string;
  /**
   * The part of the thing it shows, when not the whole (a page of a snapshot, a query, the
   * changes since an earlier one): a newer whole observation of the key makes it obsolete, as
   * does a newer one of the same view, and it makes obsolete only older ones of its view.
   */
  view?: string;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const ajv = schemaCompiler();

/** Declares an action; its JSON Schema is generated and compiled here, once. */
export function defineAction<S extends z.ZodType, O>(definition: {
  name: string;
  description: string;
  input: S;
  trust?: Trust;
  run(input: z.output<S>, ctx: ActionContext): Promise<O> | O;
  /** Default: a 'tool_call' of medium risk, described by the action's name and input. */
  describe?(input: z.output<S>): ApprovalDescription;
  /** Default: the input as canonical JSON (a grant covers exactly this call). */
  grantKey?(input: z.output<S>): string;
  stages?: boolean;
  /** Running a call again does no harm (it only reads, or sets a value): see Action.repeatable. Default false. */
  repeatable?: boolean;
  /** How a run's output is shown to the model (default: as JSON); e.g. a page snapshot as its text. */
  render?(output: O): string;
  /** Why a run that returned counts as failed, or undefined (see Action.failed). */
  failed?(output: O): string | undefined;
  /** The call can end the worker's run: what its output says of the run (see Action.endsRun). */
  endsRun?(output: O): RunEnd | undefined;
  /** The part of the output a later observation with the same key supersedes in prompts (a page snapshot). */
  observe?(output: O): Observation | undefined;
  /** Content blocks the result turn carries for people, not sent to models (see Action.blocks). */
  blocks?(output: O): ContentBlock[];
  /** The run asks the user itself, as the action's mode says (see Action.asksItself). */
  asksItself?: boolean;
}): Action<z.output<S>, O> {
  if (!NAME.test(definition.name)) {
    throw fail('INVALID_ARGUMENT', `an action name must be 1 to 64 letters, digits, _ or - (providers require it): "${definition.name}"`);
  }
  let jsonSchema: JsonObject;
  let check: ValidateFunction;
  try {
    const { $schema: _dialect, ...schema } = z.toJSONSchema(definition.input, { unrepresentable: 'throw' }) as JsonObject;
    if (schema.type !== 'object') throw new Error('the input must be an object schema (z.object)');
    jsonSchema = schema;
    check = ajv.compile(schema);
  } catch (cause) {
    throw new GolemError('INVALID_ARGUMENT', `the input schema of action "${definition.name}" cannot be a JSON Schema: ${(cause as Error).message}`, { cause });
  }
  const name = definition.name;
  return {
    name,
    description: definition.description,
    trust: definition.trust ?? 'autonomous',
    jsonSchema,
    validate(input: unknown): Result<z.output<S>> {
      if (!check(input)) return invalid(name, (check.errors ?? []).map(issueOf));
      // JSON Schema cannot say everything Zod can (refinements, transforms): Zod has the last word.
      const parsed = definition.input.safeParse(input);
      if (!parsed.success)
        return invalid(
          name,
          parsed.error.issues.map((i) => ({ path: i.path.length === 0 ? '' : `/${i.path.map(String).join('/')}`, message: i.message })),
        );
      return { ok: true, value: parsed.data };
    },
    run: (input, ctx) => definition.run(input, ctx),
    describe: (input) => definition.describe?.(input) ?? { type: 'tool_call', description: `${name} ${canonicalJson(input)}`, details: input, risk: 'medium' },
    grantKey: (input) => definition.grantKey?.(input) ?? canonicalJson(input),
    stages: definition.stages ?? false,
    repeatable: definition.repeatable ?? false,
    ...(definition.render !== undefined && { render: (output: O) => (definition.render as (o: O) => string)(output) }),
    ...(definition.failed !== undefined && { failed: (output: O) => (definition.failed as (o: O) => string | undefined)(output) }),
    ...(definition.endsRun !== undefined && { endsRun: (output: O) => (definition.endsRun as (o: O) => RunEnd | undefined)(output) }),
    ...(definition.observe !== undefined && { observe: (output: O) => (definition.observe as (o: O) => Observation | undefined)(output) }),
    ...(definition.blocks !== undefined && { blocks: (output: O) => (definition.blocks as (o: O) => ContentBlock[])(output) }),
    ...(definition.asksItself === true && { asksItself: true }),
    toTool: () => ({ name, description: definition.description, inputSchema: jsonSchema }),
  };
}

/**
 * Declares an action whose input is described by a JSON Schema another system gave (an MCP
 * server's tool): the schema is compiled here, once, and every input is checked against it
 * before `run`, with the same errors as `defineAction`'s. INVALID_ARGUMENT when the schema
 * is not an object schema or does not compile.
 */
export function defineJsonSchemaAction<O>(definition: {
  name: string;
  description: string;
  inputSchema: JsonObject;
  /** The mode, or a function giving it at each call (a tool whose configured trust holds only while it is unchanged). */
  trust?: Trust | (() => Trust);
  run(input: JsonObject, ctx: ActionContext): Promise<O> | O;
  recheck?(signal?: AbortSignal): Promise<void>;
  describe?(input: JsonObject): ApprovalDescription;
  grantKey?(input: JsonObject): string;
  repeatable?: boolean;
  render?(output: O): string;
  failed?(output: O): string | undefined;
  media?(output: O): Media[];
}): Action<JsonObject, O> {
  if (!NAME.test(definition.name)) {
    throw fail('INVALID_ARGUMENT', `an action name must be 1 to 64 letters, digits, _ or - (providers require it): "${definition.name}"`);
  }
  const { $schema: _dialect, ...schema } = definition.inputSchema;
  if (schema.type !== 'object') throw fail('INVALID_ARGUMENT', `the input schema of action "${definition.name}" must be an object schema ("type": "object")`);
  let check: ValidateFunction;
  try {
    // A compiler of its own: the shared one would keep every schema another system gave for good, and refuse a
    // schema's "$id" the second time it is given (a server's tools read again after it reconnects).
    check = schemaCompiler().compile(schema);
  } catch (cause) {
    throw new GolemError('INVALID_ARGUMENT', `the input schema of action "${definition.name}" does not compile: ${(cause as Error).message}`, { cause });
  }
  const name = definition.name;
  const trust = definition.trust ?? 'autonomous';
  return {
    name,
    description: definition.description,
    get trust(): Trust {
      return typeof trust === 'function' ? trust() : trust;
    },
    jsonSchema: schema,
    validate: (input: unknown): Result<JsonObject> =>
      check(input) ? { ok: true, value: input as JsonObject } : invalid(name, (check.errors ?? []).map(issueOf)),
    run: (input, ctx) => definition.run(input, ctx),
    describe: (input) => definition.describe?.(input) ?? { type: 'tool_call', description: `${name} ${canonicalJson(input)}`, details: input, risk: 'medium' },
    grantKey: (input) => definition.grantKey?.(input) ?? canonicalJson(input),
    stages: false,
    repeatable: definition.repeatable ?? false,
    ...(definition.render !== undefined && { render: (output: O) => (definition.render as (o: O) => string)(output) }),
    ...(definition.failed !== undefined && { failed: (output: O) => (definition.failed as (o: O) => string | undefined)(output) }),
    ...(definition.media !== undefined && { media: (output: O) => (definition.media as (o: O) => Media[])(output) }),
    ...(definition.recheck !== undefined && { recheck: (signal?: AbortSignal) => (definition.recheck as (s?: AbortSignal) => Promise<void>)(signal) }),
    toTool: () => ({ name, description: definition.description, inputSchema: schema }),
  };
}

/**
 * What a model reads of a call that failed: the error's stable code, then its message
 * (`PATH_PROTECTED: ".git/config" is inside .git/ ...`). A thrown value that is not a
 * GolemError reads as INTERNAL.
 */
export function failureText(error: unknown): string {
  const e = toGolemError(error);
  return `${e.code}: ${e.message}`;
}

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
    ) ?? 'null'
  );
}

function issueOf(error: ErrorObject): InputIssue {
  if (error.keyword === 'required') return { path: error.instancePath, message: `is missing the required property "${String(error.params.missingProperty)}"` };
  if (error.keyword === 'additionalProperties')
    return { path: error.instancePath, message: `has a property "${String(error.params.additionalProperty)}" that is not allowed` };
  if (error.keyword === 'enum') return { path: error.instancePath, message: `must be one of ${JSON.stringify(error.params.allowedValues)}` };
  return { path: error.instancePath, message: error.message ?? error.keyword };
}

function invalid(action: string, issues: InputIssue[]): Result<never> {
  const lines = issues.map((i) => `- ${i.path === '' ? 'the input' : i.path} ${i.message}`).join('\n');
  return {
    ok: false,
    error: new GolemError('ACTION_INPUT_INVALID', `The input for ${action} is not valid:\n${lines}\nCorrect it and call ${action} again.`, {
      details: { action, issues },
    }),
  };
}
