/**
 * Comparing two sessions (`ws.sessions.diff(a, b)`), layer by layer. The turns layer is the
 * core's: the common ancestor of the two heads and each side's turns since it. The other
 * layers (environment values, UI instances, clearance items) belong to the parts that keep
 * them: each part gives a `SessionDiffLayer` and declares its result in `SessionDiffLayers`,
 * and the composition root hands them to the `SessionManager`.
 */
import { fail } from '../core/errors.js';
import type { WorkspaceManager } from '../core/manager.js';
import { turnKey, type Session as SessionRecord, type Turn, type TurnRef } from '../core/records.js';
import type { CommandLogEntry } from '../core/store.js';
import { allAncestors, ancestry, commonAncestor } from '../core/turn-tree.js';
import type { WorkspaceView } from '../core/workspace-index.js';

/**
 * What each part adds to a comparison, by layer name. A part declares its layer's result here
 * (`declare module` ... `interface SessionDiffLayers { environment: EnvironmentDifference[] }`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SessionDiffLayers {}

/** The turns layer: where the two sessions' histories part, and what each has since. */
export interface TurnsDiff {
  /** The newest turn both heads descend from (null: the sessions share no history). */
  base: TurnRef | null;
  /** Session a's turns after `base` up to its head, oldest first. */
  a: Turn[];
  /** Session b's turns after `base` up to its head, oldest first. */
  b: Turn[];
}

/** Two sessions compared: their ids, the turns since they parted, and each part's layer. */
export type SessionDiff = { a: string; b: string; turns: TurnsDiff } & SessionDiffLayers;

/** One side of a comparison as a layer sees it. */
export interface SessionDiffSide {
  readonly session: SessionRecord;
  /** The session's head turn (null: it has none). */
  readonly head: Turn | null;
  /**
   * The point in the command log the side stands at: its head's seq (0 without a head). State
   * the workspace keeps for all sessions at once (environment values, UI instances) is compared
   * as it was at that point: what each side's model last saw.
   */
  readonly seq: number;
}

/** What a layer reads to compare the two sides. */
export interface SessionDiffContext {
  readonly view: WorkspaceView;
  readonly a: SessionDiffSide;
  readonly b: SessionDiffSide;
  /** The command log up to the later side's seq, oldest first (read once per comparison, shared by the layers). */
  log(): Promise<readonly CommandLogEntry[]>;
}

/** A part's layer of a comparison: its name in `SessionDiffLayers` and how it compares. */
export interface SessionDiffLayer<K extends keyof SessionDiffLayers = keyof SessionDiffLayers> {
  readonly name: K;
  diff(ctx: SessionDiffContext): SessionDiffLayers[K] | Promise<SessionDiffLayers[K]>;
}

/** Commands read from the log per page while a comparison reads it. */
const LOG_PAGE = 500;

/** Compares sessions `a` and `b`: SESSION_NOT_FOUND when either is unknown. */
export async function diffSessions(manager: WorkspaceManager, a: string, b: string, layers: readonly SessionDiffLayer[]): Promise<SessionDiff> {
  for (const id of [a, b]) {
    if (typeof id !== 'string' || !manager.workspace().sessions.has(id))
      throw fail('SESSION_NOT_FOUND', `no session with id "${String(id)}"`, { sessionId: id });
  }
  await manager.load([a, b]);
  const view = manager.workspace();
  const side = (id: string): SessionDiffSide => {
    const session = view.sessions.get(id);
    if (session === undefined) throw fail('SESSION_NOT_FOUND', `no session with id "${id}"`, { sessionId: id });
    const head = session.head === null ? null : (view.turn(session.head) ?? null);
    return { session, head, seq: head?.seq ?? 0 };
  };
  const sides = { a: side(a), b: side(b) };
  let log: Promise<CommandLogEntry[]> | undefined;
  const ctx: SessionDiffContext = { view, ...sides, log: () => (log ??= readLog(manager, Math.max(sides.a.seq, sides.b.seq))) };
  const result: Record<string, unknown> = { a, b, turns: turnsSince(view, sides.a.session.head, sides.b.session.head) };
  for (const layer of layers) result[layer.name] = await layer.diff(ctx);
  return result as unknown as SessionDiff;
}

/**
 * The common ancestor of two heads (through both parents of merge turns) and each head's
 * turns since it: the first-parent path from the head up to the ancestor, or to a turn the
 * ancestor descends from (where that path reaches the shared history past a merge).
 */
export function turnsSince(view: WorkspaceView, a: TurnRef | null, b: TurnRef | null): TurnsDiff {
  const base = commonAncestor(view, a, b);
  const shared = base === null ? new Set<string>() : new Set(allAncestors(view, base).keys());
  const since = (head: TurnRef | null): Turn[] => {
    const turns: Turn[] = [];
    for (const turn of ancestry(view, head)) {
      if (shared.has(turnKey(turn))) break;
      turns.push(turn);
    }
    return turns.reverse();
  };
  return { base, a: since(a), b: since(b) };
}

async function readLog(manager: WorkspaceManager, until: number): Promise<CommandLogEntry[]> {
  const entries: CommandLogEntry[] = [];
  for (let after = 0; after < until;) {
    const page = await manager.store.commandLog({ after, limit: LOG_PAGE });
    for (const entry of page) if (entry.seq <= until) entries.push(entry);
    const last = page.at(-1);
    if (last === undefined || page.length < LOG_PAGE) break;
    after = last.seq;
  }
  return entries;
}
