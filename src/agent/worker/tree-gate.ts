/**
 * What sub-workers running side by side share (seed 003): while any worker of the tree asks
 * the user for an approval, the whole tree pauses (each worker waits at its next model call
 * or action), and the questions are asked one at a time.
 */
import { Serializer } from '../../core/serializer.js';

/** Holds the tree while an approval is asked; the others pass once nobody holds it. */
export class TreeGate {
  #held = 0;
  readonly #waiting = new Set<() => void>();
  /** One question at a time: a second ask waits for the first to be answered. */
  readonly #asks = new Serializer();

  /** Runs `ask` with the tree held (after any ask already open is answered). */
  async hold<T>(ask: () => Promise<T>): Promise<T> {
    this.#held++;
    try {
      return await this.#asks.run(ask);
    } finally {
      if (--this.#held === 0) {
        const waiting = [...this.#waiting];
        this.#waiting.clear();
        for (const go of waiting) go();
      }
    }
  }

  /** Resolves once nobody holds the tree (at once when nobody does), or when `signal` aborts. */
  passed(signal?: AbortSignal): Promise<void> {
    if (this.#held === 0 || signal?.aborted === true) return Promise.resolve();
    return new Promise((resolve) => {
      const go = () => {
        signal?.removeEventListener('abort', go);
        this.#waiting.delete(go);
        resolve();
      };
      signal?.addEventListener('abort', go, { once: true });
      this.#waiting.add(go);
    });
  }
}

/** Runs at most `limit` of `tasks` at a time; the results in the tasks' order. */
export async function inParallel<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results = new Array<T>(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const at = next++;
      results[at] = await (tasks[at] as () => Promise<T>)();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, tasks.length)) }, lane));
  return results;
}
