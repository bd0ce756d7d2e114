import { describe, expect, it } from 'vitest';
import { stripAnsi } from './ansi.js';
import { closeOpenMarks, MarkdownStream, renderMarkdown } from './markdown.js';
import { wrapSpans } from './styled.js';
import { displayWidth } from './text-width.js';

const ANSWER = [
  '# Plan',
  'Use **bold**, *italic*, `code` and [a link](https://example.com).',
  '',
  '- one',
  '- two with a longer text that wraps at the width of the terminal',
  '',
  '```ts',
  'const x = "s"; // note',
  '```',
  '',
  '| a | b |',
  '|---|--:|',
  '| 1 | 22 |',
  '',
  'Last line without a newline',
].join('\n');

describe('markdown on the terminal', () => {
  it('paints emphasis, code and links in colors, with no markdown syntax left', () => {
    const lines = renderMarkdown(ANSWER, { width: 80, color: true });
    const text = lines.join('\n');
    expect(text).toContain('\x1b[1mPlan\x1b[0m');
    expect(text).toContain('\x1b[1mbold\x1b[0m');
    expect(text).toContain('\x1b[3mitalic\x1b[0m');
    expect(text).toContain('\x1b[33mcode\x1b[0m');
    expect(text).toContain('\x1b[34;4ma link\x1b[0m\x1b[2m (https://example.com)\x1b[0m');
    // The fenced code, colored: a keyword, a string, a comment.
    expect(text).toContain('\x1b[35mconst\x1b[0m');
    expect(text).toContain('\x1b[32m"s"\x1b[0m');
    expect(text).toContain('\x1b[2;3m// note\x1b[0m');
    const plain = stripAnsi(text);
    for (const syntax of ['**', '```', '# Plan', '](', '|---']) expect(plain).not.toContain(syntax);
    expect(lines.map(stripAnsi)).toEqual(renderMarkdown(ANSWER, { width: 80, color: false }).map((l) => l.replace(/`code`/, 'code')));
  });

  it('without colors writes no escape codes and stays readable', () => {
    const lines = renderMarkdown(ANSWER, { width: 50, color: false });
    expect(lines.join('\n')).not.toContain('\x1b');
    expect(lines).toEqual([
      'Plan',
      '════',
      'Use bold, italic, `code` and a link',
      '(https://example.com).',
      '',
      '• one',
      '• two with a longer text that wraps at the width',
      '  of the terminal',
      '',
      '  const x = "s"; // note',
      '',
      '┌───┬────┐',
      '│ a │  b │',
      '├───┼────┤',
      '│ 1 │ 22 │',
      '└───┴────┘',
      '',
      'Last line without a newline',
    ]);
  });

  it('streamed in pieces, draws each line once, the same lines as the whole text', () => {
    for (const size of [1, 3, 7, 64]) {
      const stream = new MarkdownStream({ width: () => 50, color: false });
      const drawn: string[] = [];
      for (let i = 0; i < ANSWER.length; i += size) drawn.push(...stream.push(ANSWER.slice(i, i + size)));
      // Nothing of the last line is drawn before the end: it may still grow.
      expect(drawn.join('\n')).not.toContain('Last line');
      drawn.push(...stream.end());
      expect(drawn).toEqual(renderMarkdown(ANSWER, { width: 50, color: false }));
    }
  });

  it('wraps at word boundaries with wide characters counted as two columns', () => {
    const lines = renderMarkdown('日本語の テキスト と English words mixed 東京 together here', { width: 12, color: false });
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(12);
    expect(lines.join(' ')).toBe('日本語の テキスト と English words mixed 東京 together here');
    // A word longer than the line is cut where the line ends.
    expect(wrapSpans([{ text: 'abcdefghij klm', styles: [] }], 4).map((l) => l.map((s) => s.text).join(''))).toEqual(['abcd', 'efgh', 'ij', 'klm']);
  });

  it('fits a wide table into the width, wrapping its cells', () => {
    const table = '| name | description |\n|---|---|\n| x | a long description that cannot fit in the narrow width given |\n';
    const lines = renderMarkdown(table, { width: 30, color: false });
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(30);
    expect(lines[0]?.startsWith('┌')).toBe(true);
    expect(lines.at(-1)?.startsWith('└')).toBe(true);
    expect(lines.join(' ')).toContain('description');
  });

  it('shows markup and links of model text as text: no HTML, no escape codes it did not write itself', () => {
    const answer = '<script>alert(1)</script>\n\nSee [x](javascript:alert(1)) <img src=x onerror=alert(1)>\n\x1b[2J';
    const lines = renderMarkdown(answer, { width: 80, color: true });
    const text = stripAnsi(lines.join('\n'));
    expect(text).toContain('<script>alert(1)</script>');
    expect(text).toContain('x (javascript:alert(1))');
    expect(text).toContain('<img src=x onerror=alert(1)>');
    // An escape code in the text is not passed through (the adapter drops control characters before; this is the renderer's own guard).
    expect(text).not.toContain('\x1b');
  });

  it('numbers the items of an ordered list on from the first, as markdown does, and starts again after other text', () => {
    const lines = renderMarkdown('1. a\n1. b\n   more of b\n   - under b\n1. c\n\nText.\n\n4. d\n1. e', { width: 40, color: false });
    expect(lines).toEqual(['1. a', '2. b', '   more of b', '   ◦ under b', '3. c', '', 'Text.', '', '4. d', '5. e']);
  });

  it('breaks a code line wider than the room where the room ends, keeping every space', () => {
    const lines = renderMarkdown('```\nab  cd  ef  gh\n```', { width: 8, color: false });
    expect(lines).toEqual(['  ab  cd', '    ef  ', '  gh']);
  });

  it('closes the marks a line being written opened (for its preview), and leaves other stars and underscores alone', () => {
    expect(closeOpenMarks('Use **bold te')).toBe('Use **bold te**');
    expect(closeOpenMarks('a `co')).toBe('a `co`');
    expect(closeOpenMarks('a `code` and *it')).toBe('a `code` and *it*');
    expect(closeOpenMarks('x ~~gone')).toBe('x ~~gone~~');
    expect(closeOpenMarks('just opened **')).toBe('just opened ');
    for (const text of ['2 * 3 = 6', 'snake_case names', '**done**', 'a `*` star']) expect(closeOpenMarks(text)).toBe(text);
    const stream = new MarkdownStream({ width: () => 40, color: false });
    stream.push('Here is **bold te');
    expect(stream.preview()).toEqual(['Here is bold te']);
    stream.push('xt**\n| a |');
    // A line whose drawing depends on the next (a table's) has no preview.
    expect(stream.preview()).toEqual([]);
  });
});
