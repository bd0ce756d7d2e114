/**
 * What the crash harness (crash.ts) checks after each kill, on a workspace opened afresh:
 * `golem doctor` (invariants, reference counts, blob files against records, the index
 * against the store), every command the child saw acknowledged in the command log with
 * what it claimed, and each domain's state equal to what its commands in the log add up
 * to (so no command is half applied): sessions, turns, environment values, UI instances
 * (replayed through the patch engine), approvals and their grants; and every registered
 * blob's bytes whole.
 */
import { createHash } from 'node:crypto';
import {
  applyPatchInput,
  canonicalJson,
  doctor,
  environmentValuesAt,
  sha256Of,
  type ApprovalRecord,
  type CommandLogEntry,
  type Grant,
  type UIInstance,
  type UIInstanceRecord,
  type Workspace,
  type WorkspaceView,
} from '../src/index.js';

/** A line the child printed after a call resolved: the commands it committed, and what must now be true. */
export interface Ack {
  kind: 'ack';
  op: string;
  ids: string[];
  session?: string;
  turn?: { id: string; version: number };
  digest?: string;
  approval?: string;
  status?: string;
  instance?: string;
  version?: number;
  env?: string;
}

/** What one check after one kill found. */
export interface KillCheck {
  /** Acknowledged commands looked up in the log (and their claims checked). */
  checked: number;
  failures: string[];
  /** Blob files (or PostgreSQL blob rows) no record names, deleted by `doctor --repair`. */
  orphansCollected: number;
  /** Blob writes the kill cut short (temporary files), deleted by the repair. */
  partialWritesCollected: number;
  /** Commands this child committed that it never saw acknowledged: in flight when it was killed. */
  inFlight: number;
  /** Commands this child committed in all. */
  committed: number;
}

/** The same digest the child takes of a turn's blocks. */
export function blocksDigest(blocks: unknown): string {
  return createHash('sha256').update(JSON.stringify(blocks)).digest('hex').slice(0, 16);
}

type Payload = Record<string, unknown>;

/**
 * Holds the command log as read so far (it only grows: the final check reads it whole
 * again and compares) and checks a freshly opened workspace against it after each kill.
 */
export class CrashChecker {
  readonly #log: CommandLogEntry[] = [];
  readonly #byId = new Map<string, CommandLogEntry>();
  /** The UI instances as replaying the log's `ui:patch` commands makes them. */
  readonly #ui = new Map<string, { instance: UIInstance; version: number }>();
  readonly #childActor: string;
  /** Blobs whose bytes were read back whole (content-addressed: they cannot change). */
  readonly #verified = new Set<string>();

  constructor(childActor: string) {
    this.#childActor = childActor;
  }

  get lastSeq(): number {
    return this.#log.at(-1)?.seq ?? 0;
  }

  get commands(): number {
    return this.#log.length;
  }

  /** Checks the workspace after a kill; `label` names the kill in failure messages. */
  async afterKill(ws: Workspace, acks: readonly Ack[], label: string): Promise<KillCheck> {
    const failures: string[] = [];
    const fail = (message: string) => failures.push(`${label}: ${message}`);

    // 1. golem doctor, repairing what a crash may leave (orphan blob files, partial writes: no writer is alive); a wrong count is a failure, not a repair.
    const report = await doctor(ws.manager, { repair: true, staleAfterMs: 0 });
    for (const sha256 of report.repaired.blobCounts) fail(`BLOB_COUNT before repair: blob ${sha256}`);
    for (const v of report.violations) fail(`[${v.code}] ${v.message}`);
    for (const id of report.indexDrift) fail(`INDEX_DRIFT ${id}: the index differs from the store`);
    for (const sha256 of report.orphanBlobs) fail(`BLOB_ORPHAN ${sha256} is still there after the repair`);
    for (const name of report.partialWrites) fail(`BLOB_PARTIAL_WRITE ${name} is still there after the repair`);

    // 2. The log since the last check, seq after seq.
    const fresh = await ws.manager.store.commandLog({ after: this.lastSeq });
    const start = this.lastSeq;
    for (const entry of fresh) {
      if (entry.seq !== this.lastSeq + 1) fail(`LOG_GAP: seq ${entry.seq} follows ${this.lastSeq}`);
      this.#log.push(entry);
      this.#byId.set(entry.id, entry);
      if (entry.type === 'ui:patch') this.#replayUi(entry, fail);
    }
    // The whole workspace as stored: the process that reads it back loads sessions on first use, and these checks read them all.
    const view = await ws.manager.wholeWorkspace();
    if (view.lastSeq !== this.lastSeq) fail(`the index is at seq ${view.lastSeq}, the log at ${this.lastSeq}`);

    // 3. Every acknowledged command is in the log, and what the child saw is so.
    const acked = new Set<string>();
    let checked = 0;
    const deletedAt = this.#sessionDeletes();
    for (const ack of acks) {
      for (const id of ack.ids) {
        checked++;
        acked.add(id);
        if (!this.#byId.has(id)) fail(`ACK_LOST: ${ack.op} command ${id} was acknowledged but is not in the log`);
      }
      this.#checkAck(view, ack, deletedAt, fail);
    }
    // The child's own commands (its workspace's creation, when it made it, is no call of its loops).
    const mine = fresh.filter((e) => e.actor === this.#childActor && e.type !== 'workspace:create');
    const inFlight = mine.filter((e) => !acked.has(e.id)).length;
    if (fresh.some((e) => e.seq <= start)) fail('the log went backwards');

    // 4. Each domain's records are what its commands add up to.
    this.#checkSessionsAndTurns(view, deletedAt, fail);
    this.#checkEnvironments(view, fail);
    this.#checkUi(view, fail);
    this.#checkApprovals(view, fail);
    await this.#checkBlobBytes(ws, fail);
    return {
      checked,
      failures,
      orphansCollected: report.repaired.orphanBlobsDeleted.length,
      partialWritesCollected: report.repaired.partialWritesDeleted.length,
      inFlight,
      committed: mine.length,
    };
  }

  /** At the end: the whole log read again is the one checked piecemeal (nothing earlier changed or vanished). */
  async finalCheck(ws: Workspace): Promise<string[]> {
    const all = await ws.manager.store.commandLog();
    const failures: string[] = [];
    const known = this.#log;
    if (all.length < known.length) failures.push(`final: the log holds ${all.length} commands, ${known.length} were seen`);
    for (let i = 0; i < known.length; i++) {
      const a = all[i];
      const b = known[i] as CommandLogEntry;
      if (a === undefined || a.seq !== b.seq || a.id !== b.id || a.type !== b.type || canonicalJson(a.payload) !== canonicalJson(b.payload)) {
        failures.push(`final: log entry ${b.seq} (${b.type} ${b.id}) changed or vanished`);
      }
    }
    return failures;
  }

  /** The bytes of each blob registered since the last check are whole: their size and SHA-256 are the record's. */
  async #checkBlobBytes(ws: Workspace, fail: (m: string) => void): Promise<void> {
    for (const blob of ws.manager.workspace().blobs.values()) {
      if (this.#verified.has(blob.sha256)) continue;
      let bytes: Uint8Array | null;
      try {
        bytes = await ws.manager.blobStorage.get(blob.sha256);
      } catch (error) {
        fail(`BLOB_DAMAGED ${blob.sha256}: ${(error as Error).message}`);
        continue;
      }
      if (bytes === null) continue; // reported by doctor as BLOB_FILE_MISSING
      if (bytes.byteLength !== blob.size || sha256Of(bytes) !== blob.sha256)
        fail(`BLOB_DAMAGED ${blob.sha256}: ${bytes.byteLength} bytes that hash to ${sha256Of(bytes)}`);
      else this.#verified.add(blob.sha256);
    }
  }

  #sessionDeletes(): Map<string, number> {
    const out = new Map<string, number>();
    for (const e of this.#log) if (e.type === 'session:delete') out.set(String((e.payload as Payload).sessionId), e.seq);
    return out;
  }

  #checkAck(view: WorkspaceView, ack: Ack, deletedAt: ReadonlyMap<string, number>, fail: (m: string) => void): void {
    const gone = (session: string | undefined) => session !== undefined && deletedAt.has(session);
    switch (ack.op) {
      case 'turn':
      case 'edit': {
        if (ack.turn === undefined || ack.session === undefined) return fail(`a ${ack.op} acknowledgement without its turn`);
        if (!view.sessions.has(ack.session)) {
          if (!gone(ack.session))
            fail(`ACK_LOST: session ${ack.session} of acknowledged turn ${ack.turn.id}@${ack.turn.version} is gone, and no command deleted it`);
          return;
        }
        const turn = view.turn(ack.turn);
        if (turn === undefined) fail(`ACK_LOST: acknowledged turn ${ack.turn.id}@${ack.turn.version} is missing while its session lives`);
        else if (blocksDigest(turn.blocks) !== ack.digest) fail(`turn ${ack.turn.id}@${ack.turn.version} holds other blocks than were acknowledged`);
        return;
      }
      case 'session':
      case 'fork':
        if (ack.session !== undefined && !view.sessions.has(ack.session) && !gone(ack.session))
          fail(`ACK_LOST: acknowledged session ${ack.session} is missing`);
        return;
      case 'delete':
        if (ack.session !== undefined && view.sessions.has(ack.session)) fail(`session ${ack.session} was acknowledged deleted but is there`);
        return;
      case 'env':
        if (ack.env !== undefined && view.collections.get('environment')?.get(ack.env) === undefined) fail(`ACK_LOST: environment ${ack.env} has no record`);
        return;
      case 'ui': {
        if (ack.instance === undefined || ack.version === undefined) return;
        const record = view.collections.get('ui_instance')?.get(ack.instance) as UIInstanceRecord | undefined;
        if (record === undefined || record.version < ack.version)
          fail(`ACK_LOST: UI instance ${ack.instance} is at version ${record?.version ?? 'none'}, ${ack.version} was acknowledged`);
        return;
      }
      case 'approval':
      case 'answer': {
        if (ack.approval === undefined) return;
        const record = view.collections.get('approval')?.get(ack.approval) as ApprovalRecord | undefined;
        if (record === undefined) fail(`ACK_LOST: approval ${ack.approval} is missing`);
        else if (ack.op === 'answer' && record.status !== ack.status) fail(`approval ${ack.approval} is ${record.status}, ${ack.status} was acknowledged`);
        return;
      }
      default:
        return;
    }
  }

  #checkSessionsAndTurns(view: WorkspaceView, deletedAt: ReadonlyMap<string, number>, fail: (m: string) => void): void {
    const created = new Map<string, number>();
    const bySeq = new Map<number, CommandLogEntry>();
    for (const e of this.#log) {
      bySeq.set(e.seq, e);
      if (e.type === 'session:create' || e.type === 'session:fork') created.set(String((e.payload as Payload).id), e.seq);
    }
    for (const [id, seq] of created) {
      const deleted = deletedAt.get(id);
      if (deleted === undefined && !view.sessions.has(id)) fail(`HALF_APPLIED: session ${id} (created at seq ${seq}) is missing, and no command deleted it`);
      if (deleted !== undefined && view.sessions.has(id)) fail(`HALF_APPLIED: session ${id} was deleted at seq ${deleted} but is there`);
    }
    for (const id of view.sessions.keys()) if (!created.has(id)) fail(`session ${id} is in the store but no command in the log created it`);

    // Every turn came from the command at its seq; every turn command left its turn, unless its session was deleted since.
    const turnAt = new Set<string>();
    for (const turn of view.turns.values()) {
      turnAt.add(`${turn.id}@${turn.seq}`);
      const entry = bySeq.get(turn.seq);
      const p = (entry?.payload ?? {}) as Payload;
      const madeBy =
        entry === undefined
          ? false
          : entry.type === 'turn:add' || entry.type === 'turn:branch'
            ? (p.turn as Payload | undefined)?.id === turn.id && turn.version === 0
            : entry.type === 'turn:edit'
              ? p.turnId === turn.id
              : entry.type === 'session:role:switch';
      if (!madeBy) fail(`turn ${turn.id}@${turn.version} carries seq ${turn.seq}, whose command (${entry?.type ?? 'none'}) did not create it`);
    }
    for (const e of this.#log) {
      const p = e.payload as Payload;
      const made = e.type === 'turn:add' || e.type === 'turn:branch' ? (p.turn as Payload | undefined)?.id : e.type === 'turn:edit' ? p.turnId : undefined;
      if (typeof made !== 'string' || turnAt.has(`${made}@${e.seq}`)) continue;
      const turnId = made;
      const deleted = deletedAt.get(String(p.sessionId));
      if (deleted === undefined || deleted < e.seq)
        fail(`HALF_APPLIED: ${e.type} at seq ${e.seq} left no turn ${turnId}, and its session was not deleted since`);
    }
  }

  #checkEnvironments(view: WorkspaceView, fail: (m: string) => void): void {
    const ids = new Set<string>();
    for (const e of this.#log) if (e.type === 'environment:update') ids.add(String((e.payload as Payload).environmentId));
    const records = view.collections.get('environment') ?? new Map<string, unknown>();
    for (const id of new Set([...ids, ...records.keys()])) {
      const stored = (records.get(id) as { values?: unknown } | undefined)?.values;
      const expected = environmentValuesAt(this.#log, id, this.lastSeq);
      if (canonicalJson(stored ?? null) !== canonicalJson(ids.has(id) ? expected : null)) {
        fail(`HALF_APPLIED: environment ${id} holds ${JSON.stringify(stored)}, its updates in the log add up to ${JSON.stringify(expected)}`);
      }
    }
  }

  #replayUi(entry: CommandLogEntry, fail: (m: string) => void): void {
    const outcome = applyPatchInput(entry.payload, (id) => this.#ui.get(id)?.instance);
    if (!outcome.ok) return void fail(`ui:patch at seq ${entry.seq} does not apply when the log is replayed: ${outcome.errors[0]?.code ?? ''}`);
    if (outcome.kind === 'delete') this.#ui.delete(outcome.instanceId);
    else this.#ui.set(outcome.instanceId, { instance: outcome.instance, version: (this.#ui.get(outcome.instanceId)?.version ?? 0) + 1 });
  }

  #checkUi(view: WorkspaceView, fail: (m: string) => void): void {
    const records = (view.collections.get('ui_instance') ?? new Map<string, unknown>()) as ReadonlyMap<string, UIInstanceRecord>;
    for (const id of new Set([...records.keys(), ...this.#ui.keys()])) {
      const stored = records.get(id);
      const replayed = this.#ui.get(id);
      if (stored?.version !== replayed?.version || canonicalJson(stored?.instance ?? null) !== canonicalJson(replayed?.instance ?? null)) {
        fail(
          `HALF_APPLIED: UI instance ${id} is at version ${stored?.version ?? 'none'}, replaying the log gives version ${replayed?.version ?? 'none'}${stored?.version === replayed?.version ? ' with another instance' : ''}`,
        );
      }
    }
  }

  #checkApprovals(view: WorkspaceView, fail: (m: string) => void): void {
    const approvals = [...(view.collections.get('approval')?.values() ?? [])] as ApprovalRecord[];
    const grants = [...(view.collections.get('grant')?.values() ?? [])] as Grant[];
    const requests = new Set<string>();
    const answers = new Map<string, string>();
    for (const e of this.#log) {
      const p = e.payload as Payload;
      if (e.type === 'approval:request') requests.add(`${String(p.sessionId)}/${String(p.turnId)}/${String(p.callId)}`);
      if (e.type === 'approval:answer') answers.set(String(p.id), String(p.answer));
    }
    const byCall = new Set(approvals.map((a) => `${a.sessionId}/${a.turnId}/${a.callId}`));
    for (const call of requests) if (!byCall.has(call)) fail(`HALF_APPLIED: the approval asked for call ${call} is missing`);
    for (const a of approvals) {
      if (!requests.has(`${a.sessionId}/${a.turnId}/${a.callId}`)) fail(`approval ${a.id} was asked by no command in the log`);
      const answer = answers.get(a.id);
      if ((answer === undefined) !== (a.status === 'pending') || (answer !== undefined && a.answer !== answer)) {
        fail(`HALF_APPLIED: approval ${a.id} is ${a.status} (${a.answer ?? 'no answer'}), the log answers ${answer ?? 'nothing'}`);
      }
      const granted = grants.some((g) => g.approvalId === a.id);
      if (granted !== (answer === 'always' || answer === 'session'))
        fail(`HALF_APPLIED: approval ${a.id} answered ${answer ?? 'nothing'} ${granted ? 'has' : 'lacks'} a grant`);
    }
    const ids = new Set(approvals.map((a) => a.id));
    for (const id of answers.keys()) if (!ids.has(id)) fail(`HALF_APPLIED: answered approval ${id} is missing`);
  }
}
