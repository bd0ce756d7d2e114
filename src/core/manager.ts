/**
 * The WorkspaceManager: the one write path. Every change is a command that goes
 * middleware -> serializer -> reducer -> store transaction (writes + command log)
 * -> index -> event bus.
 */
import { err, fail, GolemError, ok, toGolemError, type Result } from './errors.js';
import { uuidv7 } from './ids.js';
import type { BlobStorage } from './blob-storage.js';
import { appliedWrites, encodeWrites } from './stored-writes.js';
import { stampWrites, streamCheck, type Lock, type Scope } from './streams.js';
import { Follower } from './follower.js';
import { Contention, decide } from './decide.js';
import type { Store, StoreChange, StoredWrite, Write } from './store.js';
import { CORE_COMMANDS, WORKSPACE_SYNC, type CoreCommandMap } from './commands/index.js';
import { EventBus } from './event-bus.js';
import {
  CommandInput,
  type Change,
  type Command,
  type CommandDefinition,
  type CommandGuard,
  type Middleware,
  type ReducerContext,
  type TurnProcessor,
  type WorkspaceExtension,
  checkExtension,
  runProcessors,
  validatePayload,
} from './plugin.js';
import type { Turn } from './records.js';
import { Serializer } from './serializer.js';
import { WorkspaceIndex, type Indexer, type WorkspaceView } from './workspace-index.js';
import { SessionCache, type Acquired, type CacheOptions } from './session-cache.js';

/**
 * Payload and result types per command type. Extensions add their commands by declaration merging:
 *
 * @example
 * declare module 'golem' {
 *   interface CommandMap { 'note:add': { payload: { text: string }; result: Note } }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface CommandMap extends CoreCommandMap {}

/** A command type Golem knows the payload and result of. */
export type CommandType = keyof CommandMap;

/** A command as `dispatch` takes it, typed by its `type`. */
export type TypedCommand<K extends CommandType> = Omit<CommandInput, 'type' | 'payload'> & { type: K; payload: CommandMap[K]['payload'] };

/** Published after a command commits. */
export interface CommittedEvent<K extends string = string> {
  /** The command's position in the command log. */
  seq: number;
  command: Command<K extends CommandType ? CommandMap[K]['payload'] : unknown>;
  result: K extends CommandType ? CommandMap[K]['result'] : unknown;
  /** The records it changed (the index patch). */
  writes: readonly Write[];
}

/** Every event the workspace publishes. Each command type is also an event name. */
export type WorkspaceEvents = { [K in CommandType]: CommittedEvent<K> } & {
  /** Every committed command. */
  command: CommittedEvent;
  /** A command that was refused; nothing was written. */
  rejected: { command: Command; error: GolemError };
  /**
   * The index was rebuilt from the store, or caught up with commands of another process: what was read before may
   * have changed (for a catch-up, in the `collections` it names; for a rebuild, anywhere).
   */
  'index:rebuilt': { lastSeq: number; collections?: string[] };
  /** A listener threw; the emitter carried on. */
  'listener:error': { type: string; error: unknown };
  /** A turn processor threw; the command it reacted to stands. */
  'processor:error': { processor: string; turn: Turn; error: unknown };
  /** An after-commit effect failed (e.g. deleting blob bytes); the command stands. */
  'effect:error': { command: Command; error: unknown };
  /** A custom indexer threw; the index itself is intact, that indexer's projection may not be. */
  'indexer:error': { indexer: string; error: unknown };
};

/** A command decided and committed: the seq it got, its payload as validated, the reducer's change, the writes as applied. */
type Attempt = Result<{ seq: number; payload: unknown; change: Change<unknown>; applied: Write[] }>;

export interface WorkspaceManagerOptions {
  store: Store;
  blobStorage: BlobStorage;
  /** The workspace's folder on disk (createWorkspace's `dir`), whatever its store: what it holds is never a project's. */
  dir?: string;
  /** The clock commands are stamped with (inject one for deterministic tests). */
  clock?: () => Date;
  /** The id generator (default: UUID v7, which sorts by creation time). */
  newId?: () => string;
  /** Who dispatches commands by default (recorded in the command log). */
  actor?: string | null;
  /** How much of the workspace stays in memory, on a store that loads per session. */
  cache?: CacheOptions;
  /** This handle's id (default: a fresh UUID v7): see `WorkspaceManager.instanceId`. */
  instanceId?: string;
}

export type { CacheOptions } from './session-cache.js';

export class WorkspaceManager {
  readonly store: Store;
  readonly blobStorage: BlobStorage;
  /** The workspace's folder on disk (its files, the chat history), when it has one. */
  readonly dir: string | undefined;
  readonly events: EventBus<WorkspaceEvents>;
  /** This handle on the workspace (one per process that opened it): a run lease's holder, told to every guard. */
  readonly instanceId: string;
  readonly #index = new WorkspaceIndex();
  readonly #serializer = new Serializer();
  readonly #commands = new Map<string, CommandDefinition<unknown, unknown, unknown>>();
  readonly #middleware: Middleware[] = [];
  readonly #guards: CommandGuard[] = [];
  readonly #refused = new WeakSet<GolemError>(); // errors of commands a reducer or guard refused (not the store)
  readonly #processors: TurnProcessor[] = [];
  readonly #extensions = new Set<string>();
  readonly #clock: () => Date;
  readonly #newId: () => string;
  readonly #actor: string | null;
  readonly #cache: SessionCache;
  readonly #follower: Follower;
  /** Sessions other processes lately fought this one over: their commands go straight to their lock. */
  readonly #contention = new Contention();
  #closed = false;
  #storeClosed = false;
  #unsubscribe: (() => void) | undefined;

  constructor(options: WorkspaceManagerOptions) {
    this.store = options.store;
    this.blobStorage = options.blobStorage;
    this.dir = options.dir;
    this.#clock = options.clock ?? (() => new Date());
    this.#newId = options.newId ?? (() => uuidv7());
    this.#actor = options.actor ?? null;
    this.instanceId = options.instanceId ?? uuidv7();
    this.#cache = new SessionCache(this.#index, this.store, options.cache ?? {}, () => this.#follower.catchUp());
    this.events = new EventBus<WorkspaceEvents>({
      onListenerError: (error, type) => {
        if (type !== 'listener:error') this.events.emit('listener:error', { type: String(type), error });
      },
    });
    this.#index.onIndexerError = (indexer, error) => this.events.emit('indexer:error', { indexer, error });
    this.#follower = new Follower({
      index: this.#index,
      store: this.store,
      cache: this.#cache,
      report: {
        rebuilt: (event) => this.events.emit('index:rebuilt', event),
        failed: (error) => this.events.emit('listener:error', { type: 'store:subscribe', error }),
      },
      serializer: this.#serializer,
      closed: () => this.#closed,
    });
    this.extend({ name: 'core', commands: CORE_COMMANDS });
  }

  /** Opens the store and builds the index from it; with a store processes share, the index follows their commits. */
  async open(): Promise<void> {
    await this.store.open();
    this.#index.lazy = this.store.loadRecords !== undefined;
    await this.#follower.rebuild();
    this.#unsubscribe = this.store.subscribe?.((seq) => this.#follower.hear(seq));
  }

  /**
   * Adds an extension's collections, commands, middleware, indexers and processors.
   * Register extensions before the first dispatch, so rebuilds validate their records.
   */
  extend(extension: WorkspaceExtension): void {
    checkExtension(extension);
    if (this.#extensions.has(extension.name)) throw new GolemError('EXTENSION_CONFLICT', `the extension "${extension.name}" is already registered`);
    for (const command of extension.commands ?? []) {
      if (this.#commands.has(command.type)) throw new GolemError('EXTENSION_CONFLICT', `the command "${command.type}" is already defined`);
    }
    for (const [name, schema] of Object.entries(extension.collections ?? {})) this.#index.defineCollection(name, schema);
    for (const command of extension.commands ?? []) this.#commands.set(command.type, command);
    for (const indexer of extension.indexers ?? []) this.#index.addIndexer(indexer);
    this.#middleware.push(...(extension.middleware ?? []));
    this.#guards.push(...(extension.guards ?? []));
    this.#processors.push(...(extension.processors ?? []));
    this.#extensions.add(extension.name);
  }

  /** Adds a middleware (runs in the order added, around every dispatch). */
  use(middleware: Middleware): () => void {
    this.#middleware.push(middleware);
    return () => {
      const at = this.#middleware.indexOf(middleware);
      if (at !== -1) this.#middleware.splice(at, 1);
    };
  }

  /** Adds a guard (see CommandGuard); returns its removal. */
  addGuard(guard: CommandGuard): () => void {
    this.#guards.push(guard);
    return () => {
      const at = this.#guards.indexOf(guard);
      if (at !== -1) this.#guards.splice(at, 1);
    };
  }

  /** Adds a custom read projection, built at once from the current index. */
  addIndexer(indexer: Indexer): void {
    this.#index.addIndexer(indexer);
  }

  /** Adds a turn processor. */
  addProcessor(processor: TurnProcessor): void {
    this.#processors.push(processor);
  }

  /** A fresh id from the workspace's id generator. */
  newId(): string {
    return this.#newId();
  }

  /** The time by the clock commands are stamped with (an injected one in tests). */
  now(): Date {
    return this.#clock();
  }

  /** The types of every command this workspace handles. */
  commandTypes(): string[] {
    return [...this.#commands.keys()];
  }

  /** The index (read model), synchronously. A session's turns are in it once the session is loaded (see `load`). */
  workspace(): WorkspaceView {
    return this.#index;
  }

  /**
   * Loads the sessions' records into the index (their turns, and the fork ancestry they see) for synchronous
   * reads of `workspace()`. Loaded ones cost nothing; commands load what they name; unknown ids load empty.
   */
  async load(sessionIds: readonly string[]): Promise<void> {
    const missing = sessionIds.filter((id) => !this.#index.isLoaded(id));
    this.#cache.use(sessionIds);
    if (missing.length === 0) return this.#cache.trim();
    if (this.#closed) throw new GolemError('WORKSPACE_CLOSED', 'the workspace is closed');
    await this.#serializer.run(async () => {
      if (this.#storeClosed) throw new GolemError('WORKSPACE_CLOSED', 'the workspace is closed');
      await this.#cache.load(missing);
      this.#cache.use(sessionIds); // marked before the trim: the load may have taken more than one turn of the event loop
      this.#cache.trim();
    });
  }

  /** The whole workspace as the store holds it now, in a read model of its own (for checks such as `golem doctor`; not kept). */
  async wholeWorkspace(): Promise<WorkspaceView> {
    return this.#cache.readWhole();
  }

  /** The cache's state: the sessions in memory (least recently used first) and their records' size. */
  cacheStats(): { sessions: number; bytes: number; maxSessions: number; maxBytes: number } {
    return this.#cache.stats();
  }

  /** Runs one command through the pipeline. Expected failures come back as `{ ok: false, error }` (a stable code); nothing is written. */
  dispatch<K extends CommandType>(command: TypedCommand<K>): Promise<Result<CommandMap[K]['result']>>;
  /** Commands of types not in `CommandMap` (an extension's, or a type only known at run time). */
  dispatch<T extends string>(command: Omit<CommandInput, 'type'> & { type: T extends CommandType ? never : T }): Promise<Result<unknown>>;
  async dispatch(input: CommandInput): Promise<Result<unknown>> {
    if (this.#closed) return err(new GolemError('WORKSPACE_CLOSED', 'the workspace is closed'));
    const parsed = CommandInput.safeParse(input);
    if (!parsed.success) {
      return err(
        new GolemError('INVALID_COMMAND', `malformed command: ${parsed.error.issues.map((i) => i.message).join('; ')}`, {
          details: { issues: parsed.error.issues },
        }),
      );
    }
    const command: Command = {
      id: parsed.data.id ?? this.#newId(),
      type: parsed.data.type,
      payload: parsed.data.payload ?? {},
      timestamp: parsed.data.timestamp ?? this.#clock().toISOString(),
      actor: parsed.data.actor ?? this.#actor,
    };
    const terminal = async (cmd: Command): Promise<Result<unknown>> => {
      const outcome = await this.#serializer.run(() => this.#execute(cmd));
      if (!outcome.ok) {
        this.events.emit('rejected', { command: cmd, error: outcome.error });
        return outcome;
      }
      const onError = (processor: string, turn: Turn, error: unknown) => this.events.emit('processor:error', { processor, turn, error });
      await runProcessors(this.#processors, { command: cmd, dispatch: (next: CommandInput) => this.dispatch(next) }, outcome.value.turns, onError);
      return ok(outcome.value.result);
    };
    const run = async (at: number, cmd: Command): Promise<Result<unknown>> => {
      const middleware = this.#middleware[at];
      if (middleware === undefined) return terminal(cmd);
      try {
        return await middleware(cmd, (next = cmd) => run(at + 1, next), { index: this.#index });
      } catch (error) {
        return err(toGolemError(error));
      }
    };
    return run(0, command);
  }

  /** Rebuilds the index from the store, through the serializer. */
  async sync(): Promise<void> {
    const result = await this.dispatch({ type: WORKSPACE_SYNC, payload: {} });
    if (!result.ok) throw result.error;
  }

  /** Catches up with what other processes committed (writes do by themselves); resolves with whether anything was new. */
  async refresh(): Promise<boolean> {
    if (this.#closed) return false;
    return this.#serializer.run(async () => (this.#storeClosed ? false : this.#follower.catchUp()));
  }

  /** Waits for queued commands, then closes the store. Later dispatches fail with WORKSPACE_CLOSED. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe?.();
    await this.#serializer.idle();
    // Run the store's close through the queue, so a command still in middleware finds it closed, never half-open.
    await this.#serializer.run(async () => {
      this.#storeClosed = true;
      await this.store.close();
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** One command, inside the serializer: reduce, commit, apply to the index, then effects and events. */
  async #execute(command: Command): Promise<Result<{ result: unknown; turns: Turn[] }>> {
    // A command may have passed the check in dispatch and waited in middleware while the workspace closed.
    if (this.#storeClosed) return err(new GolemError('WORKSPACE_CLOSED', 'the workspace is closed'));
    let held: Acquired;
    try {
      held = await this.#cache.acquire(command, this.#commands.get(command.type));
    } catch (error) {
      return err(toGolemError(error, 'STORE_ERROR'));
    }
    try {
      return await this.#executeLoaded(command, held.scope);
    } finally {
      held.release();
    }
  }

  async #executeLoaded(command: Command, scope: Scope): Promise<Result<{ result: unknown; turns: Turn[] }>> {
    let attempt: Attempt;
    try {
      attempt = await decide({
        store: this.store,
        scope,
        step: (lock) => this.#step(command, scope, lock),
        catchUp: () => this.#follower.catchUp(),
        refused: (error) => this.#refused.has(error),
        contention: this.#contention,
      });
    } catch (error) {
      return err(toGolemError(error, 'STORE_ERROR'));
    }
    if (!attempt.ok) return attempt;
    const { seq, payload, change, applied } = attempt.value;
    const result = asApplied(change.result, change.writes, applied);
    const event: CommittedEvent = { seq, command: { ...command, payload }, result, writes: applied };
    this.events.emit(command.type as CommandType, event);
    this.events.emit('command', event);
    const turns = applied.flatMap((w) => (w.op === 'put' && w.collection === 'turn' ? [w.value as Turn] : []));
    return ok({ result, turns });
  }

  async #runEffects(command: Command, change: Change<unknown>): Promise<void> {
    for (const effect of change.effects ?? []) {
      try {
        await effect();
      } catch (error) {
        this.events.emit('effect:error', { command, error });
      }
    }
  }

  /**
   * Reduces the command on the index as it is, commits it at the next seq, then runs its
   * effects. 'lock' back: a command with effects or blob records, which is decided under the
   * workspace's lock, and this was not.
   */
  async #step(command: Command, scope: Scope, lock: Lock): Promise<Attempt | 'lock'> {
    const seq = this.#index.lastSeq + 1;
    const reduced = await this.#reduce(command, seq);
    if (!reduced.ok) {
      this.#refused.add(reduced.error);
      return reduced;
    }
    const { payload, change } = reduced.value;
    if (lock !== 'workspace' && ((change.effects?.length ?? 0) > 0 || change.writes.some((w) => w.collection === 'blob'))) return 'lock';
    const committed = await this.#commit({ ...command, payload }, seq, change.writes, scope, lock);
    if (!committed.ok) return committed;
    await this.#runEffects(command, change);
    return ok({ seq: committed.value.seq, payload, change, applied: committed.value.applied });
  }

  /** Finds the command's definition, validates its payload and runs its reducer. Writes nothing. */
  async #reduce(command: Command, seq: number): Promise<Result<{ payload: unknown; change: Change<unknown> }>> {
    const definition = this.#commands.get(command.type);
    if (definition === undefined) {
      return err(fail('UNKNOWN_COMMAND', `no reducer handles "${command.type}"`, { type: command.type, known: this.commandTypes() }));
    }
    const payload = validatePayload(definition, command);
    if (!payload.ok) return payload;
    const ctx: ReducerContext = { index: this.#index, command, seq, now: command.timestamp, newId: this.#newId, blobStorage: this.blobStorage };
    let change: Change<unknown>;
    try {
      change = await definition.reduce(payload.value, ctx);
      const guarded = { ...command, payload: payload.value };
      for (const guard of this.#guards) guard(guarded, { index: this.#index, writes: change.writes, instanceId: this.instanceId });
    } catch (error) {
      return err(toGolemError(error));
    }
    const stray = change.writes.find((w) => !this.#index.hasCollection(w.collection));
    if (stray !== undefined) {
      return err(fail('INTERNAL', `${command.type} wrote to "${stray.collection}", a collection no extension defines`, { type: command.type }));
    }
    return ok({ payload: payload.value, change });
  }

  /**
   * Encodes each record once, commits it with the log entry, and applies the same JSON to the
   * index (returned as applied, with the seq the command got: on a store with streams, a later
   * one than `seq` when another process committed in between).
   */
  async #commit(command: Command, decided: number, writes: readonly Write[], scope: Scope, lock: Lock): Promise<Result<{ seq: number; applied: Write[] }>> {
    let stored: StoredWrite[];
    let plain: Map<string, unknown>;
    try {
      // A deleted turn's owner is its session (the stream it belongs to); the index holds it (a command loads what it deletes).
      ({ stored, plain } = encodeWrites(writes, decided, (key) => this.#index.turns.get(key)?.sessionId ?? null));
    } catch (error) {
      return err(new GolemError('INTERNAL', `${command.type} produced a record that is not JSON: ${(error as Error).message}`, { cause: error }));
    }
    let seq = decided;
    let before: StoreChange[] | undefined = [];
    try {
      if (this.store.append === undefined) await this.store.commit({ ...command, seq }, stored);
      else {
        ({ seq, before } = await this.store.append({ ...command, seq }, stored, streamCheck(stored, scope, decided - 1, lock)));
        if (seq !== decided) stored = stampWrites(stored, seq);
      }
    } catch (error) {
      return err(toGolemError(error, 'STORE_ERROR'));
    }
    const applied = appliedWrites(stored, plain);
    try {
      await this.#follower.committed(seq, stored, applied, before);
    } catch (error) {
      // The store holds the truth; bring the index back in line with it.
      await this.#follower.rebuild().catch(() => undefined);
      return err(
        new GolemError('INTERNAL', `command ${seq} committed but the index could not follow; it was rebuilt from the store`, {
          cause: error,
          details: { seq },
        }),
      );
    }
    if (command.type === WORKSPACE_SYNC) {
      try {
        await this.#follower.rebuild();
      } catch (error) {
        // A record that fails validation leaves the index as it was (see WorkspaceIndex.rebuild).
        return err(toGolemError(error));
      }
    }
    return ok({ seq, applied });
  }
}

/**
 * A result that is a record just written, or an object holding some (`{ session, turn }`), comes back with the index's
 * (frozen) copies of them: what was stored, its seq included where the command landed later than it was decided.
 */
function asApplied(result: unknown, writes: readonly Write[], applied: readonly Write[]): unknown {
  const copies = new Map<unknown, unknown>();
  writes.forEach((w, i) => w.op === 'put' && copies.set(w.value, (applied[i] as { value: unknown }).value));
  if (copies.has(result)) return copies.get(result);
  if (typeof result !== 'object' || result === null || Array.isArray(result)) return result;
  const entries = Object.entries(result);
  return entries.some(([, v]) => copies.has(v)) ? Object.fromEntries(entries.map(([k, v]) => [k, copies.has(v) ? copies.get(v) : v])) : result;
}
