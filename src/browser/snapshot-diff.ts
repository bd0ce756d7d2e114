/**
 * What changed on a page between two snapshots of the same document: the lines added,
 * removed and changed, each with its refs. A line is known across snapshots by its key
 * (its first ref, else its text under its container's key; see snapshot-layout.ts), so an
 * element whose state or value changed is one changed line, not one removed and one added.
 */
import { redactSecrets } from '../protocol/interpolation.js';
import type { Entry } from './snapshot-layout.js';
import { headOf } from '../core/text.js';
import { redactEntries } from './snapshot.js';

/** What an action's result carries instead of a whole snapshot when the page stayed the same document. */
export interface SnapshotChanges {
  /** The snapshot this one is (its id: the next diff is from it). */
  id: string;
  /** The snapshot it is the difference from. */
  since: string;
  url: string;
  title: string;
  /** The text the model reads: a header, then `+` added, `~` changed and `-` removed lines. */
  text: string;
  tokens: number;
  added: number;
  removed: number;
  changed: number;
}

export interface DiffOptions {
  id: string;
  since: string;
  url: string;
  /** The page's address at the previous snapshot. */
  previousUrl: string;
  title: string;
  secrets?: Readonly<Record<string, string>>;
  countTokens?: (text: string) => number;
}

/** Keys made unique: a second line of the same key (the same text twice in one container) gets `#2`. */
function keyed(entries: readonly Entry[]): string[] {
  const seen = new Map<string, number>();
  return entries.map((e) => {
    const n = (seen.get(e.key) ?? 0) + 1;
    seen.set(e.key, n);
    return n === 1 ? e.key : `${e.key}#${n}`;
  });
}

/**
 * Whether lines both snapshots have moved: are in another order, or in another container.
 * Added, changed and removed lines cannot say it; the whole snapshot does.
 */
function moved(before: readonly Entry[], beforeKeys: readonly string[], after: readonly Entry[], afterKeys: readonly string[]): boolean {
  const was = new Map(beforeKeys.map((k, i) => [k, i]));
  const is = new Set(afterKeys);
  const kept = beforeKeys.filter((k) => is.has(k));
  const keptNow = afterKeys.filter((k) => was.has(k));
  if (kept.some((k, i) => k !== keptNow[i])) return true;
  const parentKey = (entries: readonly Entry[], keys: readonly string[], i: number) => keys[(entries[i] as Entry).parent] ?? '';
  return afterKeys.some((k, i) => {
    const j = was.get(k);
    return j !== undefined && parentKey(before, beforeKeys, j) !== parentKey(after, afterKeys, i);
  });
}

/** The difference from `before` to `after`, as the model reads it; undefined when lines moved (the whole snapshot says that). */
export function diffSnapshots(unredactedBefore: readonly Entry[], unredactedAfter: readonly Entry[], options: DiffOptions): SnapshotChanges | undefined {
  // Secrets go first: a name cut short never shows part of one.
  const before = redactEntries(unredactedBefore, options.secrets);
  const after = redactEntries(unredactedAfter, options.secrets);
  const count = options.countTokens ?? ((t: string) => Math.ceil(t.length / 4));
  const beforeKeys = keyed(before);
  const afterKeys = keyed(after);
  const old = new Map(beforeKeys.map((k, i) => [k, before[i] as Entry]));
  const now = new Set(afterKeys);
  if (moved(before, beforeKeys, after, afterKeys)) return undefined;
  const lines: string[] = [];
  const added = new Set<number>();
  let changed = 0;
  after.forEach((entry, i) => {
    const previous = old.get(afterKeys[i] as string);
    if (previous === undefined) {
      added.add(i);
      // An added line under an added container is indented under it; the first of a block says where it is.
      let top = i;
      while (added.has((after[top] as Entry).parent)) top = (after[top] as Entry).parent;
      // Said once for a run of added lines in the same container.
      const container = after[entry.parent];
      const where =
        top === i && container !== undefined && !(added.has(i - 1) && (after[i - 1] as Entry).parent === entry.parent)
          ? ` (in ${container.text.length > 50 ? `${headOf(container.text, 50)}…` : container.text})`
          : '';
      lines.push(`+ ${'  '.repeat(entry.depth - (after[top] as Entry).depth)}${entry.text}${where}`);
    } else if (previous.text !== entry.text) {
      changed++;
      lines.push(`~ ${entry.text}`);
    }
  });
  let removed = 0;
  before.forEach((entry, i) => {
    if (now.has(beforeKeys[i] as string)) return;
    removed++;
    lines.push(`- ${entry.text}`);
  });
  // The page is the document the previous snapshot showed: its address is said only when it changed (a #fragment, history.pushState).
  const at = options.url === options.previousUrl ? '' : ` (now at ${options.url})`;
  // Short: it is in every later prompt of the task. The lines say what was added, changed or removed.
  const header = lines.length === 0 ? `No change since ${options.since}, now ${options.id}${at}` : `Changes since ${options.since}, now ${options.id}${at}:`;
  const text = redactSecrets([header, ...lines].join('\n'), options.secrets);
  return { id: options.id, since: options.since, url: options.url, title: options.title, text, tokens: count(text), added: added.size, removed, changed };
}
