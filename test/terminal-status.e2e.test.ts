/**
 * End to end, on the real `golem` in tmux: the status line that says what waits for
 * clearance (over the prompt, and over the progress line while a run goes), the diff shown
 * highlighted in its file's language, and `--progress summary`, a line per sub-worker
 * instead of its box.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GOLEM_BIN, golemCli, golemJson, PROMPT, tmuxHarness } from './helpers-tmux.js';

const { project, golem, terminal } = tmuxHarness();

const WAITS_ONE = '1 item waits for clearance · /clearance';

/** The visible screen's rows (not the scrollback), trailing blanks dropped. */
async function rows(t: { tmux(...args: string[]): Promise<string> }): Promise<string[]> {
  const text = await t.tmux('capture-pane', '-p', '-t', 's');
  return text.replace(/\s+$/, '').split('\n');
}

const COLORS = ['black', 'red', 'green', 'yellow', 'blue', 'magenta', 'cyan', 'white'];

/** A line as tmux writes it back with `capture-pane -e`, as runs of text in one foreground color (`none`: the default). */
function colorRuns(painted: string): [string, string][] {
  const runs: [string, string][] = [];
  let color = 'none';
  // eslint-disable-next-line no-control-regex
  for (const [, codes, text] of painted.matchAll(/\x1b\[([\d;]*)m|([^\x1b]+)/g)) {
    if (text !== undefined) {
      const last = runs.at(-1);
      if (last !== undefined && last[1] === color) last[0] += text;
      else runs.push([text, color]);
      continue;
    }
    for (const code of (codes ?? '').split(';').map(Number)) {
      if (code === 0 || code === 39) color = 'none';
      else if (code >= 30 && code <= 37) color = COLORS[code - 30] as string;
    }
  }
  return runs;
}

describe('the terminal status line and progress modes', () => {
  it('keeps a status line with the clearance count over the prompt and the progress line while items wait, and drops it once none does', async () => {
    const p = project({ 'app.ts': 'export const color = "red";\n' });
    const script = p.script([
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.ts', old_string: '"red"', new_string: '"blue"' } }] },
      { text: 'Staged the color.' },
      { hold: true },
      { text: 'After the stop.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    // Nothing waits yet: no status line.
    expect(await t.screen()).not.toContain('for clearance ·');
    await t.type('make it blue');
    await t.waitFor('Golem: Staged the color.');
    await t.waitFor(PROMPT);
    let shown = await rows(t);
    expect(shown.slice(-2)).toEqual([WAITS_ONE, '>']);

    // While the next run goes, the count is kept just over the progress line.
    await t.type('think it over');
    await t.waitFor(/^1 item waits for clearance · \/clearance\n. Thinking… \(\d+s · Esc to interrupt\)$/m);
    shown = await rows(t);
    expect(shown.at(-2)).toBe(WAITS_ONE);
    expect(shown.at(-1)).toMatch(/Thinking…/);
    await t.keys('Escape');
    await t.waitFor('Stopped. Say what to do next.');
    await t.waitFor(/^1 item waits for clearance · \/clearance\n> ?$/m);

    // Decided in another process: the next prompt has no status line, nothing waiting.
    const items = await golemJson<{ id: string }[]>(p.dir, 'clearance', 'list');
    expect(items).toHaveLength(1);
    expect((await golemCli(p.dir, 'clearance', 'discard', items[0]?.id as string)).code).toBe(0);
    await t.type('/clearance');
    await t.waitFor('Nothing waits for clearance.');
    await t.waitFor(PROMPT);
    shown = await rows(t);
    expect(shown.at(-1)).toMatch(/^> ?$/);
    expect(shown.at(-2)).toBe('Nothing waits for clearance.');
  });

  it('highlights the code of a diff in its file’s language, keeping the added and removed lines’ colors', async () => {
    const p = project({ 'app.ts': 'export const color = "red";\n', 'notes.txt': 'const here\n' });
    const script = p.script([
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.ts', old_string: '"red"', new_string: '"blue"' } }] },
      { toolCalls: [{ name: 'edit_file', input: { path: 'notes.txt', old_string: 'const here', new_string: 'const there' } }] },
      { text: 'Staged both.' },
    ]);
    const t = terminal();
    const command = ['exec', 'env', 'FORCE_COLOR=1', process.execPath, GOLEM_BIN, '--model', `scripted:${script}`].join(' ');
    await t.tmux('-f', '/dev/null', 'new-session', '-d', '-s', 's', '-x', '120', '-y', '50', '-c', p.dir, command);
    await t.waitFor(PROMPT);
    await t.type('recolor');
    await t.waitFor('Golem: Staged both.');
    const [ts, txt] = await golemJson<{ id: string }[]>(p.dir, 'clearance', 'list');
    await t.type(`/clearance diff ${ts?.id}`);
    await t.waitFor('+export const color = "blue";');
    await t.type(`/clearance diff ${txt?.id}`);
    await t.waitFor('+const there');
    const painted = await t.tmux('capture-pane', '-p', '-e', '-S', '-200', '-t', 's');
    const line = (text: string) =>
      colorRuns(
        painted.split('\n').find(
          (l) =>
            colorRuns(l)
              .map(([t]) => t)
              .join('') === text,
        ) ?? '',
      );
    // The sign green (red), the keywords magenta, the string yellow, the rest of the line green (red).
    expect(line('+export const color = "blue";')).toEqual([
      ['+', 'green'],
      ['export', 'magenta'],
      [' ', 'green'],
      ['const', 'magenta'],
      [' color = ', 'green'],
      ['"blue"', 'yellow'],
      [';', 'green'],
    ]);
    expect(line('-export const color = "red";')).toEqual([
      ['-', 'red'],
      ['export', 'magenta'],
      [' ', 'red'],
      ['const', 'magenta'],
      [' color = ', 'red'],
      ['"red"', 'yellow'],
      [';', 'red'],
    ]);
    // A file of no known language: the whole line in the addition's color, no keyword painted.
    expect(line('+const there')).toEqual([['+const there', 'green']]);
  });

  it('shows a line per sub-worker with --progress summary: live while it runs, how it ended after, and no box', async () => {
    const p = project();
    const pipe = 'the-pipe';
    // Reading a named pipe waits until something is written into it: the worker runs until the test says.
    execFileSync('mkfifo', [join(p.dir, pipe)]);
    const script = p.script([
      { text: 'Handing it to a worker.', toolCalls: [{ name: 'spawn_worker', input: { task: 'Read the pipe for me' } }] },
      { toolCalls: [{ name: 'read_file', input: { path: pipe } }] },
      { text: 'The pipe says hello.' },
      { text: 'The worker read it.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`, '--progress', 'summary');
    await t.waitFor(PROMPT);
    await t.type('read it');
    // Live: its line, nested under the root's answer, over the progress line.
    await t.waitFor(/^ {2}● read-the-pipe-for-me · step 1: 1 action · \d+\.\ds$/m);
    writeFileSync(join(p.dir, pipe), 'hello\n');
    const screen = await t.waitFor('Golem: The worker read it.');
    expect(screen).toMatch(/^✓ read-the-pipe-for-me · 1 action · \d+\.\ds$/m);
    // None of the box: its frame, its actions, its text.
    expect(screen).not.toMatch(/[┌└│]/);
    expect(screen).not.toContain('The pipe says hello.');
    expect(screen).not.toContain('read_file(');
    await t.waitFor(PROMPT);
    expect(await t.screen()).not.toMatch(/^ {2}● /m);
  });

  it('refuses a progress mode it does not know, saying which it takes', async () => {
    const p = project();
    const result = await golemCli(p.dir, '--progress', 'bars');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('golem: --progress takes boxes or summary, not "bars"\n');
  });
});

describe('plans in the terminal', () => {
  it('asks about a proposed plan with one key, takes the user’s steps, and keeps the checklist above the progress line as steps are marked', async () => {
    const p = project();
    const pipe = 'the-pipe';
    execFileSync('mkfifo', [join(p.dir, pipe)]);
    const script = p.script([
      { text: 'A plan first.', toolCalls: [{ name: 'propose_plan', input: { title: 'Tidy the docs', steps: ['Read the README', 'Fix the typos'] } }] },
      {
        toolCalls: [
          {
            name: 'update_plan',
            input: {
              steps: [
                { step: 1, status: 'done' },
                { step: 2, status: 'in_progress' },
              ],
            },
          },
        ],
      },
      { toolCalls: [{ name: 'read_file', input: { path: pipe } }] },
      { text: 'Tidied.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('tidy the docs');
    await t.waitFor('[a]ccept / [e]dit / [d]ecline:');
    expect(await t.screen()).toContain('[Plan proposed] Tidy the docs\n  ○ 1. Read the README\n  ○ 2. Fix the typos');
    // One key, no Enter: edit; then the steps as the user wants them.
    await t.keys('e');
    await t.waitFor('Type the steps, one a line');
    for (const [i, step] of ['Read the README', 'Fix the typos', 'Run the spell checker', ''].entries()) {
      await t.waitFor(new RegExp(`^${i + 1}\\.$`, 'm'));
      await t.type(step);
    }
    // The run goes on with the plan as edited: its checklist over the progress line while the action runs.
    const screen = await t.waitFor(
      /^Plan: Tidy the docs\n {2}✓ 1\. Read the README\n {2}● 2\. Fix the typos\n {2}○ 3\. Run the spell checker\n. Running read_file/m,
    );
    expect(screen).not.toContain('(proposed)');
    writeFileSync(join(p.dir, pipe), 'hello\n');
    await t.waitFor('Golem: Tidied.');
    await t.waitFor(PROMPT);
    // The run ended: the checklist went with the progress line.
    expect((await rows(t)).join('\n')).not.toMatch(/^ {2}○ 3\. Run the spell checker$/m);
  });
});
