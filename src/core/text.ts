/** Text helpers shared by the parts. */

/** The first `n` UTF-16 units of a text, one fewer when the last would be half of a character (an emoji's). */
export function headOf(text: string, n: number): string {
  const end = Math.max(0, n);
  const last = text.charCodeAt(end - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end);
}
