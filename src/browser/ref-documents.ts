/**
 * Which document a snapshot, and each ref it shows, belongs to. Playwright's refs restart in
 * every new document (an iframe's keep their `f<n>` prefix while it loads others), so a ref
 * is only as good as knowing its document. The page's main document is told by Chromium's
 * loader id (asked over the DevTools protocol, so no script of the page can fake or break it),
 * read just before and after the snapshot: the same both times, or the snapshot is read again.
 * An iframe's document is told by that iframe's own count of navigations.
 */
import type { CDPSession, Frame, Locator, Page } from 'playwright-core';
import { GolemError } from '../core/errors.js';
import { parseAriaSnapshot, type AriaNode } from './aria-tree.js';
import { within } from './page-helpers.js';
import type { RefTable, RefTarget } from './ref-table.js';

/** Times a snapshot is read again when a navigation lands while it is read. */
const ATTEMPTS = 3;

/** A tab's documents: its main frame's, through a DevTools session, and each iframe's navigations. */
export class TabDocuments {
  readonly #page: Page;
  readonly #cdp: CDPSession;
  readonly #ids = new WeakMap<Frame, number>();
  readonly #navigations = new WeakMap<Frame, number>();
  #nextId = 1;
  #crashed = false;
  /** The facts' world in the main document it was made in. */
  #world: { document: string; contextId: number } | undefined;

  private constructor(page: Page, cdp: CDPSession) {
    this.#page = page;
    this.#cdp = cdp;
    page.on('framenavigated', (frame) => {
      if (frame !== page.mainFrame()) this.#navigations.set(frame, (this.#navigations.get(frame) ?? 0) + 1);
    });
    page.on('crash', () => {
      this.#crashed = true;
    });
  }

  static async open(page: Page): Promise<TabDocuments> {
    return new TabDocuments(page, await page.context().newCDPSession(page));
  }

  /**
   * The main frame now: its document (new for each document the tab loads, kept across #anchors and
   * history.pushState) and its frame id. Undefined when the tab does not answer in time (a page whose script never
   * yields holds the answer back), has crashed or is closing.
   */
  async main(timeout: number): Promise<{ document: string; frameId: string } | undefined> {
    if (this.#crashed || this.#page.isClosed()) return undefined;
    const tree = this.#cdp.send('Page.getFrameTree') as Promise<{ frameTree: { frame: { id: string; loaderId: string } } }>;
    return within(
      tree.then((t) => ({ document: t.frameTree.frame.loaderId, frameId: t.frameTree.frame.id })),
      timeout,
      undefined,
    );
  }

  /**
   * The document's title and its password fields' values, read in a world of Golem's own (the page's script cannot
   * change what Array, String or querySelectorAll do there); undefined when they cannot be read. The world is made once a
   * document: later reads of the same document go straight to it.
   */
  async facts(main: { document: string; frameId: string }, timeout: number): Promise<{ title: string; passwords: string[] } | undefined> {
    const read = async (fresh: boolean) => {
      if (fresh || this.#world?.document !== main.document) {
        const world = (await this.#cdp.send('Page.createIsolatedWorld', { frameId: main.frameId, worldName: 'golem-facts' })) as { executionContextId: number };
        this.#world = { document: main.document, contextId: world.executionContextId };
      }
      const { result } = (await this.#cdp.send('Runtime.evaluate', {
        expression: `({ title: String(document.title), passwords: Array.from(document.querySelectorAll('input[type=password]'), (e) => String(e.value)) })`,
        contextId: this.#world.contextId,
        returnByValue: true,
      })) as { result: { value?: { title: string; passwords: string[] } } };
      return result.value;
    };
    // A world gone with its document (a navigation within the same load) is made again, once.
    return within(
      read(false).catch(() => read(true)),
      timeout,
      undefined,
    );
  }

  /** An iframe's document now: which frame, and how many times it has navigated. */
  frame(frame: Frame): string {
    let id = this.#ids.get(frame);
    if (id === undefined) {
      id = this.#nextId++;
      this.#ids.set(frame, id);
    }
    return `${id}.${this.#navigations.get(frame) ?? 0}`;
  }

  /** The document of the iframe an element of the page is, or undefined when it is none or is gone (not waited for). */
  async frameOf(iframe: Locator): Promise<Frame | undefined> {
    if ((await iframe.count().catch(() => 0)) !== 1) return undefined;
    const handle = await iframe.elementHandle({ timeout: 500 }).catch(() => null);
    const frame = (await handle?.contentFrame().catch(() => null)) ?? undefined;
    await handle?.dispose().catch(() => undefined);
    return frame;
  }

  get page(): Page {
    return this.#page;
  }
}

/** An aria snapshot with the documents it is of. */
export interface DocumentSnapshot {
  /** The aria snapshot, read into its tree once (the refs' documents and the lines are both drawn from it). */
  tree: AriaNode[];
  document: string;
  /** The document of each iframe the snapshot shows, by the iframe's Playwright ref ('-' when it navigated meanwhile). */
  frames: ReadonlyMap<string, string>;
  /** The document's title, and its password fields' values (to show as dots); undefined when they could not be read. */
  title: string;
  passwords: string[] | undefined;
}

const unanswered = (timeout: number) =>
  new GolemError('BROWSER_TIMEOUT', `the page did not answer in ${timeout} ms (a script that never yields, or a crashed tab); GET_DOM tries again`);

/**
 * The page's aria snapshot, of one main document for certain: a navigation that commits while it is read (before its
 * DOMContentLoaded, say) is seen, and the snapshot read again of the new document. A page that does not answer fails at
 * once: waiting for it again would only multiply the wait. Each iframe it shows is tied to its document then.
 */
export async function readDocument(documents: TabDocuments, timeout: number): Promise<DocumentSnapshot> {
  const page = documents.page;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await documents.main(timeout);
    if (before === undefined) throw unanswered(timeout);
    const framesBefore = new Map(page.frames().map((f) => [f, documents.frame(f)]));
    let aria: string | undefined;
    try {
      aria = await page.ariaSnapshot({ mode: 'ai' });
    } catch (cause) {
      // A document torn down under the read (a navigation): read the next one, unless it keeps happening. A timeout is
      // a page that does not answer.
      if (attempt === ATTEMPTS || (cause as Error)?.name === 'TimeoutError') throw cause;
    }
    // The password fields are read before the second look: when it finds the same document, they are of it too.
    const facts = aria === undefined ? undefined : await documents.facts(before, timeout);
    const after = await documents.main(timeout);
    if (after === undefined) throw unanswered(timeout);
    if (aria !== undefined && before.document === after.document) {
      const tree = parseAriaSnapshot(aria);
      const frames = await framesOf(documents, tree, framesBefore);
      return { tree, document: after.document, frames, title: facts?.title ?? '', passwords: facts?.passwords };
    }
    await page.waitForLoadState('domcontentloaded', { timeout }).catch(() => undefined);
  }
  throw new GolemError('BROWSER_TIMEOUT', `the page loaded another document each of the ${ATTEMPTS} times it was read; use GET_DOM again once it settles`);
}

/** Each iframe of the snapshot and its document, '-' for one that navigated while the snapshot was read. */
async function framesOf(documents: TabDocuments, tree: readonly AriaNode[], before: ReadonlyMap<Frame, string>): Promise<Map<string, string>> {
  const iframes: string[] = [];
  const walk = (nodes: readonly AriaNode[]): void => {
    for (const node of nodes) {
      if (node.role === 'iframe' && node.ref !== undefined) iframes.push(node.ref);
      walk(node.children);
    }
  };
  walk(tree);
  // All at once: a page of many iframes (ads, embeds) pays one round trip, not one an iframe.
  const found = await Promise.all(iframes.map((ref) => documents.frameOf(documents.page.locator(`aria-ref=${ref}`))));
  return new Map(
    iframes.map((ref, i) => {
      const frame = found[i];
      const now = frame === undefined ? undefined : documents.frame(frame);
      return [ref, now !== undefined && before.get(frame as Frame) === now ? now : '-'];
    }),
  );
}

/** Where the snapshot shows a ref: its role, name, and the iframe it is inside of (its Playwright ref), if any. */
interface Shown {
  role: string;
  name?: string;
  iframe?: string;
}

function shownRefs(tree: readonly AriaNode[]): Map<string, Shown> {
  const shown = new Map<string, Shown>();
  const walk = (nodes: readonly AriaNode[], iframe: string | undefined): void => {
    for (const node of nodes) {
      if (node.ref !== undefined)
        shown.set(node.ref, { role: node.role, ...(node.name !== undefined && { name: node.name }), ...(iframe !== undefined && { iframe }) });
      // An iframe's own ref is its parent's; what it holds is another document's.
      walk(node.children, node.role === 'iframe' ? (node.ref ?? '?') : iframe);
    }
  };
  walk(tree, undefined);
  return shown;
}

/**
 * What each Playwright ref of a snapshot stands for: a ref inside an iframe is tied to that iframe's document. (Not every
 * ref starting with `f` is in an iframe: Playwright prefixes the main frame's refs too once it has left its first
 * document.)
 */
export function refTargets(read: DocumentSnapshot, shot: { url: string; snapshot: string }): (playwrightRef: string) => RefTarget {
  const shown = shownRefs(read.tree);
  return (playwrightRef) => {
    const where = shown.get(playwrightRef) ?? { role: 'element' };
    return {
      document: read.document,
      ...(where.iframe !== undefined && { frame: read.frames.get(where.iframe) ?? '-' }),
      playwrightRef,
      role: where.role,
      ...(where.name !== undefined && { name: where.name }),
      url: shot.url,
      snapshot: shot.snapshot,
    };
  };
}

/** The element a snapshot's ref names: SNAPSHOT_STALE when its document (the page's or its iframe's) was left, or it is gone. */
export async function locateRef(tab: { documents: TabDocuments; refs: RefTable }, ref: string, selector: string, timeout: number): Promise<Locator> {
  const details = { details: { selector } };
  const target = /^e\d+$/.test(ref) ? tab.refs.lookup(ref) : 'unknown';
  if (target === 'unknown')
    throw new GolemError(
      'INVALID_ARGUMENT',
      `no snapshot of this session showed ${ref}; refs look like ref=e7: use GET_DOM and RETRY with one of its refs`,
      details,
    );
  if (target === 'forgotten')
    throw new GolemError('SNAPSHOT_STALE', `${ref} is from a snapshot too old to use; use GET_DOM for a fresh snapshot and RETRY with its refs`, details);
  const again = 'Use GET_DOM for a fresh snapshot and RETRY with its refs';
  const page = tab.documents.page;
  const now = await tab.documents.main(timeout);
  if (now === undefined) throw unanswered(timeout);
  if (target.document !== now.document)
    throw new GolemError(
      'SNAPSHOT_STALE',
      `snapshot ${target.snapshot} was taken of an earlier page (${target.url}), the one ${ref} is on; the page has changed since. ${again}`,
      details,
    );
  const element = page.getByRef(target.playwrightRef);
  if (target.frame !== undefined) {
    // The element's own frame now: another document than the one shown (or one that changed while shown) is refused.
    const frame = await element
      .elementHandle({ timeout: 1_000 })
      .then(async (handle) => {
        const owner = await handle.ownerFrame();
        await handle.dispose();
        return owner;
      })
      .catch(() => null);
    if (frame === null || target.frame === '-' || tab.documents.frame(frame) !== target.frame)
      throw new GolemError(
        'SNAPSHOT_STALE',
        `${ref} (${target.role}${target.name === undefined ? '' : ` ${JSON.stringify(target.name)}`}) is in a frame that has loaded another document since it was shown. ${again}`,
        details,
      );
  }
  if ((await element.count()) === 0)
    throw new GolemError('SNAPSHOT_STALE', `${ref} is no longer on the page; use GET_DOM for a fresh snapshot and RETRY with its refs`, details);
  return element;
}
