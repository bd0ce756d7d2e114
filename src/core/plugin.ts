/**
 * The extension framework (seed 001 section 9): commands with their reducers,
 * middleware, turn processors and indexers, packaged as a `WorkspaceExtension`.
 * The core domains are defined with the same pieces.
 */
import { z } from 'zod';
import { err, fail, GolemError, ok, type Result } from './errors.js';
import type { BlobStorage } from './blob-storage.js';
import type { Write } from './store.js';
import { Id, type Turn } from './records.js';
import type { CollectionMap, CollectionName, Indexer, WorkspaceView } from './workspace-index.js';

/** A command as a caller submits it; the manager fills in `id`, `timestamp` and `actor`. */
export const CommandInput = z.strictObject({
  type: z.string().min(1),
  payload: z.unknown().optional(),
  id: Id.optional(),
  timestamp: z.iso.datetime({ offset: true }).optional(),
  actor: z.string().nullable().optional(),
});
export type CommandInput = z.input<typeof CommandInput>;

/** A command after the manager normalised it: what reducers, middleware and the log see. */
export interface Command<P = unknown> {
  readonly id: string;
  readonly type: string;
  readonly payload: P;
  readonly timestamp: string;
  readonly actor: string | null;
}

/** What a reducer may read and use. It writes nothing: it returns writes. */
export interface ReducerContext {
  /** The current read model (state before this command). */
  readonly index: WorkspaceView;
  readonly command: Command;
  /**
   * The position this command is decided at in the command log (turns it creates carry it as
   * their `seq`). On a store several processes share, another process's command on another
   * session may take it first: this one then lands later, and the turns it wrote carry the
   * seq it got (`StoredWrite.stamp`). Keep it in turns only.
   */
  readonly seq: number;
  /** The command's timestamp: the time every record it touches is stamped with. */
  readonly now: string;
  /** A fresh unique id. */
  newId(): string;
  readonly blobStorage: BlobStorage;
}

/** Work to run after a commit (deleting blob bytes, rebuilding the index). Failures are reported, not undone. */
export type Effect = () => Promise<void>;

/** What a reducer computes: the writes (also the index patch), the caller's result, and after-commit effects. */
export interface Change<R> {
  writes: Write[];
  result: R;
  effects?: Effect[];
}

/** Named by a command that reads every session's history (`CommandDefinition.sessions`). */
export const ALL_SESSIONS = '*';

/** A command type: its payload schema and its reducer. */
export interface CommandDefinition<P = unknown, R = unknown, I = P, T extends string = string> {
  readonly type: T;
  readonly description: string;
  readonly payload: z.ZodType<P, I>;
  /** Validates against the index and returns the change; throws a GolemError to refuse. */
  reduce(payload: P, ctx: ReducerContext): Change<R> | Promise<Change<R>>;
  /**
   * The sessions whose records the reducer reads, besides the payload's `sessionId`: the
   * manager loads them before the reducer runs. `'*'` (ALL_SESSIONS) loads every one. Gets
   * the payload as given, before validation, and the index with the payload's session (and
   * its fork ancestry) already loaded.
   */
  sessions?(payload: unknown, view: WorkspaceView): readonly string[];
  /**
   * The reducer reads every session's record (not their turns): say so, and on a store other
   * processes share it is decided under the workspace's lock and refused if anything at all
   * was committed since (a role deleted while another process gives it to a session).
   */
  readonly readsEverySession?: boolean;
}

type PayloadOf<D> = D extends { payload: { _zod: { input: infer I } } } ? I : never;
type ResultOf<D> = D extends { reduce(...args: never[]): infer C } ? (Awaited<C> extends { result: infer R } ? R : never) : never;

/**
 * The `CommandMap` entries of command definitions (a union of `defineCommand` results):
 * each one's payload as callers write it and its result, by command type.
 *
 * @example
 * declare module 'golem' {
 *   interface CommandMap extends CommandMapOf<typeof noteAdd | typeof noteDelete> {}
 * }
 */
export type CommandMapOf<D extends { readonly type: string }> = { [C in D as C['type']]: { payload: PayloadOf<C>; result: ResultOf<C> } };

/** Declares a command with its payload inferred from the schema. */
export function defineCommand<T extends string, S extends z.ZodType, R>(definition: {
  type: T;
  description: string;
  payload: S;
  reduce(payload: z.output<S>, ctx: ReducerContext): Change<R> | Promise<Change<R>>;
  sessions?(payload: unknown, view: WorkspaceView): readonly string[];
  readsEverySession?: boolean;
}): CommandDefinition<z.output<S>, R, z.input<S>, T> {
  return definition as CommandDefinition<z.output<S>, R, z.input<S>, T>;
}

/** What middleware can see besides the command. */
export interface MiddlewareContext {
  /** The read model as it is now (before the command). */
  readonly index: WorkspaceView;
}

/**
 * Intercepts every dispatch (seed 001 section 9.2): return an error Result without
 * calling `next` to abort, call `next(changedCommand)` to augment, or look at what
 * `next()` returned to observe.
 */
export type Middleware = (command: Command, next: (command?: Command) => Promise<Result<unknown>>, ctx: MiddlewareContext) => Promise<Result<unknown>>;

/** What a guard sees: the state the command was decided on, what it would write, and which handle dispatched it. */
export interface GuardContext {
  /** The read model the reducer read (with a store other processes share, caught up with their commits). */
  readonly index: WorkspaceView;
  /** The writes the reducer returned: what the command would change. */
  readonly writes: readonly Write[];
  /** The dispatching manager's `instanceId`: one per handle on the workspace (per process that opened it). */
  readonly instanceId: string;
}

/**
 * Checks a command's change right after its reducer and before it is committed, in the
 * serializer and on the state the reducer read (middleware runs earlier, outside the
 * serializer, on a state that may change before the command's turn comes, and before
 * anyone knows what it would write). Throw a GolemError to refuse; nothing is written then.
 */
export type CommandGuard = (command: Command, ctx: GuardContext) => void;

/** Reacts to committed turns, e.g. to record memories or tasks an answer mentions (seed 001 section 9.3). */
export interface TurnProcessor {
  readonly name: string;
  /** Which turns to look at (default: every committed turn). */
  accepts?(turn: Turn): boolean;
  /** Runs after the turn is committed; it may dispatch further commands. */
  process(turn: Turn, ctx: { readonly command: Command; dispatch(command: CommandInput): Promise<Result<unknown>> }): Promise<void> | void;
}

/** Runs the processors on committed turns, in order; one that throws is reported and the others go on. */
export async function runProcessors(
  processors: readonly TurnProcessor[],
  ctx: { readonly command: Command; dispatch(command: CommandInput): Promise<Result<unknown>> },
  turns: readonly Turn[],
  onError: (processor: string, turn: Turn, error: unknown) => void,
): Promise<void> {
  for (const turn of turns) {
    for (const processor of processors) {
      if (processor.accepts !== undefined && !processor.accepts(turn)) continue;
      try {
        await processor.process(turn, ctx);
      } catch (error) {
        onError(processor.name, turn, error);
      }
    }
  }
}

/**
 * The schemas of an extension's collections, by name. A name declared in `CollectionMap`
 * must come with a schema of the record type declared there.
 */
export type CollectionSchemas = { readonly [K in CollectionName]?: z.ZodType<CollectionMap[K]> } & { readonly [name: string]: z.ZodType };

/**
 * A package of domain logic (seed 001 section 9.1): what `WorkspaceManager.extend` takes.
 * Golem's own parts (agent, environment, browser, UI) join the workspace as extensions too.
 */
export interface WorkspaceExtension {
  readonly name: string;
  /** Collections the extension's reducers write to, with the schema of their records (declare their types in `CollectionMap`). */
  readonly collections?: CollectionSchemas;
  readonly commands?: readonly CommandDefinition<unknown, unknown, unknown>[];
  readonly middleware?: readonly Middleware[];
  readonly guards?: readonly CommandGuard[];
  readonly indexers?: readonly Indexer[];
  readonly processors?: readonly TurnProcessor[];
}

/** The command's payload checked against its definition's schema: the parsed value, or INVALID_PAYLOAD saying what is wrong. */
export function validatePayload<P>(definition: CommandDefinition<P, unknown, unknown>, command: Command): Result<P> {
  let payload: ReturnType<typeof definition.payload.safeParse>;
  try {
    payload = definition.payload.safeParse(command.payload);
  } catch (error) {
    // A schema that cannot follow the payload (a recursive one, on a value nested past the stack): refused, not a store failure.
    const reason = error instanceof Error ? error.message : String(error);
    return err(fail('INVALID_PAYLOAD', `invalid ${command.type} payload: it could not be validated (${reason})`, { type: command.type }));
  }
  if (!payload.success) {
    const issues = payload.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message, code: i.code }));
    const summary = issues.map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`)).join('; ');
    return err(fail('INVALID_PAYLOAD', `invalid ${command.type} payload: ${summary}`, { type: command.type, issues }));
  }
  return ok(payload.data);
}

/**
 * Refuses an extension in seed 001's shape (`{ schemas, reducers }`), which would otherwise be
 * taken with its reducers silently ignored, saying what Golem takes instead.
 */
export function checkExtension(extension: WorkspaceExtension): void {
  const given = extension as WorkspaceExtension & { schemas?: unknown; reducers?: unknown };
  const wrong = [
    ...(given.reducers !== undefined
      ? [
          "`reducers` (seed 001's { 'custom:cmd': myReducer }): define each command with its payload schema and its reducer, " +
            "`commands: [defineCommand({ type: 'custom:cmd', description, payload: z.object({...}), reduce: (payload, ctx) => ({ writes, result }) })]`",
        ]
      : []),
    ...(given.schemas !== undefined
      ? ['`schemas`: give the records your reducers write as `collections: { name: zodSchema }` (and declare their types in `CollectionMap`)']
      : []),
  ];
  if (typeof given.name !== 'string' || given.name === '') wrong.push('`name`: every extension has a name (a non-empty string), which must be unique');
  if (wrong.length > 0) {
    throw new GolemError(
      'EXTENSION_INVALID',
      `the extension ${typeof given.name === 'string' && given.name !== '' ? `"${given.name}" ` : ''}cannot be registered: ${wrong.join('; ')}`,
      {
        details: {
          name: given.name ?? null,
          fields: [...(given.reducers !== undefined ? ['reducers'] : []), ...(given.schemas !== undefined ? ['schemas'] : [])],
        },
      },
    );
  }
}
