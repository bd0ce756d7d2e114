/**
 * The page as the model reads it (GET_DOM): Playwright's accessibility snapshot in its
 * "ai" mode (`page.ariaSnapshot({ mode: 'ai' })`, with element refs), made compact.
 * Interactive elements come first, flat, each with a ref a command can target; then the
 * page's content as a tree, without the anonymous wrappers; all within a token budget.
 * Refs carry the snapshot's id (`s3/e7`), so a command aimed at an old page is caught.
 */
import { redactSecrets } from '../protocol/interpolation.js';
import { parseAriaSnapshot, type AriaNode } from './aria-tree.js';

/** Roles a user acts on. */
const INTERACTIVE = new Set([
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

/** Roles that only group others. */
const STRUCTURE = new Set([
  'table',
  'row',
  'rowgroup',
  'list',
  'group',
  'form',
  'region',
  'main',
  'navigation',
  'banner',
  'contentinfo',
  'article',
  'menu',
  'menubar',
  'tablist',
  'toolbar',
  'tree',
  'grid',
  'radiogroup',
]);

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
  /** Interactive elements listed. */
  interactive: number;
  /** Content lines left out to stay within the budget. */
  omitted: number;
}

interface Line {
  depth: number;
  role: string;
  /** The line's text after "- ", refs rewritten. */
  body: string;
  ref: string | undefined;
  /** An option's text and whether it is selected (for the select above it). */
  option?: { label: string; selected: boolean };
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
}

/** Makes the compact page text from an "ai" mode aria snapshot. */
export function compactSnapshot(aria: string, options: CompactOptions): PageSnapshot {
  const count = options.countTokens ?? ((t: string) => Math.ceil(t.length / 4));
  const budget = options.budget ?? 2_000;
  const lines = parse(aria, options.id);
  const interactive = lines.filter((l) => INTERACTIVE.has(l.role) && l.ref !== undefined && l.role !== 'option');
  // A select's options, on its own line: `combobox "Country" [ref=s1/e4]: options "France" (selected), "Peru"`.
  const optionsOf = new Map<Line, string>();
  lines.forEach((line, i) => {
    if (line.role !== 'combobox' && line.role !== 'listbox') return;
    const options: string[] = [];
    for (let j = i + 1; j < lines.length && (lines[j] as Line).depth > line.depth; j++) {
      const o = (lines[j] as Line).option;
      if (o !== undefined) options.push(`${JSON.stringify(o.label)}${o.selected ? ' (selected)' : ''}`);
    }
    if (options.length > 0) optionsOf.set(line, `options ${options.join(', ')}`);
  });
  const hide = (text: string) => redact(text, options.hide ?? [], options.secrets);
  const header = hide(
    `Page: ${options.title || '(no title)'} (${options.url})\nSnapshot ${options.id}: use ref=<ref> as a selector, e.g. ref=${interactive[0]?.ref ?? `${options.id}/e1`}`,
  );
  const parts = [header];
  let used = count(header);
  const add = (text: string): boolean => {
    const cost = count(text) + 1;
    if (used + cost > budget) return false;
    parts.push(text);
    used += cost;
    return true;
  };
  add('Interactive elements:');
  let shown = 0;
  for (const line of interactive) {
    const extra = optionsOf.get(line);
    if (!add(hide(`- ${bare(line.body)}${extra === undefined ? '' : `: ${extra}`}`))) break;
    shown++;
  }
  if (shown < interactive.length) parts.push(`- ... ${interactive.length - shown} more interactive elements not shown (over the budget)`);
  if (interactive.length === 0) add('- (none)');
  let omitted = 0;
  if (add('Content:')) {
    const content = lines.filter((l) => l.option === undefined);
    for (const [i, line] of content.entries()) {
      // `link "Home" [ref=s1/e3]:` whose children were all left out ends without the colon.
      const leaf = (content[i + 1]?.depth ?? -1) <= line.depth;
      if (!add(hide(`${'  '.repeat(line.depth)}- ${leaf ? bare(line.body) : line.body}`))) {
        omitted = content.length - i;
        break;
      }
    }
  } else {
    omitted = lines.length;
  }
  if (omitted > 0) parts.push(`- ... ${omitted} more lines of content not shown (over the budget)`);
  const text = parts.join('\n');
  return { id: options.id, url: options.url, title: options.title, text, tokens: count(text), interactive: interactive.length, omitted };
}

/** The aria snapshot's lines, anonymous wrappers dropped (their children move up), refs given the snapshot's id. */
function parse(aria: string, snapshotId: string): Line[] {
  const out: Line[] = [];
  const visit = (node: AriaNode, depth: number): void => {
    const hasChildren = node.children.length > 0;
    // `generic [ref=e3]:` (a wrapper with nothing of its own) adds nothing but depth.
    if (
      (node.role === 'generic' && node.name === undefined && node.value === undefined) ||
      (WRAPPERS.has(node.role) && hasChildren && node.name === undefined)
    ) {
      for (const child of node.children) visit(child, depth);
      return;
    }
    const ref = node.ref === undefined ? undefined : `${snapshotId}/${node.ref}`;
    // Structure without content of its own needs no ref; content and controls keep theirs (SAVE_VARIABLE reads content).
    const shownRef = STRUCTURE.has(node.role) && hasChildren ? undefined : ref;
    const line: Line = { depth, role: node.role, body: `${keyOf(node, shownRef)}${valueOf(node, hasChildren)}`, ref };
    if (node.role === 'option') line.option = { label: node.name ?? node.value ?? '', selected: node.attrs.selected === true };
    out.push(line);
    for (const child of node.children) visit(child, depth + 1);
  };
  for (const node of parseAriaSnapshot(aria)) visit(node, 0);
  return out;
}

/** Wrappers dropped when they have children and no name. */
const WRAPPERS = new Set(['rowgroup', 'group', 'list', 'none', 'presentation']);

/** `role "name" [attr] [ref=...]`, the name JSON-quoted whatever it holds. */
function keyOf(node: AriaNode, ref: string | undefined): string {
  if (node.role === 'text') return 'text';
  const attrs = Object.entries(node.attrs)
    .filter(([k]) => k !== 'active' && k !== 'cursor')
    .map(([k, v]) => (v === true ? ` [${k}]` : ` [${k}=${v}]`))
    .join('');
  return `${node.role}${node.name === undefined ? '' : ` ${JSON.stringify(node.name)}`}${attrs}${ref === undefined ? '' : ` [ref=${ref}]`}`;
}

/** `: value` (quoted when it would read ambiguously), or `:` before children. */
function valueOf(node: AriaNode, hasChildren: boolean): string {
  if (node.value !== undefined) return `: ${needsQuotes(node.value) ? JSON.stringify(node.value) : node.value}`;
  return hasChildren ? ':' : '';
}

function needsQuotes(value: string): boolean {
  return value === '' || /^\s|\s$|[\n\r]/.test(value) || /^["'-]/.test(value) || (value !== '' && !isNaN(Number(value)));
}

/** A YAML double-quoted value as its text. */
function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  try {
    return JSON.parse(value) as string;
  } catch {
    return value;
  }
}

/** A line without the colon that announces children. */
function bare(body: string): string {
  return body.endsWith(':') ? body.slice(0, -1) : body;
}

function redact(text: string, hide: readonly string[], secrets: Readonly<Record<string, string>> | undefined): string {
  const out = redactSecrets(text, secrets);
  const values = new Set(hide.filter((v) => v !== ''));
  if (values.size === 0) return out;
  // A password field's value is shown as dots, whatever it is: on a textbox's line, where it stands as the value.
  return out.replace(/^(\s*- textbox\b[^\n]*?): (.*)$/gm, (line, head: string, value: string) =>
    values.has(value) || values.has(unquote(value)) ? `${head}: ••••••` : line,
  );
}
