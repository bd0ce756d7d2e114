/**
 * Cosine search over the kept vectors (the `embedding` collection): in SQLite with the
 * sqlite-vec extension where the workspace is a SQLite file and the package is installed,
 * else exactly, in this process, over the vectors the workspace holds. Both give the same
 * similarities, rounded to 4 decimals so float32 (sqlite-vec) and float64 agree, and the
 * same order (similarity, then key).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { GolemError } from '../core/errors.js';
import { importOptional } from '../core/optional-import.js';
import type { Store, WorkspaceView } from '../core/index.js';

/** A kept vector's similarity to the query. */
export interface VectorMatch {
  key: string;
  similarity: number;
}

/** Finds the kept vectors closest to a query. */
export interface VectorSearch {
  /** `sqlite-vec`, or `exact` (cosine in this process). */
  readonly kind: 'sqlite-vec' | 'exact';
  /** Why the search is exact where sqlite-vec was wanted (the package is missing, the database is in memory). */
  readonly reason?: string;
  /** The vectors among `keys` at least `minSimilarity` from `query` (cosine), closest first, ties by key. */
  search(query: readonly number[], among: { keys: readonly string[]; minSimilarity: number }): Promise<VectorMatch[]>;
  close(): void;
}

/** Cosine similarity, rounded as every search rounds it. */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return rounded(na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb));
}

/** Exact cosine search over the vectors the workspace holds in memory. */
export function exactVectorSearch(view: () => WorkspaceView, reason?: string): VectorSearch {
  return {
    kind: 'exact',
    ...(reason !== undefined && { reason }),
    search(query, among) {
      const kept = view().collection('embedding');
      const matches: VectorMatch[] = [];
      for (const key of new Set(among.keys)) {
        const e = kept.get(key);
        if (e === undefined) continue;
        const similarity = cosineSimilarity(query, e.vector);
        if (similarity >= among.minSimilarity) matches.push({ key, similarity });
      }
      return Promise.resolve(matches.sort(byCloseness));
    },
    close() {},
  };
}

/**
 * The best search for the workspace's store: sqlite-vec on a SQLite file (its own read-only
 * connection, so the store's stays as it is), else exact. A missing sqlite-vec is not an
 * error: it is a speed-up, the results are the same, and `reason` says what to install.
 */
export async function openVectorSearch(store: Store, view: () => WorkspaceView): Promise<VectorSearch> {
  const path = store.kind === 'sqlite' ? (store as Store & { path?: unknown }).path : undefined;
  if (typeof path !== 'string') return exactVectorSearch(view);
  if (path === ':memory:') return exactVectorSearch(view, 'the SQLite database is in memory, where no second connection sees it');
  try {
    return await sqliteVecSearch(path);
  } catch (error) {
    if (GolemError.isInstance(error) && error.code === 'DEPENDENCY_MISSING') return exactVectorSearch(view, error.message);
    throw error;
  }
}

/** sqlite-vec's cosine distance over the `embedding` records of the SQLite file at `path`. */
export async function sqliteVecSearch(path: string): Promise<VectorSearch> {
  const sqliteVec = await importOptional(() => import('sqlite-vec'), { packages: ['sqlite-vec'], purpose: 'vector search on SQLite' });
  const { default: Database } = await import('better-sqlite3');
  let db: BetterSqlite3.Database;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
  } catch (cause) {
    throw new GolemError('STORE_ERROR', `cannot open ${path} for vector search: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
  try {
    sqliteVec.load(db);
  } catch (cause) {
    db.close();
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new GolemError('DEPENDENCY_MISSING', `vector search on SQLite could not load the sqlite-vec extension (${message})`, {
      cause,
      details: { packages: ['sqlite-vec'], missing: 'sqlite-vec' },
    });
  }
  const statement = db.prepare<[string, string, number], { key: string; similarity: number }>(
    `SELECT key, similarity FROM (
       SELECT key, round(1 - vec_distance_cosine(vec_f32(json_extract(value, '$.vector')), vec_f32(?)), 4) AS similarity
       FROM records WHERE collection = 'embedding' AND key IN (SELECT value FROM json_each(?))
     ) WHERE similarity >= ? ORDER BY similarity DESC, key`,
  );
  return {
    kind: 'sqlite-vec',
    search(query, among) {
      return Promise.resolve(statement.all(JSON.stringify(query), JSON.stringify([...new Set(among.keys)]), among.minSimilarity));
    },
    close() {
      db.close();
    },
  };
}

function rounded(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

function byCloseness(a: VectorMatch, b: VectorMatch): number {
  return b.similarity - a.similarity || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
}
