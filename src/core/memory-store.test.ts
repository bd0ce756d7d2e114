import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encode, encodeRecord } from './memory-store.js';
import { createWorkspace } from '../create-workspace.js';
import { MemoryStore } from './memory-store.js';

describe('encodeRecord', () => {
  it('gives the native JSON text, and plain only when reading it back gives the value itself', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const { json, plain } = encodeRecord(value);
        expect(json).toBe(JSON.stringify(value));
        // fc.jsonValue may hold -0 (JSON reads it back as 0) and __proto__ keys: those are not plain.
        if (plain) expect(JSON.parse(json)).toStrictEqual(value);
        else expect(JSON.stringify(JSON.parse(json))).toBe(json);
      }),
    );
  });

  it('is plain for a turn-like record and not for what JSON drops or changes', () => {
    const turn = { id: 'a', version: 0, parent: null, blocks: [{ type: 'text', text: 'hi' }], meta: {}, seq: 3, createdAt: '2026-01-01T00:00:00.000Z' };
    expect(encodeRecord(turn).plain).toBe(true);
    const holey: number[] = [];
    holey[2] = 3; // holes at 0 and 1: JSON writes null there
    for (const lossy of [
      { a: undefined },
      { a: -0 },
      holey,
      [undefined],
      new (class Box {})(),
      JSON.parse('{"__proto__": 1}') as unknown,
      { d: new Date(0) },
    ]) {
      const { json, plain } = encodeRecord(lossy);
      expect(plain).toBe(false);
      expect(json).toBe(JSON.stringify(lossy));
    }
  });

  it('refuses what JSON cannot carry, wherever it is, with STORE_ERROR', () => {
    for (const bad of [1n, () => 1, Symbol('s'), NaN, Infinity, { a: [{ b: -Infinity }] }, { f: () => 1 }, [Symbol('s')], { n: 2n }, undefined]) {
      expect(() => encode(bad)).toThrow(expect.objectContaining({ code: 'STORE_ERROR' }));
    }
    // A toJSON is encoded the careful way: what it returns is checked too.
    expect(() => encode({ toJSON: () => ({ n: NaN }) })).toThrow(expect.objectContaining({ code: 'STORE_ERROR' }));
  });
});

describe('the index takes a plain record as written', () => {
  it("leaves the caller's objects unfrozen, and holds what the store returns", async () => {
    const ws = await createWorkspace({ store: new MemoryStore() });
    try {
      const session = await ws.sessions.create({ label: 'plain' });
      const blocks = [{ type: 'text' as const, text: 'hello' }];
      const meta = { source: 'test' };
      const turn = await session.addTurn({ role: 'user', blocks, meta });
      expect(Object.isFrozen(blocks) || Object.isFrozen(blocks[0]) || Object.isFrozen(meta)).toBe(false);
      blocks.push({ type: 'text', text: 'later' });
      meta.source = 'changed';
      const held = ws.manager.workspace().turns.get(`${turn.id}@0`);
      expect(Object.isFrozen(held) && Object.isFrozen(held?.blocks)).toBe(true);
      expect(held).toStrictEqual(await ws.manager.store.get('turn', `${turn.id}@0`));
      expect(held?.blocks).toHaveLength(1);
      expect(held?.meta).toStrictEqual({ source: 'test' });
    } finally {
      await ws.close();
    }
  });
});
