/**
 * Golem's one error type, its table of stable codes, and the `Result` value that
 * expected failures travel in.
 */

/**
 * Every error code Golem produces, with the HTTP status a server maps it to and a
 * one-line meaning. This is the one table: add a row here, never a code elsewhere.
 */
export const ERROR_CODES = {
  // Command envelope and payload
  UNKNOWN_COMMAND: { status: 400, meaning: 'no reducer handles this command type' },
  INVALID_COMMAND: { status: 400, meaning: 'the command envelope is malformed' },
  INVALID_PAYLOAD: { status: 400, meaning: "the command's payload does not match its schema" },
  ABORTED: { status: 409, meaning: 'a middleware refused the command' },
  DUPLICATE_ID: { status: 409, meaning: 'an entity with this id already exists' },
  // Workspace
  WORKSPACE_EXISTS: { status: 409, meaning: 'the workspace is already created' },
  WORKSPACE_CLOSED: { status: 503, meaning: 'the workspace was closed' },
  // Sessions and the turn DAG
  SESSION_NOT_FOUND: { status: 404, meaning: 'no session with this id' },
  SESSION_NOT_LOADED: { status: 409, meaning: "the session's turns are not in memory; load it (await session.load()) before a synchronous read" },
  TURN_NOT_FOUND: { status: 404, meaning: 'no turn (or turn version) with this id' },
  TURN_NOT_IN_SESSION: { status: 409, meaning: 'the turn is not part of this session' },
  TURN_NOT_ON_PATH: { status: 409, meaning: "the turn is not on the session's current path" },
  TURN_SHARED: { status: 409, meaning: 'another session still needs this turn' },
  HEAD_CONFLICT: { status: 409, meaning: 'the session head moved since the caller read it' },
  NO_PREVIOUS_VERSION: { status: 409, meaning: 'the turn has no earlier version' },
  NO_NEXT_VERSION: { status: 409, meaning: 'the turn has no later version' },
  MERGE_NOT_RELATED: {
    status: 409,
    meaning: 'the branches share no history (no common ancestor, not of one fork family), so one cannot be merged into the other',
  },
  MERGE_NOTHING: { status: 409, meaning: "the turn is already in the history of the session's head: there is nothing to merge or pick" },
  MODEL_REQUIRED: { status: 400, meaning: 'this call needs a model (a summary is written by one) and none was given' },
  // Roles, preferences, context
  ROLE_NOT_FOUND: { status: 404, meaning: 'no role with this name' },
  ROLE_IN_USE: { status: 409, meaning: 'sessions still use this role' },
  PREFERENCE_NOT_FOUND: { status: 404, meaning: 'no preference with this id' },
  PREFERENCE_IN_USE: { status: 409, meaning: 'roles or sessions still use this preference' },
  CONTEXT_NOT_FOUND: { status: 404, meaning: 'no context entry with this key' },
  // Blobs
  BLOB_NOT_FOUND: { status: 404, meaning: 'no blob record with this sha256' },
  BLOB_NOT_STORED: { status: 409, meaning: 'the blob storage does not hold these bytes' },
  BLOB_NOT_HELD: { status: 409, meaning: 'the blob has no explicit hold to release' },
  BLOB_TOO_LARGE: { status: 413, meaning: "the bytes are larger than the workspace's maxBlobBytes" },
  // Models
  MODEL_UNKNOWN_PROVIDER: { status: 400, meaning: 'the model spec names a provider Golem does not know' },
  MODEL_KEY_MISSING: { status: 401, meaning: "the provider's API key is not set" },
  MODEL_AUTH: { status: 401, meaning: 'the provider refused the credentials' },
  MODEL_UNREACHABLE: { status: 502, meaning: 'the model server could not be reached' },
  MODEL_ERROR: { status: 502, meaning: 'the model provider answered with an error' },
  MODEL_ABORTED: { status: 499, meaning: 'the model call was cancelled' },
  MODEL_TIMEOUT: { status: 504, meaning: 'the model sent nothing for too long, or took longer than its time limit' },
  MODEL_SCRIPT_EXHAUSTED: { status: 500, meaning: 'a scripted model was called more times than it has steps' },
  PROMPT_TOO_LARGE: { status: 413, meaning: 'the prompt cannot fit the token budget' },
  EMBEDDING_INVALID: { status: 502, meaning: 'the embedding model gave vectors of the wrong count, length or values (not finite, all zero)' },
  // Actions
  ACTION_INPUT_INVALID: { status: 400, meaning: "an action's input does not match its schema" },
  // The structured response protocol and the browser executor (seed 002)
  PROTOCOL_INVALID_RESPONSE: { status: 422, meaning: 'the model kept answering with responses that do not match the response schema' },
  VARIABLE_NOT_FOUND: { status: 404, meaning: 'a ${variable} names no saved variable or secret' },
  URL_NOT_ALLOWED: { status: 403, meaning: 'the URL scheme or host is not on the allowlist' },
  SELECTOR_NOT_ALLOWED: { status: 400, meaning: 'the selector is malformed or uses an engine that is not allowed' },
  SNAPSHOT_STALE: { status: 409, meaning: 'the selector refers to a page snapshot that no longer matches the page' },
  ELEMENT_NOT_FOUND: { status: 404, meaning: 'no element on the page matches the selector' },
  UI_FIELD_NOT_FOUND: { status: 404, meaning: 'the UI instance has no field of this key and type (or the user sees no such instance)' },
  UPLOAD_QUOTA: {
    status: 413,
    meaning: "the file would take the UI uploads held (uploaded, not yet sent by a click) past the instance's or the user's cap; details say which",
  },
  UI_ACTION_REFUSED: {
    status: 422,
    meaning: "a user's click on a model-built UI was refused; details.code says why (a seed 004 code, INVALID_VALUE or INVALID_MESSAGE)",
  },
  UI_PATCH_REJECTED: { status: 422, meaning: 'a patch_ui_state call was refused; details.errors has the seed 004 codes' },
  RENDERER_IN_PROJECT: { status: 403, meaning: "a component's renderer is inside an agent's project, where the agent could rewrite it" },
  ELEMENT_AMBIGUOUS: { status: 409, meaning: 'the selector matches more than one element, or the option more than one choice' },
  BROWSER_UNAVAILABLE: { status: 503, meaning: 'the browser (playwright-core and Chromium) could not be started' },
  BROWSER_SESSION_NOT_FOUND: { status: 404, meaning: 'no open browser session with this id' },
  BROWSER_TIMEOUT: { status: 504, meaning: 'the page did not respond in time' },
  BROWSER_ERROR: { status: 502, meaning: 'the browser failed to carry out the command' },
  // Workers, trust, approvals and clearance (seed 003)
  WORKER_DEPTH_EXCEEDED: { status: 409, meaning: 'a sub-worker would be deeper than the depth limit' },
  WORKER_NOT_FOUND: { status: 404, meaning: 'no worker with this id' },
  APPROVAL_NOT_FOUND: { status: 404, meaning: 'no approval with this id' },
  APPROVAL_ANSWERED: { status: 409, meaning: 'the approval was already answered' },
  APPROVAL_MISMATCH: { status: 409, meaning: 'the answer was given for a different call than the one waiting' },
  APPROVAL_PENDING: { status: 409, meaning: 'an approval waits for its answer; answer it before sending a new message' },
  GRANT_NOT_FOUND: { status: 404, meaning: 'no grant with this id' },
  CLEARANCE_NOT_FOUND: { status: 404, meaning: 'no clearance item with this id' },
  CLEARANCE_DECIDED: { status: 409, meaning: 'the clearance item was already pushed or discarded' },
  CLEARANCE_CONFLICT: { status: 409, meaning: 'the files changed since the item was staged and the changes cannot be merged' },
  LEASE_LOST: { status: 409, meaning: "the run's lease lapsed and another process took the run over; this one must stop" },
  RUN_NOT_FOUND: { status: 404, meaning: 'no run has that id' },
  RUN_ENDED: { status: 409, meaning: 'the run ended; a new request starts a new run' },
  RUN_CANCELLED: { status: 409, meaning: 'the run was cancelled (ws.runs.cancel), from this process or another' },
  INBOX_FULL: { status: 429, meaning: "the session's inbox holds as many messages as it takes; wait for its run, or take one back" },
  MESSAGE_NOT_FOUND: { status: 404, meaning: 'no message with that id waits in an inbox (delivered, taken back, or never sent)' },
  // Tasks and plans
  TASK_NOT_FOUND: { status: 404, meaning: 'no task with this id' },
  TASK_CLOSED: { status: 409, meaning: 'the task is closed (done, cancelled or declined); nothing in it changes any more' },
  TASK_DECIDED: { status: 409, meaning: 'the task was already accepted; update it or close it instead' },
  TASK_NOT_ACCEPTED: { status: 409, meaning: 'the task is still a proposal; accept it before marking its steps or closing it as done' },
  // golem serve
  SESSION_BUSY: { status: 409, meaning: "the session's agent is running (here or in another process); wait for it or stop it" },
  NO_MODEL: { status: 400, meaning: 'the server was started without a model, so it cannot answer' },
  UNAUTHORIZED: { status: 401, meaning: 'the token is missing or wrong' },
  HOST_NOT_ALLOWED: { status: 403, meaning: 'the request names a host this server does not answer for (DNS rebinding)' },
  ORIGIN_NOT_ALLOWED: { status: 403, meaning: "the request comes from a page of another origin than the server's own" },
  PATH_OUTSIDE_PROJECT: { status: 403, meaning: 'a path leads outside the project root' },
  PATH_PROTECTED: { status: 403, meaning: "a path is in git's data (.git) or Golem's workspace (.golem), which project actions may not read or change" },
  FILE_NOT_FOUND: { status: 404, meaning: 'no file at this path' },
  SEARCH_TIMEOUT: { status: 504, meaning: 'a search of the project took longer than its time budget and was stopped' },
  GIT_ERROR: { status: 500, meaning: 'a git command failed' },
  // MCP servers (golem/mcp)
  MCP_CONFIG_INVALID: { status: 400, meaning: "an MCP server's configuration (.mcp.json) is not valid" },
  MCP_SERVER_NOT_FOUND: { status: 404, meaning: 'no MCP server with this name is configured or connected' },
  MCP_UNAVAILABLE: { status: 502, meaning: 'the MCP server could not be started or reached, or its connection closed' },
  MCP_AUTH_REQUIRED: { status: 401, meaning: 'the MCP server needs the user to sign in (OAuth), and the sign-in did not happen' },
  MCP_TIMEOUT: { status: 504, meaning: 'the MCP server did not answer in time' },
  MCP_ERROR: { status: 502, meaning: 'the MCP server answered with an error or with a message that is not valid MCP' },
  MCP_TOOL_INVALID: { status: 422, meaning: 'the MCP server lists a tool that cannot be offered (its input schema is not valid)' },
  MCP_TOOL_NAME_CLASH: { status: 409, meaning: 'two MCP tools would have the same action name' },
  // Extensions
  EXTENSION_CONFLICT: { status: 500, meaning: 'two extensions claim the same name' },
  EXTENSION_INVALID: { status: 400, meaning: 'an extension is not in the shape Golem takes (seed 001 reducers, no name)' },
  // Storage
  STORE_ERROR: { status: 500, meaning: 'the store failed; nothing was written' },
  STORE_CONFLICT: { status: 409, meaning: 'another process wrote to the store first; nothing was written' },
  STORE_VERSION_TOO_NEW: { status: 500, meaning: 'the store was written by a newer Golem' },
  CORRUPT_RECORD: { status: 500, meaning: 'a record read back does not match its schema' },
  DEPENDENCY_MISSING: { status: 500, meaning: 'an optional package that this part of Golem needs is not installed' },
  INVALID_ARGUMENT: { status: 400, meaning: 'an argument to a Golem function is invalid' },
  INTERNAL: { status: 500, meaning: 'a bug in Golem or an extension' },
} as const satisfies Record<string, { status: number; meaning: string }>;

/** A stable, machine-readable error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

const marker = Symbol.for('golem.error');

/**
 * The base class of every error Golem raises. `code` is stable across versions;
 * `details` carries structured context (ids, paths, validation issues).
 *
 * @example
 * try { await session.editTurn(id, blocks) }
 * catch (e) { if (GolemError.isInstance(e) && e.code === 'TURN_NOT_FOUND') ... }
 */
export class GolemError extends Error {
  readonly code: ErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  private readonly [marker] = true;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; details?: Record<string, unknown> } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GolemError';
    this.code = code;
    this.details = options.details ?? {};
  }

  /** True for any GolemError, even one made by another copy of this package. */
  static isInstance(error: unknown): error is GolemError {
    return error instanceof Error && marker in error;
  }

  /** The HTTP status a server answers with for this error. */
  get status(): number {
    return ERROR_CODES[this.code].status;
  }

  toJSON(): { code: ErrorCode; message: string; details: Readonly<Record<string, unknown>> } {
    return { code: this.code, message: this.message, details: this.details };
  }
}

/** Shorthand for `new GolemError(...)`, for `throw fail(...)` in reducers. */
export function fail(code: ErrorCode, message: string, details?: Record<string, unknown>): GolemError {
  return details === undefined ? new GolemError(code, message) : new GolemError(code, message, { details });
}

/** An expected failure as a value. */
export type Result<T, E = GolemError> = { ok: true; value: T; error?: never } | { ok: false; error: E; value?: never };

/** A successful `Result`. */
export function ok<T>(value: T): Result<T, never> {
  return { ok: true, value };
}

/** A failed `Result`. */
export function err<E = GolemError>(error: E): Result<never, E> {
  return { ok: false, error };
}

/** The value of a `Result`, or its error thrown. */
export function unwrap<T>(result: Result<T>): T {
  if (result.ok) return result.value;
  throw result.error;
}

/** Any thrown value as a GolemError: GolemErrors pass through, the rest become `fallback`. */
export function toGolemError(error: unknown, fallback: ErrorCode = 'INTERNAL'): GolemError {
  if (GolemError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new GolemError(fallback, message, { cause: error });
}
