/**
 * The refs a browser session's snapshots show: short ids (`e1`, `e2`, ...) that are never
 * reused within the session, each standing for one element of one loaded document
 * (Playwright's own ref, stable while the element keeps its role and name). A ref of a
 * page since left is known as stale, never taken for an element of the page now.
 */

/** Refs remembered per session. */
const KEPT = 20_000;

export interface RefTarget {
  /** The document it was shown on (the tab's count of loaded documents). */
  generation: number;
  /** Playwright's ref for `page.getByRef`. */
  playwrightRef: string;
  url: string;
  /** The snapshot that first showed it. */
  snapshot: string;
}

export class RefTable {
  readonly #byId = new Map<string, RefTarget>();
  readonly #byKey = new Map<string, string>();
  #next = 1;

  /** The id shown for an element of this document (the same id each time it is shown). */
  idFor(generation: number, playwrightRef: string, url: string, snapshot: string): string {
    const key = `${generation}:${playwrightRef}`;
    let id = this.#byKey.get(key);
    if (id === undefined) {
      id = `e${this.#next++}`;
      this.#byKey.set(key, id);
      this.#byId.set(id, { generation, playwrightRef, url, snapshot });
      if (this.#byId.size > KEPT) {
        const [oldId, old] = this.#byId.entries().next().value as [string, RefTarget];
        this.#byId.delete(oldId);
        this.#byKey.delete(`${old.generation}:${old.playwrightRef}`);
      }
    }
    return id;
  }

  /** What an id stands for: the target, 'forgotten' (shown long ago), or 'unknown' (never shown in this session). */
  lookup(id: string): RefTarget | 'forgotten' | 'unknown' {
    const target = this.#byId.get(id);
    if (target !== undefined) return target;
    const n = /^e(\d+)$/.exec(id)?.[1];
    return n !== undefined && Number(n) < this.#next ? 'forgotten' : 'unknown';
  }
}
