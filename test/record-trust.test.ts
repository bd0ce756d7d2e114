/**
 * Turns read back from the store are not parsed by their schema again (issue 38, section 3:
 * the cold read's time went mostly to zod): the index validated each when it was written. That
 * is sound only while the turn schema changes nothing it accepts, so the first test walks the
 * schema for defaults and transforms (a pipe is walked through) and fails on any. A cheap check of the fields the
 * index relies on stands in on every read (CORRUPT_RECORD, nothing loaded); `doctor` validates
 * every stored turn whole and reports one that does not match. On SQLite and PostgreSQL, with
 * the stored text changed under the workspace as a disk or a hand edit would.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { createWorkspace, doctor } from '../src/index.js';
import { CORE_COLLECTIONS } from '../src/core/records.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { openClosed, tempDir, text } from './helpers.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

/** The kinds of zod node that make parse change what it accepts. */
const CHANGING = new Set(['default', 'prefault', 'transform', 'catch', 'success']);

/** Paths in a schema where parse would change a value it accepts. */
function changingNodes(schema: z.ZodType): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const walk = (node: unknown, path: string): void => {
    if (typeof node !== 'object' || node === null || seen.has(node)) return;
    seen.add(node);
    const def = (node as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (def === undefined) return;
    if (CHANGING.has(def.type as string)) out.push(`${path} (${String(def.type)})`);
    const shape = def.shape as Record<string, unknown> | undefined;
    for (const [key, child] of Object.entries(shape ?? {})) walk(child, `${path}.${key}`);
    for (const key of ['element', 'innerType', 'valueType', 'keyType', 'in', 'out', 'left', 'right', 'catchall'] as const) walk(def[key], `${path}.${key}`);
    for (const [n, option] of ((def.options as unknown[] | undefined) ?? []).entries()) walk(option, `${path}|${n}`);
    for (const [n, item] of ((def.items as unknown[] | undefined) ?? []).entries()) walk(item, `${path}[${n}]`);
    if (def.type === 'lazy') walk((def.getter as () => unknown)(), `${path}~`);
  };
  walk(schema, 'turn');
  return out;
}

describe('turns read without their schema', () => {
  it('the turn schema has no default or transform: parse is the identity on what it accepts', () => {
    expect(changingNodes(CORE_COLLECTIONS.turn)).toEqual([]);
    // The walk finds one where there is one.
    expect(changingNodes(CORE_COLLECTIONS.turn.extend({ probe: CORE_COLLECTIONS.turn.shape.role.default('user') }))).toEqual(['turn.probe (default)']);
    expect(changingNodes(CORE_COLLECTIONS.turn.extend({ probe: CORE_COLLECTIONS.turn.shape.seq.transform((n) => n + 1) }))).toEqual([
      'turn.probe.out (transform)',
    ]);
  });

  type Kind = 'sqlite' | 'postgres';
  describe.each<Kind>(['sqlite', 'postgres'])('on %s', (kind) => {
    /** A workspace with one session of three turns, closed; `corrupt` runs SQL on its records; `open` opens it again. */
    async function stored() {
      const dir = tempDir();
      const schema = freshSchema('trust');
      const open = () => (kind === 'sqlite' ? createWorkspace({ dir }) : createWorkspace({ store: postgresStore(PG_URL, { schema }) }));
      const ws = await openClosed(kind === 'sqlite' ? { dir } : { store: postgresStore(PG_URL, { schema }) });
      const s = await ws.sessions.create({ label: 'kept' });
      const turns = [];
      for (const words of ['one', 'two', 'three']) turns.push(await s.addTurn({ role: 'user', blocks: [text(words)] }));
      await ws.close();
      const corrupt = async (key: string, edit: (value: Record<string, unknown>) => unknown) => {
        if (kind === 'sqlite') {
          const Database = (await import('better-sqlite3')).default;
          const db = new Database(join(dir, 'workspace.db'));
          const row = db.prepare<[string], { value: string }>("SELECT value FROM records WHERE collection = 'turn' AND key = ?").get(key);
          db.prepare("UPDATE records SET value = ? WHERE collection = 'turn' AND key = ?").run(
            JSON.stringify(edit(JSON.parse(row?.value ?? '{}') as Record<string, unknown>)),
            key,
          );
          db.close();
        } else {
          const pg = (await import('pg')).default;
          const client = new pg.Client({ connectionString: PG_URL });
          await client.connect();
          const { rows } = await client.query<{ value: string }>(`SELECT value FROM "${schema}".records WHERE collection = 'turn' AND key = $1`, [key]);
          const value = JSON.stringify(edit(JSON.parse(rows[0]?.value ?? '{}') as Record<string, unknown>));
          await client.query(`UPDATE "${schema}".records SET value = $1 WHERE collection = 'turn' AND key = $2`, [value, key]);
          await client.end();
        }
      };
      return { sessionId: s.id, turns, open, corrupt };
    }

    const keyOf = (t: { id: string; version: number }) => `${t.id}@${t.version}`;

    it('reads a sound session back as it was written, and doctor finds it sound', async () => {
      const { sessionId, turns, open } = await stored();
      const ws = await open();
      const session = await ws.sessions.open(sessionId);
      expect((await session?.turns())?.map((t) => t.blocks)).toEqual(turns.map((t) => t.blocks));
      expect((await doctor(ws.manager)).healthy).toBe(true);
      await ws.close();
    });

    it('refuses to load a turn whose shape the index relies on is broken (CORRUPT_RECORD, nothing loaded)', async () => {
      const { sessionId, turns, open, corrupt } = await stored();
      await corrupt(keyOf(turns[1] as { id: string; version: number }), (t) => ({ ...t, blocks: 'not a list' }));
      const ws = await open();
      await expect(ws.manager.load([sessionId])).rejects.toMatchObject({
        code: 'CORRUPT_RECORD',
        details: { collection: 'turn', key: keyOf(turns[1] as { id: string; version: number }) },
      });
      expect(ws.manager.workspace().isLoaded(sessionId)).toBe(false);
      await ws.close();
    });

    it('loads a turn that is only wrong deeper down, and doctor reports it', async () => {
      const { sessionId, turns, open, corrupt } = await stored();
      const broken = turns[2] as { id: string; version: number };
      await corrupt(keyOf(broken), (t) => ({ ...t, blocks: [{ type: 'text', id: 'b1', text: 42 }] }));
      const ws = await open();
      await ws.manager.load([sessionId]);
      const report = await doctor(ws.manager);
      expect(report.healthy).toBe(false);
      expect(report.violations.map((v) => v.code)).toEqual(['CORRUPT_RECORD']);
      expect(report.violations[0]?.message).toContain(`turn ${keyOf(broken)}`);
      await ws.close();
    });
  });
});
