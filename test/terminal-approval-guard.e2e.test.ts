/**
 * The terminal's approval question takes no answer from keys the user typed before it
 * appeared (issue 35, finding 1), and shows what it asks to run as it is (finding 14):
 * the real `golem` binary in tmux with a scripted model. A read of a named pipe holds the
 * run until the test says, so the user is typing when the question comes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../src/index.js';
import { APPROVAL, golemJson, PROMPT, tmuxHarness, type Project, type Terminal } from './helpers-tmux.js';

const { project, golem } = tmuxHarness();

async function withWorkspace<T>(p: Project, body: (ws: Workspace) => T): Promise<T> {
  const ws = await createWorkspace({ dir: join(p.dir, '.golem') });
  try {
    return body(ws);
  } finally {
    await ws.close();
  }
}

function records<T>(ws: Workspace, collection: string): T[] {
  return [...(ws.manager.workspace().collections.get(collection)?.values() ?? [])] as T[];
}

async function sessionIdOn(t: Terminal): Promise<string> {
  const screen = await t.waitFor(/Golem · session [0-9a-f-]{36}/);
  return /Golem · session ([0-9a-f-]{36})/.exec(screen)?.[1] as string;
}

const typed = (t: Terminal, text: string) => t.tmux('send-keys', '-t', 's', '-l', text);
const runCommand = (command: string) => ({ toolCalls: [{ name: 'run_command', input: { command } }] });

describe('the terminal approval question', () => {
  it('takes no answer from keys typed as it appears; a key pressed after the pause answers', async () => {
    const p = project();
    execFileSync('mkfifo', [join(p.dir, 'pipe')]);
    const script = p.script([{ toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] }, runCommand('echo ran > ran.txt'), { text: 'Ran it.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const session = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('tidy up');
    await t.waitFor(/Running read_file/);
    // The user types a follow-up while the run reads; then the run goes on and asks to run a command.
    await typed(t, 'and also ');
    await writeFile(join(p.dir, 'pipe'), 'go');
    // Typing on as the question comes: "a" (always) and "s" (session) among the keys, and Enter.
    for (let i = 0; !(await t.screen()).includes('[Approval Required] echo ran > ran.txt'); i++) {
      if (i > 400) throw new Error(`the question never came:\n${await t.screen()}`);
      await typed(t, 'as ');
    }
    await typed(t, 'always say');
    await t.keys('Enter');
    await typed(t, 'sa');
    // The answer line is offered once the keys stop: nothing typed before answered it.
    const screen = await t.waitFor(APPROVAL);
    expect(screen).toContain('(the keys typed as the question came were not taken as an answer)');
    expect(existsSync(join(p.dir, 'ran.txt'))).toBe(false);
    // A deliberate key, after the pause, answers.
    await t.keys('y');
    await t.waitFor('Golem: Ran it.');
    expect(readFileSync(join(p.dir, 'ran.txt'), 'utf8')).toBe('ran\n');
    await t.type('/exit');
    await t.waitForExit();
    await withWorkspace(p, (ws) => {
      expect(records<{ answer: string }>(ws, 'approval').map((a) => a.answer)).toEqual(['yes']);
      expect(records(ws, 'grant')).toEqual([]);
    });
    // The keys typed meanwhile were not sent as a message either.
    const turns = (await golemJson<{ turns: { role: string; blocks: { text?: string }[] }[] }>(p.dir, 'sessions', 'show', session)).turns;
    expect(turns.filter((turn) => turn.role === 'user').map((turn) => turn.blocks.map((b) => b.text ?? '').join(''))).toEqual(['tidy up']);
  });

  it("shows a command's hidden direction controls by their codes, and the model's link with where it goes", async () => {
    const p = project();
    // A right-to-left override turns "cat notes<RLO>hs.txt" into what reads as "cat notestxt.sh".
    const script = p.script([
      { text: 'Your [bank](https://evil.example/login) and [https://good.example](https://evil.example/x).', ...runCommand('cat notes\u202ehs.txt') },
      { text: 'Not run.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('show the notes');
    const screen = await t.waitFor(APPROVAL);
    expect(screen).toContain('[Approval Required] cat notes⟨U+202E⟩hs.txt');
    expect(screen).not.toContain('\u202e');
    expect(screen).toContain('Your bank (https://evil.example/login) and https://good.example (https://evil.example/x).');
    await t.keys('n');
    await t.waitFor('Reason (optional):');
    await t.type('it hides its name');
    await t.waitFor('Golem: Not run.');
    expect(existsSync(join(p.dir, 'notes\u202ehs.txt'))).toBe(false);
  });
});
