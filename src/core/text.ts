/** Text helpers shared by the parts. */

/** The first `n` UTF-16 units of a text, one fewer when the last would be half of a character (an emoji's). */
export function headOf(text: string, n: number): string {
  const end = Math.max(0, n);
  const last = text.charCodeAt(end - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end);
}

/**
 * The invisible characters that change the order text is drawn in: the bidirectional
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069), the direction marks
 * (U+200E, U+200F, U+061C). A right-to-left override can make `rm -rf ~/ #txt.exe` read
 * as something else.
 */
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * The text with each bidirectional control shown as its code (`⟨U+202E⟩`), for what a person
 * approves (a command, its arguments): what it would hide is shown, and nothing is hidden.
 */
export function showBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/** The text without bidirectional controls, for labels and titles: drawn in their own order, as written. */
export function stripBidiControls(text: string): string {
  return text.replace(BIDI_CONTROLS, '');
}
