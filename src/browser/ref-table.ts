/**
 * The refs a browser session's snapshots show: short ids (`e1`, `e2`, ...) that are never
 * reused within the session, each standing for one element of one document (Playwright's
 * own ref, stable while the element keeps its role and name, but restarted in each new
 * document). A ref of a document since replaced (the page's, or an iframe's) is known as
 * stale, never taken for an element of the document now.
 */

/** Refs remembered per session, by default. */
const KEPT = 20_000;

export interface RefTarget {
  /** The page's document it was shown in (Chromium's loader id of that document: see ref-documents.ts). */
  document: string;
  /**
   * For an element inside an iframe: that iframe's document when it was shown (`<frame>.<navigations>`: Playwright's
   * refs restart in an iframe's new document, with the same prefix); '-' when it navigated while the snapshot was read.
   */
  frame?: string;
  /** Playwright's ref for `page.getByRef`. */
  playwrightRef: string;
  /** Its role and name as shown (for messages). */
  role: string;
  name?: string;
  url: string;
  /** The snapshot that first showed it. */
  snapshot: string;
}

const keyOf = (t: RefTarget): string => `${t.document}|${t.frame ?? ''}|${t.playwrightRef}`;

export class RefTable {
  readonly #limit: number;
  /** In the order last shown: the first is the one to forget. */
  readonly #byId = new Map<string, RefTarget>();
  readonly #byKey = new Map<string, string>();
  #next = 1;

  constructor(options: { limit?: number } = {}) {
    this.#limit = options.limit ?? KEPT;
  }

  /** The id shown for an element of this document (the same id each time it is shown). */
  idFor(target: RefTarget): string {
    const key = keyOf(target);
    const known = this.#byKey.get(key);
    if (known !== undefined) {
      // Shown again: the last to be forgotten (a ref on the page now must not go before ones long gone).
      const kept = this.#byId.get(known) as RefTarget;
      this.#byId.delete(known);
      this.#byId.set(known, kept);
      return known;
    }
    const id = `e${this.#next++}`;
    this.#byKey.set(key, id);
    this.#byId.set(id, { ...target });
    while (this.#byId.size > this.#limit) {
      const [oldId, old] = this.#byId.entries().next().value as [string, RefTarget];
      this.#byId.delete(oldId);
      this.#byKey.delete(keyOf(old));
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
