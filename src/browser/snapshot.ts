/**
 * The page as the model reads it (GET_DOM): Playwright's accessibility snapshot in its "ai"
 * mode (`page.ariaSnapshot({ mode: 'ai' })`) read as a tree and laid out compactly (see
 * snapshot-layout.ts): each interactive element once, in its place, with a ref a command
 * targets as `ref=e7`. Within a token budget: what does not fit goes to later pages, and
 * the snapshot says what was left out and how to see it.
 */
import { redactSecrets } from '../protocol/interpolation.js';
import { parseAriaSnapshot } from './aria-tree.js';
import { layout, type Entry } from './snapshot-layout.js';

/** What GET_DOM returns. */
export interface PageSnapshot {
  /** 's1', 's2', ...: unique within a browser session. */
  id: string;
  url: string;
  title: string;
  /** The compact text the model reads. */
  text: string;
  /** Tokens of `text` (as counted for the budget). */
  tokens: number;
  /** Interactive elements on the whole page (shown or not). */
  interactive: number;
  /** Lines of the page left out of this text (shown on other pages of the snapshot). */
  omitted: number;
  /** The page of the snapshot shown, and how many there are. */
  page: { number: number; of: number };
  /** With a query: the lines that matched it. */
  matches?: number;
}

export interface CompactOptions {
  id: string;
  url: string;
  title: string;
  /** Token budget for the whole text (default 2,000). */
  budget?: number;
  countTokens?: (text: string) => number;
  /** Values to hide wherever they appear (password fields' values). */
  hide?: readonly string[];
  /** Secrets, hidden as ${name}. */
  secrets?: Readonly<Record<string, string>>;
  /** The ref shown for Playwright's (default: Playwright's own). */
  ref?: (playwrightRef: string) => string;
  /** The page of the snapshot to show (default 1). */
  page?: number;
  /** Only the lines whose text has these words (a role is a word of its elements' lines), with their containers. */
  query?: string;
}

/** Makes the compact page text from an "ai" mode aria snapshot. */
export function compactSnapshot(aria: string, options: CompactOptions): PageSnapshot {
  return renderSnapshot(snapshotEntries(aria, options), options);
}

/** The snapshot's lines, before any budget. */
export function snapshotEntries(aria: string, options: Pick<CompactOptions, 'hide' | 'ref'>): Entry[] {
  const hidden = new Set((options.hide ?? []).filter((v) => v !== ''));
  return layout(parseAriaSnapshot(aria), { ref: options.ref ?? ((r) => r), hidden: (value) => hidden.has(value) });
}

/** Room kept for the header and the note on what was left out. */
const RESERVE = 80;

/** The text of one page of the snapshot, within the budget. */
export function renderSnapshot(unredacted: readonly Entry[], options: Omit<CompactOptions, 'hide' | 'ref'>): PageSnapshot {
  // Secrets go first: a query, a page break or a name cut short never sees one.
  const all = redactEntries(unredacted, options.secrets);
  const count = options.countTokens ?? ((t: string) => Math.ceil(t.length / 4));
  const budget = options.budget ?? 2_000;
  const query = options.query?.trim();
  const found = query === undefined || query === '' ? undefined : matching(all, query);
  const entries = found?.entries ?? all;
  const lines = entries.map((e) => `${'  '.repeat(e.depth)}${e.text}`);
  const pages = paginate(entries, lines, count, Math.max(budget - RESERVE, 100));
  const number = Math.min(Math.max(1, Math.floor(options.page ?? 1)), pages.length);
  const [start, end] = pages[number - 1] as [number, number];
  const shown = [...contextOf(entries, start).map((i) => lines[i] as string), ...lines.slice(start, end)];
  const of = pages.length;
  const what = found === undefined ? '' : ` · ${found.matches} ${found.matches === 1 ? 'line matches' : 'lines match'} ${JSON.stringify(query)}`;
  const header = `Snapshot ${options.id}: ${options.title || '(no title)'} (${options.url})${what}${of > 1 ? ` · page ${number} of ${of}` : ''}`;
  const empty =
    found === undefined ? '(the page shows nothing)' : `(nothing on the page matches ${JSON.stringify(query)}; GET_DOM without a query shows the whole page)`;
  const parts = [header, ...(shown.length === 0 ? [empty] : shown)];
  if (of > 1) parts.push(leftOut(entries, start, end, number, of, query));
  const text = redactSecrets(parts.join('\n'), options.secrets);
  return {
    id: options.id,
    url: options.url,
    title: options.title,
    text,
    tokens: count(text),
    interactive: all.reduce((n, e) => n + e.interactive, 0),
    omitted: all.length - (end - start),
    page: { number, of },
    ...(found !== undefined && { matches: found.matches }),
  };
}

/** The lines with secrets hidden in their text the way the final text hides them (as ${name}). */
export function redactEntries(entries: readonly Entry[], secrets: Readonly<Record<string, string>> | undefined): Entry[] {
  if (secrets === undefined || Object.keys(secrets).length === 0) return [...entries];
  return entries.map((e) => {
    const text = redactSecrets(e.text, secrets);
    return text === e.text ? e : { ...e, text };
  });
}

/**
 * The lines that have every word of the query (case aside), with the containers they are in;
 * a folded table whose header matches (its controls' role or name) brings all its rows.
 */
function matching(entries: readonly Entry[], query: string): { entries: Entry[]; matches: number } {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  const hits = (e: Entry) => words.every((w) => e.text.toLowerCase().includes(w));
  const keep = new Set<number>();
  let matches = 0;
  entries.forEach((e, i) => {
    const parent = entries[e.parent];
    const viaHeader = parent !== undefined && parent.rows === true && hits(parent);
    if (!hits(e) && !viaHeader) return;
    matches++;
    for (let p = i; p >= 0 && !keep.has(p); p = (entries[p] as Entry).parent) keep.add(p);
  });
  const order = [...keep].sort((a, b) => a - b);
  const at = new Map(order.map((old, i) => [old, i]));
  return { entries: order.map((i) => ({ ...(entries[i] as Entry), parent: at.get((entries[i] as Entry).parent) ?? -1 })), matches };
}

/** The pages: [start, end) ranges of entries, each within the budget with its context lines. */
function paginate(entries: readonly Entry[], lines: readonly string[], count: (t: string) => number, budget: number): [number, number][] {
  const pages: [number, number][] = [];
  let start = 0;
  let used = 0;
  for (let i = 0; i < entries.length; i++) {
    const cost = count(lines[i] as string) + 1;
    if (i > start && used + cost > budget) {
      pages.push([start, i]);
      start = i;
      used = contextOf(entries, i).reduce((n, j) => n + count(lines[j] as string) + 1, 0);
    }
    used += cost;
  }
  pages.push([start, entries.length]);
  return pages;
}

/** The containers a page starting at `start` is inside of (repeated at its top, so its lines keep their place). */
function contextOf(entries: readonly Entry[], start: number): number[] {
  const out: number[] = [];
  for (let p = entries[start]?.parent ?? -1; p >= 0 && p < start; p = (entries[p] as Entry).parent) out.unshift(p);
  return out;
}

/** What the other pages hold, and how to see them. */
function leftOut(entries: readonly Entry[], start: number, end: number, number: number, of: number, query: string | undefined): string {
  const other = entries.filter((_, i) => i < start || i >= end);
  const interactive = other.reduce((n, e) => n + e.interactive, 0);
  // The containers at the top whose lines are (partly) elsewhere, by name: where the rest is.
  const where: string[] = [];
  entries.forEach((e, i) => {
    if (e.depth !== 0) return;
    let last = i + 1;
    while (last < entries.length && (entries[last] as Entry).depth > 0) last++;
    const out = Math.max(0, Math.min(last, start) - i) + Math.max(0, last - Math.max(i, end));
    if (out > 0 && where.length < 6) where.push(`${e.text.slice(0, 60)}${out < last - i ? ' (part)' : ''}`);
  });
  const next = number < of ? number + 1 : 1;
  const pageCommand = `GET_DOM ${JSON.stringify({ ...(query !== undefined && query !== '' && { query }), page: next })}`;
  const search = query === undefined || query === '' ? '; GET_DOM {"query": "<words>"} shows only the elements that match, on any page' : '';
  return `(${other.length} more lines with ${interactive} interactive elements are on the other ${of - 1 === 1 ? 'page' : `${of - 1} pages`}${where.length > 0 ? `, in ${where.join(', ')}` : ''}: ${pageCommand} shows page ${next}${search})`;
}
