/**
 * End to end: what the terminal draws, read off the screen of the real `golem` in tmux as a
 * user sees it: answers in markdown (no raw `**` or fences, words wrapped at the width),
 * each call's outcome under it, and the progress line while an action runs, which keeps
 * what the user types ahead and leaves nothing behind when the terminal is resized.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../src/terminal/text-width.js';
import type { Terminal } from './helpers-tmux.js';
import { APPROVAL, GOLEM_BIN, occurrences, PROMPT, tmuxHarness } from './helpers-tmux.js';

const { project, golem, terminal } = tmuxHarness();

/** The terminal's size, as a user would drag the window. */
async function resize(t: Terminal, columns: number): Promise<void> {
  await t.tmux('resize-window', '-t', 's', '-x', String(columns), '-y', '50');
}

/** The visible screen's rows (not the scrollback), trailing blanks dropped. */
async function rows(t: Terminal): Promise<string[]> {
  const text = await t.tmux('capture-pane', '-p', '-t', 's');
  return text.replace(/\s+$/, '').split('\n');
}

const WRAPPED =
  'This paragraph is long enough to wrap several times at seventy columns, with words such as 東京 and 日本語 that take two columns each, and it must never cut a word in two.';

const ANSWER = [
  '# Release notes',
  '',
  `Here is **what changed**, in *short*: run \`npm test\` first. See [the docs](https://example.com/docs).`,
  '',
  WRAPPED,
  '',
  '## Steps',
  '- build the **page**',
  '- run the tests',
  '  - the terminal ones too',
  '1. first',
  '2. second',
  '',
  '```ts',
  'const answer = 42; // the code keeps its lines',
  '```',
  '',
  '| Part | Lines |',
  '|:-----|------:|',
  '| screen | 190 |',
  '| markdown | 300 |',
  '',
  'End of the notes.',
].join('\n');

describe('what golem draws in a terminal', () => {
  it('draws an answer in markdown: headings, emphasis, lists, code, a table and a link, wrapped at words', async () => {
    const p = project();
    const script = p.script([{ text: ANSWER }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await resize(t, 70);
    await t.type('what changed?');
    const screen = await t.waitFor('End of the notes.');
    const answer = screen.slice(screen.indexOf('Golem: '));
    // No markdown syntax left on the screen.
    expect(answer).not.toContain('**');
    expect(answer).not.toContain('```');
    expect(answer).not.toContain('## ');
    expect(answer).not.toMatch(/\|:?-+/);
    const lines = answer.split('\n');
    expect(lines[0]).toBe('Golem: Release notes');
    expect(lines[1]).toBe('       ' + '═'.repeat('Release notes'.length));
    // NO_COLOR: emphasis is plain text, inline code keeps its backticks, a link shows its address.
    const words = lines.map((line) => line.trim()).join(' ');
    expect(words).toContain('Here is what changed, in short: run `npm test` first. See the docs (https://example.com/docs).');
    expect(lines).toContain('       • build the page');
    expect(lines).toContain('         ◦ the terminal ones too');
    expect(lines).toContain('       1. first');
    expect(lines).toContain('         const answer = 42; // the code keeps its lines');
    expect(lines).toContain('       ┌──────────┬───────┐');
    expect(lines).toContain('       │ Part     │ Lines │');
    expect(lines).toContain('       │ markdown │   300 │');
    // The long paragraph: several lines, none wider than the terminal, no word cut.
    const start = lines.findIndex((line) => line.includes('This paragraph'));
    const end = lines.findIndex((line) => line.includes('cut a word in two.'));
    const paragraph = lines.slice(start, end + 1);
    expect(paragraph.length).toBeGreaterThan(2);
    for (const line of paragraph) expect(displayWidth(line)).toBeLessThanOrEqual(70);
    expect(paragraph.map((line) => line.trim()).join(' ')).toBe(WRAPPED);
  });

  it("shows each call's outcome under it: a command's exit code and last lines, an edit's lines, a failure's reason", async () => {
    const p = project({ 'app.txt': 'color = red\n' });
    const script = p.script([
      { toolCalls: [{ name: 'run_command', input: { command: 'seq 1 5; exit 3' } }] },
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.txt', old_string: 'color = red', new_string: 'color = blue\nsize = 2' } }] },
      { toolCalls: [{ name: 'read_file', input: { path: 'missing.txt' } }] },
      { text: 'All three done.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('go');
    await t.waitFor(APPROVAL);
    // No spinner while a question is asked: the footer is taken away for it.
    expect(await t.screen()).not.toContain('Esc to interrupt');
    await t.type('y');
    const screen = await t.waitFor('Golem: All three done.');
    expect(screen).toContain(['run_command("seq 1 5; exit 3") ✗', '  └ exit 3', '    3', '    4', '    5', ''].join('\n'));
    expect(screen).not.toMatch(/^ {4}2$/m);
    expect(screen).toContain(['edit_file("app.txt", "color = red", "color = blue\\nsize = 2") ✓', '  └ +2 -1 · staged for review'].join('\n'));
    expect(screen).toMatch(/read_file\("missing\.txt"\) ✗\n {2}└ .*missing\.txt/);
  });

  it('shows a spinner while an action runs, keeps what is typed ahead under it, and leaves no stale rows on a resize', async () => {
    const p = project();
    const pipe = 'a-named-pipe-with-a-rather-long-name-for-the-spinner-line';
    // Reading a named pipe waits until something is written into it: the action runs until the test says.
    execFileSync('mkfifo', [join(p.dir, pipe)]);
    const script = p.script([{ text: 'Reading the pipe first.', toolCalls: [{ name: 'read_file', input: { path: pipe } }] }, { text: 'Read the pipe.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('read the pipe');
    // The call as the spinner names it: its argument cut to 40 columns.
    const spinner = new RegExp(`Running read_file\\("${pipe.slice(0, 37)}…"\\)… \\((\\d+)s · Esc to interrupt\\)`);
    let screen = await t.waitFor(spinner);
    // The answer's last line (no newline after it) is drawn once the answer is complete, before its action runs.
    expect(screen).toContain('Golem: Reading the pipe first.');

    // Digits typed while it runs stay on the screen as the spinner turns (after a redraw: the seconds moved on).
    await t.tmux('send-keys', '-t', 's', '-l', '12');
    await t.waitFor(/^12$/m);
    const seconds = Number(spinner.exec(screen)?.[1]);
    await t.waitFor(new RegExp(`\\(${seconds + 2}s · Esc to interrupt\\)`));
    let shown = await rows(t);
    expect(shown.at(-1)).toBe('12');
    expect(shown.at(-2)).toMatch(spinner);

    // Narrower: the spinner line (wider than 40 columns) is drawn again at the new width, once.
    await resize(t, 40);
    screen = await t.waitFor(/\(\d+s · Esc to interrupt\)\n12$/);
    const after = Number(/\((\d+)s · Esc to interrupt\)\n12$/.exec(screen)?.[1]);
    await t.waitFor(new RegExp(`\\(${after + 1}s · Esc to interrupt\\)`));
    shown = await rows(t);
    expect(occurrences(shown.join('\n'), 'Running')).toBe(1);
    expect(occurrences(shown.join('\n'), 'Esc to interrupt')).toBe(1);
    expect(shown.at(-1)).toBe('12');
    for (const row of shown) expect(displayWidth(row)).toBeLessThanOrEqual(40);

    writeFileSync(join(p.dir, pipe), 'hello\n');
    await t.waitFor('Golem: Read the pipe.');
    await t.waitFor(/^> 12$/m);
    // The spinner went with the run.
    expect(await t.screen()).not.toContain('Esc to interrupt');
  });

  it('shows the spinner while the model thinks, and takes it away when Esc stops the run', async () => {
    const p = project();
    // A hold step answers nothing until the run is stopped.
    const script = p.script([{ hold: true }, { text: 'After the stop.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('think hard');
    const screen = await t.waitFor(/^. Thinking… \(\d+s · Esc to interrupt\)$/m);
    expect(screen.split('\n').at(-1)).toMatch(/Thinking…/);
    await t.keys('Escape');
    await t.waitFor('Stopped. Say what to do next.');
    await t.waitFor(PROMPT);
    expect(await t.screen()).not.toContain('Esc to interrupt');
    await t.type('go on');
    await t.waitFor('Golem: After the stop.');
    expect(await t.screen()).not.toContain('Thinking…');
  });

  it('paints the answer in colors when asked to (FORCE_COLOR), and writes no color codes under NO_COLOR', async () => {
    const p = project();
    const script = p.script([{ text: 'Run **`npm test`** now:\n\n```sh\nnpm test # all of them\n```\n' }, { text: 'Plain **bold**.' }]);
    const t = terminal();
    // golem's usual environment (NO_COLOR=1) plus FORCE_COLOR, which wins, as in Node.
    const command = ['exec', 'env', 'FORCE_COLOR=1', process.execPath, GOLEM_BIN, '--model', `scripted:${script}`].join(' ');
    await t.tmux('-f', '/dev/null', 'new-session', '-d', '-s', 's', '-x', '100', '-y', '40', '-c', p.dir, command);
    await t.waitFor(PROMPT);
    await t.type('how do I test?');
    await t.waitFor('npm test # all of them');
    const painted = await t.tmux('capture-pane', '-p', '-e', '-t', 's');
    // tmux writes the attributes back as it keeps them: bold, yellow code, colored shell code.
    /* eslint-disable no-control-regex */
    expect(painted).toMatch(/\x1b\[1m(\x1b\[33m)?Golem: /);
    expect(painted).toMatch(/\x1b\[1m\x1b\[33mnpm test/);
    expect(painted).toMatch(/\x1b\[2(;3m|m\x1b\[3m)# all of them/);
    expect(painted).not.toContain('**');

    // The same golem under NO_COLOR alone: the text only.
    const plain = await golem(p.dir, '--model', `scripted:${script}`, '--new');
    await plain.waitFor(PROMPT);
    await plain.type('again');
    await plain.waitFor('Golem: Run `npm test` now:');
    expect(await plain.tmux('capture-pane', '-p', '-e', '-t', 's')).not.toMatch(/\x1b\[[0-9;]*m/);
    /* eslint-enable no-control-regex */
  });
});
