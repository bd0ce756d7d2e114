/**
 * The persisted entities of seed 001 (section 5 and 10), one Zod schema each.
 * Every record read back from a store is validated against these.
 */
import { z } from 'zod';
import { ContentBlock, JsonObject, JsonValue, Sha256 } from './blocks.js';

/** An entity id: any non-empty string up to 200 characters (UUIDs by default). */
export const Id = z.string().min(1).max(200);
/** An ISO-8601 timestamp. */
export const Timestamp = z.string().min(1);
/** A topic: a semantic tag linking sessions, roles, preferences and context. */
export const Topic = z.string().min(1).max(200);

/** Points at one version of one turn node. */
export const TurnRef = z.strictObject({ id: Id, version: z.number().int().nonnegative() });
export type TurnRef = z.infer<typeof TurnRef>;

/** Workspace-wide metadata and settings. */
export const WorkspaceMeta = z.strictObject({
  id: Id,
  name: z.string(),
  settings: JsonObject,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type WorkspaceMeta = z.infer<typeof WorkspaceMeta>;

/** A session: a head pointer into the turn DAG plus its persona, topics and preferences. */
export const Session = z.strictObject({
  id: Id,
  label: z.string().nullable(),
  topics: z.array(Topic),
  role: z.string().nullable(),
  /** Preference ids active in this session on top of its role's defaults. */
  preferences: z.array(Id),
  head: TurnRef.nullable(),
  /** Where this session was forked from, if it was. */
  forkedFrom: z.strictObject({ sessionId: Id, turn: TurnRef }).nullable(),
  /**
   * The turns on the path to its head (its transcript's length), kept by every command that
   * moves the head, so lists count without loading turns. Absent in a session last written
   * before Golem kept it: count its path then.
   */
  length: z.number().int().nonnegative().optional(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Session = z.infer<typeof Session>;

/** Who speaks in a turn. */
export const TurnRole = z.enum(['user', 'assistant', 'system', 'tool']);
export type TurnRole = z.infer<typeof TurnRole>;

/**
 * One immutable version of a turn node. All versions of a node share its `id` and
 * `parent`; `sessionId` is the session the version was created in.
 */
export const Turn = z.strictObject({
  id: Id,
  version: z.number().int().nonnegative(),
  parent: TurnRef.nullable(),
  sessionId: Id,
  role: TurnRole,
  blocks: z.array(ContentBlock),
  meta: JsonObject,
  /** The command-log position of the command that created it: a child's seq is always above its parent's. */
  seq: z.number().int().positive(),
  createdAt: Timestamp,
  /**
   * Set on a merge turn (`turn:merge`), which has two parents: `parent` (the session's head
   * when it merged) and `merge.from` (the other branch's turn brought in). `base` is their
   * common ancestor when the merge was made (null: none was found); `as` says how the prompt
   * shows the other branch: its turns since `base`, or the merge turn's summary of them.
   */
  merge: z.strictObject({ from: TurnRef, base: TurnRef.nullable(), as: z.enum(['turns', 'summary']) }).optional(),
});
export type Turn = z.infer<typeof Turn>;

/** How a merge turn shows the branch it brings in: `turns` (each of them) or `summary` (its own summary in their place). */
export type MergeMode = NonNullable<Turn['merge']>['as'];

/**
 * A role's model constraints: the ones Golem applies to every prompt of a session in the role
 * (a call's own options win), typed; any other key is kept as it is, for the caller's use.
 */
export const RoleConstraints = z
  .object({
    /** The sampling temperature. */
    temperature: z.number().min(0).max(2).optional(),
    /** The most tokens an answer may take (and the room the token budget keeps free for it). */
    maxTokens: z.number().int().positive().optional(),
    /** The context window the prompt must fit in, in tokens. */
    contextWindow: z.number().int().positive().optional(),
    /** The model the role is meant for, as `provider:model`: kept for the caller, which picks the model it passes. */
    model: z.string().min(1).optional(),
  })
  .catchall(JsonValue);
export type RoleConstraints = z.infer<typeof RoleConstraints>;

/** A persona: system prompt, model constraints, topics of interest, default preferences. */
export const Role = z.strictObject({
  name: Id,
  label: z.string().nullable(),
  persona: z.string(),
  constraints: JsonObject,
  topics: z.array(Topic),
  preferences: z.array(Id),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Role = z.infer<typeof Role>;

/** A standing user instruction, scoped by topics. */
export const Preference = z.strictObject({
  id: Id,
  content: z.string(),
  topics: z.array(Topic),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Preference = z.infer<typeof Preference>;

/** A snippet of knowledge the prompt pipeline may retrieve. */
export const ContextEntry = z.strictObject({
  key: Id,
  content: z.string(),
  topics: z.array(Topic),
  source: z.string().nullable(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type ContextEntry = z.infer<typeof ContextEntry>;

/**
 * A content-addressed blob. `refCount` = `holds` (explicit `blob:retain`s) + the number
 * of block references from stored turns; the bytes are deleted when it reaches zero.
 */
export const BlobRecord = z.strictObject({
  sha256: Sha256,
  size: z.number().int().nonnegative(),
  mediaType: z.string(),
  filename: z.string().nullable(),
  refCount: z.number().int().nonnegative(),
  holds: z.number().int().nonnegative(),
  /** Provider name -> the provider's file id for these bytes. */
  remoteIds: z.record(z.string(), z.string()),
  createdAt: Timestamp,
});
export type BlobRecord = z.infer<typeof BlobRecord>;

/** The key of a turn version in the `turn` collection and in index maps. */
export function turnKey(ref: TurnRef): string {
  return `${ref.id}@${ref.version}`;
}

/** The core collections and the schema of their records. */
export const CORE_COLLECTIONS = {
  workspace: WorkspaceMeta,
  session: Session,
  turn: Turn,
  role: Role,
  preference: Preference,
  context: ContextEntry,
  blob: BlobRecord,
} as const;

export type CoreCollection = keyof typeof CORE_COLLECTIONS;
/** The record type of each core collection. */
export type CoreRecords = { [K in CoreCollection]: z.infer<(typeof CORE_COLLECTIONS)[K]> };

/** The one key of the workspace metadata record. */
export const WORKSPACE_KEY = 'workspace';
