/**
 * Playwright's aria snapshot (the YAML `page.ariaSnapshot({ mode: 'ai' })` returns) read
 * back into the tree it was written from. Each line is `- key`, `- key:` (children follow)
 * or `- key: value`; a key is `role "name" [attribute]...`, quoted as a whole in single
 * quotes when it holds ": " (so a name such as "Step 1: start" never splits a line), and a
 * value is plain or a double-quoted YAML string. Names are JSON strings inside the key.
 */

/** One node of the page's accessibility tree, as the snapshot shows it. */
export interface AriaNode {
  /** 'button', 'link', 'text' (a text run), ... */
  role: string;
  /** The accessible name (undefined when it has none). */
  name?: string;
  /** Playwright's ref (`e7`, `f1e4` in a frame): what `page.getByRef` finds. */
  ref?: string;
  /** Bracketed attributes other than the ref: `checked`, `level: '1'`, `selected`... */
  attrs: Record<string, string | true>;
  /** The text after the key (a text run's text, a field's value, a cell's content). */
  value?: string;
  /** A link's URL. */
  url?: string;
  placeholder?: string;
  children: AriaNode[];
}

/** Parses an ai-mode aria snapshot into its top-level nodes. */
export function parseAriaSnapshot(yaml: string): AriaNode[] {
  const roots: AriaNode[] = [];
  /** The open nodes with their line's indent. */
  const stack: { indent: number; node: AriaNode }[] = [];
  for (const raw of yaml.split('\n')) {
    const match = /^(\s*)- (.*)$/.exec(raw);
    if (match === null) continue;
    const indent = (match[1] as string).length;
    while (stack.length > 0 && (stack.at(-1) as { indent: number }).indent >= indent) stack.pop();
    const parent = stack.at(-1)?.node;
    const { key, value } = splitLine(match[2] as string);
    // Properties of the node above: `- /url: /home`, `- /placeholder: Search`.
    if (key.startsWith('/')) {
      if (parent !== undefined && value !== undefined) {
        if (key === '/url') parent.url = value;
        else if (key === '/placeholder') parent.placeholder = value;
      }
      continue;
    }
    const node = parseKey(key);
    if (value !== undefined && value !== '') node.value = value;
    if (parent === undefined) roots.push(node);
    else parent.children.push(node);
    stack.push({ indent, node });
  }
  return roots;
}

/** A line's key and its value (undefined when there is none; '' when children follow). */
function splitLine(line: string): { key: string; value?: string } {
  let key: string;
  let rest: string;
  if (line.startsWith("'")) {
    // A single-quoted YAML scalar: '' stands for '.
    let i = 1;
    let out = '';
    while (i < line.length) {
      if (line[i] === "'" && line[i + 1] === "'") {
        out += "'";
        i += 2;
      } else if (line[i] === "'") break;
      else out += line[i++] as string;
    }
    key = out;
    rest = line.slice(i + 1);
  } else {
    // A plain key never holds ": " nor ends with ":" (it would have been quoted).
    const at = line.indexOf(': ');
    if (at >= 0) [key, rest] = [line.slice(0, at), line.slice(at)];
    else if (line.endsWith(':')) [key, rest] = [line.slice(0, -1), ':'];
    else [key, rest] = [line, ''];
  }
  if (rest === '') return { key };
  if (rest === ':') return { key, value: '' };
  return { key, value: yamlValue(rest.replace(/^:\s?/, '')) };
}

/** A plain or double-quoted YAML value as its text. */
function yamlValue(text: string): string {
  if (!text.startsWith('"')) return text;
  const end = closingQuote(text, 0);
  return end === text.trimEnd().length - 1 ? (unescape(text.slice(1, end)) ?? text) : text;
}

/** YAML double-quoted escapes (a superset of JSON's): Playwright writes control characters as \xNN in values. */
const ESCAPES: Readonly<Record<string, string>> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};
const HEX_DIGITS: Readonly<Record<string, number>> = { x: 2, u: 4, U: 8 };

/**
 * The text of a double-quoted string's inside, its escapes read left to right (so `\\x41` is a backslash
 * and "x41", not "A"); undefined when an escape is malformed.
 */
function unescape(body: string): string | undefined {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    if (e === undefined) return undefined;
    const digits = HEX_DIGITS[e];
    if (digits !== undefined) {
      const hex = body.slice(i + 1, i + 1 + digits);
      const code = parseInt(hex, 16);
      // Past the last code point (\UFFFFFFFF): malformed, as fromCodePoint would throw.
      if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits || code > 0x10ffff) return undefined;
      out += String.fromCodePoint(code);
      i += digits;
    } else if (ESCAPES[e] !== undefined) out += ESCAPES[e];
    else return undefined;
  }
  return out;
}

/** `role "name" [attr] [attr=value]...` as a node. */
function parseKey(key: string): AriaNode {
  const role = /^[a-zA-Z][\w-]*/.exec(key)?.[0] ?? 'text';
  const node: AriaNode = { role, attrs: {}, children: [] };
  let rest = key.slice(role.length);
  if (rest.startsWith(' "')) {
    const end = closingQuote(rest, 1);
    if (end > 0) {
      // A JSON string (Playwright writes \u00NN), read with the scanner values use: one reading of each escape.
      node.name = unescape(rest.slice(2, end)) ?? rest.slice(2, end);
      rest = rest.slice(end + 1);
    }
  }
  for (const m of rest.matchAll(/\[([a-zA-Z-]+)(?:=([^\]]*))?\]/g)) {
    const [, attr, value] = m as unknown as [string, string, string | undefined];
    if (attr === 'ref' && value !== undefined) node.ref = value;
    else node.attrs[attr] = value ?? true;
  }
  return node;
}

/** The index of the quote that closes the JSON string opening at `start`, or -1. */
function closingQuote(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}
