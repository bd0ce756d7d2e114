/**
 * The store boundary: where committed state lives. A store knows collections of JSON
 * records and an append-only command log; it knows nothing of sessions or turns.
 * Every implementation passes the same conformance suite (test/conformance).
 */

/** One change to one record. A reducer returns a list of these; nothing else writes. */
export type Write = { op: 'put'; collection: string; key: string; value: unknown } | { op: 'delete'; collection: string; key: string };

/**
 * A write as a store receives it: the value already JSON text. The manager encodes
 * each value once; the store keeps that text and the index parses the same text, so
 * what the index holds is exactly what the store returns.
 */
export type StoredWrite =
  | {
      op: 'put';
      collection: string;
      key: string;
      json: string;
      /**
       * The session that owns the record (a turn's `sessionId`), or null/absent for a
       * workspace-wide record. A store that keeps owners loads a session's records with one
       * indexed query (`loadRecords`), and refuses a put that would move a record to another
       * owner (`DUPLICATE_ID`): two sessions cannot both hold the key.
       */
      owner?: string | null;
      /**
       * The record carries its command's seq as the last `"seq"` key of its text (a turn, whose
       * `seq` is the log position of the command that made it). A store whose `append` places the
       * command at a later seq than `entry.seq` writes that seq there (`stampSeq`), so the record
       * and the log agree.
       */
      stamp?: true;
    }
  | { op: 'delete'; collection: string; key: string; owner?: string | null };

/**
 * What a command read and wrote, by stream, for a store that orders commands per stream
 * (`append`). A stream is a session's id (its turns and its record), or `WORKSPACE_STREAM`
 * for every workspace-wide record. Commands on different streams do not conflict; a command
 * that read a stream another process wrote since is refused and decided again.
 */
export interface StreamCheck {
  /** The seq up to which this process has applied the log: the state the command was decided on. */
  since: number;
  /** The streams the command read: refused if a command after `since` wrote one. */
  read: readonly string[];
  /** The streams it writes: each one's version becomes the command's seq. */
  write: readonly string[];
  /** It read the whole workspace: refused if any command at all came after `since`. */
  whole?: boolean;
  /**
   * The command runs under no lock, or its streams' only (`exclusive`): refused (STORE_CONFLICT,
   * `details.lock` 'workspace' or 'streams') while another process holds or waits for the
   * workspace's lock, or with 'streams' the lock of a stream it reads, so a command decided
   * again under a lock after a conflict is not overtaken for ever by others that take none.
   */
  yields?: 'streams' | 'workspace';
}

/** Where `append` put a command, and what other processes committed between `since` and it. */
export interface Appended {
  seq: number;
  /**
   * The changes after `since` and before `seq`, oldest first, where the store keeps changes
   * and they are not too many (undefined: read them with `changes`). A process applies them
   * and then its own writes, and is up to date at `seq` without another round trip.
   */
  before?: StoreChange[];
}

/** The stream of every workspace-wide record (roles, preferences, context, blobs, extension records). */
export const WORKSPACE_STREAM = '*';

/** A command as it is appended to the log (the audit trail). */
export interface CommandLogInput {
  /**
   * The command's position in the log: exactly one more than the last entry's. A store
   * refuses any other, so a writer that fell behind (another process wrote) finds out.
   */
  seq: number;
  /** The command's unique id. */
  id: string;
  type: string;
  payload: unknown;
  /** ISO-8601 time the command was issued. */
  timestamp: string;
  actor: string | null;
}

/** A command read back from the log. Seqs run 1, 2, 3... with no gaps, in commit order. */
export type CommandLogEntry = CommandLogInput;

/** One committed command's writes, as a process that fell behind applies them. */
export interface StoreChange {
  seq: number;
  writes: StoredWrite[];
}

/** A record as the store holds it. */
export interface StoredRecord {
  collection: string;
  key: string;
  value: unknown;
  /** The length of its JSON text, where the store has it at hand (what the cache counts). */
  size?: number;
}

/** What a store says about itself. */
export interface StoreStats {
  kind: string;
  /** Bytes the store occupies on disk (0 for memory). */
  bytes: number;
  /** Commands in the log. */
  commands: number;
  /** Records per collection. */
  records: Record<string, number>;
  schemaVersion: number;
}

/**
 * A transactional home for workspace state.
 *
 * `commit` is all or nothing: either every write and the log entry are durable, or
 * none is and it throws.
 */
export interface Store {
  readonly kind: string;
  /** Opens the store, running its migrations. Safe to call once. */
  open(): Promise<void>;
  /** Applies `writes` and appends `entry` to the command log in one transaction. */
  commit(entry: CommandLogInput, writes: readonly StoredWrite[]): Promise<void>;
  /** The seq of the last command in the log (0 when empty). */
  lastSeq(): Promise<number>;
  /** Every record, each collection's in first-written order. */
  load(): Promise<StoredRecord[]>;
  /** One record, or undefined. */
  get(collection: string, key: string): Promise<unknown>;
  /** Log entries with seq greater than `after` (default 0), oldest first, at most `limit`. */
  commandLog(options?: { after?: number; limit?: number }): Promise<CommandLogEntry[]>;
  stats(): Promise<StoreStats>;
  close(): Promise<void>;
  /**
   * Optional, for stores several processes share. The writes of each command after
   * `after`, oldest first: a process catches up from the last seq it applied instead of
   * reloading every record.
   */
  changes?(after: number): Promise<StoreChange[]>;
  /** Optional, for stores other processes write to: every record and the last seq, read in one consistent snapshot. */
  snapshot?(): Promise<{ records: StoredRecord[]; lastSeq: number }>;
  /**
   * Optional: runs `work` holding the workspace's lock (no other process holds it meanwhile),
   * or with `streams` those streams' locks (a session's commands, in turn, while other
   * sessions' go on). The two kinds are separate locks: what keeps commands apart at commit
   * is the stream check of `append`, and the rule that a command holding neither, or only its
   * streams', yields to a held or awaited workspace lock (`StreamCheck.yields`).
   */
  exclusive?<T>(work: () => Promise<T>, streams?: readonly string[]): Promise<T>;
  /**
   * Optional, for stores that keep each record's owner (the session it belongs to): the
   * records of `owners`, and with `shared` every record no session owns, with the last
   * seq, read in one consistent snapshot. A workspace on such a store opens by reading the
   * shared records only, and loads a session's records when it is first used.
   */
  loadRecords?(query: { owners: readonly string[]; shared?: boolean }): Promise<{ records: StoredRecord[]; lastSeq: number }>;
  /**
   * Optional, for stores several processes share: applies `writes` and appends `entry` to
   * the log in one transaction, at the seq after the log's last (returned; `entry.seq` is the
   * seq the caller expects, and writes marked `stamp` get the one it got), without taking
   * the workspace's lock: refused with STORE_CONFLICT, writing nothing, if a command after
   * `check.since` wrote a stream in `check.read`. Commands on different sessions so commit
   * side by side, each session's stay one ordered stream, and the log stays gapless in
   * commit order.
   */
  append?(entry: CommandLogInput, writes: readonly StoredWrite[], check: StreamCheck): Promise<Appended>;
  /** Optional: calls `listener` with the seq of each command any process commits (NaN: some may have been missed). Returns the unsubscribe. */
  subscribe?(listener: (seq: number) => void): () => void;
  /**
   * Optional, for stores that can shrink their log (retention): replaces the oldest entries,
   * up to `limit` of them and only while their timestamp is before `before`, by one checkpoint
   * entry (`LOG_CHECKPOINT`) at the seq of the last one replaced, in one transaction. The last
   * entry always stays (the log's seq), and a store that keeps each command's writes keeps the
   * replaced last one's, so a process one command behind still catches up (further behind, it
   * sees a gap and rebuilds). With `dryRun`, counts without writing.
   */
  compactLog?(options: { before: string; limit: number; dryRun?: boolean }): Promise<{ removed: number; bytes: number }>;
}

/** The type of the log entry that stands for the entries compaction removed (`Store.compactLog`). */
export const LOG_CHECKPOINT = 'log:checkpoint';

/** A checkpoint's payload: the seqs it stands for and how many commands they were. */
export interface LogCheckpoint {
  from: number;
  to: number;
  commands: number;
}
