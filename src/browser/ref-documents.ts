/**
 * Which document a snapshot, and each ref it shows, belongs to. Playwright's refs restart in
 * every new document (an iframe's keep their `f<n>` prefix while it loads others), so a ref
 * is only as good as knowing its document: the page's main document is told by a token read
 * just before and after the snapshot (the same both times, or the snapshot is read again),
 * an iframe's by the tab's count of iframe navigations. Nothing here waits on the page
 * beyond one evaluation per check.
 */
import type { Locator, Page } from 'playwright-core';
import { GolemError } from '../core/errors.js';
import { parseAriaSnapshot, type AriaNode } from './aria-tree.js';
import type { RefTable, RefTarget } from './ref-table.js';

/** Times a snapshot is read again when a navigation lands while it is read. */
const ATTEMPTS = 3;

/**
 * A token of the page's main document: its time origin, new for each document the tab loads, kept across navigations
 * within the document (history.pushState, #anchors). Undefined while there is no document to ask (mid-navigation).
 */
export async function documentOf(page: Page): Promise<string | undefined> {
  return page.evaluate(() => String(performance.timeOrigin)).catch(() => undefined);
}

/** An aria snapshot with the documents it is of: `frames` is -1 when an iframe loaded another document meanwhile. */
export interface DocumentSnapshot {
  aria: string;
  document: string;
  frames: number;
  /** The document's title and its password fields' values (to show as dots), read with the second token. */
  title: string;
  passwords: string[];
}

/** The document's token, title and password fields' values, in one round trip. */
async function factsOf(page: Page): Promise<{ document: string; title: string; passwords: string[] } | undefined> {
  return page
    .evaluate(() => {
      const d = (globalThis as unknown as { document: { title: string; querySelectorAll(s: string): ArrayLike<{ value?: string }> } }).document;
      return {
        document: String(performance.timeOrigin),
        title: d.title,
        passwords: Array.from(d.querySelectorAll('input[type=password]'), (e) => e.value ?? ''),
      };
    })
    .catch(() => undefined);
}

/**
 * The page's aria snapshot, of one main document for certain: a navigation that commits while it is read (before its
 * DOMContentLoaded, say) is seen, and the snapshot read again of the new document.
 */
export async function readDocument(page: Page, frames: () => number, timeout: number): Promise<DocumentSnapshot> {
  let unsure: DocumentSnapshot | undefined;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const before = await documentOf(page);
    const framesBefore = frames();
    let aria: string;
    try {
      aria = await page.ariaSnapshot({ mode: 'ai' });
    } catch (cause) {
      // A document torn down under the read (a navigation): read the next one, unless it keeps happening.
      if (attempt === ATTEMPTS) throw cause;
      await page.waitForLoadState('domcontentloaded', { timeout }).catch(() => undefined);
      continue;
    }
    // Read after the snapshot with what else it needs, so a snapshot costs three round trips to the page, not five.
    const after = await factsOf(page);
    if (before !== undefined && before === after?.document) {
      if (frames() === framesBefore) return { aria, ...after, frames: framesBefore };
      // An iframe loaded another document during the read: its refs may be of either one, so none of them will do.
      unsure = { aria, ...after, frames: -1 };
    }
    await page.waitForLoadState('domcontentloaded', { timeout }).catch(() => undefined);
  }
  if (unsure !== undefined) return unsure;
  throw new GolemError('BROWSER_TIMEOUT', `the page loaded another document each of the ${ATTEMPTS} times it was read; use GET_DOM again once it settles`);
}

/** Where the snapshot shows a ref: its role, name, and whether it is inside an iframe. */
interface Shown {
  role: string;
  name?: string;
  inFrame: boolean;
}

function shownRefs(aria: string): Map<string, Shown> {
  const shown = new Map<string, Shown>();
  const walk = (nodes: readonly AriaNode[], inFrame: boolean): void => {
    for (const node of nodes) {
      if (node.ref !== undefined) shown.set(node.ref, { role: node.role, ...(node.name !== undefined && { name: node.name }), inFrame });
      // An iframe's own ref is its parent's; what it holds is another document's.
      walk(node.children, inFrame || node.role === 'iframe');
    }
  };
  walk(parseAriaSnapshot(aria), false);
  return shown;
}

/**
 * What each Playwright ref of a snapshot stands for. A ref inside an iframe is tied to the iframe navigations counted
 * when it was read. (Not every ref starting with `f` is in an iframe: Playwright prefixes the main frame's refs too
 * once it has left its first document.)
 */
export function refTargets(read: DocumentSnapshot, shot: { url: string; snapshot: string }): (playwrightRef: string) => RefTarget {
  const shown = shownRefs(read.aria);
  return (playwrightRef) => {
    const where = shown.get(playwrightRef) ?? { role: 'element', inFrame: /^f/.test(playwrightRef) };
    return {
      document: read.document,
      ...(where.inFrame && { frames: read.frames }),
      playwrightRef,
      role: where.role,
      ...(where.name !== undefined && { name: where.name }),
      url: shot.url,
      snapshot: shot.snapshot,
    };
  };
}

/** The element a snapshot's ref names: SNAPSHOT_STALE when its document (the page's or an iframe's) was left, or it is gone. */
export async function locateRef(tab: { page: Page; refs: RefTable; frames: number }, ref: string, selector: string): Promise<Locator> {
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
  if (target.document !== (await documentOf(tab.page)))
    throw new GolemError(
      'SNAPSHOT_STALE',
      `snapshot ${target.snapshot} was taken of an earlier page (${target.url}), the one ${ref} is on; the page has changed since. ${again}`,
      details,
    );
  if (target.frames !== undefined && target.frames !== tab.frames)
    throw new GolemError(
      'SNAPSHOT_STALE',
      `${ref} (${target.role}${target.name === undefined ? '' : ` ${JSON.stringify(target.name)}`}) is in a frame that has loaded another document since snapshot ${target.snapshot}. ${again}`,
      details,
    );
  const element = tab.page.getByRef(target.playwrightRef);
  if ((await element.count()) === 0)
    throw new GolemError('SNAPSHOT_STALE', `${ref} is no longer on the page; use GET_DOM for a fresh snapshot and RETRY with its refs`, details);
  return element;
}
