import { join, resolve } from 'node:path';
import { GolemError } from './core/errors.js';
import { MemoryBlobStorage, type BlobStorage } from './core/blob-storage.js';
import { FsBlobStorage } from './store/fs-blob-storage.js';
import { MemoryStore } from './core/memory-store.js';
import { SqliteStore, type Durability } from './store/sqlite-store.js';
import type { Store } from './core/store.js';
import { BlobApi, checkMaxBlobBytes } from './core/blob-api.js';
import type { WorkspaceExtension, Middleware } from './core/plugin.js';
import { WorkspaceManager, type CacheOptions, type WorkspaceEvents } from './core/manager.js';
import { ContextApi, PreferenceApi, RoleApi } from './core/resource-api.js';
import type { WorkspaceMeta } from './core/records.js';
import { SessionManager } from './prompt/session-manager.js';
import { environmentExtension } from './environment/environment-plugin.js';
import { environmentDiffLayer } from './environment/environment-diff.js';
import { uiDiffLayer } from './ui/ui-diff.js';
import { clearanceDiffLayer } from './agent/clearance-diff.js';
import { agentExtension } from './agent/agent-plugin.js';
import { sessionOwnersExtension } from './agent/session-owners.js';
import { BrowserApi } from './browser/browser-session.js';
import { browserExtension } from './browser/browser-plugin.js';
import { uiExtension } from './ui/ui-plugin.js';
import { UICatalog } from './ui/catalog.js';
import { McpApi } from './mcp/mcp-api.js';
import { UIApi } from './ui/ui-api.js';
import { ApprovalApi, TrustApi } from './agent/agent-api.js';
import { ClearanceApi } from './agent/clearance.js';
import { TaskApi } from './agent/task-api.js';
import { agentRetentionHolds } from './agent/retention-holds.js';
import { parseRetentionPolicy, RetentionApi, retentionExtension, type RetentionPolicyInput } from './core/retention/index.js';
import { RunService } from './agent/run-service.js';
import { Worker, type WorkerOptions } from './agent/worker/index.js';
import { Bm25Retriever, type ContextRetriever } from './prompt/context-retriever.js';
import { PromptBuilder, type PromptStages } from './prompt/prompt-builder.js';
import type { EffectiveSession, ResolveOptions } from './prompt/effective-session.js';
import { embeddingsExtension } from './prompt/embeddings.js';
import type { EventBus } from './core/event-bus.js';
import type { Indexer } from './core/workspace-index.js';

export interface CreateWorkspaceOptions {
  /**
   * The folder of an embedded workspace: `<dir>/workspace.db` (SQLite) and
   * `<dir>/blobs/<sha256>`. Created when missing.
   */
  dir?: string;
  /**
   * A store of your own (overrides `dir` for records), e.g. `postgresStore(url, { schema })`.
   * Default: PostgreSQL when `GOLEM_DATABASE_URL` is set (schema `GOLEM_DATABASE_SCHEMA`,
   * default 'golem'), else SQLite under `dir`, else in memory.
   */
  store?: Store;
  /** Where `GOLEM_DATABASE_URL` is read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** A blob storage of your own. Default: files under `dir/blobs`, else in memory. */
  blobStorage?: BlobStorage;
  /** The largest blob `ws.blobs.register` takes, in bytes (default 256 MiB); larger ones fail with BLOB_TOO_LARGE, nothing stored. */
  maxBlobBytes?: number;
  /** SQLite durability under `dir` (default 'full': every commit is fsynced). */
  durability?: Durability;
  /** The workspace's name, used when it is first created. */
  name?: string;
  extensions?: WorkspaceExtension[];
  middleware?: Middleware[];
  clock?: () => Date;
  newId?: () => string;
  actor?: string | null;
  /**
   * How much stays in memory: a session's turns load on first use, and past `maxSessions`
   * or `maxBytes` (defaults 2,000 sessions, 256 MiB of records as JSON) the least recently
   * used sessions leave memory until next used. Opening reads only the workspace-wide records.
   */
  cache?: CacheOptions;
  /**
   * The prompt pipeline's replaceable parts: `stages` (snapshot, instructions, resolveBlob, and
   * the token planner `plan`), each falling back to Golem's own, and `retriever`, which ranks
   * context entries and preferences (default BM25; one that is also an `Indexer` is kept
   * up to date with the workspace's records; `hybridRetriever({ embed })` and `vectorRetriever`
   * rank by embeddings too, kept in the workspace once per text). `estimator` counts a text's
   * tokens for every prompt in place of the model's own count (by default OpenAI models count
   * with gpt-tokenizer, others at about four characters a token).
   */
  prompt?: { stages?: Partial<PromptStages>; retriever?: ContextRetriever; estimator?: (text: string) => number };
  /**
   * The retention policy `ws.retention.apply()` and `golem gc` use when given none: idle
   * sessions deleted, turns off the path trimmed, the log compacted (INVALID_ARGUMENT when malformed).
   */
  retention?: RetentionPolicyInput;
}

/** What `golem status` prints. */
export interface WorkspaceSummary {
  id: string;
  name: string;
  store: string;
  schemaVersion: number;
  sessions: number;
  turns: number;
  blobs: number;
  blobBytes: number;
  commands: number;
  /** Store file(s) plus blob files. */
  bytesOnDisk: number;
}

/** Where a topic is used. */
export interface TopicUsage {
  topic: string;
  sessions: string[];
  roles: string[];
  preferences: string[];
  context: string[];
}

/** An open workspace: the engine and its facades. */
export interface Workspace {
  readonly manager: WorkspaceManager;
  readonly sessions: SessionManager;
  /** The prompt pipeline (session.respond uses it; build prompts yourself with it too). */
  readonly prompts: PromptBuilder;
  /** Seed 001's `resolveSession`: `sessions.resolve`, the session as the prompt pipeline sees it without a model. */
  resolveSession(sessionId: string, options?: ResolveOptions): Promise<EffectiveSession>;
  readonly blobs: BlobApi;
  readonly roles: RoleApi;
  readonly preferences: PreferenceApi;
  readonly context: ContextApi;
  readonly events: EventBus<WorkspaceEvents>;
  /** The workspace's metadata. */
  meta(): WorkspaceMeta;
  /** Trust modes per action (workspace and session overrides) and grants (seed 003). */
  readonly trust: TrustApi;
  /** Supervised calls waiting for the user's answer. */
  readonly approvals: ApprovalApi;
  /** What manual actions staged, waiting for the user to push, discard or defer it. */
  readonly clearance: ClearanceApi;
  /** Tasks and plans: list them by session, topic and status, accept (or edit) or decline a proposal, mark steps, close. */
  readonly tasks: TaskApi;
  /** An agent loop on a session, with its environments (mounted here: their values load and persist) and actions. */
  worker(options: WorkerOptions): Worker;
  /** The browser executor (seed 002): launch Chromium, run browser tasks, read saved variables. */
  readonly browser: BrowserApi;
  /** Model-built UIs (seed 004): `patch_ui_state` calls, the instances, the action for workers. */
  readonly ui: UIApi;
  /** MCP servers (`ws.mcp.connect(name, config)`): their tools as actions a worker takes like any other. */
  readonly mcp: McpApi;
  /**
   * The runs of the sessions' agents, as records in the store: start one (`claim`, then `run`),
   * read them (`get`, `list`), cancel one from any process (`cancel`).
   */
  readonly runs: RunService;
  /**
   * Retention: `apply(policy, { dryRun })` deletes idle sessions, trims turns off the path and
   * compacts the log, never what a kept session sees, a pin, a pending approval or clearance
   * item or an unfinished run holds.
   */
  readonly retention: RetentionApi;
  /** Every topic in use, with what carries it (derived from sessions, roles, preferences and context). */
  topics(): TopicUsage[];
  summary(): Promise<WorkspaceSummary>;
  /** Waits for queued commands and closes the store. */
  close(): Promise<void>;
}

/**
 * Opens a workspace, creating it on first use.
 *
 * @example
 * const ws = await createWorkspace({ dir: '.golem' })  // SQLite + blob files
 * const s = await ws.sessions.create({ label: 'demo' })
 * await s.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'hi' }] })
 * await ws.close()
 */
export async function createWorkspace(options: CreateWorkspaceOptions = {}): Promise<Workspace> {
  // Checked before anything opens, so a bad limit leaves nothing to close.
  const maxBlobBytes = options.maxBlobBytes === undefined ? undefined : checkMaxBlobBytes(options.maxBlobBytes);
  if (options.retention !== undefined) parseRetentionPolicy(options.retention);
  const dir = options.dir === undefined ? undefined : resolve(options.dir);
  const env = options.env ?? process.env;
  const databaseUrl = env.GOLEM_DATABASE_URL === '' ? undefined : env.GOLEM_DATABASE_URL;
  const schema = env.GOLEM_DATABASE_SCHEMA === undefined || env.GOLEM_DATABASE_SCHEMA === '' ? {} : { schema: env.GOLEM_DATABASE_SCHEMA };
  // The PostgreSQL part loads only for a workspace that uses it.
  const postgres =
    databaseUrl !== undefined && (options.store === undefined || options.blobStorage === undefined) ? await import('./store/postgres/index.js') : undefined;
  const store =
    options.store ??
    (databaseUrl !== undefined && postgres !== undefined
      ? postgres.postgresStore(databaseUrl, schema)
      : dir !== undefined
        ? new SqliteStore({ path: join(dir, 'workspace.db'), durability: options.durability ?? 'full' })
        : new MemoryStore());
  // On PostgreSQL the blobs live there too, so every process and machine sees the same bytes; closed with the workspace.
  const ownBlobs =
    options.blobStorage === undefined && options.store === undefined && databaseUrl !== undefined && postgres !== undefined
      ? postgres.postgresBlobStorage(databaseUrl, schema)
      : undefined;
  const blobStorage = options.blobStorage ?? ownBlobs ?? (dir !== undefined ? new FsBlobStorage(join(dir, 'blobs')) : new MemoryBlobStorage());
  const manager = new WorkspaceManager({
    store,
    blobStorage,
    ...(dir !== undefined && { dir }),
    ...(options.clock !== undefined && { clock: options.clock }),
    ...(options.newId !== undefined && { newId: options.newId }),
    ...(options.actor !== undefined && { actor: options.actor }),
    ...(options.cache !== undefined && { cache: options.cache }),
  });
  const retriever: ContextRetriever = options.prompt?.retriever ?? new Bm25Retriever();
  if (isIndexer(retriever)) manager.addIndexer(retriever);
  manager.extend(embeddingsExtension);
  const prompts = new PromptBuilder({
    view: () => manager.workspace(),
    blobs: blobStorage,
    retriever,
    ...(options.prompt?.stages !== undefined && { stages: options.prompt.stages }),
    ...(options.prompt?.estimator !== undefined && { estimator: options.prompt.estimator }),
  });
  manager.extend(environmentExtension);
  manager.extend(agentExtension);
  manager.extend(retentionExtension([agentRetentionHolds]));
  manager.extend(sessionOwnersExtension);
  manager.extend(browserExtension);
  const catalog = new UICatalog();
  manager.extend(uiExtension(catalog));
  for (const extension of options.extensions ?? []) manager.extend(extension);
  for (const middleware of options.middleware ?? []) manager.use(middleware);
  try {
    await manager.open();
  } catch (error) {
    await store.close().catch(() => undefined);
    throw error;
  }
  if (manager.workspace().meta === undefined) {
    const created = await manager.dispatch({ type: 'workspace:create', payload: options.name === undefined ? {} : { name: options.name } });
    // WORKSPACE_EXISTS: another process sharing the store created it first, and this one has caught up with it.
    if (!created.ok && created.error.code !== 'WORKSPACE_EXISTS') {
      await manager.close();
      throw created.error;
    }
  }

  // A retriever that keeps vectors in the workspace embeds and searches through it, until it closes.
  let detachRetriever: (() => void) | undefined;
  try {
    detachRetriever = retriever.attach?.({ view: () => manager.workspace(), dispatch: (command) => manager.dispatch(command), store });
  } catch (error) {
    await manager.close();
    throw error;
  }

  const meta = (): WorkspaceMeta => {
    const value = manager.workspace().meta;
    if (value === undefined) throw new GolemError('INTERNAL', 'the workspace has no metadata');
    return value;
  };
  const sessions = new SessionManager(manager, prompts, { diffLayers: [environmentDiffLayer, uiDiffLayer(catalog), clearanceDiffLayer] });
  const worker = (workerOptions: WorkerOptions) => {
    // The agent may write in its project: no renderer the page shows may come from there.
    if (workerOptions.project !== undefined) catalog.excludeProject(workerOptions.project.root);
    return new Worker(manager, workerOptions, { sessions });
  };
  let runs: RunService | undefined;
  const runService = () => (runs ??= new RunService(manager, { worker, session: (id) => sessions.get(id) }));
  const browser = new BrowserApi(manager, sessions, { worker, runs: runService });
  const blobs = new BlobApi(manager, { ...(maxBlobBytes !== undefined && { maxBytes: maxBlobBytes }) });
  const mcp = new McpApi({ blobs });
  return {
    manager,
    sessions,
    prompts,
    resolveSession: (sessionId, resolveOptions) => sessions.resolve(sessionId, resolveOptions),
    blobs,
    roles: new RoleApi(manager),
    preferences: new PreferenceApi(manager),
    context: new ContextApi(manager),
    events: manager.events,
    trust: new TrustApi(manager),
    approvals: new ApprovalApi(manager),
    clearance: new ClearanceApi(manager),
    tasks: new TaskApi(manager),
    meta,
    worker,
    browser,
    ui: new UIApi(manager, catalog),
    mcp,
    retention: new RetentionApi(manager, { holds: [agentRetentionHolds], ...(options.retention !== undefined && { policy: options.retention }) }),
    get runs() {
      return runService();
    },
    topics() {
      const view = manager.workspace();
      const usage = new Map<string, TopicUsage>();
      const add = (kind: 'sessions' | 'roles' | 'preferences' | 'context', id: string, topics: readonly string[]) => {
        for (const topic of topics) {
          let entry = usage.get(topic);
          if (entry === undefined) usage.set(topic, (entry = { topic, sessions: [], roles: [], preferences: [], context: [] }));
          entry[kind].push(id);
        }
      };
      for (const s of view.sessions.values()) add('sessions', s.id, s.topics);
      for (const r of view.roles.values()) add('roles', r.name, r.topics);
      for (const p of view.preferences.values()) add('preferences', p.id, p.topics);
      for (const c of view.context.values()) add('context', c.key, c.topics);
      return [...usage.values()].sort((a, b) => a.topic.localeCompare(b.topic));
    },
    async summary() {
      const view = manager.workspace();
      const [stats, blobBytes] = await Promise.all([store.stats(), blobStorage.size()]);
      return {
        id: meta().id,
        name: meta().name,
        store: store.kind,
        schemaVersion: stats.schemaVersion,
        sessions: view.sessions.size,
        turns: stats.records.turn ?? 0,
        blobs: view.blobs.size,
        blobBytes,
        commands: stats.commands,
        bytesOnDisk: stats.bytes + (blobStorage.kind === 'fs' ? blobBytes : 0),
      };
    },
    // The browsers this workspace launched close first: their sessions are recorded as closed while the store is open.
    // So do its MCP connections (their servers' processes end with them).
    // (Without browsers the manager starts closing at once: commands dispatched after close() are refused.)
    close: async () => {
      if (browser.launched > 0) await browser.closeAll();
      if (mcp.busy) await mcp.closeAll();
      runs?.dispose();
      detachRetriever?.();
      await manager.close();
      await ownBlobs?.close();
    },
  };
}

/** A retriever that keeps its own index of the records (as BM25 does). */
function isIndexer(retriever: ContextRetriever): retriever is ContextRetriever & Indexer {
  const r = retriever as Partial<Indexer>;
  return typeof r.apply === 'function' && typeof r.reset === 'function';
}
