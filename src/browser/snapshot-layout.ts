/**
 * The page's accessibility tree laid out as the lines the model reads: one line an element,
 * indented under its container, anonymous wrappers dropped, each interactive element once
 * with its ref, a label that repeats the name of the field beside it left out, a select's
 * options on its own line. Lines are entries the snapshot pages, queries and compares.
 */
import type { AriaNode } from './aria-tree.js';
import { findRuns, fold, type FoldContext } from './snapshot-fold.js';

/** Roles a user acts on. */
export const INTERACTIVE = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'checkbox',
  'radio',
  'combobox',
  'listbox',
  'slider',
  'spinbutton',
  'switch',
  'tab',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'treeitem',
  'option',
]);

/** Content a command reads by its ref (SAVE_VARIABLE): a table's cells. */
const READABLE = new Set(['cell', 'gridcell']);

/** Wrappers that add nothing but depth when they have no name of their own. */
const WRAPPERS = new Set(['generic', 'none', 'presentation', 'group', 'list', 'rowgroup', 'paragraph', 'listitem', 'LabelText', 'Section']);

/** Roles whose text is shown bare: the role says nothing a model needs. */
const BARE = new Set(['generic', 'paragraph', 'listitem', 'text', 'LabelText', 'Section', 'none', 'presentation', 'strong', 'emphasis', 'code']);

/** One line of the snapshot. */
export interface Entry {
  depth: number;
  text: string;
  /** The refs on the line (an element's, or a folded row's controls'). */
  refs: string[];
  /** Interactive elements on the line. */
  interactive: number;
  /** The entry this one is indented under (-1 at the top). */
  parent: number;
  /** What the line stands for across snapshots: its first ref, else its text under its parent's key. */
  key: string;
  /** A folded table's header: its lines are rows. */
  rows?: true;
  /** The element's role when the line shows one ('heading' for an h1..h6 line), so a query's role word finds it. */
  role?: string;
}

export interface LayoutOptions {
  /** The ref shown for Playwright's ref (the executor's session-wide ids). */
  ref: (playwrightRef: string) => string;
  /** A textbox value shown as dots (password fields' values). */
  hidden: (value: string) => boolean;
}

/** The entries of a tree. */
export function layout(roots: readonly AriaNode[], options: LayoutOptions): Entry[] {
  const out: Entry[] = [];
  const push = (depth: number, parent: number, text: string, refs: string[], interactive: number): number => {
    const parentKey = parent < 0 ? '' : (out[parent] as Entry).key;
    out.push({ depth, text, refs, interactive, parent, key: refs[0] ?? `${parentKey}>${text}` });
    return out.length - 1;
  };
  const ctx: FoldContext = {
    children: (node) => hoist(node.children, node),
    isWrapper,
    isInteractive,
    ref: (node) => (node.ref !== undefined && (isInteractive(node) || READABLE.has(node.role)) ? options.ref(node.ref) : undefined),
    text: textOf,
  };
  const visitAll = (nodes: readonly AriaNode[], depth: number, parent: number, container: AriaNode | undefined, folding = true): void => {
    const kids = folding ? hoistRuns(nodes, container, ctx) : hoist(nodes, container);
    for (const [i, item] of kids.entries()) {
      if (Array.isArray(item)) {
        // A header row just before a table's rows names its columns, and is not shown again; a data row does neither.
        const before = kids[i - 1];
        const headings = isHeaderRow(before) ? before.children.map((c) => textOf(c) ?? '') : undefined;
        const folded = fold(item, ctx, headings);
        if (folded === undefined) {
          for (const one of item) visitAll([one], depth, parent, container, false);
          continue;
        }
        const at = push(depth, parent, folded.header, [], 0);
        (out[at] as Entry).rows = true;
        // Known across snapshots by its first row's ref, so a header that changes (a column's name) is one changed line.
        const first = folded.rows[0]?.refs[0];
        if (first !== undefined) (out[at] as Entry).key = `${parent < 0 ? '' : (out[parent] as Entry).key}>rows from ${first}`;
        for (const row of folded.rows) push(depth + 1, at, row.text, row.refs, row.interactive);
        continue;
      }
      const next = kids[i + 1];
      if (isHeaderRow(item) && Array.isArray(next) && next[0]?.role === 'row') continue;
      // A label (text equal to the name of the control beside it) says nothing the control's line does not.
      const prev = kids[i - 1];
      if (isLabel(item, Array.isArray(prev) ? undefined : prev) || isLabel(item, Array.isArray(next) ? undefined : next)) continue;
      visit(item, depth, parent);
    }
  };
  const visit = (node: AriaNode, depth: number, parent: number): void => {
    const interactive = isInteractive(node);
    const ref = node.ref !== undefined && (interactive || READABLE.has(node.role)) ? options.ref(node.ref) : undefined;
    const options_ = node.role === 'combobox' || node.role === 'listbox' ? optionsOf(node, options) : undefined;
    const line = render(node, ref, options_?.text, options.hidden);
    const refs = [...(ref === undefined ? [] : [ref]), ...(options_?.refs ?? [])];
    const at = push(depth, parent, line, refs, (interactive ? 1 : 0) + (options_?.refs.length ?? 0));
    if (!isBare(node, ref, node.value)) (out[at] as Entry).role = node.role;
    // The options are on the line already: neither they nor their groups (a select's optgroups) are shown again.
    const children = (options_ === undefined ? node.children : withoutOptions(node.children)).filter(
      (c) => !(c.role === 'text' && c.value !== undefined && c.value === node.name),
    );
    visitAll(children, depth + 1, at, node);
  };
  visitAll(roots, 0, -1, undefined);
  return out;
}

/** Children with the wrappers between them and their container taken out, and empty leaves dropped. */
export function hoist(nodes: readonly AriaNode[], container: AriaNode | undefined): AriaNode[] {
  const out: AriaNode[] = [];
  for (const node of nodes) {
    if (isWrapper(node)) out.push(...hoist(node.children, container));
    else if (!repeatsContainer(node, container)) out.push(node);
  }
  return out;
}

/** As hoist, with runs of siblings of one shape kept together, to be folded (at whatever depth of wrappers they are). */
function hoistRuns(nodes: readonly AriaNode[], container: AriaNode | undefined, ctx: FoldContext): (AriaNode | AriaNode[])[] {
  const out: (AriaNode | AriaNode[])[] = [];
  for (const item of findRuns(
    nodes.filter((n) => !repeatsContainer(n, container)),
    ctx,
  )) {
    if (!Array.isArray(item) && isWrapper(item)) out.push(...hoistRuns(item.children, container, ctx));
    else out.push(item);
  }
  return out;
}

/** An empty leaf, or a child that repeats its container's name (a link's image, a button's text). */
function repeatsContainer(node: AriaNode, container: AriaNode | undefined): boolean {
  if (isEmpty(node)) return true;
  return container?.name !== undefined && !isInteractive(node) && node.children.length === 0 && textOf(node) === container.name;
}

export function isInteractive(node: AriaNode): boolean {
  return INTERACTIVE.has(node.role) || (node.attrs.cursor === 'pointer' && node.ref !== undefined && !INTERACTIVE.has(node.role));
}

/** A table's row of column headers (a row of data cells names nothing). */
function isHeaderRow(node: AriaNode | AriaNode[] | undefined): node is AriaNode {
  return !Array.isArray(node) && node?.role === 'row' && node.children.length > 0 && node.children.every((c) => c.role === 'columnheader');
}

function isWrapper(node: AriaNode): boolean {
  return WRAPPERS.has(node.role) && node.name === undefined && node.value === undefined && node.children.length > 0 && node.attrs.cursor !== 'pointer';
}

function isEmpty(node: AriaNode): boolean {
  return !isInteractive(node) && node.name === undefined && node.value === undefined && node.children.length === 0;
}

/** The text a node shows: a text run's, or its name. */
export function textOf(node: AriaNode): string | undefined {
  return node.role === 'text' || (BARE.has(node.role) && node.name === undefined) ? node.value : (node.name ?? node.value);
}

function isLabel(node: AriaNode, beside: AriaNode | undefined): boolean {
  if (beside === undefined || isInteractive(node) || !isInteractive(beside) || node.children.length > 0) return false;
  const text = textOf(node)?.trim().replace(/:$/, '');
  return text !== undefined && text !== '' && text === beside.name?.trim().replace(/:$/, '');
}

/**
 * A select's (or listbox's) options: `options "France" (selected), "Peru"`, an option's ref after it when it has
 * one; options in a named group after its name: `options group "Fruit": "Fig" [ref=e4], "Kiwi" [ref=e5]; group "Veg": ...`.
 */
function optionsOf(node: AriaNode, options: LayoutOptions): { text: string; refs: string[] } | undefined {
  const found: { option: AriaNode; group: AriaNode | undefined }[] = [];
  const walk = (n: AriaNode, group: AriaNode | undefined) => {
    for (const c of n.children) {
      if (c.role === 'option') found.push({ option: c, group });
      else walk(c, c.role === 'group' && c.name !== undefined ? c : group);
    }
  };
  walk(node, undefined);
  if (found.length === 0) return undefined;
  const refs: string[] = [];
  const parts = found.map(({ option: o, group }, i) => {
    const ref = o.ref === undefined ? undefined : options.ref(o.ref);
    if (ref !== undefined) refs.push(ref);
    const opens = i === 0 || group !== found[i - 1]?.group;
    const lead = !opens ? ', ' : `${i === 0 ? '' : '; '}${group === undefined ? '' : `group ${JSON.stringify(group.name)}: `}`;
    return `${lead}${JSON.stringify(o.name ?? o.value ?? '')}${o.attrs.selected === true ? ' (selected)' : ''}${ref === undefined ? '' : ` [ref=${ref}]`}`;
  });
  return { text: `options ${parts.join('')}`, refs };
}

/** Nodes with the options taken out, and the groups that held only options. */
function withoutOptions(nodes: readonly AriaNode[]): AriaNode[] {
  return nodes.flatMap((n) => {
    if (n.role === 'option') return [];
    if (n.role !== 'group') return [n];
    const children = withoutOptions(n.children);
    return children.length === 0 ? [] : [{ ...n, children }];
  });
}

/** Attributes shown, in Playwright's words. */
const SHOWN_ATTRS = ['checked', 'disabled', 'expanded', 'pressed', 'selected', 'invalid'];

/** A line of text alone, its role not shown. */
function isBare(node: AriaNode, ref: string | undefined, value: string | undefined): boolean {
  return BARE.has(node.role) && node.name === undefined && ref === undefined && value !== undefined;
}

/** An element's line: `role "name" [state] [ref=e4]: value`; text shown bare; a heading as h1..h6. */
export function render(node: AriaNode, ref: string | undefined, options: string | undefined, hidden: (value: string) => boolean): string {
  const refText = ref === undefined ? '' : ` [ref=${ref}]`;
  const value = node.value === undefined ? undefined : node.role === 'textbox' && hidden(node.value) ? '••••••' : node.value;
  if (isBare(node, ref, value)) return quoteIfNeeded(value as string);
  const role =
    node.role === 'heading' && typeof node.attrs.level === 'string'
      ? `h${node.attrs.level}`
      : BARE.has(node.role) && ref !== undefined
        ? 'clickable'
        : node.role;
  const attrs = SHOWN_ATTRS.filter((a) => node.attrs[a] !== undefined)
    .map((a) => (node.attrs[a] === true ? ` [${a}]` : ` [${a}=${node.attrs[a] as string}]`))
    .join('');
  const name = node.name === undefined ? '' : ` ${JSON.stringify(node.name)}`;
  const tail = options !== undefined ? `: ${options}` : value !== undefined ? `: ${quoteIfNeeded(value)}` : '';
  return `${role}${name}${attrs}${refText}${tail}`;
}

/**
 * Text as it is, or JSON-quoted when it would read as something else (blank ends, a line
 * break, a leading quote, or a control's line: a ref, or a role word and a quoted name).
 */
export function quoteIfNeeded(text: string): string {
  return text === '' || /^\s|\s$|[\n\r]|^["']|\[ref=|^[a-z][a-z0-9]* "/.test(text) ? JSON.stringify(text) : text;
}
