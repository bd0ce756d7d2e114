/**
 * Messages typed in the terminal while a run goes (issue 36): Enter queues one (listed above
 * the progress line, then delivered as the next turn and answered by the next run), Tab
 * steers the run with it (the worker reads it before its next model call), ↑ on an empty
 * line takes the last queued back, Esc stops the run and what was queued still goes; `/help`
 * says so. The real `golem` binary in tmux with a scripted model; a read of a named pipe
 * holds the run while the test types.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import type { RunRecord } from '../src/agent/run-records.js';
import { PROMPT, tmuxHarness, type Project, type Terminal } from './helpers-tmux.js';

const { project, golem } = tmuxHarness();

interface ShownTurn {
  role: string;
  blocks: { type: string; text?: string }[];
  meta: { inbox?: { policy: string } };
}

async function sessionIdOn(t: Terminal): Promise<string> {
  const screen = await t.waitFor(/Golem · session [0-9a-f-]{36}/);
  return /Golem · session ([0-9a-f-]{36})/.exec(screen)?.[1] as string;
}

/** The session's turns and runs, read back from the store once golem has left. */
async function stored(p: Project, sessionId: string): Promise<{ turns: ShownTurn[]; runs: RunRecord[] }> {
  const ws = await createWorkspace({ dir: join(p.dir, '.golem') });
  try {
    const session = ws.sessions.get(sessionId);
    if (session === undefined) throw new Error(`no session ${sessionId}`);
    const turns = (await session.transcript()) as unknown as ShownTurn[];
    return { turns, runs: ws.runs.list({ sessionId }).runs.reverse() };
  } finally {
    await ws.close();
  }
}

/** Each turn as `role: text` (a tool call as `→ name`, a tool's result as `tool`), in order. */
function lines(turns: ShownTurn[]): string[] {
  return turns.map((turn) => {
    const text = turn.blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : b.type === 'tool_use' ? '→ call' : '')).join('');
    return `${turn.role}: ${text}`;
  });
}

const typed = (t: Terminal, text: string) => t.tmux('send-keys', '-t', 's', '-l', text);
const readPipe = { toolCalls: [{ name: 'read_file', input: { path: 'pipe' } }] };

/** golem on a project whose script starts by reading the named pipe `pipe`; the run is held there once 'tidy up' is sent. */
async function heldRun(steps: unknown[]): Promise<{ p: Project; t: Terminal; session: string }> {
  const p = project();
  execFileSync('mkfifo', [join(p.dir, 'pipe')]);
  const t = await golem(p.dir, '--model', `scripted:${p.script([readPipe, ...steps])}`);
  const session = await sessionIdOn(t);
  await t.waitFor(PROMPT);
  await t.type('tidy up');
  await t.waitFor(/Running read_file/);
  return { p, t, session };
}

async function leave(t: Terminal): Promise<void> {
  await t.waitFor(PROMPT);
  await t.type('/exit');
  await t.waitForExit();
}

describe('messages typed while a run goes', () => {
  it('Enter queues the message above the progress line; it is the next turn once the run ends, answered by the next run', async () => {
    const { p, t, session } = await heldRun([{ text: 'Read it.' }, { text: 'Docs done.' }]);
    await t.type('and then the docs');
    await t.waitFor(/^queued: and then the docs$/m);
    await writeFile(join(p.dir, 'pipe'), 'go');
    const screen = await t.waitFor('Golem: Docs done.');
    expect(screen.indexOf('You: and then the docs')).toBeGreaterThan(screen.indexOf('Golem: Read it.'));
    await leave(t);
    const { turns, runs } = await stored(p, session);
    expect(lines(turns)).toEqual(['user: tidy up', 'assistant: → call', 'tool: ', 'assistant: Read it.', 'user: and then the docs', 'assistant: Docs done.']);
    expect(turns[4]?.meta.inbox?.policy).toBe('enqueue');
    // Two runs: the one it was queued behind, and the one that answered it.
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded']);
  });

  it("Tab steers: the model's next call in the same run reads the message", async () => {
    const { p, t, session } = await heldRun([{ text: 'Steered.' }, { text: 'A second run.' }]);
    await typed(t, 'look at the tests first');
    await t.keys('Tab');
    await t.waitFor(/^steering: look at the tests first$/m);
    await writeFile(join(p.dir, 'pipe'), 'go');
    await t.waitFor('Golem: Steered.');
    await t.waitFor(PROMPT);
    expect(await t.screen()).not.toContain('A second run.');
    await leave(t);
    const { turns, runs } = await stored(p, session);
    // Before the assistant's next turn of the same run (one run in all), after the call's result.
    expect(lines(turns)).toEqual(['user: tidy up', 'assistant: → call', 'tool: ', 'user: look at the tests first', 'assistant: Steered.']);
    expect(turns[3]?.meta.inbox?.policy).toBe('steer');
    expect(runs.map((r) => r.status)).toEqual(['succeeded']);
  });

  it('↑ on an empty line takes the last queued message back into the line, to edit and queue again', async () => {
    const { p, t, session } = await heldRun([{ text: 'Read it.' }, { text: 'Answered one.' }, { text: 'Answered both.' }]);
    await t.type('one');
    await t.waitFor(/^queued: one$/m);
    await t.type('two');
    await t.waitFor(/^queued: two$/m);
    await t.keys('Up');
    // Out of the queue, and in the line being typed (under the progress line).
    await t.waitFor(/^queued: one\n\S Running read_file.*Esc to interrupt\)\ntwo$/m);
    await t.type(' please');
    await t.waitFor(/^queued: two please$/m);
    await writeFile(join(p.dir, 'pipe'), 'go');
    await t.waitFor('Golem: Answered both.');
    await leave(t);
    const { turns } = await stored(p, session);
    expect(turns.filter((turn) => turn.role === 'user').map((turn) => lines([turn])[0])).toEqual(['user: tidy up', 'user: one', 'user: two please']);
  });

  it('Esc stops the run as before; what was queued is still sent, and answered', async () => {
    const p = project();
    const t = await golem(p.dir, '--model', `scripted:${p.script([{ hold: true }, { text: 'Did the next thing.' }])}`);
    const session = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('wait for me');
    await t.waitFor(/Thinking… \(\d+s · Esc to interrupt\)/);
    await t.type('the next thing');
    await t.waitFor(/^queued: the next thing$/m);
    await t.keys('Escape');
    await t.waitFor('Stopped. What you queued goes next (1).');
    await t.waitFor('Golem: Did the next thing.');
    await leave(t);
    const { turns, runs } = await stored(p, session);
    expect(lines(turns)).toEqual(['user: wait for me', 'user: the next thing', 'assistant: Did the next thing.']);
    expect(runs.map((r) => r.status)).toEqual(['cancelled', 'succeeded']);
  });

  it('/help says what Enter does during a run, which key steers, and how to take a queued message back', async () => {
    const p = project();
    const t = await golem(p.dir);
    await t.waitFor(PROMPT);
    await t.type('/help');
    const screen = await t.waitFor('While an answer runs:');
    const help = screen.slice(screen.indexOf('While an answer runs:')).replace(/\s+/g, ' ');
    expect(help).toContain('While an answer runs: Enter queues what you typed');
    expect(help).toContain('Tab steers instead (the model reads it before its next call)');
    expect(help).toContain('↑ on an empty line takes the last queued message back');
    expect(help).toContain('Esc stops the run; what you queued is still sent after it.');
  });
});
