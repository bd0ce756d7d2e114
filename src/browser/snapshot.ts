/**
 * The page as the model reads it (GET_DOM): Playwright's accessibility snapshot in its "ai"
 * mode (`page.ariaSnapshot({ mode: 'ai' })`) read as a tree and laid out compactly (see
 * snapshot-layout.ts): each interactive element once, in its place, with a ref a command
 * targets as `ref=e7`. Within a token budget: what does not fit goes to later pages, and
 * the snapshot says what was left out and how to see it.
 */
import { redactSecrets } from '../protocol/interpolation.js';
import { headOf } from '../core/text.js';
import { parseAriaSnapshot, type AriaNode } from './aria-tree.js';
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
  /** The query, as asked (trimmed). */
  query?: string;
}

export interface CompactOptions {
  id: string;
  url: string;
  title: string;
  /** Token budget for the whole text (default 2,000). */
  budget?: number;
  countTokens?: (text: string) => number;
  /** Field values to show as dots (password fields' values); 'all' when they could not be read (every field's, then). */
  hide?: readonly string[] | 'all';
  /** Secrets, hidden as ${name}. */
  secrets?: Readonly<Record<string, string>>;
  /** The ref shown for Playwright's (default: Playwright's own). */
  ref?: (playwrightRef: string) => string;
  /** The page of the snapshot to show (default 1). */
  page?: number;
  /** Only the lines with every one of these words in their text or their element's role (substrings, case aside), with their containers. */
  query?: string;
  /**
   * The address the reader has already (the URL OPEN_PAGE was given): when the page is there, the
   * header leaves it out, as every later prompt would repeat it.
   */
  knownUrl?: string;
}

/** Makes the compact page text from an "ai" mode aria snapshot. */
export function compactSnapshot(aria: string, options: CompactOptions): PageSnapshot {
  return renderSnapshot(snapshotEntries(aria, options), options);
}

/** The snapshot's lines, before any budget, from the aria snapshot's text or the tree read from it. */
export function snapshotEntries(aria: string | readonly AriaNode[], options: Pick<CompactOptions, 'hide' | 'ref'>): Entry[] {
  const hide = options.hide ?? [];
  const hidden = new Set(hide === 'all' ? [] : hide.filter((v) => v !== ''));
  return layout(typeof aria === 'string' ? parseAriaSnapshot(aria) : aria, {
    ref: options.ref ?? ((r) => r),
    hidden: (value) => hide === 'all' || hidden.has(value),
  });
}

/**
 * The smallest budget kept to (a smaller one is raised to it): room for the header (its title, URL and
 * query cut short), the note on the other pages, and some lines.
 */
export const MIN_SNAPSHOT_BUDGET = 250;
/** What the header and the note may take of the budget at most (their cut parts make them shorter than this). */
const FIXED = 160;
/** Tokens of the title, the URL and the query shown in the header, and of the note's list of places (tokens, so any script fits). */
const CUT = { title: 20, url: 30, query: 15, where: 40 } as const;

/**
 * The text of one page of the snapshot. Its tokens are within the budget (at least MIN_SNAPSHOT_BUDGET),
 * header and note included, for a token count that adds up over lines (the default's does), unless one
 * line with refs is longer than a page (refs are never cut; a line of text alone is cut to fit).
 */
export function renderSnapshot(unredacted: readonly Entry[], options: Omit<CompactOptions, 'hide' | 'ref'>): PageSnapshot {
  // Secrets go first: a query, a page break or a name cut short never sees one.
  const all = redactEntries(unredacted, options.secrets);
  const count = options.countTokens ?? ((t: string) => Math.ceil(t.length / 4));
  const budget = Math.max(options.budget ?? 2_000, MIN_SNAPSHOT_BUDGET);
  const query = options.query?.trim();
  const found = query === undefined || query === '' ? undefined : matching(all, query);
  const entries = found?.entries ?? all;
  const lineCap = Math.floor((budget - FIXED) / 2);
  const lines = entries.map((e) => {
    const line = `${'  '.repeat(e.depth)}${e.text}`;
    return e.refs.length === 0 ? cutToTokens(line, lineCap, count) : line;
  });
  const costs = lines.map((l) => count(l) + 1); // a line and the line break before it
  // The header is secret-free before it is cut, so a cut never leaves part of a secret.
  const title = cutToTokens(redactSecrets(options.title || '(no title)', options.secrets), CUT.title, count);
  const url = cutToTokens(redactSecrets(options.url, options.secrets), CUT.url, count);
  const shortQuery = query === undefined ? '' : cutToTokens(query, CUT.query, count);
  const header = (number: number, of: number) =>
    `Snapshot ${options.id}: ${title}${options.knownUrl === options.url ? '' : ` (${url})`}${found === undefined ? '' : ` · ${found.matches} ${found.matches === 1 ? 'line matches' : 'lines match'} ${JSON.stringify(shortQuery)}`}${of > 1 ? ` · page ${number} of ${of}` : ''}`;
  const note = (range: [number, number], number: number, of: number) =>
    redactSecrets(leftOut(entries, range, number, of, query, shortQuery === query, count), options.secrets);
  const pages = fitPages(entries, costs, budget, (range, number, of) => count(header(number, of)) + (of > 1 ? count(note(range, number, of)) : 0));
  const number = Math.min(Math.max(1, Math.floor(options.page ?? 1)), pages.length);
  const [start, end] = pages[number - 1] as [number, number];
  const shown = [...contextOf(entries, start).map((i) => lines[i] as string), ...lines.slice(start, end)];
  const of = pages.length;
  const empty =
    found === undefined
      ? '(the page shows nothing)'
      : `(nothing on the page matches ${JSON.stringify(shortQuery)}; GET_DOM without a query shows the whole page)`;
  const parts = [header(number, of), ...(shown.length === 0 ? [empty] : shown)];
  if (of > 1) parts.push(note([start, end], number, of));
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
    ...(found !== undefined && { matches: found.matches, query: query as string }),
  };
}

/**
 * The pages, each within the budget with its header and note (`fixed`): lines are paged into a room, and
 * the room made smaller by what the fullest page went over, until none does. Pages do not depend on the
 * page asked for, so every page of one snapshot holds its own lines.
 */
function fitPages(
  entries: readonly Entry[],
  costs: readonly number[],
  budget: number,
  fixed: (range: [number, number], number: number, of: number) => number,
): [number, number][] {
  const costOf = (range: [number, number], number: number, of: number) =>
    fixed(range, number, of) +
    contextOf(entries, range[0]).reduce((n, i) => n + (costs[i] as number), 0) +
    costs.slice(range[0], range[1]).reduce((n, c) => n + c, 0);
  let room = budget - fixed([0, entries.length], 1, 1);
  let pages = paginate(entries, costs, room);
  if (pages.length === 1 && costOf(pages[0] as [number, number], 1, 1) <= budget) return pages;
  room = budget - FIXED;
  for (let round = 0; round < 8; round++) {
    pages = paginate(entries, costs, room);
    const over = Math.max(...pages.map((range, k) => costOf(range, k + 1, pages.length) - budget));
    if (over <= 0 || room <= 1) break;
    room = Math.max(1, room - over);
  }
  return pages;
}

/** Text cut to `max` characters, an ellipsis at the cut. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${headOf(text, max - 1)}…`;
}

/** A line cut to `max` tokens, an ellipsis at the cut. */
function cutToTokens(line: string, max: number, count: (t: string) => number): string {
  let out = line;
  for (let n = count(out); n > max && out.length > 1; n = count(out)) out = cut(out, Math.floor((out.length * max) / n) - 1);
  return out;
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
 * The lines that have every word of the query, with the containers they are in. A word matches
 * a line when it is part of (a substring of, case aside) the line's text or its element's role
 * ("heading" finds an `h2 "Title"` line, "box" a checkbox); a folded table whose header matches
 * (its controls' role or name) brings all its rows.
 */
function matching(entries: readonly Entry[], query: string): { entries: Entry[]; matches: number } {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  // Names are JSON-quoted on their lines: a word with a quote or a backslash is looked for as the line writes it.
  const written = words.map((w) => JSON.stringify(w).slice(1, -1));
  const hits = (e: Entry) => {
    const text = e.text.toLowerCase();
    return words.every((w, i) => text.includes(w) || text.includes(written[i] as string) || (e.role?.toLowerCase().includes(w) ?? false));
  };
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

/** The pages: [start, end) ranges of entries, each within the room with its context lines. */
function paginate(entries: readonly Entry[], costs: readonly number[], room: number): [number, number][] {
  const pages: [number, number][] = [];
  let start = 0;
  let used = 0;
  for (let i = 0; i < entries.length; i++) {
    const cost = costs[i] as number;
    if (i > start && used + cost > room) {
      pages.push([start, i]);
      start = i;
      used = contextOf(entries, i).reduce((n, j) => n + (costs[j] as number), 0);
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

/** What the other pages hold, and how to see them (the query written out again when it is short). */
function leftOut(
  entries: readonly Entry[],
  [start, end]: [number, number],
  number: number,
  of: number,
  query: string | undefined,
  short: boolean,
  count: (text: string) => number,
): string {
  let lines = 0;
  let interactive = 0;
  entries.forEach((e, i) => {
    if (i >= start && i < end) return;
    lines++;
    interactive += e.interactive;
  });
  // The containers at the top whose lines are (partly) elsewhere, by name: where the rest is (a few, cut short).
  const where: string[] = [];
  let tokens = 0;
  let full = false;
  entries.forEach((e, i) => {
    if (e.depth !== 0 || full) return;
    let last = i + 1;
    while (last < entries.length && (entries[last] as Entry).depth > 0) last++;
    const out = Math.max(0, Math.min(last, start) - i) + Math.max(0, last - Math.max(i, end));
    if (out <= 0) return;
    const name = `${headOf(e.text, 60)}${out < last - i ? ' (part)' : ''}`;
    const cost = count(name);
    full = tokens + cost > CUT.where;
    if (full) return;
    where.push(name);
    tokens += cost;
    full = where.length === 6;
  });
  const next = number < of ? number + 1 : 1;
  const asked = query !== undefined && query !== '';
  // A long query is not written out again: the command says to send the same one.
  const pageCommand =
    asked && !short ? `GET_DOM with the same "query" and "page": ${next}` : `GET_DOM ${JSON.stringify({ ...(asked && { query }), page: next })}`;
  const search = asked ? '' : '; GET_DOM {"query": "<words>"} shows only the elements that match, on any page';
  return `(${lines} more lines with ${interactive} interactive elements are on the other ${of - 1 === 1 ? 'page' : `${of - 1} pages`}${where.length > 0 ? `, in ${where.join(', ')}` : ''}: ${pageCommand} shows page ${next}${search})`;
}
