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
export function renderSnapshot(entries: readonly Entry[], options: Omit<CompactOptions, 'hide' | 'ref'>): PageSnapshot {
  const count = options.countTokens ?? ((t: string) => Math.ceil(t.length / 4));
  const budget = options.budget ?? 2_000;
  const lines = entries.map((e) => `${'  '.repeat(e.depth)}${e.text}`);
  const pages = paginate(entries, lines, count, Math.max(budget - RESERVE, 100));
  const number = Math.min(Math.max(1, Math.floor(options.page ?? 1)), pages.length);
  const [start, end] = pages[number - 1] as [number, number];
  const shown = [...contextOf(entries, start).map((i) => lines[i] as string), ...lines.slice(start, end)];
  const of = pages.length;
  const header = `Snapshot ${options.id}: ${options.title || '(no title)'} (${options.url})${of > 1 ? ` · page ${number} of ${of}` : ''}`;
  const parts = [header, ...(shown.length === 0 ? ['(the page shows nothing)'] : shown)];
  if (of > 1) parts.push(leftOut(entries, start, end, number, of));
  const text = redactSecrets(parts.join('\n'), options.secrets);
  return {
    id: options.id,
    url: options.url,
    title: options.title,
    text,
    tokens: count(text),
    interactive: entries.reduce((n, e) => n + e.interactive, 0),
    omitted: entries.length - (end - start),
    page: { number, of },
  };
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
function leftOut(entries: readonly Entry[], start: number, end: number, number: number, of: number): string {
  const other = entries.filter((_, i) => i < start || i >= end);
  const interactive = other.reduce((n, e) => n + e.interactive, 0);
  const next = number < of ? number + 1 : 1;
  return `(${other.length} more lines with ${interactive} interactive elements are on the other ${of - 1 === 1 ? 'page' : `${of - 1} pages`}: GET_DOM {"page": ${next}} shows page ${next})`;
}
