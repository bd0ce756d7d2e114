/**
 * End to end, the terminal's input and in-chat commands: the real `golem` binary in tmux
 * with a scripted model. History across runs, Tab completion, single-key approvals, Esc,
 * a reopened session's recent conversation, /model, /new, /sessions, /compact, /cost, and
 * no empty session on a first run; each checked on the screen and in what is left behind.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Terminal } from './helpers-tmux.js';
import { APPROVAL, golemJson, occurrences, PROMPT, tmuxHarness } from './helpers-tmux.js';

interface TurnJson {
  id: string;
  role: string;
  blocks: { type: string; text?: string; callId?: string; content?: { type: string; text?: string }[] }[];
  meta: { usage?: { inputTokens: number; outputTokens: number } };
}
interface SessionJson {
  id: string;
  label: string | null;
}

const { project, golem } = tmuxHarness();

async function exit(t: Terminal): Promise<void> {
  await t.type('/exit');
  await t.waitForExit();
}

async function sessionIdOn(t: Terminal): Promise<string> {
  const screen = await t.waitFor(/Golem · session [0-9a-f-]{36}/);
  return /Golem · session ([0-9a-f-]{36})/.exec(screen)?.[1] as string;
}

async function transcript(cwd: string, sessionId: string): Promise<TurnJson[]> {
  return (await golemJson<{ turns: TurnJson[] }>(cwd, 'sessions', 'show', sessionId)).turns;
}

/** Polls the session's transcript (as another process reads it) until it holds `count` user turns. */
async function waitForUserTurns(cwd: string, sessionId: string, count: number): Promise<void> {
  for (let tries = 0; ; tries++) {
    const turns = await transcript(cwd, sessionId).catch(() => []); // the session is made with its first message
    if (userTexts(turns).length >= count) return;
    if (tries > 300) throw new Error(`session ${sessionId} never held ${count} user turn(s)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const userTexts = (turns: TurnJson[]) => turns.filter((t) => t.role === 'user').map((t) => t.blocks.map((b) => b.text ?? '').join(''));
const runCommand = (command: string) => ({ toolCalls: [{ name: 'run_command', input: { command } }] });

describe('the terminal input', () => {
  it('keeps the messages sent across runs for ↑ (never an approval answer or its reason), and completes commands with Tab', async () => {
    const p = project();
    const script = p.script([runCommand('echo hi > hi.txt'), { text: 'Did not run it.' }, { text: 'Again, yes.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    await t.type('please say hi');
    await t.waitFor(APPROVAL);
    await t.type('n');
    await t.waitFor('Reason (optional):');
    await t.type('a private reason');
    await t.waitFor('Golem: Did not run it.');
    await exit(t);

    // What was sent at the chat prompt (not /exit); not the approval's "n" nor its reason.
    expect(readFileSync(join(p.dir, '.golem', 'history'), 'utf8')).toBe('"please say hi"\n');

    // The next run: ↑ brings back the earlier run's message, Enter sends it again.
    const t2 = await golem(p.dir, '--model', `scripted:${script}`);
    const session = await sessionIdOn(t2);
    await t2.waitFor(PROMPT);
    await t2.keys('Up');
    await t2.waitFor(/^> please say hi$/m);
    await t2.keys('Enter');
    await t2.waitFor('Golem: Again, yes.');

    // Tab completes a command's name: "/cos" becomes "/cost ".
    await t2.tmux('send-keys', '-t', 's', '-l', '/cos');
    await t2.keys('Tab');
    await t2.waitFor(/^> \/cost *$/m);
    await t2.keys('Enter');
    await t2.waitFor(/This session: 3 answer\(s\)/);
    await exit(t2);

    const users = userTexts(await transcript(p.dir, session));
    expect(users).toEqual(['please say hi', 'please say hi']);
    expect(readFileSync(join(p.dir, '.golem', 'history'), 'utf8')).toBe('"please say hi"\n"please say hi"\n"/cost "\n');
    expect(existsSync(join(p.dir, 'hi.txt'))).toBe(false);
  });

  it('answers an approval with a single key, without Enter', async () => {
    const p = project();
    const script = p.script([runCommand('echo one > one.txt'), { text: 'Ran one.' }, runCommand('echo two > two.txt'), { text: 'Not two.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const session = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('run one');
    await t.waitFor(APPROVAL);
    await t.keys('y'); // no Enter
    await t.waitFor('Golem: Ran one.');
    expect(readFileSync(join(p.dir, 'one.txt'), 'utf8')).toBe('one\n');

    await t.type('run two');
    await t.waitFor(APPROVAL, { count: 2 });
    await t.keys('n'); // no Enter: the reason is asked at once
    await t.waitFor('Reason (optional):');
    await t.type('not now');
    await t.waitFor('Golem: Not two.');
    await exit(t);
    expect(existsSync(join(p.dir, 'two.txt'))).toBe(false);
    const turns = await transcript(p.dir, session);
    const results = turns.flatMap((turn) => turn.blocks).filter((b) => b.type === 'tool_result');
    expect(results.map((b) => (b.content ?? []).map((c) => c.text ?? '').join(''))[1]).toContain('not now');
    // Only the two messages were sent: no stray "y" or "n" reached the chat.
    expect(userTexts(turns)).toEqual(['run one', 'run two']);
  });

  it('Esc stops an answer in progress (and an arrow key does not); the session goes on', async () => {
    const p = project();
    const script = p.script([{ hold: true }, { text: 'After the stop.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const session = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('take your time');
    // The run is under way once its message is recorded: the model holds its answer from then on.
    await waitForUserTurns(p.dir, session, 1);
    // An arrow key starts with the Esc byte: it is not an Esc.
    await t.keys('Up', 'Down', 'Left');
    await t.keys('Escape');
    const screen = await t.waitFor('Stopped. Say what to do next.');
    expect(occurrences(screen, 'Stopped. Say what to do next.')).toBe(1);
    await t.waitFor(PROMPT);
    await t.type('go on');
    await t.waitFor('Golem: After the stop.');
    await t.type('/session');
    await t.waitFor(`Session ${session}. Back to it later with`);
    await exit(t);
    expect(userTexts(await transcript(p.dir, session))).toEqual(['take your time', 'go on']);
  });
});

describe('in-chat commands and sessions', () => {
  it('a reopened session shows its recent conversation before the prompt', async () => {
    const p = project();
    const script = p.script([{ text: 'Answer one.' }, { text: 'Answer two.' }, { text: 'Answer three.' }, { text: 'Answer four.' }]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    await t.waitFor(PROMPT);
    for (const n of ['one', 'two', 'three', 'four']) {
      await t.type(`question ${n}`);
      await t.waitFor(`Golem: Answer ${n}.`);
    }
    await exit(t);

    const t2 = await golem(p.dir, '--model', `scripted:${script}`);
    const screen = await t2.waitFor(PROMPT);
    // What comes between the first line and the prompt.
    const before = screen.slice(screen.indexOf('\n'), screen.search(PROMPT));
    // The last three exchanges, in order, and a pointer to the rest.
    expect(before).toContain('… 2 earlier message(s): golem sessions show');
    expect(before).not.toContain('question one');
    expect(before).not.toContain('Answer one.');
    const order = ['You: question two', 'Golem: Answer two.', 'You: question three', 'Golem: Answer three.', 'You: question four', 'Golem: Answer four.'];
    const at = order.map((line) => before.indexOf(line));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    await exit(t2);
  });

  it('/model shows and switches the model, /new starts a session with its first message, /sessions lists and switches', async () => {
    const p = project();
    const first = p.script([{ text: 'From the first script.' }, { text: 'First again.' }]);
    const second = p.script([{ text: 'From the second script.' }], 'second.json');
    const t = await golem(p.dir, '--model', `scripted:${first}`);
    const a = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('/model');
    await t.waitFor(`Model: scripted:${first}`);
    await t.type('hello');
    await t.waitFor('Golem: From the first script.');

    await t.type('/model nosuch:thing');
    await t.waitFor(/\[\w+\] .*nosuch/);
    await t.type(`/model scripted:${second}`);
    await t.waitFor(`Model: scripted:${second} from the next answer on.`);

    await t.type('/new');
    let screen = await t.waitFor(/New session ([0-9a-f-]{36}): it starts with your first message\./);
    const b = /New session ([0-9a-f-]{36})/.exec(screen)?.[1] as string;
    expect(b).not.toBe(a);
    // Not made yet: only the first session exists.
    expect((await golemJson<SessionJson[]>(p.dir, 'sessions', 'list')).map((s) => s.id)).toEqual([a]);
    await t.type('second hello');
    await t.waitFor('Golem: From the second script.');

    await t.type('/sessions');
    screen = await t.waitFor('Switch with /sessions <number or id>.');
    expect(screen).toMatch(new RegExp(`\\*\\s+1\\. …${b.slice(-12)} .* 2 turns\\s+second hello`));
    expect(screen).toMatch(new RegExp(` \\s+2\\. …${a.slice(-12)} .* 2 turns\\s+hello`));
    await t.type('/sessions 2');
    // Its recent conversation is shown.
    await t.waitFor('Golem: From the first script.', { count: 2 });
    await t.type(`/model scripted:${first}`);
    await t.waitFor(`Model: scripted:${first} from the next answer on.`);
    await t.type('back in the first');
    await t.waitFor('Golem: First again.');
    await exit(t);

    expect(userTexts(await transcript(p.dir, a))).toEqual(['hello', 'back in the first']);
    expect(userTexts(await transcript(p.dir, b))).toEqual(['second hello']);
  });

  it('/compact puts a summary in place of the conversation so far; /cost adds up the answers', async () => {
    const p = project();
    const script = p.script([
      { text: 'The answer is 42.' },
      { text: 'SUMMARY: the user asked, the answer was 42.' }, // the summarizer's call
      { text: 'Still 42.' },
    ]);
    const t = await golem(p.dir, '--model', `scripted:${script}`);
    const session = await sessionIdOn(t);
    await t.waitFor(PROMPT);
    await t.type('/compact');
    await t.waitFor('Nothing to compact yet.');
    await t.type('what is the answer');
    await t.waitFor('Golem: The answer is 42.');
    await t.type('/compact');
    await t.waitFor(/Compacted 2 turn\(s\) into a summary/);
    await t.type('and now');
    await t.waitFor('Golem: Still 42.');
    await t.type('/cost');
    const screen = await t.waitFor(/This session: 2 answer\(s\): [\d,]+ tokens in, [\d,]+ out · cost unknown/);
    await exit(t);

    const turns = await transcript(p.dir, session);
    const summary = turns.find((turn) => turn.blocks.some((b) => b.type === 'summary'));
    expect(summary?.role).toBe('system');
    expect(summary?.blocks[0]).toMatchObject({ type: 'summary', text: 'SUMMARY: the user asked, the answer was 42.' });
    expect(turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'system', 'user', 'assistant']);
    // /cost said what the answers' meta holds.
    const answers = turns.filter((turn) => turn.role === 'assistant');
    const input = answers.reduce((n, turn) => n + (turn.meta.usage?.inputTokens ?? 0), 0);
    const output = answers.reduce((n, turn) => n + (turn.meta.usage?.outputTokens ?? 0), 0);
    expect(screen).toContain(`${input.toLocaleString('en-US')} tokens in, ${output.toLocaleString('en-US')} out`);
  });

  it('a first run makes no empty session: without a model it says how to set one up at once, and /exit leaves nothing', async () => {
    const p = project();
    const t = await golem(p.dir);
    const screen = await t.waitFor(PROMPT);
    expect(screen).toMatch(/Golem · session [0-9a-f-]{36} \(new\) · no model/);
    expect(screen).toContain('No model is configured. Set GOLEM_MODEL or start golem with --model, one of:');
    await t.type('hello?');
    await t.waitFor('No model is configured', { count: 2 });
    await t.type('/cost');
    await t.waitFor('No answers in this session yet: nothing used.');
    await exit(t);
    expect(await golemJson<SessionJson[]>(p.dir, 'sessions', 'list', '--all')).toEqual([]);

    // With a model, a session is made with the first message, not before.
    const script = p.script([{ text: 'Hi.' }]);
    const t2 = await golem(p.dir, '--model', `scripted:${script}`);
    const id = await sessionIdOn(t2);
    await t2.waitFor(PROMPT);
    expect(await golemJson<SessionJson[]>(p.dir, 'sessions', 'list', '--all')).toEqual([]);
    await t2.type('hi');
    await t2.waitFor('Golem: Hi.');
    await exit(t2);
    const sessions = await golemJson<SessionJson[]>(p.dir, 'sessions', 'list', '--all');
    expect(sessions.map((s) => [s.id, s.label])).toEqual([[id, 'hi']]);
  });

  it("the README's terminal demo works as written, twice in a row in one folder", async () => {
    const root = resolve(import.meta.dirname, '..');
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    // What the README tells a new user to type.
    expect(readme).toContain('npx golem --new --model scripted:examples/terminal/demo.json\n> show me around');
    const demo = join(root, 'examples', 'terminal', 'demo.json');
    const p = project();
    for (const run of [1, 2]) {
      const t = await golem(p.dir, '--new', '--model', `scripted:${demo}`);
      await t.waitFor(PROMPT);
      await t.type('show me around');
      await t.waitFor(APPROVAL);
      await t.keys('y');
      await t.waitFor('Golem: I listed the files, ran');
      await t.type('/clearance review');
      if (run === 1) {
        await t.waitFor('[p]ush / [d]iscard / [l]ater:');
        await t.type('p');
        await t.waitFor('✓ Pushed: Changes to GOLEM_DEMO.md');
      } else {
        // The file was pushed the first time: the same write stages nothing.
        await t.waitFor('Nothing waits for clearance.');
      }
      const screen = await t.screen();
      expect(screen).not.toContain('MODEL_SCRIPT_EXHAUSTED');
      expect(screen).not.toContain('(failed)');
      await exit(t);
    }
    expect(readFileSync(join(p.dir, 'GOLEM_DEMO.md'), 'utf8')).toContain('# Hello from Golem');
    expect((await golemJson<SessionJson[]>(p.dir, 'sessions', 'list')).length).toBe(2);
  });
});
