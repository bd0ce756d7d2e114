/**
 * Repeated structure folded: three or more siblings of one shape (a shop's cards, a
 * table's rows, search results) are drawn once as a table, a line an item with its texts
 * and the refs of its controls. A column the same in every item (an "Add to cart" button)
 * is named once in the header; a column that repeats another (an image's alt text beside
 * the title) is left out.
 */
import type { AriaNode } from './aria-tree.js';

/** Roles whose text is named "text" in a header. */
const PLAIN = new Set(['generic', 'paragraph', 'text', 'listitem', 'LabelText', 'Section', 'strong', 'emphasis', 'code']);

/** Items in a row before they are folded. */
const MIN_ITEMS = 3;

/** What a fold needs of the layout (passed in, so the two modules do not import each other). */
export interface FoldContext {
  /** The node's children as shown: wrappers taken out, repeats of its name dropped. */
  children: (node: AriaNode) => AriaNode[];
  isWrapper: (node: AriaNode) => boolean;
  isInteractive: (node: AriaNode) => boolean;
  /** The ref shown for an element (undefined when it shows none). */
  ref: (node: AriaNode) => string | undefined;
  /** The text a node shows. */
  text: (node: AriaNode) => string | undefined;
}

interface Cell {
  /** The text as on the page. */
  raw: string;
  /** As shown: bare, JSON-quoted when it would read as something else (a " | ", a leading quote, a ref). */
  value: string;
  ref: string | undefined;
}

/** A run of siblings drawn as a table. */
export interface Fold {
  header: string;
  rows: { text: string; refs: string[]; interactive: number }[];
}

/** The columns of an item: its elements in order, wrappers taken out (a select's options stay on its line). */
function columnsOf(node: AriaNode, ctx: FoldContext): AriaNode[] {
  const below = node.role === 'combobox' || node.role === 'listbox' ? [] : ctx.children(node).flatMap((c) => columnsOf(c, ctx));
  // A container with nothing of its own to show (a row, an unnamed article) is no column; nor is a cell whose
  // only content is what it holds (a link, a button): its text is theirs, and a column of bare refs says nothing.
  const shows = !ctx.isWrapper(node) && (ctx.isInteractive(node) || ctx.text(node) !== undefined || (ctx.ref(node) !== undefined && below.length === 0));
  return shows ? [node, ...below] : below;
}

/** For each column of an item, the index of the item's child it is in (a row's cell), so a header cell names it. */
function cellsOf(item: AriaNode, ctx: FoldContext): (number | undefined)[] {
  const own = columnsOf({ ...item, children: [] }, ctx).length > 0 ? [undefined] : [];
  return [...own, ...item.children.flatMap((child, k) => ctx.children({ ...item, children: [child] }).flatMap((c) => columnsOf(c, ctx).map(() => k)))];
}

/** Controls that hold a state or a value a folded row would not show. */
const STATEFUL = new Set(['checkbox', 'radio', 'switch', 'textbox', 'searchbox', 'spinbutton', 'combobox', 'listbox', 'slider']);
const STATES = ['checked', 'disabled', 'expanded', 'pressed', 'selected', 'invalid'];

/** A state a row would drop (a checkbox's tick, a field's value, a disabled button), so a change to it would not show. */
const hasState = (node: AriaNode): boolean => STATEFUL.has(node.role) || STATES.some((a) => node.attrs[a] !== undefined);

function shapeOf(node: AriaNode, ctx: FoldContext): string | undefined {
  const columns = columnsOf(node, ctx);
  if (columns.length < 2) return undefined; // one element an item is a line an item already
  // Items with a stateful control are shown one by one: their lines keep the state, and a diff sees it change.
  if (columns.some(hasState)) return undefined;
  return columns.map((c) => `${c.role}${ctx.isInteractive(c) ? '!' : ''}`).join(',');
}

/** Splits siblings into runs to fold (of equal shape, at least three) and nodes to show one by one. */
export function findRuns(nodes: readonly AriaNode[], ctx: FoldContext): (AriaNode | AriaNode[])[] {
  const shapes = nodes.map((n) => shapeOf(n, ctx));
  const out: (AriaNode | AriaNode[])[] = [];
  for (let i = 0; i < nodes.length;) {
    let j = i + 1;
    while (shapes[i] !== undefined && j < nodes.length && shapes[j] === shapes[i]) j++;
    if (j - i >= MIN_ITEMS) out.push(nodes.slice(i, j));
    else out.push(...nodes.slice(i, j));
    i = j;
  }
  return out;
}

/**
 * A run drawn as a table. `headings` are a header row's cells, when one came just before: each column is
 * named by the heading of the cell it is in (a control inside a cell by the heading and its role).
 */
export function fold(items: readonly AriaNode[], ctx: FoldContext, headings?: readonly string[]): Fold | undefined {
  const grid = items.map((item) => columnsOf(item, ctx));
  const width = (grid[0] as AriaNode[]).length;
  const owners = headings === undefined ? [] : cellsOf(items[0] as AriaNode, ctx);
  const headed = new Set<number>();
  const cell = (node: AriaNode): Cell => {
    const ref = ctx.ref(node);
    const raw = (ctx.isInteractive(node) ? node.name : ctx.text(node)) ?? '';
    return { raw, value: quote(raw), ref };
  };
  const cells = grid.map((row) => row.map(cell));
  const column = (j: number) => cells.map((row) => row[j] as Cell);
  const header: string[] = [];
  const shown: { j: number; constant: boolean; usual?: string }[] = [];
  for (let j = 0; j < width; j++) {
    const values = column(j);
    const first = (grid[0] as AriaNode[])[j] as AriaNode;
    const hasRefs = values.some((v) => v.ref !== undefined);
    const constant = values.every((v) => v.value === values[0]?.value);
    // Controls named alike but for a few (one "Add to cart" become "Added: 1"): the usual name in the header, the others on their rows.
    const usual = hasRefs && !constant ? usualValue(values) : undefined;
    // Text a row already shows in another column (an image's alt beside the title), or no text at all.
    const repeats = !hasRefs && values.every((v, i) => v.raw === '' || cells[i]?.some((c, k) => k !== j && c.raw === v.raw));
    if (!hasRefs && (repeats || (constant && values[0]?.value === ''))) continue;
    // Text that differs only in a part (Rated 4.5 out of 5, 120 reviews): the rest is said once, in the header.
    const template = hasRefs || constant ? undefined : templateOf(values.map((v) => v.raw));
    if (template !== undefined) for (const v of values) v.value = quote(v.raw.slice(template.prefix.length, v.raw.length - template.suffix.length));
    const role = first.role === 'heading' && typeof first.attrs.level === 'string' ? `h${first.attrs.level}` : PLAIN.has(first.role) ? 'text' : first.role;
    const named = values[0]?.raw === '' ? '' : ` ${JSON.stringify(values[0]?.raw)}`;
    const described = constant ? `${role}${named}` : usual !== undefined ? `${role} ${JSON.stringify(usual.raw)} (unless named)` : role;
    // The heading of the column's cell: bare for the cell's first text, else before what the column holds (`Action: button "Buy"`).
    const owner = owners[j];
    const heading = owner === undefined || headings?.[owner] === undefined || headings[owner] === '' ? undefined : headings[owner];
    const bare = heading !== undefined && !ctx.isInteractive(first) && !headed.has(owner as number);
    if (heading !== undefined) headed.add(owner as number);
    const label =
      (heading === undefined ? described : bare ? `${heading}${constant ? named : ''}` : `${heading}: ${described}`) +
      (template === undefined ? '' : ` ${JSON.stringify(`${template.prefix}…${template.suffix}`)}`);
    // A constant column without refs is told once in the header.
    header.push(constant && !hasRefs ? `${label} (all)` : label);
    if (!(constant && !hasRefs)) shown.push({ j, constant, ...(usual !== undefined && { usual: usual.value }) });
  }
  // One column left: a line an item, as it would be without folding, says it as well.
  if (shown.length < 2) return undefined;
  const rows = cells.map((row) => {
    const refs: string[] = [];
    const parts = shown.map(({ j, constant, usual }) => {
      const c = row[j] as Cell;
      if (c.ref !== undefined) refs.push(c.ref);
      const ref = c.ref === undefined ? '' : `[ref=${c.ref}]`;
      return constant || c.value === usual ? ref : [c.value, ref].filter((x) => x !== '').join(' ');
    });
    // Interactive elements with a ref, as an unfolded line counts them.
    const interactive = row.filter((c, j) => c.ref !== undefined && ctx.isInteractive((grid[0] as AriaNode[])[j] as AriaNode)).length;
    return { text: parts.join(' | '), refs, interactive };
  });
  return { header: `${items.length} ${items[0]?.role === 'row' ? 'rows' : 'items'}, each: ${header.join(' | ')}`, rows };
}

/** The value all but a few cells (a tenth, at least one) have, when it is not empty. */
function usualValue(values: readonly Cell[]): { raw: string; value: string } | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v.value, (counts.get(v.value) ?? 0) + 1);
  const [value, n] = [...counts].sort((a, b) => b[1] - a[1])[0] ?? ['', 0];
  if (value === '' || n < values.length - Math.max(1, Math.floor(values.length / 10)) || n < 3) return undefined;
  return { raw: (values.find((v) => v.value === value) as Cell).raw, value };
}

/** A cell's text bare, JSON-quoted when it would read as something else (a " | ", a leading quote, a ref, a role word and a quoted name). */
function quote(text: string): string {
  return / \| |^["\s]|\s$|\[ref=|^[a-z][a-z0-9]* "/.test(text) ? JSON.stringify(text) : text;
}

/** The words every value starts and ends with, when they are most of it and each value has a part of its own. */
function templateOf(values: readonly string[]): { prefix: string; suffix: string } | undefined {
  const first = values[0];
  if (first === undefined || values.some((v) => v === '')) return undefined;
  let prefix = first;
  let suffix = first;
  for (const v of values) {
    while (!v.startsWith(prefix)) prefix = prefix.slice(0, -1);
    while (!v.endsWith(suffix)) suffix = suffix.slice(1);
  }
  // At word boundaries only: "Rated " and " out of 5", never half a number.
  prefix = prefix.slice(0, prefix.lastIndexOf(' ') + 1);
  suffix = suffix.includes(' ') ? suffix.slice(suffix.indexOf(' ')) : '';
  if (prefix.length + suffix.length < 4 || values.some((v) => v.length <= prefix.length + suffix.length)) return undefined;
  return { prefix, suffix };
}
