/**
 * The page's diff viewer highlights code in its file's language (the clearance panel's diff
 * and a file edit's call in the conversation), while additions and removals keep their
 * tint and colored sign: read off the page in Chromium, checked with axe-core at desktop
 * and phone sizes, light and dark, with a screenshot of each.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createWorkspace, projectActions } from '../src/index.js';
import { scriptedModel, type ScriptStep } from '../src/test/index.js';
import { tempDir } from './helpers.js';
import { DESKTOP, PHONE, checkAccessibility, pageHarness, say, shot } from './helpers-page.js';

const h = pageHarness();

const APP_BEFORE = ['/* The colors the app starts with,', '   and the one it ends with. */', 'export const color = "red";', 'export const size = 2;', ''].join(
  '\n',
);

/** A project with a TypeScript file and a text file, and a model that stages an edit of each (one staged commit, one diff of two files). */
async function stagedEdits(): Promise<Page> {
  const root = tempDir();
  execFileSync('git', ['init', '-q', root]);
  writeFileSync(join(root, 'app.ts'), APP_BEFORE);
  writeFileSync(join(root, 'notes.txt'), 'const here\n');
  execFileSync('git', ['-C', root, 'add', '.']);
  execFileSync('git', ['-C', root, '-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'start']);
  const ws = await createWorkspace({ dir: join(root, '.golem') });
  h.cleanups.push(() => ws.close());
  const steps: ScriptStep[] = [
    {
      text: 'Staging both.',
      toolCalls: [
        { name: 'edit_file', input: { path: 'app.ts', old_string: 'export const color = "red";', new_string: 'export const color = "blue"; // calmer' } },
        { name: 'edit_file', input: { path: 'notes.txt', old_string: 'const here', new_string: 'const there' } },
      ],
    },
    { text: 'Both wait for your review.' },
  ];
  const { server } = await h.started({ model: scriptedModel(steps), actions: projectActions(), project: { root } }, ws);
  const page = await h.open(server);
  await say(page, 'Recolor the app');
  await page.getByTestId('message').filter({ hasText: 'Both wait for your review.' }).waitFor();
  await expect.poll(() => page.getByTestId('clearance-item').count()).toBe(1);
  return page;
}

/** The text and computed color of each token in a diff line. */
function tokens(page: Page, selector: string): Promise<{ text: string; cls: string; color: string }[]> {
  return page.evaluate<{ text: string; cls: string; color: string }[]>(
    `[...document.querySelectorAll(${JSON.stringify(selector)})].map((el) => ({ text: el.textContent, cls: el.className, color: getComputedStyle(el).color }))`,
  );
}

describe('the highlighted diff on the page', () => {
  it('colors the code of a staged change in its language, keeps the signs and tints, and passes axe at each size and scheme', async () => {
    const page = await stagedEdits();
    await page.getByTestId('clearance-open').click();
    const diff = page.getByTestId('clearance-diff');
    await diff.locator('.diff-line.add').first().waitFor();

    // The lines read as the diff: the highlighting adds elements, not text.
    expect(await diff.locator('.diff-line.add').allTextContents()).toEqual(['+export const color = "blue"; // calmer\n', '+const there\n']);
    expect(await diff.locator('.diff-line.del').allTextContents()).toEqual(['-export const color = "red";\n', '-const here\n']);
    // Keywords, strings and comments by highlight.js, on the added and the removed line.
    const added = await tokens(page, '[data-testid="clearance-diff"] .diff-line.add [class^="hljs-"]');
    expect(added.map((t) => [t.text, t.cls])).toEqual([
      ['export', 'hljs-keyword'],
      ['const', 'hljs-keyword'],
      ['"blue"', 'hljs-string'],
      ['// calmer', 'hljs-comment'],
    ]);
    const removed = await tokens(page, '[data-testid="clearance-diff"] .diff-line.del [class^="hljs-"]');
    expect(removed.map((t) => t.text)).toEqual(['export', 'const', '"red"']);
    // The comment opened two lines up goes on over the kept line after it.
    expect(await diff.locator('.diff-line.ctx .hljs-comment').allTextContents()).toEqual([
      '/* The colors the app starts with,',
      '   and the one it ends with. */',
    ]);
    // Each token in its own color, the sign in the addition's (removal's), the line on its tint.
    const colors = await page.evaluate<Record<string, string>>(`(() => {
      const q = (s) => getComputedStyle(document.querySelector('[data-testid="clearance-diff"] ' + s));
      return { addSign: q('.diff-line.add .diff-sign').color, delSign: q('.diff-line.del .diff-sign').color, addBg: q('.diff-line.add').backgroundColor,
        delBg: q('.diff-line.del').backgroundColor, ctxBg: q('.diff-line.ctx').backgroundColor, addText: q('.diff-line.add').color,
        keyword: q('.diff-line.add .hljs-keyword').color, string: q('.diff-line.add .hljs-string').color };
    })()`);
    expect(new Set([colors.keyword, colors.string, colors.addText]).size).toBe(3);
    expect(colors.addSign).toBe(colors.addText);
    expect(colors.delSign).not.toBe(colors.addSign);
    expect(new Set([colors.addBg, colors.delBg, colors.ctxBg]).size).toBe(3);

    // The second file, of no known language: its lines plain (no "const" keyword), with their sign in the text.
    expect(await diff.locator('.diff-line.add').nth(1).locator('[class^="hljs-"]').count()).toBe(0);
    expect(await diff.locator('.diff-line.add').nth(1).locator('.diff-sign').count()).toBe(0);

    // The file edit's call in the conversation: its diff highlighted too.
    await page.getByTestId('tool-call').filter({ hasText: 'app.ts' }).first().locator('summary').click();
    const call = page.getByTestId('tool-diff').first();
    await call.waitFor();
    expect(await call.locator('.diff-line.add .hljs-string').allTextContents()).toEqual(['"blue"']);

    for (const [size, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      if (size === 'phone') {
        await page.getByTestId('pane-clearance').click();
        await diff.waitFor({ state: 'visible' });
      }
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await diff.scrollIntoViewIfNeeded();
        await checkAccessibility(page, 'body');
        await shot(page, `diff-highlight-${size}-${scheme}`);
      }
    }
  });
});
