/**
 * End to end: the real `golem` binary in a pseudo-terminal (tmux), driven by keystrokes,
 * with a scripted model; every test checks the screen and the state left behind (files,
 * git, the workspace as the CLI and the library read it).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace, type Workspace } from '../src/index.js';
import type { Terminal } from './helpers-tmux.js';
import { APPROVAL, golemCli, golemJson, occurrences, type Project, PROMPT, tmuxHarness } from './helpers-tmux.js';
import { startFakeProvider } from './servers/fake-provider.js';

interface SessionJson {
  id: string;
  label: string | null;
  worker: {
    id: string;
    parentSessionId: string;
    parentCallId: string;
    depth: number;
    task: string;
    status: string;
    reinvokes: string | null;
    result: string | null;
  } | null;
}
interface Block {
  type: string;
  text?: string;
  callId?: string;
  name?: string;
  args?: Record<string, unknown>;
  content?: { type: string; text?: string }[];
}
interface TurnJson {
  id: string;
  role: string;
  blocks: Block[];
  /** An answer's meta.prompt says which turns its prompt held. */
  meta: { prompt?: { turns: { count: number; last: { id: string } | null } } };
}
interface ClearanceJson {
  id: string;
  type: string;
  status: string;
  description: string;
}

const { project, golem } = tmuxHarness();

/** The session id in golem's first line. */
async function sessionIdOn(t: Terminal): Promise<string> {
  const screen = await t.waitFor(/Golem · session (\S+)/);
  return /Golem · session ([0-9a-f-]{36})/.exec(screen)?.[1] as string;
}

async function transcript(cwd: string, sessionId: string): Promise<TurnJson[]> {
  return (await golemJson<{ turns: TurnJson[] }>(cwd, 'sessions', 'show', sessionId)).turns;
}

/** The text of every tool result in the transcript, by call id. */
function toolResults(turns: TurnJson[]): Map<string, string> {
  const results = new Map<string, string>();
  for (const b of turns.flatMap((t) => t.blocks)) {
    if (b.type === 'tool_result') results.set(b.callId as string, (b.content ?? []).map((c) => c.text ?? '').join(''));
  }
  return results;
}

function toolUses(turns: TurnJson[], name: string): Block[] {
  return turns.flatMap((t) => t.blocks).filter((b) => b.type === 'tool_use' && b.name === name);
}

/** Opens the project's workspace (golem must have exited), runs `body`, closes it. */
async function withWorkspace<T>(p: Project, body: (ws: Workspace) => T | Promise<T>): Promise<T> {
  const ws = await createWorkspace({ dir: join(p.dir, '.golem') });
  try {
    return await body(ws);
  } finally {
    await ws.close();
  }
}

function records<T>(ws: Workspace, collection: string): T[] {
  return [...(ws.manager.workspace().collections.get(collection)?.values() ?? [])] as T[];
}

const read = (p: Project, file: string) => readFileSync(join(p.dir, file), 'utf8');
const runCommand = (command: string) => ({ toolCalls: [{ name: 'run_command', input: { command } }] });

describe('golem in a terminal', () => {
  it('takes a pasted block of lines as one message, and a line ended with a backslash goes on on the next', async () => {
    const p = project();
    const script = p.script([{ text: 'Got the three lines.' }, { text: 'Got both.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const session = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    // A bracketed paste, as a terminal sends it when golem asks for one; then Enter.
    writeFileSync(join(p.dir, '.golem', 'paste.txt'), 'first line\nsecond line\nthird line');
    await t.tmux('load-buffer', join(p.dir, '.golem', 'paste.txt'));
    await t.tmux('paste-buffer', '-p', '-t', 's');
    await t.keys('Enter');
    await t.waitFor('Golem: Got the three lines.');
    await t.type('one \\');
    await t.type('two');
    await t.waitFor('Golem: Got both.');
    await t.type('/exit');
    await t.waitForExit();
    const users = (await transcript(p.dir, session)).filter((turn) => turn.role === 'user').map((turn) => turn.blocks.map((b) => b.text).join(''));
    expect(users).toEqual(['first line\nsecond line\nthird line', 'one \ntwo']);
  });

  it('asks for approval and follows each answer: yes, no with a reason, always, session', async () => {
    const p = project();
    const script = p.script([
      runCommand('echo one > one.txt'),
      { text: 'Ran one.' },
      runCommand('echo two > two.txt'),
      { text: 'Did not run two.' },
      runCommand('echo three >> three.txt'),
      { text: 'Ran three.' },
      runCommand('echo four >> four.txt'),
      { text: 'Ran four.' },
      runCommand('echo four >> four.txt'),
      { text: 'Ran four again.' },
    ]);
    // A new session plays the script again from its start: its own.
    const secondScript = p.script(
      [
        runCommand('echo three >> three.txt'),
        { text: 'Ran three in the new session.' },
        runCommand('echo four >> four.txt'),
        { text: 'Asked about four in the new session.' },
      ],
      'second.json',
    );
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const first = await sessionIdOn(t);
    await t.waitFor(PROMPT);

    // y
    await t.type('run one');
    await t.waitFor('[Approval Required] echo one > one.txt');
    await t.waitFor(APPROVAL);
    await t.type('y');
    await t.waitFor('Golem: Ran one.');
    expect(read(p, 'one.txt')).toBe('one\n');

    // n, with a reason
    await t.type('run two');
    await t.waitFor('[Approval Required] echo two > two.txt');
    await t.waitFor(APPROVAL, { count: 2 });
    await t.type('n');
    await t.waitFor('Reason (optional):');
    await t.type('not two today');
    let screen = await t.waitFor('Golem: Did not run two.');
    expect(screen).toMatch(/run_command\("echo two > two\.txt"\) ✗/);
    expect(existsSync(join(p.dir, 'two.txt'))).toBe(false);

    // a
    await t.type('run three');
    await t.waitFor(APPROVAL, { count: 3 });
    await t.type('a');
    await t.waitFor('Golem: Ran three.');
    expect(read(p, 'three.txt')).toBe('three\n');

    // s, then the same command again in this session: not asked
    await t.type('run four');
    await t.waitFor(APPROVAL, { count: 4 });
    await t.type('s');
    await t.waitFor('Golem: Ran four.');
    await t.type('run four again');
    screen = await t.waitFor('Golem: Ran four again.');
    expect(occurrences(screen, '[Approval Required]')).toBe(4);
    expect(occurrences(screen, 'run_command("echo four >> four.txt") ✓')).toBe(2);
    expect(read(p, 'four.txt')).toBe('four\nfour\n');

    // The model's next call saw the reason: it is in the tool result of the denied call.
    const turns = await transcript(p.dir, first);
    const [twoCall] = toolUses(turns, 'run_command').filter((b) => b.args?.command === 'echo two > two.txt');
    expect(toolResults(turns).get(twoCall?.callId as string)).toContain('not two today');
    const afterTwo = turns.findIndex((turn) => turn.blocks.some((b) => b.type === 'tool_result' && b.callId === twoCall?.callId));
    expect(turns[afterTwo + 1]).toMatchObject({ role: 'assistant', blocks: [{ type: 'text', text: 'Did not run two.' }] });
    expect(turns[afterTwo + 1]?.meta.prompt?.turns.last?.id).toBe(turns[afterTwo]?.id);

    await t.type('/exit');
    await t.waitForExit();

    // 'always' holds in a new session; 'session' does not.
    const t2 = await golem(p.dir, '--model', `scripted:${secondScript}`, '--new');
    const second = await sessionIdOn(t2);
    expect(second).not.toBe(first);
    await t2.waitFor(PROMPT);
    await t2.type('run three again');
    screen = await t2.waitFor('Golem: Ran three in the new session.');
    expect(screen).not.toContain('[Approval Required]');
    expect(read(p, 'three.txt')).toBe('three\nthree\n');
    await t2.type('run four here');
    await t2.waitFor('[Approval Required] echo four >> four.txt');
    await t2.waitFor(APPROVAL);
    await t2.type('n');
    await t2.waitFor('Reason (optional):');
    await t2.type('');
    await t2.waitFor('Golem: Asked about four in the new session.');
    expect(read(p, 'four.txt')).toBe('four\nfour\n');
    await t2.type('/exit');
    await t2.waitForExit();

    await withWorkspace(p, (ws) => {
      const grants = records<{ action: string; key: string; scope: string; sessionId: string | null }>(ws, 'grant');
      expect(grants.map(({ action, key, scope, sessionId }) => ({ action, key, scope, sessionId })).sort((a, b) => a.key.localeCompare(b.key))).toEqual([
        { action: 'run_command', key: 'echo four >> four.txt', scope: 'session', sessionId: first },
        { action: 'run_command', key: 'echo three >> three.txt', scope: 'workspace', sessionId: null },
      ]);
      const approvals = records<{ grantKey: string; answer: string; reason: string | null; rootSessionId: string }>(ws, 'approval');
      expect(
        approvals
          .map((a) => [a.grantKey, a.answer, a.reason, a.rootSessionId === first ? 'first' : 'second'])
          .sort((a, b) => String(a).localeCompare(String(b))),
      ).toEqual([
        ['echo four >> four.txt', 'no', null, 'second'],
        ['echo four >> four.txt', 'session', null, 'first'],
        ['echo one > one.txt', 'yes', null, 'first'],
        ['echo three >> three.txt', 'always', null, 'first'],
        ['echo two > two.txt', 'no', 'not two today', 'first'],
      ]);
    });
  });

  it('stages edits for clearance: one pushed in the chat, one discarded with the CLI', async () => {
    const p = project({ 'app.txt': 'color = red\nsize = 1\n' });
    const head = p.git('rev-parse', 'HEAD');
    const script = p.script([
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.txt', old_string: 'color = red', new_string: 'color = blue' } }] },
      { text: 'I staged the color change for your review.' },
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.txt', old_string: 'size = 1', new_string: 'size = 2' } }] },
      { text: 'I staged the size change for your review.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('make it blue');
    let screen = await t.waitFor('Golem: I staged the color change for your review.');
    expect(screen).toContain('[!] 1 item(s) pending clearance');
    expect(screen).toMatch(/edit_file\("app\.txt", "color = red", "color = blue"\) ✓/);
    // Staged, not written: the file and the user's git state are untouched.
    expect(read(p, 'app.txt')).toBe('color = red\nsize = 1\n');
    expect(p.git('status', '--porcelain')).toBe('');

    await t.type('/clearance');
    screen = await t.waitFor(/^ {2}\S+ {2}staged_commit {2}pending {2}Changes to app\.txt$/m);
    const firstId = /^ {2}(\S+) {2}staged_commit {2}pending {2}Changes to app\.txt$/m.exec(screen)?.[1] as string;
    // A second process sees the same item.
    const listed = await golemJson<ClearanceJson[]>(p.dir, 'clearance', 'list');
    expect(listed.map((i) => [i.id, i.type, i.status])).toEqual([[firstId, 'staged_commit', 'pending']]);

    await t.type(`/clearance diff ${firstId}`);
    screen = await t.waitFor('+color = blue');
    expect(screen).toContain('-color = red');
    expect(screen).not.toContain('size = 2');

    await t.type(`/clearance push ${firstId}`);
    await t.waitFor('✓ Pushed: Changes to app.txt');
    expect(read(p, 'app.txt')).toBe('color = blue\nsize = 1\n');
    expect(p.git('status', '--porcelain')).toBe(' M app.txt\n');

    // The second edit, decided from another process while the chat runs.
    await t.type('now make it bigger');
    await t.waitFor('Golem: I staged the size change for your review.');
    expect(read(p, 'app.txt')).toBe('color = blue\nsize = 1\n');
    const pending = await golemJson<ClearanceJson[]>(p.dir, 'clearance', 'list');
    expect(pending).toHaveLength(1);
    const secondId = pending[0]?.id as string;
    expect(secondId).not.toBe(firstId);
    const diff = await golemCli(p.dir, 'clearance', 'diff', secondId);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('-size = 1');
    expect(diff.stdout).toContain('+size = 2');
    expect(diff.stdout).not.toMatch(/^[-+]color/m);
    const discarded = await golemCli(p.dir, 'clearance', 'discard', secondId);
    expect(discarded).toMatchObject({ code: 0, stdout: `Discarded ${secondId}; the files are as they were.\n` });
    expect(read(p, 'app.txt')).toBe('color = blue\nsize = 1\n');
    // The chat sees the decision made elsewhere.
    await t.type('/clearance');
    await t.waitFor('Nothing waits for clearance.');

    await t.type('/exit');
    await t.waitForExit();
    const all = await golemJson<ClearanceJson[]>(p.dir, 'clearance', 'list', '--all');
    expect(all.map((i) => [i.id, i.status])).toEqual([
      [firstId, 'pushed'],
      [secondId, 'discarded'],
    ]);
    const again = await golemCli(p.dir, 'clearance', 'push', secondId);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('CLEARANCE_DECIDED');
    // The user's repository: HEAD and index as they were, only the pushed change in the working tree.
    expect(p.git('rev-parse', 'HEAD')).toBe(head);
    expect(p.git('diff', '--cached', '--name-only')).toBe('');
    expect(p.git('status', '--porcelain')).toBe(' M app.txt\n');
    expect(read(p, 'app.txt')).toBe('color = blue\nsize = 1\n');
  });

  // Regression: the chat's index once did not follow writes made by another process, so
  // `/clearance push` of an item discarded elsewhere wrote the discarded change into the
  // files before the stale decision was refused (CLEARANCE_DECIDED).
  it('a running chat sees a clearance decision made by another process', async () => {
    const p = project({ 'app.txt': 'size = 1\n' });
    const script = p.script([
      { toolCalls: [{ name: 'edit_file', input: { path: 'app.txt', old_string: 'size = 1', new_string: 'size = 2' } }] },
      { text: 'Staged.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('go');
    await t.waitFor('Golem: Staged.');
    const [item] = await golemJson<ClearanceJson[]>(p.dir, 'clearance', 'list');
    expect((await golemCli(p.dir, 'clearance', 'discard', item?.id as string)).code).toBe(0);
    await t.type(`/clearance push ${item?.id}`);
    await t.waitFor(/CLEARANCE_DECIDED|✓ Pushed/);
    expect(read(p, 'app.txt')).toBe('size = 1\n');
    expect(p.git('status', '--porcelain')).toBe('');
    await t.type('/clearance');
    await t.waitFor('Nothing waits for clearance.', { timeoutMs: 3000 });
  });

  it("bubbles a sub-worker's question up to the user and re-invokes the worker with the answer", async () => {
    const p = project();
    const task = 'Add session storage to the web app';
    const steps: unknown[] = [
      { text: 'I will hand this to a worker.', toolCalls: [{ name: 'spawn_worker', input: { task } }] },
      { toolCalls: [{ name: 'ask_parent', input: { question: 'Should sessions be stored in Redis or in memory?' } }] },
      { text: 'Should I use Redis or in-memory sessions?' },
    ];
    const script = p.script(steps);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const root = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('add sessions');
    let screen = await t.waitFor('Golem: Should I use Redis or in-memory sessions?');
    expect(screen).toContain('[Calling worker: add-session-storage-to-the-web-app]');
    expect(screen).toMatch(/┌─ add-session-storage-to-the-web-app ─+┐/);
    expect(screen).toMatch(/│ ask_parent\("Should sessions be stored in Redis or…"\) ✓ +│/);
    expect(screen).toMatch(/│ Should sessions be stored in Redis or in memory\? +│/);
    expect(screen).toMatch(/└─ question ─+┘/);

    // The worker's id is its session id, made when it starts: the static script cannot
    // know it. So leave, read it, give the script its next steps, and come back (the
    // scripted model goes on where the last run stopped).
    await t.type('/exit');
    await t.waitForExit();
    let sessions = await golemJson<SessionJson[]>(p.dir, 'sessions', 'list', '--all');
    const asked = sessions.find((s) => s.worker !== null);
    expect(asked?.worker).toMatchObject({
      parentSessionId: root,
      depth: 1,
      task,
      status: 'question',
      result: 'Should sessions be stored in Redis or in memory?',
    });
    const askedId = asked?.id as string;
    // The root's model was told the id to re-invoke.
    expect([...toolResults(await transcript(p.dir, root)).values()].join('\n')).toContain(`reinvoke: \\"${askedId}\\"`);

    p.script([
      ...steps,
      { toolCalls: [{ name: 'spawn_worker', input: { task: `${task}, storing the sessions in Redis`, reinvoke: askedId } }] },
      { toolCalls: [{ name: 'list_files', input: {} }] },
      { text: 'Added Redis-backed session storage.' },
      { text: 'Done: the worker added session storage in Redis.' },
    ]);
    const t2 = await golem(p.dir, '--model', `scripted:${script}`);
    expect(await sessionIdOn(t2)).toBe(root);
    await t2.waitFor(PROMPT);
    await t2.type('Redis');
    screen = await t2.waitFor('Golem: Done: the worker added session storage in Redis.');
    // The box's name is the task cut to 40 columns at a word: the same as the first worker's here.
    expect(screen).toContain('[Calling worker: add-session-storage-to-the-web-app]');
    expect(screen).toContain('● Add session storage to the web app, storing the sessions in Redis');
    expect(screen).toContain('✓ Add session storage to the web app, storing the sessions in Redis');
    expect(screen).toMatch(/│ list_files\(\) ✓ +│/);
    expect(screen).toMatch(/│ Added Redis-backed session storage\. +│/);
    expect(screen).toMatch(/^└─+┘$/m);
    await t2.type('/exit');
    await t2.waitForExit();

    sessions = await golemJson<SessionJson[]>(p.dir, 'sessions', 'list', '--all');
    expect(sessions).toHaveLength(3);
    const again = sessions.find((s) => s.worker?.reinvokes === askedId);
    expect(again?.worker).toMatchObject({ parentSessionId: root, depth: 1, status: 'done', result: 'Added Redis-backed session storage.' });
    const chats = await golemJson<SessionJson[]>(p.dir, 'sessions', 'list');
    expect(chats.map((s) => s.id)).toEqual([root]);
    const text = await golemCli(p.dir, 'sessions', 'list', '--all');
    expect(occurrences(text.stdout, `worker d1 of ${root}`)).toBe(2);
    // The user's answer reached the root's model before it re-invoked the worker.
    const turns = await transcript(p.dir, root);
    const redis = turns.findIndex((turn) => turn.role === 'user' && turn.blocks.some((b) => b.text === 'Redis'));
    expect(turns[redis + 1]?.blocks.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'spawn_worker', args: { reinvoke: askedId } });
    expect(turns[redis + 1]?.meta.prompt?.turns.last?.id).toBe(turns[redis]?.id);
  });

  it('resumes a run killed during an approval: asks again, runs the command once, does not redo what was done', async () => {
    const p = project({ 'notes.txt': 'count lines\n' });
    const script = p.script([
      {
        text: 'Reading first.',
        toolCalls: [
          { name: 'read_file', input: { path: 'notes.txt' } },
          { name: 'run_command', input: { command: 'echo x >> count.txt' } },
        ],
      },
      { text: 'Counted.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const session = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('count');
    await t.waitFor('read_file("notes.txt") ✓');
    await t.waitFor(APPROVAL);
    process.kill(await t.pid(), 'SIGKILL');
    await t.waitForExit();
    expect(existsSync(join(p.dir, 'count.txt'))).toBe(false);

    const t2 = await golem(p.dir, '--model', `scripted:${script}`);
    expect(await sessionIdOn(t2)).toBe(session);
    let screen = await t2.waitFor(APPROVAL);
    expect(screen).toContain('Resuming the run that was interrupted.');
    expect(screen).toContain('[Approval Required] echo x >> count.txt');
    await t2.type('y');
    screen = await t2.waitFor('Golem: Counted.');
    // The call is shown with the reopened conversation, but not run again (no mark of a run).
    expect(screen).not.toContain('read_file("notes.txt") ✓');
    await t2.waitFor(PROMPT);
    expect(read(p, 'count.txt')).toBe('x\n');
    await t2.type('/exit');
    await t2.waitForExit();

    const turns = await transcript(p.dir, session);
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    const [readCall] = toolUses(turns, 'read_file');
    expect(toolUses(turns, 'read_file')).toHaveLength(1);
    const results = turns.flatMap((turn) => turn.blocks).filter((b) => b.type === 'tool_result');
    expect(results.filter((b) => b.callId === readCall?.callId)).toHaveLength(1);
    expect(results).toHaveLength(2);
    await withWorkspace(p, (ws) => {
      const approvals = records<{ status: string; answer: string }>(ws, 'approval');
      expect(approvals.map((a) => [a.status, a.answer])).toEqual([['approved', 'yes']]);
    });
  });

  it('Ctrl-C during an approval stops the run, keeps the session, runs nothing', async () => {
    const p = project();
    const script = p.script([runCommand('echo x >> stopped.txt'), { text: 'Fine, I will not run it.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const session = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('go');
    await t.waitFor(APPROVAL);
    await t.keys('C-c');
    let screen = await t.waitFor('Stopped. Say what to do next.');
    expect(screen).toContain('stopping… the session is kept');
    await t.waitFor(PROMPT);
    expect(existsSync(join(p.dir, 'stopped.txt'))).toBe(false);

    await t.type('never mind');
    screen = await t.waitFor('Golem: Fine, I will not run it.');
    expect(occurrences(screen, '[Approval Required]')).toBe(1);
    await t.type('/session');
    await t.waitFor(`Session ${session}. Back to it later with: golem --session ${session}`);
    await t.type('/exit');
    await t.waitForExit();
    expect(existsSync(join(p.dir, 'stopped.txt'))).toBe(false);

    const sessions = await golemJson<SessionJson[]>(p.dir, 'sessions', 'list', '--all');
    expect(sessions.map((s) => s.id)).toEqual([session]);
    const turns = await transcript(p.dir, session);
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
    expect(turns[2]?.blocks[0]).toMatchObject({ type: 'tool_result', isError: true });
    expect(turns[3]?.blocks).toEqual([{ type: 'text', text: 'never mind' }]);
  });

  it('without a model says how to configure one, and /clearance still works', async () => {
    const p = project({ 'app.txt': 'v1\n' });
    // An item to clear, staged by an earlier chat.
    const script = p.script([{ toolCalls: [{ name: 'write_file', input: { path: 'app.txt', content: 'v2\n' } }] }, { text: 'Staged v2.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('write v2');
    await t.waitFor('Golem: Staged v2.');
    await t.type('/exit');
    await t.waitForExit();
    const [item] = await golemJson<ClearanceJson[]>(p.dir, 'clearance', 'list');
    expect(item).toMatchObject({ type: 'staged_commit', status: 'pending', description: 'Changes to app.txt' });

    const t2 = await golem(p.dir);
    let screen = await t2.waitFor(PROMPT);
    expect(screen).toMatch(/Golem · session \S+ (?:\(write v2\) )?· no model · project /);
    // Said at the start, before the user types anything.
    expect(screen).toContain('No model is configured. Set GOLEM_MODEL or start golem with --model, one of:');
    expect(screen).toContain('[!] 1 item(s) pending clearance');
    await t2.type('hello');
    screen = await t2.waitFor('The rest works without one: /clearance, /session, golem sessions.');
    expect(screen).toContain('No model is configured. Set GOLEM_MODEL or start golem with --model, one of:');
    expect(screen).toContain('scripted:<file.json>');
    await t2.type('/clearance');
    await t2.waitFor(`  ${item?.id}  staged_commit  pending  Changes to app.txt`);
    await t2.type(`/clearance diff ${item?.id}`);
    await t2.waitFor('+v2');
    await t2.type(`/clearance push ${item?.id}`);
    await t2.waitFor('✓ Pushed: Changes to app.txt');
    expect(read(p, 'app.txt')).toBe('v2\n');
    await t2.type('/clearance');
    await t2.waitFor('Nothing waits for clearance.');
    await t2.type('/exit');
    await t2.waitForExit();
    // The message was not kept: there was nobody to answer it.
    const [chat] = await golemJson<SessionJson[]>(p.dir, 'sessions', 'list');
    const turns = await transcript(p.dir, chat?.id as string);
    expect(turns.some((turn) => turn.blocks.some((b) => b.text === 'hello'))).toBe(false);

    // A model spec that cannot be used says why.
    const t3 = await golem(p.dir, '--model', 'scripted:missing.json');
    screen = await t3.waitFor(PROMPT);
    // What is wrong with the model given, at the start: not the advice to give one.
    expect(screen).toMatch(/The model cannot be used: cannot read the script .*missing\.json.*Fix that and start golem again/s);
    expect(screen).not.toContain('start golem with --model');
  });

  it('with a provider model over HTTP: changes a file in a real repository, the user approves its command, reviews the diff and pushes it', async () => {
    const p = project({ 'server.js': 'const port = 80;\n' });
    // A model server on loopback speaking the OpenAI chat completions wire format (streamed tool calls).
    const server = await startFakeProvider('openai', [
      { toolCalls: [{ id: 'c1', name: 'read_file', input: { path: 'server.js' } }] },
      {
        toolCalls: [
          {
            id: 'c2',
            name: 'edit_file',
            input: { path: 'server.js', old_string: 'const port = 80;', new_string: 'const port = Number(process.env.PORT ?? 80);' },
          },
        ],
      },
      { toolCalls: [{ id: 'c3', name: 'run_command', input: { command: 'node --check server.js && echo syntax ok' } }] },
      { text: 'The port now comes from PORT. The edit is staged for your review.' },
    ]);
    try {
      const t = await golem(p.dir, '--model', `openai-compatible:${server.url}#local-model`);
      await t.waitFor(PROMPT);
      await t.type('make the port configurable');
      let screen = await t.waitFor('[y]es / [n]o / [a]lways / [s]ession:');
      expect(screen).toContain('[Approval Required] node --check server.js && echo syntax ok');
      await t.type('y');
      screen = await t.waitFor('Golem: The port now comes from PORT. The edit is staged for your review.');
      expect(screen).toMatch(/run_command\("node --check server\.js && echo syntax ok"\) ✓/);
      // The model saw the command's output, and its tools, over the wire.
      const last = JSON.stringify(server.requests.at(-1)?.body);
      expect(last).toContain('syntax ok');
      expect((server.requests[0]?.body.tools as unknown[]).length).toBeGreaterThanOrEqual(6);
      expect(read(p, 'server.js')).toBe('const port = 80;\n');
      const [item] = await golemJson<ClearanceJson[]>(p.dir, 'clearance', 'list');
      await t.type(`/clearance diff ${item?.id ?? ''}`);
      await t.waitFor('+const port = Number(process.env.PORT ?? 80);');
      await t.type(`/clearance push ${item?.id ?? ''}`);
      await t.waitFor('✓ Pushed');
      expect(read(p, 'server.js')).toBe('const port = Number(process.env.PORT ?? 80);\n');
      expect(p.git('status', '--porcelain')).toBe(' M server.js\n');
    } finally {
      await server.close();
    }
  });
});
