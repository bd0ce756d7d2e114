import { describe, expect, it } from 'vitest';
import { diffLines, highlightDiff, languageOfPath } from './unified-diff.js';

const GIT_DIFF = [
  'diff --git a/src/app.ts b/src/app.ts',
  'index 1111111..2222222 100644',
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -1,3 +1,3 @@',
  ' /* a comment',
  '-   that ends */ const color = "red";',
  '+   that ends */ const color = "blue";',
  '--- removed line that looks like a header',
  'diff --git a/notes.txt b/notes.txt',
  '--- a/notes.txt',
  '+++ b/notes.txt',
  '@@ -1 +1 @@',
  '-const here = "plain"',
  '+const there = "plain"',
  '\\ No newline at end of file',
].join('\n');

describe('a unified diff read for highlighting', () => {
  it('names the language of a file by its extension, and none for others', () => {
    expect(
      ['src/app.ts', 'a/b/page.TSX', 'x.py', 'Cargo.rs', 'doc.md', 'c.yml', 'run.sh', 'index.html', 'notes.txt', 'Makefile', 'noext'].map(languageOfPath),
    ).toEqual(['typescript', 'typescript', 'python', 'rust', 'markdown', 'yaml', 'bash', 'xml', undefined, undefined, undefined]);
  });

  it('tells headers, hunks, added, removed and kept lines apart, a removed "-- " inside a hunk too', () => {
    expect(diffLines(GIT_DIFF).map((l) => l.kind)).toEqual([
      'file',
      'file',
      'file',
      'file',
      'hunk',
      'ctx',
      'del',
      'add',
      'del',
      'file',
      'file',
      'file',
      'hunk',
      'del',
      'add',
      'note',
    ]);
    expect(diffLines(GIT_DIFF)[8]).toMatchObject({ sign: '-', code: '-- removed line that looks like a header' });
  });

  it('highlights each file in its own language, a comment across lines included, and leaves a file of no known language plain', () => {
    const lines = highlightDiff(GIT_DIFF);
    const [kept, removed, added] = [lines[5], lines[6], lines[7]];
    // The comment opened on the kept line goes on over the next, on each side.
    expect(kept?.tokens).toEqual([{ text: '/* a comment', className: 'hljs-comment' }]);
    expect(removed?.tokens?.[0]).toEqual({ text: '   that ends */', className: 'hljs-comment' });
    expect(added?.tokens?.find((t) => t.text === '"blue"')).toEqual({ text: '"blue"', className: 'hljs-string' });
    expect(added?.tokens?.find((t) => t.text === 'const')).toEqual({ text: 'const', className: 'hljs-keyword' });
    // The tokens put together are the line's code, on every highlighted line.
    for (const line of lines) if (line.tokens !== undefined) expect(line.tokens.map((t) => t.text).join('')).toBe(line.code);
    // notes.txt: no language.
    expect(lines.slice(9).every((l) => l.tokens === undefined)).toBe(true);
  });

  it('highlights a diff without headers in the language it is given, and a file edit by its path alone', () => {
    const json = highlightDiff('  {\n-   "type": "string"\n+   "type": "number"\n  }', 'json');
    expect(json[2]?.tokens?.find((t) => t.text === '"number"')).toEqual({ text: '"number"', className: 'hljs-string' });
    const edit = highlightDiff(['+++ app.py', '@@ 1 line @@', '+def greet(): return 1'].join('\n'));
    expect(edit[2]?.tokens?.[0]).toEqual({ text: 'def', className: 'hljs-keyword' });
    expect(highlightDiff('+plain text').every((l) => l.tokens === undefined)).toBe(true);
  });
});
