/**
 * `ws.retention`: applies a retention policy as a sweep of small commands, or with `dryRun`
 * says what it would remove, with counts and bytes, and what it leaves because something
 * holds it.
 */
import { unwrap } from '../errors.js';
import type { WorkspaceManager } from '../manager.js';
import type { Session } from '../records.js';
import { forkFamily } from '../commands/kit.js';
import { holdsBySession, type RetentionHolds } from './holds.js';
import { measure, planDrop, planTrim, type SessionPlan } from './plan.js';
import { parseRetentionPolicy, type RetentionPolicy, type RetentionPolicyInput } from './policy.js';
import { pinnedTurnKeys, type SweepOutcome } from './sweep-commands.js';

/** What a sweep removed (or, dry, would remove), and what it left because something holds it. */
export interface RetentionReport {
  dryRun: boolean;
  /** Sessions deleted for being idle. */
  sessions: { count: number; ids: string[] };
  /** Turn versions removed (with deleted sessions' and trimmed ones'), and the bytes of their records as JSON. */
  turns: { count: number; bytes: number };
  /** Blobs whose last reference went with them, and their bytes. */
  blobs: { count: number; bytes: number };
  /** Log entries replaced by a checkpoint (0 where the store cannot compact its log). */
  log: { count: number; bytes: number; supported: boolean };
  /** What the policy would have removed and a hold kept: the session and why. */
  kept: { sessionId: string; reasons: string[] }[];
  /** The commands the sweep committed (0 for a dry run). */
  commands: number;
}

export interface RetentionOptions {
  /** The policy `apply()` uses when given none (`createWorkspace({ retention })`). */
  policy?: RetentionPolicyInput;
  /** What the parts above the core keep (the agent's pending approvals, clearance items, unfinished runs). */
  holds?: readonly RetentionHolds[];
}

/** Applies retention policies to a workspace (`ws.retention`). */
export class RetentionApi {
  readonly #manager: WorkspaceManager;
  readonly #holds: readonly RetentionHolds[];
  readonly #policy: RetentionPolicyInput | undefined;

  constructor(manager: WorkspaceManager, options: RetentionOptions = {}) {
    this.#manager = manager;
    this.#holds = options.holds ?? [];
    // A malformed default is refused when the workspace is created, not at its first sweep.
    if (options.policy !== undefined) parseRetentionPolicy(options.policy);
    this.#policy = options.policy;
  }

  /** The default policy given to `createWorkspace({ retention })`, if any. */
  get policy(): RetentionPolicyInput | undefined {
    return this.#policy;
  }

  /**
   * Applies `policy` (default: the workspace's): deletes idle sessions, trims kept sessions'
   * turns, compacts the log, one session and at most `batch` turns per command. With `dryRun`
   * nothing is written. INVALID_ARGUMENT for a malformed policy (or none at all).
   */
  async apply(policy?: RetentionPolicyInput, options: { dryRun?: boolean } = {}): Promise<RetentionReport> {
    const parsed = parseRetentionPolicy(policy ?? this.#policy);
    const dryRun = options.dryRun === true;
    const report: RetentionReport = {
      dryRun,
      sessions: { count: 0, ids: [] },
      turns: { count: 0, bytes: 0 },
      blobs: { count: 0, bytes: 0 },
      log: { count: 0, bytes: 0, supported: this.#manager.store.compactLog !== undefined },
      kept: [],
      commands: 0,
    };
    await this.#manager.refresh();
    const now = this.#manager.now().getTime();
    const dropped = new Set<string>();
    const tally = new Set<string>();
    if (parsed.sessions !== undefined) {
      const idleBefore = new Date(now - parsed.sessions.idleFor).toISOString();
      for (const session of this.#sessions()) {
        if (session.updatedAt >= idleBefore) continue;
        const outcome = await this.#session(
          session,
          dryRun,
          report,
          (s) => this.#planDrop(s),
          {
            type: 'retention:drop_session',
            payload: { sessionId: session.id, idleBefore },
          },
          tally,
        );
        if (outcome === 'removed') {
          dropped.add(session.id);
          report.sessions.count++;
          report.sessions.ids.push(session.id);
        }
      }
    }
    if (parsed.turns !== undefined) {
      const keep = parsed.turns;
      const limit = parsed.batch ?? 500;
      for (const session of this.#sessions()) {
        if (dropped.has(session.id)) continue;
        const command = { type: 'retention:trim_session', payload: { sessionId: session.id, keep, limit } };
        while ((await this.#session(session, dryRun, report, (s) => this.#planTrim(s, keep, dryRun ? Infinity : limit), command, tally)) === 'more');
      }
    }
    if (parsed.log !== undefined) await this.#compactLog(parsed, now, dryRun, report);
    return report;
  }

  /** The sessions as they are now (a copy: the sweep changes the index). */
  #sessions(): Session[] {
    return [...this.#manager.workspace().sessions.values()];
  }

  #planDrop(session: Session): SessionPlan {
    const view = this.#manager.workspace();
    return planDrop(view, session, holdsBySession(view, this.#holds).get(session.id) ?? [], pinnedTurnKeys(view));
  }

  #planTrim(session: Session, keep: NonNullable<RetentionPolicy['turns']>, limit: number): SessionPlan {
    const view = this.#manager.workspace();
    return planTrim(view, session, keep, holdsBySession(view, this.#holds).get(session.id) ?? [], pinnedTurnKeys(view), limit);
  }

  /**
   * One session: plans on the index (its fork family loaded), and unless dry or there is
   * nothing to remove, dispatches the command that decides again and removes it.
   */
  async #session(
    session: Session,
    dryRun: boolean,
    report: RetentionReport,
    plan: (session: Session) => SessionPlan,
    command: { type: string; payload: { sessionId: string; [key: string]: unknown } },
    tally: Set<string>,
  ): Promise<'removed' | 'more' | 'none'> {
    const view = this.#manager.workspace();
    await this.#manager.load([session.id, ...forkFamily(command.payload, view)]);
    const current = view.sessions.get(session.id);
    if (current === undefined) return 'none';
    const planned = plan(current);
    if (planned.type === 'held') {
      if (!report.kept.some((k) => k.sessionId === session.id)) report.kept.push({ sessionId: session.id, reasons: planned.reasons });
      return 'none';
    }
    if (planned.type !== 'remove' || (planned.turns.length === 0 && command.type !== 'retention:drop_session')) return 'none';
    if (dryRun) {
      // Sessions planned one by one may share turns (a fork's history): each is counted once.
      const fresh = planned.turns.filter((key) => !tally.has(key));
      for (const key of fresh) tally.add(key);
      const measured = measure(view, fresh);
      const blobs = [...measured.blobs].filter(([sha256]) => !tally.has(sha256));
      for (const [sha256] of blobs) tally.add(sha256);
      this.#count(report, fresh.length, measured.turnBytes, blobs.length, sum(blobs.map(([, size]) => size)));
      return 'removed';
    }
    const measured = measure(view, planned.turns);
    const outcome = unwrap(await this.#manager.dispatch(command as never)) as SweepOutcome;
    report.commands++;
    if (outcome.outcome === 'held') {
      report.kept.push({ sessionId: session.id, reasons: outcome.reasons });
      return 'none';
    }
    if (outcome.outcome !== 'removed') return 'none';
    const blobBytes = sum(outcome.releasedBlobs.map((sha256) => measured.blobs.get(sha256) ?? 0));
    this.#count(report, outcome.turns, measured.turnBytes, outcome.releasedBlobs.length, blobBytes);
    return outcome.more ? 'more' : 'removed';
  }

  #count(report: RetentionReport, turns: number, turnBytes: number, blobs: number, blobBytes: number): void {
    report.turns.count += turns;
    report.turns.bytes += turnBytes;
    report.blobs.count += blobs;
    report.blobs.bytes += blobBytes;
  }

  async #compactLog(policy: RetentionPolicy, now: number, dryRun: boolean, report: RetentionReport): Promise<void> {
    const store = this.#manager.store;
    if (store.compactLog === undefined || policy.log === undefined) return;
    const before = new Date(now - policy.log.keepFor).toISOString();
    const limit = policy.batch ?? 500;
    for (;;) {
      const done = await store.compactLog({ before, limit, dryRun });
      report.log.count += done.removed;
      report.log.bytes += done.bytes;
      if (dryRun || done.removed < limit) return;
    }
  }
}

function sum(values: Iterable<number>): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
