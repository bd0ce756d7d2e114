/**
 * Text width in terminal columns: East Asian wide characters and emoji take two
 * columns, combining marks none. Cutting counts graphemes, never code units.
 */

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** The text's graphemes (what a user sees as one character each). */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** The columns a grapheme takes: 2 for East Asian wide characters and emoji, 0 for marks alone. */
export function graphemeWidth(g: string): number {
  const cp = g.codePointAt(0) ?? 0;
  if (/^[\p{Mn}\p{Me}\p{Cf}]/u.test(g)) return 0;
  if (/\p{Emoji_Presentation}/u.test(g) || (g.includes('\uFE0F') && /\p{Extended_Pictographic}/u.test(g))) return 2;
  const wide =
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x20000 && cp <= 0x3fffd);
  return wide ? 2 : 1;
}

/** The columns `text` takes on a terminal. */
export function displayWidth(text: string): number {
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  return graphemes(text).reduce((sum, g) => sum + graphemeWidth(g), 0);
}

/** The text cut to `width` columns, ending with `ellipsis` when it was cut. */
export function cutTo(text: string, width: number, ellipsis = '…'): string {
  if (displayWidth(text) <= width) return text;
  const room = width - displayWidth(ellipsis);
  let used = 0;
  let out = '';
  for (const g of graphemes(text)) {
    const w = graphemeWidth(g);
    if (used + w > room) break;
    used += w;
    out += g;
  }
  return out + ellipsis;
}
