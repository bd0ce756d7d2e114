/**
 * The scale benchmark's fixture builder (bench/scale-fixture.ts): a workspace stamped
 * from a template session, on SQLite and on PostgreSQL, is one the engine opens as its
 * own: doctor finds it sound, each copy reads back as the template with ids of its own,
 * the log runs 1, 2, 3... and the next command lands after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace, doctor, type Turn, type Workspace } from '../src/index.js';
import { postgresStore } from '../src/store/postgres/index.js';
import { buildPostgresFixture, buildSqliteFixture, captureTemplate, type BuiltFixture, type FixturePlan, type Template } from '../bench/scale-fixture.js';
import { freshSchema, PG_URL } from './pg-helpers.js';

const SESSIONS = 20;
const TURNS = 50;
let template: Template;
let plan: FixturePlan;
const dirs: string[] = [];

beforeAll(async () => {
  template = await captureTemplate(TURNS, (i) => `turn ${i}: ${'words '.repeat(i % 7)}"quoted" \\ and ✓`);
  plan = { workspace: template.workspace, sessions: [{ part: template.session, copies: SESSIONS }] };
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A turn without what a copy changes (its ids, its seq, its time). */
const content = (t: Turn) => ({ version: t.version, role: t.role, blocks: t.blocks, meta: t.meta });

async function expectSoundCopy(ws: Workspace, built: BuiltFixture): Promise<void> {
  expect(built).toMatchObject({ sessions: SESSIONS, turns: SESSIONS * TURNS, commands: 1 + SESSIONS * (TURNS + 1) });
  const report = await doctor(ws.manager);
  expect(report.violations).toEqual([]);
  expect(report.indexDrift).toEqual([]);
  expect(report.healthy).toBe(true);
  expect(await ws.summary()).toMatchObject({ sessions: SESSIONS, turns: SESSIONS * TURNS, commands: built.commands });
  const log = await ws.manager.store.commandLog();
  expect(log.map((e) => e.seq)).toEqual(Array.from({ length: built.commands }, (_, i) => i + 1));

  const ids = built.sessionIds[0] ?? [];
  expect(new Set(ids).size).toBe(SESSIONS);
  expect(ids).not.toContain(template.sessionId);
  const seen = new Set<string>();
  for (const id of ids) {
    const transcript = (await ws.sessions.get(id)?.transcript()) ?? [];
    expect(transcript.map(content)).toEqual(template.transcript.map(content));
    transcript.forEach((turn, i) => {
      expect(turn.sessionId).toBe(id);
      expect(turn.parent).toEqual(i === 0 ? null : { id: transcript[i - 1]?.id, version: 0 });
      seen.add(turn.id);
    });
    // Its commands are where its turns say they are.
    const own = log.filter((e) => JSON.stringify(e.payload).includes(id));
    expect(own.map((e) => e.type)).toEqual(['session:create', ...transcript.map(() => 'turn:add')]);
    expect(transcript.map((t) => t.seq)).toEqual(own.slice(1).map((e) => e.seq));
  }
  expect(seen.size).toBe(SESSIONS * TURNS);
  for (const turn of template.transcript) expect(seen.has(turn.id)).toBe(false);

  // The engine carries on where the build stopped.
  const session = ws.sessions.get(ids[3] ?? '');
  const head = session?.head();
  const next = await session?.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'and one more' }] });
  expect(next?.seq).toBe(built.commands + 1);
  expect(next?.parent).toEqual(head);
  expect((await doctor(ws.manager)).healthy).toBe(true);
}

describe('the scale fixture builder', () => {
  it('stamps a SQLite workspace that opens, passes doctor and reads back as the template', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'golem-scale-fixture-'));
    dirs.push(dir);
    const built = buildSqliteFixture(join(dir, 'workspace.db'), plan);
    const ws = await createWorkspace({ dir });
    try {
      await expectSoundCopy(ws, built);
    } finally {
      await ws.close();
    }
    expect(() => buildSqliteFixture(join(dir, 'workspace.db'), plan)).toThrow(/not a new database/);
  });

  it('stamps a PostgreSQL workspace that opens, passes doctor and reads back as the template, each command with its writes', async () => {
    const schema = freshSchema('scale');
    const built = await buildPostgresFixture(PG_URL, schema, plan);
    const ws = await createWorkspace({ store: postgresStore(PG_URL, { schema }) });
    try {
      // Another process catches up from the log's writes: replaying them all gives the records stored.
      const replayed = new Map<string, string>();
      for (const change of (await ws.manager.store.changes?.(0)) ?? []) {
        for (const w of change.writes) {
          if (w.op === 'put') replayed.set(`${w.collection}/${w.key}`, w.json);
          else replayed.delete(`${w.collection}/${w.key}`);
        }
      }
      const stored = new Map((await ws.manager.store.load()).map((r) => [`${r.collection}/${r.key}`, JSON.stringify(r.value)]));
      expect(new Map([...replayed].map(([k, json]) => [k, JSON.stringify(JSON.parse(json))]))).toEqual(stored);
      await expectSoundCopy(ws, built);
    } finally {
      await ws.close();
    }
    await expect(buildPostgresFixture(PG_URL, schema, plan)).rejects.toThrow(/already holds a workspace/);
  });
});
