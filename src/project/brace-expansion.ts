/**
 * Brace expansion as bash does it, on a word's pattern (quoted characters backslash-escaped):
 * `{rm,-rf,x}` is three words, `a{1..3}` is `a1 a2 a3`. A word whose expansion would pass
 * `MAX_WORDS` is not expanded (undefined).
 */

const MAX_WORDS = 256;

/** The words a pattern expands to, unescaped; undefined when there would be more than MAX_WORDS. */
export function expandBraces(pattern: string): string[] | undefined {
  const out: string[] = [];
  return expandInto(pattern, out) ? out : undefined;
}

function expandInto(pattern: string, out: string[]): boolean {
  for (let open = 0; open < pattern.length; open++) {
    if (pattern[open] === '\\') {
      open++;
      continue;
    }
    if (pattern[open] !== '{') continue;
    const alternatives = braceAt(pattern, open);
    if (alternatives === 'too many') return false;
    if (alternatives === undefined) continue;
    const prefix = pattern.slice(0, open);
    for (const alternative of alternatives.items) {
      if (!expandInto(prefix + alternative + pattern.slice(alternatives.end + 1), out)) return false;
    }
    return true;
  }
  out.push(pattern.replace(/\\(.)/gs, '$1'));
  return out.length <= MAX_WORDS;
}

/** The alternatives of the brace at `open` and the index of its closing brace; undefined when it is no expansion. */
function braceAt(pattern: string, open: number): { items: string[]; end: number } | 'too many' | undefined {
  let depth = 0;
  let start = open + 1;
  const items: string[] = [];
  for (let j = open; j < pattern.length; j++) {
    const c = pattern[j];
    if (c === '\\') j++;
    else if (c === '{') depth++;
    else if (c === ',' && depth === 1) {
      items.push(pattern.slice(start, j));
      start = j + 1;
    } else if (c === '}' && --depth === 0) {
      if (items.length > 0) return { items: [...items, pattern.slice(start, j)], end: j };
      const sequence = sequenceOf(pattern.slice(open + 1, j));
      return sequence === undefined || sequence === 'too many' ? sequence : { items: sequence, end: j };
    }
  }
  return undefined;
}

/** `1..5`, `a..e`, `10..1..3`: the items, or undefined when it is no sequence. */
function sequenceOf(inner: string): string[] | 'too many' | undefined {
  const numbers = /^(-?\d+)\.\.(-?\d+)(?:\.\.(-?\d+))?$/.exec(inner);
  const letters = /^([a-zA-Z])\.\.([a-zA-Z])(?:\.\.(-?\d+))?$/.exec(inner);
  const match = numbers ?? letters;
  if (match === null) return undefined;
  const from = numbers !== null ? Number(match[1]) : (match[1] ?? 'a').charCodeAt(0);
  const to = numbers !== null ? Number(match[2]) : (match[2] ?? 'a').charCodeAt(0);
  const step = Math.abs(Number(match[3] ?? '1')) || 1;
  if (Math.abs(to - from) / step >= MAX_WORDS) return 'too many';
  const items: string[] = [];
  for (let v = from; from <= to ? v <= to : v >= to; v += from <= to ? step : -step) {
    items.push(numbers !== null ? String(v) : String.fromCharCode(v));
  }
  return items;
}
