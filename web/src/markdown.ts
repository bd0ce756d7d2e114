/**
 * Model text read as markdown (GFM, by marked's lexer) for the page to draw as elements:
 * the tokens are never turned into an HTML string, so raw HTML in a message stays text.
 * Links keep only the schemes a reader can open safely.
 */
import { Lexer, type Token, type Tokens } from 'marked';

export type { Token, Tokens };

/** The block tokens of a markdown text (GFM: tables, task lists, strikethrough, autolinks). */
export function markdownTokens(text: string): Token[] {
  return new Lexer({ gfm: true, breaks: false }).lex(text);
}

/** The words of a markdown line without its marks ("Show me **this**" → "Show me this"), for titles. */
export function plainText(text: string): string {
  const words = (tokens: Token[]): string =>
    tokens
      .map((t) =>
        'tokens' in t && t.tokens !== undefined
          ? words(t.tokens)
          : t.type === 'text' || t.type === 'codespan' || t.type === 'escape'
            ? decodeEntities(String(t.text))
            : t.raw,
      )
      .join('');
  return words(markdownTokens(text)).trim() || text;
}

const SAFE_SCHEMES = new Set(['http:', 'https:', 'mailto:']);

/** The link's address when it is http(s) or mailto and well formed; null for anything else (javascript:, data:, relative). */
export function safeHref(href: string): string | null {
  try {
    const url = new URL(href.trim());
    return SAFE_SCHEMES.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Where a link goes, to show after its text when the text says something else: the host of an
 * http(s) address (punycode, as the browser goes there), the address of a mailto. Null when the
 * text is the address itself (an autolink, `<https://…>`, `www.…`), which says it already.
 */
export function linkHost(text: string, href: string): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  const where = url.protocol === 'mailto:' ? decodeURIComponent(url.pathname) : url.host;
  const said = text.trim().replace(/\/$/, '');
  const forms = [href, url.href, `${url.protocol}//${url.host}${url.pathname}${url.search}${url.hash}`, where].map((f) => f.replace(/\/$/, ''));
  const bare = (f: string) => f.replace(/^[a-z]+:(\/\/)?/i, '');
  return forms.some((f) => f === said || bare(f) === said) ? null : where;
}

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  laquo: '«',
  raquo: '»',
  middot: '·',
  times: '×',
  rarr: '→',
  larr: '←',
};

/** Character references in markdown text (`&amp;`, `&#x41;`) as the characters they stand for; unknown ones stay as written. */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? Number.parseInt(ref.slice(2), 16) : Number.parseInt(ref.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}
