/**
 * A workspace for retention (test/retention.test.ts and `npm run bench:retention`): sessions
 * whose turns are regenerated (edits: the old versions leave the path), branched, forked
 * (forks stand on turns that later leave their source's path), merged, with images, pending
 * approvals, a paused run, pins, and some sessions idle. Everything goes through the real
 * commands, so what it leaves is what the engine writes. Deterministic for a seed.
 */
import { randomBytes } from 'node:crypto';
import { unwrap, type SessionRecord, type StoredRecord, type Turn, type TurnRef, type Workspace } from '../src/index.js';
import { mulberry32 } from '../test/web-tasks/tasks.js';

export interface RetentionFixtureOptions {
  /** Turn versions to write in all. */
  turns: number;
  /** Sessions forked from others. */
  forks: number;
  /** Bytes of each image (each regenerated answer carries a new one). */
  imageBytes: number;
  /** Advances the workspace's clock (the fixture makes some sessions idle by it). */
  advance(ms: number): void;
  seed?: number;
}

export interface RetentionFixture {
  sessions: string[];
  /** Sessions idle for over three hours when the fixture ends (every other one changed in its last minutes). */
  idle: string[];
  /** Sessions with a pending approval, a paused run, a pin. */
  approval: string;
  paused: string;
  pinnedSession: string;
  /** A turn version off its session's path, pinned. */
  pinnedTurn: TurnRef;
}

const HOUR = 3_600_000;

/** Builds the fixture in `ws` (a fresh workspace whose clock `advance` moves). */
export async function buildRetentionFixture(ws: Workspace, options: RetentionFixtureOptions): Promise<RetentionFixture> {
  const rng = mulberry32(options.seed ?? 38);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
  const dispatch = async (type: string, payload: unknown): Promise<unknown> => unwrap(await ws.manager.dispatch({ type, payload } as never));
  const text = (t: string) => ({ type: 'text' as const, text: t });
  const image = async () => {
    const blob = await ws.blobs.register(randomBytes(options.imageBytes), { mediaType: 'image/png' });
    return { type: 'image' as const, blob: { sha256: blob.sha256 }, mediaType: 'image/png' };
  };
  let written = 0;
  const bases = Math.max(3, Math.round(options.forks / 10));
  const sessions: string[] = [];
  const idle: string[] = [];
  for (let i = 0; i < bases; i++) {
    const s = (await dispatch('session:create', { label: `base ${i}` })) as SessionRecord;
    sessions.push(s.id);
  }
  // The first hour: every session gets a start; a few stay idle after it.
  const head = (id: string) => ws.manager.workspace().sessions.get(id)?.head ?? null;
  const add = async (sessionId: string, role: 'user' | 'assistant', blocks: unknown[]) => {
    written++;
    return (await dispatch('turn:add', { sessionId, turn: { role, blocks } })) as Turn;
  };
  /** A user turn, an answer with an image, then the answer regenerated `n` times (each with a new image). */
  const exchange = async (sessionId: string, n: number) => {
    await add(sessionId, 'user', [text(`question ${written}`)]);
    const answer = await add(sessionId, 'assistant', [text(`answer ${written}`), await image()]);
    for (let k = 0; k < n; k++) {
      written++;
      await dispatch('turn:edit', { sessionId, turnId: answer.id, blocks: [text(`answer ${written}, take ${k + 2}`), await image()] });
    }
  };
  for (const id of sessions) await exchange(id, 2);
  idle.push(sessions[0] as string);
  options.advance(2 * HOUR);
  let forks = 0;
  let pinnedTurn: TurnRef | undefined;
  while (written < options.turns) {
    const active = sessions.filter((id) => !idle.includes(id));
    const sessionId = pick(active);
    await ws.manager.load([sessionId]);
    const roll = rng();
    if (forks < options.forks && roll < 0.12) {
      // A fork at a turn of the path, often one that later leaves it (the answer is regenerated after).
      const at = head(sessionId);
      const fork = (await dispatch('session:fork', { sessionId, ...(at !== null && { turnId: at.id, version: at.version }) })) as SessionRecord;
      sessions.push(fork.id);
      forks++;
      if (forks % 25 === 0) idle.push(fork.id);
      if (at !== null && rng() < 0.5) {
        written++;
        await dispatch('turn:edit', { sessionId, turnId: at.id, blocks: [text(`after the fork ${written}`), await image()] });
      }
    } else if (roll < 0.2) {
      // A branch from an earlier turn: the old continuation leaves the path.
      const at = head(sessionId);
      const parent = at === null ? null : (ws.manager.workspace().turn(at)?.parent ?? null);
      written++;
      await dispatch('turn:branch', { sessionId, parent, turn: { role: 'user', blocks: [text(`branch ${written}`)] } });
    } else if (roll < 0.24) {
      // A merge of the session it was forked from (its head), where it has one.
      const record = ws.manager.workspace().sessions.get(sessionId);
      const from = record?.forkedFrom === null || record === undefined ? null : head(record.forkedFrom.sessionId);
      if (from !== null && record !== undefined && sessions.includes(record.forkedFrom?.sessionId ?? '')) {
        written++;
        const merged = await ws.manager.dispatch({ type: 'turn:merge', payload: { sessionId, from, as: 'turns' } });
        if (!merged.ok && merged.error.code !== 'MERGE_NOTHING' && merged.error.code !== 'MERGE_NOT_RELATED') throw merged.error;
      } else await exchange(sessionId, 0);
    } else {
      await exchange(sessionId, 1 + Math.floor(rng() * 3));
    }
    if (pinnedTurn === undefined && written > options.turns / 3) {
      // Pin the answer at the head, then regenerate it: the pinned version leaves the path and must stay.
      const at = head(sessionId);
      if (at !== null && ws.manager.workspace().turn(at)?.role === 'assistant') {
        await dispatch('turn:pin', { sessionId, turnId: at.id, version: at.version });
        pinnedTurn = at;
        written++;
        await dispatch('turn:edit', { sessionId, turnId: at.id, blocks: [text('regenerated after the pin'), await image()] });
      }
    }
    if (written % 500 < 3) options.advance(60_000);
  }
  const active = sessions.filter((id) => !idle.includes(id));
  // Three hours on, every active session says one more thing: the idle ones have been idle for over three hours.
  options.advance(3 * HOUR);
  for (const id of active) await add(id, 'user', [text(`still here ${written}`)]);
  // Holds: a pending approval, a paused run, a pinned session (each also idle-looking later, and full of old versions).
  const [approval, paused, pinnedSession] = [active[1], active[2], active[3]] as [string, string, string];
  await dispatch('approval:request', {
    sessionId: approval,
    turnId: head(approval)?.id ?? 'none',
    callId: 'c1',
    action: 'run_command',
    input: { command: 'ls' },
    grantKey: 'ls',
    type: 'command',
    description: 'run ls',
    details: null,
    risk: 'low',
    workerPath: [{ id: approval, depth: 0, task: 'chat' }],
  });
  await dispatch('run:claim', { sessionId: paused, holder: 'fixture', runId: 'run-paused', ttlMs: 60_000 });
  await dispatch('run:release', { sessionId: paused, holder: 'fixture', runId: 'run-paused', end: { status: 'paused' } });
  await dispatch('session:pin', { sessionId: pinnedSession });
  if (pinnedTurn === undefined) throw new Error('the fixture pinned no turn: give it more turns');
  return { sessions, idle, approval, paused, pinnedSession, pinnedTurn };
}

/** Every turn record's JSON text, by key, as the store holds it. */
export async function storedTurns(ws: Workspace): Promise<Map<string, string>> {
  const records: StoredRecord[] = await ws.manager.store.load();
  return new Map(records.filter((r) => r.collection === 'turn').map((r) => [r.key, JSON.stringify(r.value)]));
}

/**
 * The turn keys each session sees, computed from stored records alone (not by the code under
 * test): from its head and its fork point, up both parents of every turn.
 */
export function seenBy(turns: ReadonlyMap<string, string>, session: SessionRecord): Set<string> {
  const seen = new Set<string>();
  const stack: TurnRef[] = [...(session.head === null ? [] : [session.head]), ...(session.forkedFrom === null ? [] : [session.forkedFrom.turn])];
  while (stack.length > 0) {
    const ref = stack.pop() as TurnRef;
    const key = `${ref.id}@${ref.version}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const json = turns.get(key);
    if (json === undefined) continue;
    const turn = JSON.parse(json) as Turn;
    if (turn.parent !== null) stack.push(turn.parent);
    if (turn.merge !== undefined) stack.push(turn.merge.from);
  }
  return seen;
}
