/**
 * What the fuzz targets share: a target's shape, the tally a run counts its outcomes in
 * (a broken promise is counted, not thrown, so a run reports every failing case it met),
 * and the checks every boundary makes: a refusal is a typed error, and it wrote nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { checkInvariants, createWorkspace, ERROR_CODES, GolemError, type StoredRecord, type Workspace } from '../src/index.js';

/** What one target met: cases checked, accepted, refused (by code), and broken promises. */
export class Tally {
  checked = 0;
  accepted = 0;
  failures = 0;
  readonly rejected = new Map<string, number>();
  /** The first broken promise, with the input that broke it. */
  first: string | undefined;

  reject(code: string): void {
    this.rejected.set(code, (this.rejected.get(code) ?? 0) + 1);
  }

  fail(error: unknown, input: unknown): void {
    this.failures++;
    if (this.first !== undefined) return;
    const message = error instanceof Error ? `${error.name === 'Broken' ? '' : `${error.name}: `}${error.message}` : String(error);
    this.first = `${message.slice(0, 300)} — input ${printed(input)}`;
  }
}

/** One boundary: a property over its input, run `runs × scale` times. */
export interface FuzzTarget {
  name: string;
  /** The boundary, as the report's row says it. */
  check: string;
  /** Cases at scale 1 (`npm test` runs about this many; `npm run fuzz` a few hundred times more). */
  runs: number;
  /** The property; a broken promise is counted in the tally, so it does not fail. */
  property(tally: Tally): fc.IAsyncPropertyWithHooks<[unknown]> | fc.IPropertyWithHooks<[unknown]>;
  /** Started before the runs and stopped after them (a server, say). */
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
}

/** A promise of the boundary was broken. */
export class Broken extends Error {
  override name = 'Broken';
}
export function ensure(condition: boolean, message: string | (() => string)): asserts condition {
  if (!condition) throw new Broken(typeof message === 'string' ? message : message());
}

/** The input, short (it may be huge, nested thousands deep, or not JSON at all). */
export function printed(input: unknown): string {
  try {
    const text = fc.stringify(input);
    return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
  } catch {
    return `(a ${typeof input} too deep to print)`;
  }
}

const PROTOTYPES = [Object.prototype, Array.prototype, Function.prototype];
const BASELINE = PROTOTYPES.map((p) => new Set(Reflect.ownKeys(p)));

/** Properties a case added to the built-in prototypes (input that reached one through a "__proto__" key), removed again so later cases start clean. */
function pollution(): string[] {
  const added: string[] = [];
  PROTOTYPES.forEach((p, i) => {
    for (const key of Reflect.ownKeys(p)) {
      if (BASELINE[i]?.has(key) === true) continue;
      added.push(String(key));
      Reflect.deleteProperty(p, key);
    }
  });
  return added;
}

function judge(tally: Tally, input: unknown, error: unknown): void {
  const added = pollution();
  if (error !== undefined) tally.fail(error, input);
  else if (added.length > 0) tally.fail(new Broken(`the input polluted a built-in prototype (${added.join(', ')})`), input);
}

/** A property over one arbitrary whose predicate counts a broken promise instead of throwing it. */
export function counted<T>(tally: Tally, arbitrary: fc.Arbitrary<T>, predicate: (input: T) => void): fc.IPropertyWithHooks<[unknown]> {
  return fc.property(arbitrary as fc.Arbitrary<unknown>, (input) => {
    tally.checked++;
    let failed: unknown;
    try {
      predicate(input as T);
    } catch (error) {
      failed = error ?? new Broken('undefined was thrown');
    }
    judge(tally, input, failed);
  });
}
export function countedAsync<T>(tally: Tally, arbitrary: fc.Arbitrary<T>, predicate: (input: T) => Promise<void>): fc.IAsyncPropertyWithHooks<[unknown]> {
  return fc.asyncProperty(arbitrary as fc.Arbitrary<unknown>, async (input) => {
    tally.checked++;
    let failed: unknown;
    try {
      await predicate(input as T);
    } catch (error) {
      failed = error ?? new Broken('undefined was thrown');
    }
    judge(tally, input, failed);
  });
}

/** Codes that say Golem failed, not the input: a refusal with one of these is a broken promise. */
export const BUG_CODES = new Set(['INTERNAL', 'STORE_ERROR', 'CORRUPT_RECORD']);

/** The error's code when it is a typed refusal (a GolemError of the table, not a bug code); else the promise is broken. */
export function typedCode(error: unknown, what: string, allowed: (code: string) => boolean = () => false): string {
  ensure(GolemError.isInstance(error), () => `${what} failed with an untyped ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
  ensure(Object.hasOwn(ERROR_CODES, error.code), `${what} failed with ${error.code}, a code not in the table`);
  ensure(!BUG_CODES.has(error.code) || allowed(error.code), () => `${what} failed with ${error.code}: ${error.message}`);
  return error.code;
}

const sorted = (records: Iterable<StoredRecord>) => [...records].sort((a, b) => a.collection.localeCompare(b.collection) || a.key.localeCompare(b.key));

/** A deterministic workspace on the memory store. */
export async function memoryWorkspace(): Promise<Workspace> {
  let now = Date.UTC(2026, 0, 1);
  let n = 0;
  return createWorkspace({ clock: () => new Date(now++), newId: () => `id-${++n}` });
}

/** Everything a refusal must leave as it was: the index, the store's records, the command log's length, the blob files. */
export async function stateOf(ws: Workspace): Promise<{ index: StoredRecord[]; store: StoredRecord[]; commands: number; blobs: string[] }> {
  return {
    index: sorted(ws.manager.workspace().records()),
    store: sorted(await ws.manager.store.load()),
    commands: (await ws.manager.store.stats()).commands,
    blobs: (await ws.manager.blobStorage.list()).sort(),
  };
}

/** The invariants hold, and the index is the store's records. */
export async function sound(ws: Workspace, after: string): Promise<void> {
  const violations = await checkInvariants(ws.manager.workspace(), ws.manager.blobStorage);
  ensure(violations.length === 0, () => `after ${after}: ${violations.map((v) => `${v.code} ${v.message}`).join('; ')}`);
  ensure(
    isDeepStrictEqual(sorted(ws.manager.workspace().records()), sorted(await ws.manager.store.load())),
    `after ${after}: the index differs from the store`,
  );
}

/** JSON text for any value ('null' when it has none). */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return 'null';
  }
}
