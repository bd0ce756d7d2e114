/**
 * `golem doctor`: checks a real workspace for what the crash and load tests promise
 * (the invariants of invariants.ts, on the whole workspace as stored; the index, for what it
 * holds in memory, equal to a rebuild from the store; blob
 * files and records in agreement) and, with `repair`, mends what can be mended safely
 * through the write path: reference counts (`blob:recount`), orphan blob files (bytes
 * no record names, as a crash between storing bytes and committing their record leaves),
 * holds whose time is up (the UI's uploads no click sent, given as `lapsed`) and blobs
 * registered long ago that nothing references or holds (`blob:collect`).
 */
import { checkInvariants, type InvariantViolation } from './invariants.js';
import type { WorkspaceManager } from './manager.js';
import { unwrap } from './errors.js';
import { ownerOf } from './workspace-index.js';
import { CORE_COLLECTIONS } from './records.js';
import type { StoredRecord } from './store.js';

/**
 * Holds whose time is up, that a part above the core keeps (the UI's uploads no click sent
 * within their window: `ws.ui.uploads`), for the doctor to report and, repairing, release.
 */
export interface LapsedHolds {
  /** One line for each hold whose time is up. */
  list(): string[];
  /** Releases them (through the write path); one line for each released. */
  release(): Promise<string[]>;
}

export interface DoctorReport {
  /** The invariants that do not hold (after repairs, when repairing). */
  violations: InvariantViolation[];
  /** Blob files no record names. */
  orphanBlobs: string[];
  /** Blobs registered over `staleAfterMs` ago that nothing references or holds. */
  unusedBlobs: string[];
  /** Holds whose time is up (`lapsed`: the UI's uploads no click sent within their window). */
  lapsedHolds: string[];
  /** Blob writes a crash cut short (temporary files), older than `staleAfterMs`: nothing will finish them. */
  partialWrites: string[];
  /** Records where the index and the store disagree ("collection/key"); empty when the index equals a rebuild. */
  indexDrift: string[];
  /** What `repair` did. */
  repaired: { blobCounts: string[]; orphanBlobsDeleted: string[]; partialWritesDeleted: string[]; holdsReleased: string[]; unusedBlobsCollected: string[] };
  /** True when nothing is wrong (any more). */
  healthy: boolean;
}

/**
 * Checks the workspace; with `repair`, fixes reference counts and deletes orphan blob
 * files and stale partial writes, then checks again. Run a repair while no other process
 * writes to the workspace: bytes stored by a `register` in flight look like an orphan
 * until its record commits. `staleAfterMs` (default 10 minutes) is how old a partial
 * write must be to count as left by a crash rather than under way.
 */
export async function doctor(
  manager: WorkspaceManager,
  options: { repair?: boolean; staleAfterMs?: number; lapsed?: LapsedHolds } = {},
): Promise<DoctorReport> {
  await manager.refresh();
  const staleAfterMs = options.staleAfterMs ?? 10 * 60_000;
  const repaired: DoctorReport['repaired'] = { blobCounts: [], orphanBlobsDeleted: [], partialWritesDeleted: [], holdsReleased: [], unusedBlobsCollected: [] };
  if (options.repair === true) {
    // Lapsed holds first: bytes they alone held go with them, and are not left as unused blobs.
    repaired.holdsReleased = (await options.lapsed?.release()) ?? [];
    const before = await checkInvariants(await manager.wholeWorkspace(), manager.blobStorage);
    if (before.some((v) => v.code === 'BLOB_COUNT')) repaired.blobCounts = unwrap(await manager.dispatch({ type: 'blob:recount', payload: {} })).fixed;
    for (const sha256 of await orphans(manager)) {
      await manager.refresh(); // registered meanwhile? then it is not an orphan any more
      if (manager.workspace().blobs.has(sha256)) continue;
      await manager.blobStorage.delete(sha256);
      repaired.orphanBlobsDeleted.push(sha256);
    }
    for (const name of await stalePartialWrites(manager, staleAfterMs)) {
      await manager.blobStorage.removePartialWrite?.(name);
      repaired.partialWritesDeleted.push(name);
    }
    // Blobs registered a while ago that nothing took up (a recent one may be about to be referenced).
    const unused = await unusedBlobs(manager, staleAfterMs);
    if (unused.length > 0) {
      const before = new Date(manager.now().getTime() - staleAfterMs).toISOString();
      repaired.unusedBlobsCollected = unwrap(await manager.dispatch({ type: 'blob:collect', payload: { before, only: unused } })).collected;
    }
  }
  const violations = await checkInvariants(await manager.wholeWorkspace(), manager.blobStorage);
  const stored = await manager.store.load();
  // Turns are read without their schema (validatedPuts): here each is validated whole.
  violations.push(...corruptTurns(stored));
  const orphanBlobs = await orphans(manager);
  const indexDrift = drift(manager, stored);
  const partialWrites = await stalePartialWrites(manager, staleAfterMs);
  const unused = await unusedBlobs(manager, staleAfterMs);
  const lapsedHolds = options.lapsed?.list() ?? [];
  const healthy =
    violations.length === 0 &&
    orphanBlobs.length === 0 &&
    indexDrift.length === 0 &&
    partialWrites.length === 0 &&
    unused.length === 0 &&
    lapsedHolds.length === 0;
  return { violations, orphanBlobs, unusedBlobs: unused, lapsedHolds, partialWrites, indexDrift, repaired, healthy };
}

/**
 * Blobs registered over `staleAfterMs` ago (by the workspace's clock) that nothing references or
 * holds, their bytes stored (one whose bytes are gone is BLOB_FILE_MISSING, reported, not collected).
 */
async function unusedBlobs(manager: WorkspaceManager, staleAfterMs: number): Promise<string[]> {
  const before = manager.now().getTime() - staleAfterMs;
  const out: string[] = [];
  for (const b of manager.workspace().blobs.values()) {
    if (b.refCount === 0 && Date.parse(b.createdAt) < before && (await manager.blobStorage.has(b.sha256))) out.push(b.sha256);
  }
  return out.sort();
}

async function stalePartialWrites(manager: WorkspaceManager, staleAfterMs: number): Promise<string[]> {
  return ((await manager.blobStorage.partialWrites?.()) ?? []).filter((w) => w.ageMs >= staleAfterMs).map((w) => w.name);
}

async function orphans(manager: WorkspaceManager): Promise<string[]> {
  const registered = manager.workspace().blobs;
  return (await manager.blobStorage.list()).filter((sha256) => !registered.has(sha256)).sort();
}

/** The stored turns that do not match the turn schema, each a CORRUPT_RECORD violation. */
function corruptTurns(records: readonly StoredRecord[]): InvariantViolation[] {
  const out: InvariantViolation[] = [];
  for (const record of records) {
    if (record.collection !== 'turn') continue;
    const parsed = CORE_COLLECTIONS.turn.safeParse(record.value);
    if (!parsed.success) {
      const where = parsed.error.issues[0];
      out.push({
        code: 'CORRUPT_RECORD',
        message: `turn ${record.key}: does not match the turn schema (${where?.path.join('.') ?? ''}: ${where?.message ?? ''})`,
      });
    }
  }
  return out;
}

/**
 * Records that differ between the index and the store as it is now: every workspace-wide
 * record, and every record of each session in memory (those not loaded are the store's alone).
 */
function drift(manager: WorkspaceManager, records: readonly StoredRecord[]): string[] {
  const view = manager.workspace();
  const stored = new Map<string, string>();
  for (const record of records) {
    const owner = ownerOf(record.collection, record.value);
    if (owner === null || view.isLoaded(owner)) stored.set(`${record.collection}/${record.key}`, JSON.stringify(record.value));
  }
  const out: string[] = [];
  const seen = new Set<string>();
  for (const record of manager.workspace().records()) {
    const id = `${record.collection}/${record.key}`;
    seen.add(id);
    if (stored.get(id) !== JSON.stringify(record.value)) out.push(id);
  }
  for (const id of stored.keys()) if (!seen.has(id)) out.push(id);
  return out.sort();
}
