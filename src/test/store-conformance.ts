/**
 * The store conformance suite: every Store implementation must pass it unchanged.
 * Call `describeStoreConformance` from a test file with a factory for the store.
 */
import { describe, expect, it } from 'vitest';
import { GolemError } from '../core/errors.js';
import type { CommandLogInput, Store, StoredWrite } from '../core/store.js';

export interface StoreHarness {
  /** A fresh, empty, unopened store. */
  create(): Promise<Store>;
  /** A new store instance over the same data as `store` (after `store` was closed); omit for non-durable stores. */
  reopen?: (store: Store) => Promise<Store>;
  /** The store has no `loadRecords`: a workspace on it loads every record at open. */
  loadsWhole?: boolean;
}

/** A put of a value, as the manager hands it to a store (JSON text). */
function put(collection: string, key: string, value: unknown, owner?: string | null): StoredWrite {
  return { op: 'put', collection, key, json: JSON.stringify(value), ...(owner !== undefined && { owner }) };
}

let counter = 0;
/** Log entries for one store, numbered 1, 2, 3... */
function entries() {
  let seq = 0;
  const make = (type = 'test:cmd', payload: unknown = {}): CommandLogInput => {
    counter++;
    return { seq: ++seq, id: `cmd-${counter}`, type, payload, timestamp: new Date(0).toISOString(), actor: null };
  };
  /** Takes back the last number (for an entry the store refused). */
  make.undo = () => void seq--;
  return make;
}

async function opened(harness: StoreHarness): Promise<Store> {
  const store = await harness.create();
  await store.open();
  return store;
}

export function describeStoreConformance(name: string, harness: StoreHarness): void {
  describe(`Store conformance: ${name}`, () => {
    it('starts empty', async () => {
      const store = await opened(harness);
      expect(await store.lastSeq()).toBe(0);
      expect(await store.load()).toEqual([]);
      expect(await store.commandLog()).toEqual([]);
      expect((await store.stats()).commands).toBe(0);
      expect(await store.get('session', 'nope')).toBeUndefined();
      await store.close();
    });

    it('applies puts and deletes and appends the command, with gapless seqs', async () => {
      const store = await opened(harness);
      const entry = entries();
      await store.commit(entry('a', { n: 1 }), [put('session', 's1', { id: 's1', n: 1 }), put('turn', 't@0', { id: 't', text: 'héllo ✓ 𝄞' })]);
      await store.commit(entry('b'), [{ op: 'delete', collection: 'session', key: 's1' }]);
      await store.commit(entry('c'), []);
      expect(await store.lastSeq()).toBe(3);
      expect(await store.get('session', 's1')).toBeUndefined();
      expect(await store.get('turn', 't@0')).toEqual({ id: 't', text: 'héllo ✓ 𝄞' });
      expect(await store.load()).toEqual([{ collection: 'turn', key: 't@0', value: { id: 't', text: 'héllo ✓ 𝄞' } }]);
      const log = await store.commandLog();
      expect(log.map((e) => [e.seq, e.type])).toEqual([
        [1, 'a'],
        [2, 'b'],
        [3, 'c'],
      ]);
      expect(log[0]?.payload).toEqual({ n: 1 });
      expect((await store.stats()).commands).toBe(3);
      expect((await store.stats()).records).toEqual({ turn: 1 });
      await store.close();
    });

    it('keeps first-written order when a record is overwritten', async () => {
      const store = await opened(harness);
      const entry = entries();
      await store.commit(entry(), [put('c', 'a', 1), put('c', 'b', 2)]);
      await store.commit(entry(), [put('c', 'a', 3)]);
      expect((await store.load()).map((r) => [r.key, r.value])).toEqual([
        ['a', 3],
        ['b', 2],
      ]);
      await store.close();
    });

    it('deleting a missing record is not an error', async () => {
      const store = await opened(harness);
      await store.commit(entries()(), [{ op: 'delete', collection: 'c', key: 'missing' }]);
      expect(await store.lastSeq()).toBe(1);
      await store.close();
    });

    it('is all or nothing: a write that cannot be stored leaves no trace', async () => {
      const store = await opened(harness);
      const entry = entries();
      await store.commit(entry(), [put('c', 'kept', 1)]);
      const failing = store.commit(entry(), [
        put('c', 'x', 1),
        { op: 'delete', collection: 'c', key: 'kept' },
        { op: 'put', collection: 'c', key: 'y', json: null as unknown as string },
      ]);
      await expect(failing).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e) && e.code === 'STORE_ERROR');
      expect(await store.load()).toEqual([{ collection: 'c', key: 'kept', value: 1 }]);
      expect((await store.stats()).commands).toBe(1);
      expect(await store.lastSeq()).toBe(1);
      entry.undo();
      await store.commit(entry(), []);
      expect(await store.lastSeq()).toBe(2);
      await store.close();
    });

    it('refuses a second command with the same id, writing nothing', async () => {
      const store = await opened(harness);
      const entry = entries();
      const first = entry();
      await store.commit(first, []);
      await expect(store.commit({ ...entry(), id: first.id }, [put('c', 'x', 1)])).rejects.toSatisfy(
        (e: unknown) => GolemError.isInstance(e) && e.code === 'DUPLICATE_ID',
      );
      expect(await store.load()).toEqual([]);
      expect((await store.commandLog()).length).toBe(1);
      await store.close();
    });

    it('pages through the command log', async () => {
      const store = await opened(harness);
      const entry = entries();
      for (let i = 0; i < 10; i++) await store.commit(entry(`t${i}`), []);
      expect((await store.commandLog({ after: 3, limit: 4 })).map((e) => e.seq)).toEqual([4, 5, 6, 7]);
      expect((await store.commandLog({ after: 8 })).map((e) => e.type)).toEqual(['t8', 't9']);
      expect(await store.commandLog({ after: 10 })).toEqual([]);
      await store.close();
    });

    it('returns copies: changing a loaded value does not change the store', async () => {
      const store = await opened(harness);
      const entry = entries();
      await store.commit(entry(), [put('c', 'k', { list: [1] })]);
      const [record] = await store.load();
      (record?.value as { list: number[] }).list.push(2);
      expect(await store.get('c', 'k')).toEqual({ list: [1] });
      await store.close();
    });

    it('refuses a command at the wrong position in the log, writing nothing', async () => {
      const store = await opened(harness);
      const entry = entries();
      await store.commit(entry(), []);
      const stale = { ...entry(), seq: 1 };
      const ahead = { ...entry(), seq: 5 };
      for (const bad of [stale, ahead]) {
        await expect(store.commit(bad, [put('c', 'x', 1)])).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e) && e.code === 'STORE_CONFLICT');
      }
      expect(await store.load()).toEqual([]);
      expect(await store.lastSeq()).toBe(1);
      await store.close();
    });

    it("loads records by owner: the shared ones, one owner's, several owners' (loadRecords, where the store keeps owners)", async () => {
      const store = await opened(harness);
      if (store.loadRecords === undefined) {
        // An optional method: a store without it is loaded whole, and its harness says so.
        expect(harness.loadsWhole).toBe(true);
        return store.close();
      }
      const entry = entries();
      await store.commit(entry(), [put('session', 's1', { id: 's1' }), put('turn', 'a@0', { n: 1 }, 's1'), put('turn', 'b@0', { n: 2 }, 's2')]);
      await store.commit(entry(), [put('turn', 'c@0', { n: 3 }, 's1'), put('role', 'r', { name: 'r' }, null), put('turn', 'a@0', { n: 10 }, 's1')]);
      await store.commit(entry(), [{ op: 'delete', collection: 'turn', key: 'c@0', owner: 's1' }, put('turn', 'd@0', { n: 4 }, 's3')]);
      const keys = (r: { records: { collection: string; key: string; value: unknown }[] }) =>
        r.records.map((x) => `${x.collection}/${x.key}=${JSON.stringify(x.value)}`).sort();
      expect(keys(await store.loadRecords({ owners: [], shared: true }))).toEqual(['role/r={"name":"r"}', 'session/s1={"id":"s1"}']);
      expect(keys(await store.loadRecords({ owners: ['s1'] }))).toEqual(['turn/a@0={"n":10}']);
      expect(keys(await store.loadRecords({ owners: ['s2', 's3', 'nobody'] }))).toEqual(['turn/b@0={"n":2}', 'turn/d@0={"n":4}']);
      const both = await store.loadRecords({ owners: ['s2'], shared: true });
      expect(keys(both)).toEqual(['role/r={"name":"r"}', 'session/s1={"id":"s1"}', 'turn/b@0={"n":2}']);
      expect(both.lastSeq).toBe(3);
      expect((await store.loadRecords({ owners: [] })).records).toEqual([]);
      // The whole workspace is still one load away, owners or not.
      expect((await store.load()).length).toBe(5);
      await store.close();
    });

    it('refuses a put that would give a record to another owner, writing nothing (DUPLICATE_ID)', async () => {
      const store = await opened(harness);
      const entry = entries();
      await store.commit(entry(), [put('turn', 'x@0', { n: 1 }, 's1')]);
      // The same owner may overwrite its record.
      await store.commit(entry(), [put('turn', 'x@0', { n: 2 }, 's1')]);
      const stolen = entry();
      await expect(store.commit(stolen, [put('c', 'other', 1), put('turn', 'x@0', { n: 3 }, 's2')])).rejects.toSatisfy(
        (e: unknown) => GolemError.isInstance(e) && e.code === 'DUPLICATE_ID',
      );
      entry.undo();
      await expect(store.commit(entry(), [put('turn', 'x@0', { n: 3 }, null)])).rejects.toSatisfy(
        (e: unknown) => GolemError.isInstance(e) && e.code === 'DUPLICATE_ID',
      );
      entry.undo();
      expect(await store.get('turn', 'x@0')).toEqual({ n: 2 });
      expect(await store.get('c', 'other')).toBeUndefined();
      expect(await store.lastSeq()).toBe(2);
      await store.close();
    });

    it('refuses to work once closed', async () => {
      const store = await opened(harness);
      await store.close();
      await expect(store.commit(entries()(), [])).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e) && e.code === 'STORE_ERROR');
      await expect(store.load()).rejects.toSatisfy((e: unknown) => GolemError.isInstance(e));
    });

    if (harness.reopen !== undefined) {
      const reopen = harness.reopen;
      it('keeps everything across close and reopen', async () => {
        const store = await opened(harness);
        const entry = entries();
        await store.commit(entry('x', { deep: { a: [1, 'two', null, true] } }), [put('c', 'a', { v: 1 }), put('d', 'b', 'text')]);
        const before = { records: await store.load(), log: await store.commandLog() };
        await store.close();
        const again = await reopen(store);
        await again.open();
        expect(await again.load()).toEqual(before.records);
        expect(await again.commandLog()).toEqual(before.log);
        expect(await again.lastSeq()).toBe(1);
        await again.commit({ ...entry(), seq: 2 }, []);
        expect(await again.lastSeq()).toBe(2);
        await again.close();
      });
    }
  });
}
