/**
 * The store conformance suite: every Store implementation must pass it unchanged.
 * Call `describeStoreConformance` from a test file with a factory for the store.
 */
import { describe, expect, it } from 'vitest';
import { GolemError } from '../core/errors.js';
import { WORKSPACE_STREAM, type CommandLogInput, type Store, type StoredWrite } from '../core/store.js';

export interface StoreHarness {
  /** A fresh, empty, unopened store. */
  create(): Promise<Store>;
  /** A new store instance over the same data as `store` (after `store` was closed); omit for non-durable stores. */
  reopen?: (store: Store) => Promise<Store>;
  /** The store has no `loadRecords`: a workspace on it loads every record at open. */
  loadsWhole?: boolean;
  /** The store has no `append`: commands on it commit one at a time, each at the seq it names. */
  noStreams?: boolean;
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

    it('appends at the next seq, refusing a command that read a stream written since, and hands back what came between (append)', async () => {
      const store = await opened(harness);
      const append = store.append?.bind(store);
      if (append === undefined) {
        expect(harness.noStreams).toBe(true);
        return store.close();
      }
      const entry = entries();
      // A turn-like record marked to carry its command's seq (its last "seq" key), with decoys before and after it.
      const turn = (id: string, seq: number): StoredWrite => ({
        op: 'put',
        collection: 'turn',
        key: `${id}@0`,
        json: JSON.stringify({ id, meta: { seq: 1, note: '𝄞 "seq":7 é' }, seq, createdAt: 'a "seq":1 b' }),
        owner: 's1',
        stamp: true,
      });
      const [first, second] = [entry(), entry()];
      // Decided at 1, lands at 1: nothing between, nothing stamped.
      expect(await append(first, [turn('a', 1)], { since: 0, read: ['s1', WORKSPACE_STREAM], write: ['s1'] })).toEqual({ seq: 1, before: [] });
      // Another writer's command on another session lands at 2 ...
      expect((await append(second, [put('session', 's2', { id: 's2' })], { since: 1, read: ['s2', WORKSPACE_STREAM], write: ['s2'] })).seq).toBe(2);
      // ... so one decided at 2 on session s1 (seen up to 1) lands at 3, its turn stamped with 3 (its last "seq" key only).
      const third = { ...entry(), seq: 2 };
      const landed = await append(third, [turn('b', 2), put('c', 'plain', { seq: 2 })], { since: 1, read: ['s1', WORKSPACE_STREAM], write: ['s1'] });
      expect(landed.seq).toBe(3);
      if (landed.before !== undefined) expect(landed.before.map((c) => c.seq)).toEqual([2]);
      expect(await store.get('turn', 'b@0')).toEqual({ id: 'b', meta: { seq: 1, note: '𝄞 "seq":7 é' }, seq: 3, createdAt: 'a "seq":1 b' });
      expect(await store.get('c', 'plain')).toEqual({ seq: 2 });
      expect((await store.commandLog()).map((e) => [e.seq, e.id])).toEqual([
        [1, first.id],
        [2, second.id],
        [3, third.id],
      ]);
      // Decided on s2 as seen at 1, but s2 was written at 2: refused, nothing written.
      const late = await append(entry(), [put('session', 's2', { id: 's2', late: true }), put('c', 'late', 1)], {
        since: 1,
        read: ['s2', WORKSPACE_STREAM],
        write: ['s2'],
      }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(GolemError.isInstance(late) && late.code === 'STORE_CONFLICT' && late.details).toEqual({ stream: 's2', version: 2, seen: 1 });
      // A command that read the whole workspace is refused once anything came after what it saw.
      const whole = await append(entry(), [put('c', 'whole', 1)], { since: 2, read: [WORKSPACE_STREAM], write: [WORKSPACE_STREAM], whole: true }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(GolemError.isInstance(whole) && whole.code).toBe('STORE_CONFLICT');
      expect(await store.get('c', 'late')).toBeUndefined();
      expect(await store.get('c', 'whole')).toBeUndefined();
      expect(await store.get('session', 's2')).toEqual({ id: 's2' });
      expect(await store.lastSeq()).toBe(3);
      // A commit that names no streams may have written any: every append that saw less is refused after it.
      await store.commit({ ...entry(), seq: 4 }, [put('c', 'x', 1)]);
      const afterCommit = await append(entry(), [], { since: 3, read: ['s9', WORKSPACE_STREAM], write: ['s9'] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(GolemError.isInstance(afterCommit) && afterCommit.code).toBe('STORE_CONFLICT');
      expect((await append(entry(), [], { since: 4, read: ['s9', WORKSPACE_STREAM], write: ['s9'] })).seq).toBe(5);
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
