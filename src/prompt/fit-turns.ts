/**
 * Fitting turns into a number of tokens when dropping whole turns is not enough: the
 * newest turn(s) of a prompt, cut from the front.
 */
import type { ContentBlock } from '../core/blocks.js';
import type { Turn } from '../core/records.js';

/**
 * Turns made to fit `limit` tokens: media become a short note, then every text is cut from
 * its front (the end of a message matters most), tightening until the count fits.
 */
export function fitTurns(turns: readonly Turn[], limit: number, tokensOf: (turn: Turn) => number): Turn[] {
  const omitted = (kind: string) => ({ type: 'text' as const, text: `[${kind} omitted: over the token budget]` });
  const cut = (text: string, share: number) => (share >= 1 ? text : `…${text.slice(Math.floor(text.length * (1 - share)))}`);
  // Thinking goes (a signed block may not be cut, and it matters least); so do media and large call arguments.
  const base: Turn[] = turns.map((t) => ({
    ...t,
    blocks: t.blocks.flatMap((b): ContentBlock[] => {
      if (b.type === 'thinking') return [];
      if (b.type === 'image' || b.type === 'document') return [omitted(b.type)];
      if (b.type === 'tool_result') return [{ ...b, content: b.content.map((p) => (p.type === 'text' ? p : omitted(p.type))) }];
      if (b.type === 'tool_use' && tokensOf({ ...t, blocks: [b] }) > limit / 2)
        return [{ ...b, args: { omitted: 'the arguments were over the token budget' } }];
      return [b];
    }),
  }));
  const withShare = (share: number): Turn[] =>
    base.map((t) => ({
      ...t,
      blocks: t.blocks.map((b) => {
        if (b.type === 'text') return { ...b, text: cut(b.text, share) };
        if (b.type === 'tool_result') return { ...b, content: b.content.map((p) => (p.type === 'text' ? { ...p, text: cut(p.text, share) } : p)) };
        return b;
      }),
    }));
  const total = (ts: readonly Turn[]) => ts.reduce((n, t) => n + tokensOf(t), 0);
  let share = 1;
  let fitted = base;
  for (let round = 0; round < 12 && total(fitted) > limit; round++) {
    share *= Math.max(0.05, (limit / total(fitted)) * 0.9);
    fitted = withShare(share);
  }
  return fitted;
}
