import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { approvalExplanation } from '../src/action/approval.js';
import type { ApprovalRequest, WorkerEvent, WorkerInfo } from '../src/agent/ui-adapter.js';
import { parseApprovalAnswer, parseClearanceAnswer } from '../src/terminal/answers.js';
import { taskSlug } from '../src/terminal/boxes.js';
import { TerminalAdapter, type TerminalAdapterOptions } from '../src/terminal/index.js';

const open: TerminalAdapter[] = [];
afterEach(async () => {
  for (const adapter of open.splice(0)) await adapter.shutdown();
});

/** An adapter on PassThrough streams; `text()` is everything written so far (read synchronously). */
function setup(options: Partial<TerminalAdapterOptions> & { tty?: boolean } = {}) {
  const input = new PassThrough();
  const output = Object.assign(new PassThrough(), options.tty === true ? { isTTY: true, columns: 60 } : {});
  output.setEncoding('utf8');
  let written = '';
  const adapter = new TerminalAdapter({ input, output, color: false, width: 40, ...options });
  open.push(adapter);
  return {
    input,
    adapter,
    /** Types a line (the Enter key in terminal mode). */
    type: (line: string) => input.write(options.tty === true ? `${line}\r` : `${line}\n`),
    text: (): string => {
      for (let chunk = output.read() as string | null; chunk !== null; chunk = output.read() as string | null) written += chunk;
      return written;
    },
  };
}

// eslint-disable-next-line no-control-regex
const stripAnsi = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');

const root: WorkerInfo = { id: 'root', depth: 0, task: 'Chat with the user' };
const child: WorkerInfo = { id: 'w1', depth: 1, task: 'Analyze payment' };
const grandchild: WorkerInfo = { id: 'w2', depth: 2, task: 'Grep sources' };
const sibling: WorkerInfo = { id: 'w3', depth: 1, task: 'Implement changes' };

const start = (worker: WorkerInfo, parent: WorkerInfo | null): WorkerEvent => ({ type: 'worker-start', worker, parent });
const delta = (worker: WorkerInfo, text: string): WorkerEvent => ({ type: 'text-delta', worker, text });
const end = (worker: WorkerInfo, status: 'done' | 'question' | 'failed' = 'done', text = ''): WorkerEvent => ({
  type: 'worker-end',
  worker,
  status,
  text,
});
const action = (worker: WorkerInfo, name: string, input: Record<string, string>, ok = true, output = 'ok'): WorkerEvent => ({
  type: 'action',
  worker,
  name,
  input,
  ok,
  output,
});

const approval: ApprovalRequest = {
  id: 'approval:1',
  type: 'command',
  description: `bash("psql -c 'ALTER TABLE users'")`,
  details: null,
  risk: 'high',
  workerPath: [
    { id: 'r', depth: 0, task: 'Refactor the database' },
    { id: 'a', depth: 1, task: 'Update schema' },
    { id: 'b', depth: 2, task: 'Migrate production' },
  ],
};

const APPROVAL_TEXT = [
  `[Approval Required] bash("psql -c 'ALTER TABLE users'")`,
  'Risk: high',
  'Path: refactor-the-database → update-schema → migrate-production',
  '',
  '',
].join('\n');
const ASK = '[y]es / [n]o / [a]lways / [s]ession: ';

describe('TerminalAdapter input', () => {
  it('prompts "> " and resolves with the line typed', async () => {
    const t = setup();
    const line = t.adapter.getUserInput();
    t.type('hello there');
    expect(await line).toBe('hello there');
    expect(t.text()).toBe('> hello there\n');
  });

  it('keeps lines that arrive before the prompt, in order', async () => {
    const t = setup();
    await t.adapter.initialize();
    t.type('one');
    t.type('two');
    expect(await t.adapter.getUserInput()).toBe('one');
    expect(await t.adapter.getUserInput()).toBe('two');
    expect(t.text()).toBe('> one\n> two\n');
  });

  it('resolves null at the end of input, and after it', async () => {
    const t = setup();
    const line = t.adapter.getUserInput();
    t.type('last');
    t.input.end();
    expect(await line).toBe('last');
    expect(await t.adapter.getUserInput()).toBeNull();
    expect(await t.adapter.getUserInput()).toBeNull();
  });

  it('resolves a waiting prompt with null on shutdown; shutdown twice is fine', async () => {
    const t = setup();
    const line = t.adapter.getUserInput();
    await t.adapter.shutdown();
    await t.adapter.shutdown();
    expect(await line).toBeNull();
    expect(await t.adapter.getUserInput()).toBeNull();
  });
});

describe('TerminalAdapter Ctrl-C', () => {
  it('while busy: calls onInterrupt and says the session is kept', async () => {
    const onInterrupt = vi.fn();
    const t = setup({ onInterrupt });
    t.adapter.setBusy(true);
    t.adapter.onEvent(delta(root, 'Half an ans'));
    t.adapter.interrupt();
    expect(onInterrupt).toHaveBeenCalledTimes(1);
    expect(t.text()).toBe('Golem: Half an ans\nstopping… the session is kept\n');
  });

  it('a run the user stopped ends without a red "(failed)": the chat says "Stopped." itself', () => {
    const t = setup({ onInterrupt: () => undefined });
    t.adapter.setBusy(true);
    t.adapter.onEvent(start(root, null));
    t.adapter.onEvent(delta(root, 'Half an ans'));
    t.adapter.interrupt();
    t.adapter.onEvent(end(root, 'failed', 'stopped'));
    expect(t.text()).not.toContain('(failed)');
    // A run that failed on its own still says so.
    t.adapter.setBusy(true);
    t.adapter.onEvent(start(root, null));
    t.adapter.onEvent(end(root, 'failed', 'the model gave up'));
    expect(t.text()).toContain('(failed)');
  });

  it("a failed call at the root says why under it: a command's exit code and last lines, an error's message", () => {
    const t = setup({ width: 60 });
    t.adapter.onEvent(start(root, null));
    t.adapter.onEvent({
      type: 'action',
      worker: root,
      name: 'run_command',
      input: { command: 'npm test' },
      ok: false,
      output: { exitCode: 1, output: 'ran 12 tests\n1 failing\n' },
    });
    t.adapter.onEvent(action(root, 'read_file', { path: 'nope.ts' }, false, 'There is no file "nope.ts" in the project.'));
    t.adapter.onEvent(action(root, 'list_files', { path: '.' }));
    const lines = t.text().split('\n');
    const at = lines.indexOf('run_command("npm test") ✗');
    expect(lines.slice(at, at + 4)).toEqual(['run_command("npm test") ✗', '  └ exit 1', '    ran 12 tests', '    1 failing']);
    // Cut to the width, never wrapped.
    const read = lines.indexOf('read_file("nope.ts") ✗');
    expect(lines[read + 1]).toBe('  └ There is no file "nope.ts" in the project.');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60);
    expect(lines).toContain('list_files(".") ✓');
  });

  it('a backslash line waits for the rest of its message; the input ending sends what was written', async () => {
    const t = setup();
    const first = t.adapter.getUserInput();
    t.type('one \\');
    t.type('two');
    expect(await first).toBe('one \ntwo');
    const second = t.adapter.getUserInput();
    t.type('left \\');
    t.input.end();
    expect(await second).toBe('left ');
  });

  it('Ctrl-C while a message of several lines is written drops it and prompts again, without leaving', async () => {
    const t = setup();
    const read = t.adapter.getUserInput();
    t.type('draft \\');
    await new Promise((resolve) => setImmediate(resolve));
    t.adapter.interrupt();
    t.type('fresh');
    expect(await read).toBe('fresh');
  });

  it('at an empty chat prompt when idle: ends the input', async () => {
    const onInterrupt = vi.fn();
    const t = setup({ onInterrupt });
    const line = t.adapter.getUserInput();
    t.adapter.interrupt();
    expect(await line).toBeNull();
    expect(onInterrupt).not.toHaveBeenCalled();
  });

  it('at an approval question: answers no, and stops the run when busy', async () => {
    const onInterrupt = vi.fn();
    const t = setup({ onInterrupt });
    t.adapter.setBusy(true);
    const answer = t.adapter.requestApproval(approval);
    await vi.waitFor(() => expect(t.text()).toContain(ASK));
    t.adapter.interrupt();
    expect(await answer).toEqual({ approved: false, reason: 'interrupted by the user' });
    expect(onInterrupt).toHaveBeenCalledTimes(1);
  });

  describe('from the keyboard (terminal mode)', () => {
    it('clears typed text at the prompt, then ends the input on an empty line', async () => {
      const t = setup({ tty: true });
      const first = t.adapter.getUserInput();
      t.input.write('draft');
      t.input.write('\x03');
      t.type('sent');
      expect(await first).toBe('sent');
      const second = t.adapter.getUserInput();
      t.input.write('\x03');
      expect(await second).toBeNull();
    });

    it('calls onInterrupt while a run is in progress', async () => {
      const onInterrupt = vi.fn();
      const t = setup({ tty: true, onInterrupt });
      await t.adapter.initialize();
      t.adapter.setBusy(true);
      t.input.write('\x03');
      await vi.waitFor(() => expect(onInterrupt).toHaveBeenCalledTimes(1));
      expect(stripAnsi(t.text())).toContain('stopping… the session is kept\n');
    });

    it('does not let a line typed during the run answer an approval', async () => {
      const t = setup({ tty: true });
      await t.adapter.initialize();
      t.type('y');
      await new Promise((resolve) => setTimeout(resolve, 10));
      const answer = t.adapter.requestApproval(approval);
      await vi.waitFor(() => expect(stripAnsi(t.text())).toContain(ASK));
      t.type('n');
      await vi.waitFor(() => expect(t.text()).toContain('Reason (optional): '));
      t.type('');
      expect(await answer).toEqual({ approved: false });
      expect(await t.adapter.getUserInput()).toBe('y');
    });
  });
});

describe('TerminalAdapter approval', () => {
  async function ask(...lines: string[]) {
    const t = setup();
    const answer = t.adapter.requestApproval(approval);
    for (const line of lines) t.type(line);
    return { result: await answer, text: t.text() };
  }

  it('shows the request, its risk and the worker path, and reads y', async () => {
    const { result, text } = await ask('y');
    expect(result).toEqual({ approved: true });
    expect(text).toBe(`${APPROVAL_TEXT}${ASK}y\n`);
  });

  it('reads n and the reason', async () => {
    const { result, text } = await ask('n', '  not on production  ');
    expect(result).toEqual({ approved: false, reason: 'not on production' });
    expect(text).toBe(`${APPROVAL_TEXT}${ASK}n\nReason (optional):   not on production  \n`);
  });

  it('reads n with no reason', async () => {
    const { result } = await ask('no', '');
    expect(result).toEqual({ approved: false });
    expect(Object.keys(result)).toEqual(['approved']);
  });

  it('reads a (always) and s (session)', async () => {
    expect((await ask('a')).result).toEqual({ approved: 'always' });
    expect((await ask('Session')).result).toEqual({ approved: 'session' });
  });

  it('asks again after an answer it does not know', async () => {
    const { result, text } = await ask('maybe', '', 'yes');
    expect(result).toEqual({ approved: true });
    const retry = 'Please answer y, n, a or s.\n';
    expect(text).toBe(`${APPROVAL_TEXT}${ASK}maybe\n${retry}${ASK}\n${retry}${ASK}yes\n`);
  });

  it('shows what the server changed in an MCP tool it asks about: the description before and now, and that the input schema changed', async () => {
    const t = setup();
    const changed: ApprovalRequest = {
      ...approval,
      type: 'tool_call',
      details: {
        server: 'notes',
        tool: 'add_note',
        changed: {
          before: { description: 'Adds a note.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
          now: {
            description: 'Adds a note, and mails it\x1b[2J to everyone.',
            inputSchema: { type: 'object', properties: { text: { type: 'string' }, to: { type: 'string' } } },
          },
        },
      },
    };
    const answer = t.adapter.requestApproval(changed);
    await vi.waitFor(() => expect(t.text()).toContain(ASK));
    t.input.end();
    await answer;
    const text = t.text();
    expect(text).toContain('The MCP server changed this tool:\n');
    expect(text).toContain('  description before: Adds a note.\n');
    expect(text).toContain('  description now:    Adds a note, and mails it');
    expect(text).not.toContain('\x1b[2J');
    expect(text).toContain('  input schema before: {"type":"object","properties":{"text":{"type":"string"}}}\n');
    expect(text).toContain('  input schema now:    {"type":"object","properties":{"text":{"type":"string"},"to":{"type":"string"}}}\n');
  });

  it('reads why it asks as the page does (approvalExplanation): a malformed change or risk reason is left out', async () => {
    const t = setup();
    const details = {
      riskReason: 7,
      changed: { before: { description: 5, inputSchema: {} }, now: { description: 'Adds a note, and mails it.', inputSchema: {} } },
    };
    expect(approvalExplanation(details)).toEqual({});
    const answer = t.adapter.requestApproval({ ...approval, type: 'tool_call', details, risk: 'medium', workerPath: [] });
    await vi.waitFor(() => expect(t.text()).toContain(ASK));
    t.input.end();
    await answer;
    expect(t.text()).toBe(`[Approval Required] ${approval.description}\nRisk: medium\n\n${ASK}\n`);
  });

  it('answers no when the input ends', async () => {
    const t = setup();
    const answer = t.adapter.requestApproval(approval);
    t.input.end();
    expect(await answer).toEqual({ approved: false, reason: 'no answer (input closed)' });
  });

  it('parses answers', () => {
    expect(parseApprovalAnswer(' Y ')).toEqual({ approved: true });
    expect(parseApprovalAnswer('n')).toBe('reason');
    expect(parseApprovalAnswer('ALWAYS')).toEqual({ approved: 'always' });
    expect(parseApprovalAnswer('s')).toEqual({ approved: 'session' });
    expect(parseApprovalAnswer('yep')).toBeUndefined();
    expect(parseApprovalAnswer('')).toBeUndefined();
  });

  it('asks one question at a time', async () => {
    const t = setup();
    const first = t.adapter.requestApproval(approval);
    const second = t.adapter.requestApproval({ ...approval, description: 'second', risk: 'low', workerPath: [] });
    t.type('y');
    t.type('s');
    expect(await first).toEqual({ approved: true });
    expect(await second).toEqual({ approved: 'session' });
    expect(t.text()).toBe(`${APPROVAL_TEXT}${ASK}y\n\n[Approval Required] second\nRisk: low\n\n${ASK}s\n`);
  });

  it('shows an unknown risk, and the reason the action gives for its risk, without its control characters', async () => {
    const t = setup();
    const details = { command: 'foo --bar', cwd: '.', riskReason: 'runs \x1b[2Jfoo, a program the rules do not know' };
    const answer = t.adapter.requestApproval({ ...approval, description: 'foo --bar', details, risk: 'unknown', workerPath: [] });
    t.type('y');
    expect(await answer).toEqual({ approved: true });
    expect(t.text()).toContain('Risk: unknown (runs [2Jfoo, a program the rules do not know)\n');
  });
});

describe('TerminalAdapter streaming', () => {
  it('streams the root answer after "Golem: ", aligning continuation lines', () => {
    const t = setup();
    t.adapter.onEvent(start(root, null));
    t.adapter.onEvent(delta(root, 'Hel'));
    t.adapter.onEvent(delta(root, 'lo!\nSecond'));
    t.adapter.onEvent(delta(root, ' line.\n\nAfter a blank.'));
    // Markdown is drawn a complete line at a time: the last line waits for its end.
    expect(t.text()).toBe('Golem: Hello!\n       Second line.\n\n');
    t.adapter.onEvent(end(root, 'done', 'After a blank.'));
    expect(t.text()).toBe('Golem: Hello!\n       Second line.\n\n       After a blank.\n');
  });

  it('prints the final text when nothing was streamed', () => {
    const t = setup();
    t.adapter.onEvent(start(root, null));
    t.adapter.onEvent(end(root, 'done', 'All done.'));
    expect(t.text()).toBe('Golem: All done.\n');
  });

  it('ends the line at a root action, and starts a new answer after it', () => {
    const t = setup();
    t.adapter.onEvent(delta(root, 'Looking.'));
    t.adapter.onEvent(action(root, 'read_file', { path: 'a.ts' }));
    t.adapter.onEvent(delta(root, 'Found it.'));
    t.adapter.onEvent(end(root));
    expect(t.text()).toBe('Golem: Looking.\nread_file("a.ts") ✓\n\nGolem: Found it.\n');
  });

  it('frames a sub-worker in a box: header, prefixed lines, actions, footer', () => {
    const t = setup();
    t.adapter.onEvent(delta(root, 'On it.'));
    t.adapter.onEvent(start(child, root));
    t.adapter.onEvent(action(child, 'read_file', { path: 'src/pay.ts' }));
    t.adapter.onEvent(action(child, 'grep', { pattern: 'throw', path: 'src/' }, false, 'no such folder'));
    t.adapter.onEvent(delta(child, 'Found 3 fun'));
    t.adapter.onEvent(delta(child, 'ctions\nwithout error handling, which wraps at the box'));
    t.adapter.onEvent(delta(child, '\n'));
    t.adapter.onEvent(end(child, 'done', 'Found 3 functions'));
    expect(t.text()).toBe(
      [
        'Golem: On it.',
        '',
        '[Calling worker: analyze-payment]',
        '┌─ analyze-payment ────────────────────┐',
        '│ read_file("src/pay.ts") ✓            │',
        '│ grep("throw", "src/") ✗              │',
        '│   └ no such folder                   │',
        '│ Found 3 functions                    │',
        '│ without error handling, which wraps  │',
        '│ at the box                           │',
        '└──────────────────────────────────────┘',
        '',
      ].join('\n'),
    );
    for (const line of t.text().split('\n').slice(3, -1)) expect(line).toHaveLength(40);
  });

  it('nests a depth-2 box inside its parent, and shows a failed status', () => {
    const t = setup();
    t.adapter.onEvent(start(child, root));
    t.adapter.onEvent(delta(child, 'Looking first.\nThen'));
    t.adapter.onEvent(start(grandchild, child));
    t.adapter.onEvent(delta(grandchild, 'no match'));
    t.adapter.onEvent(end(grandchild, 'failed', 'folder missing'));
    t.adapter.onEvent(action(child, 'worker', { task: 'Grep sources' }, false, 'failed'));
    t.adapter.onEvent(end(child, 'question', 'Which folder?'));
    expect(t.text()).toBe(
      [
        '[Calling worker: analyze-payment]',
        '┌─ analyze-payment ────────────────────┐',
        '│ Looking first.                       │',
        '│ Then                                 │',
        '│ [Calling worker: grep-sources]       │',
        '│ ┌─ grep-sources ───────────────────┐ │',
        '│ │ no match                         │ │',
        '│ │ folder missing                   │ │',
        '│ └─ failed ─────────────────────────┘ │',
        '│ worker("Grep sources") ✗             │',
        '│   └ failed                           │',
        '│ Which folder?                        │',
        '└─ question ───────────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('keeps a buffer per worker when their events interleave', () => {
    const t = setup();
    t.adapter.onEvent(start(child, root));
    t.adapter.onEvent(start(sibling, root));
    t.adapter.onEvent(delta(child, 'alpha be'));
    t.adapter.onEvent(delta(sibling, 'one tw'));
    t.adapter.onEvent(delta(child, 'ta\ngam'));
    t.adapter.onEvent(delta(sibling, 'o\n'));
    t.adapter.onEvent(end(sibling));
    t.adapter.onEvent(end(child));
    const lines = t.text().split('\n');
    expect(lines.slice(5)).toEqual([
      '│ alpha beta                           │',
      '│ one two                              │',
      '└──────────────────────────────────────┘',
      '│ gam                                  │',
      '└──────────────────────────────────────┘',
      '',
    ]);
  });

  it('keeps the boxes of workers side by side apart: a line as each starts, each box whole when it ends', () => {
    const t = setup();
    const side = (worker: WorkerInfo, index: number): WorkerEvent => ({ type: 'worker-start', worker, parent: root, batch: { index, size: 2 } });
    t.adapter.onEvent(side(child, 0));
    t.adapter.onEvent(side(sibling, 1));
    t.adapter.onEvent(delta(child, 'alpha be'));
    t.adapter.onEvent(delta(sibling, 'one tw'));
    t.adapter.onEvent(action(child, 'read_file', { path: 'a.ts' }));
    t.adapter.onEvent(delta(child, 'ta\n'));
    t.adapter.onEvent(delta(sibling, 'o\n'));
    t.adapter.onEvent(end(sibling, 'done', 'one two'));
    t.adapter.onEvent(end(child, 'done'));
    expect(t.text()).toBe(
      [
        '[worker 1 of 2 side by side: analyze-payment]',
        '[worker 2 of 2 side by side: implement-changes]',
        '',
        '[Calling worker: implement-changes]',
        '┌─ implement-changes ──────────────────┐',
        '│ one two                              │',
        '└──────────────────────────────────────┘',
        '',
        '[Calling worker: analyze-payment]',
        '┌─ analyze-payment ────────────────────┐',
        '│ alpha be                             │',
        '│ read_file("a.ts") ✓                  │',
        '│ ta                                   │',
        '└──────────────────────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('on a live terminal, lists the workers side by side at the bottom, and a typed number expands one', async () => {
    const t = setup({ tty: true, width: 60 });
    await t.adapter.initialize();
    const side = (worker: WorkerInfo, index: number): WorkerEvent => ({ type: 'worker-start', worker, parent: root, batch: { index, size: 2 } });
    t.adapter.onEvent(side(child, 0));
    t.adapter.onEvent(side(sibling, 1));
    t.adapter.onEvent(action(child, 'read_file', { path: 'a.ts' }));
    const listed = stripAnsi(t.text());
    expect(listed).toContain('  1 ● analyze-payment · read_file ✓');
    expect(listed).toContain('  2 ● implement-changes · starting');
    expect(listed).toContain('type a number and Enter to expand a worker');
    expect(listed).not.toContain('┌─ analyze-payment');
    // Typing 1 expands the first: its box so far is printed, and what follows streams.
    t.type('1');
    await new Promise((resolve) => setImmediate(resolve));
    t.adapter.onEvent(delta(child, 'streamed now\n'));
    const expanded = stripAnsi(t.text());
    expect(expanded).toContain('┌─ analyze-payment');
    expect(expanded).toContain('│ streamed now');
    expect(expanded).toContain('analyze-payment · expanded · writing…');
    expect(expanded).not.toContain('┌─ implement-changes');
    t.adapter.onEvent(end(sibling));
    t.adapter.onEvent(end(child));
    // Both ended: the list is gone (erased), both boxes are on the screen, and "1" was not kept for the chat prompt.
    const last = stripAnsi(t.text().slice(t.text().lastIndexOf('\x1b[J')));
    expect(last).not.toContain('● ');
    expect(stripAnsi(t.text())).toContain('┌─ implement-changes');
    t.adapter.setBusy(false);
    const next = t.adapter.getUserInput();
    t.type('hello');
    expect(await next).toBe('hello');
  });

  it('prints a new header when a worker starts again (a resumed run)', () => {
    const t = setup();
    t.adapter.onEvent(start(child, root));
    t.adapter.onEvent(delta(child, 'before the pause'));
    t.adapter.onEvent(start(child, root));
    t.adapter.onEvent(end(child));
    expect(t.text()).toBe(
      [
        '[Calling worker: analyze-payment]',
        '┌─ analyze-payment ────────────────────┐',
        '│ before the pause                     │',
        '',
        '[Calling worker: analyze-payment]',
        '┌─ analyze-payment ────────────────────┐',
        '└──────────────────────────────────────┘',
        '',
      ].join('\n'),
    );
  });

  it('cuts a long task to a short slug for the box name', () => {
    expect(taskSlug('Analyze the payment module for missing error handling, then report')).toBe('analyze-the-payment-module-for-missing');
    expect(taskSlug('  Fix: README.md!  ')).toBe('fix-readme-md');
    expect(taskSlug('???')).toBe('worker');
    expect(taskSlug('x'.repeat(60))).toHaveLength(40);
  });

  it('keeps control characters from model text out of the terminal', () => {
    const t = setup();
    t.adapter.onEvent(delta(root, 'red \x1b[31mtext\x07\n'));
    expect(t.text()).toBe('Golem: red [31mtext\n');
  });

  it("keeps control characters in a call's name (the model's, or an MCP server's) out of the terminal, drawn and reopened", async () => {
    const t = setup();
    const hostile = 'x\x1b]0;PWNED\x07\x1b[2J';
    t.adapter.onEvent(action(root, hostile, { a: '1' }, false, 'no such action'));
    await t.adapter.displayMessage({ role: 'assistant', content: 'Done.', metadata: { toolCalls: [{ name: hostile, input: {} }], timestamp: 0 } });
    const shown = t.text();
    expect(shown).toContain('x]0;PWNED[2J(');
    expect(shown.includes('\x1b') || shown.includes('\x07')).toBe(false);
  });
});

describe('TerminalAdapter history', () => {
  it('keeps only what the chat prompt took: lines piped ahead that answer a question never reach the history', async () => {
    const kept: string[] = [];
    const t = setup({ history: { entries: () => [], add: (message) => void kept.push(message) } });
    // Three lines at once: the chat prompt takes the first, the others wait (as piped input does) and answer the approval.
    const first = t.adapter.getUserInput();
    t.input.write('please deploy\nn\nhunter2-secret-token\n');
    expect(await first).toBe('please deploy');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await t.adapter.requestApproval(approval)).toEqual({ approved: false, reason: 'hunter2-secret-token' });
    expect(kept).toEqual(['please deploy']);
  });
});

describe('TerminalAdapter messages and progress', () => {
  it('labels messages by role', async () => {
    const t = setup();
    await t.adapter.displayMessage({ role: 'user', content: 'Fix it' });
    await t.adapter.displayMessage({ role: 'assistant', content: 'Done! Added try/catch,\nand refund().' });
    await t.adapter.displayMessage({ role: 'system', content: 'User pushed a staged commit' });
    expect(t.text()).toBe('You: Fix it\n\nGolem: Done! Added try/catch,\n       and refund().\n[System] User pushed a staged commit\n');
  });

  it("prints the caller's own text on a line of its own", () => {
    const t = setup();
    t.adapter.onEvent(delta(root, 'Partial'));
    t.adapter.print('  clearance:1  staged_commit  pending  Report');
    t.adapter.print('help\n');
    expect(t.text()).toBe('Golem: Partial\n  clearance:1  staged_commit  pending  Report\nhelp\n');
  });

  it('shows the progress tree', () => {
    const t = setup();
    t.adapter.showProgress({ id: '1', description: 'Refactor', depth: 0, status: 'running' });
    t.adapter.showProgress({ id: '2', description: 'Analyzed', depth: 1, status: 'complete' });
    t.adapter.showProgress({ id: '3', description: 'Implement', depth: 1, status: 'waiting' });
    t.adapter.showProgress({ id: '4', description: 'Migrate', depth: 2, status: 'failed' });
    // A depth-2 worker's line goes inside its parent's box.
    expect(t.text()).toMatch(/^● Refactor\n {2}✓ Analyzed\n {2}○ Implement\n│ ✗ Migrate {2,}│\n$/);
  });

  it('prints status lines, errors in red', () => {
    const t = setup({ color: true });
    t.adapter.updateStatus({ text: 'thinking' });
    t.adapter.updateStatus({ text: 'model unreachable', level: 'error' });
    expect(t.text()).toBe('\x1b[2mthinking\x1b[22m\n\x1b[31mmodel unreachable\x1b[39m\n');
  });
});

describe('TerminalAdapter clearance', () => {
  const item = {
    id: 'clearance:7',
    type: 'staged_commit' as const,
    description: 'Quarterly report',
    createdAt: Date.UTC(2026, 0, 2),
    metadata: {},
  };

  it('notifies pending items, and nothing when there are none', () => {
    const t = setup();
    t.adapter.notifyClearancePending([]);
    expect(t.text()).toBe('');
    t.adapter.notifyClearancePending([item, { ...item, id: 'clearance:8' }]);
    expect(t.text()).toBe('[!] 2 item(s) pending clearance\n    Run: golem clearance list (or /clearance in this chat)\n');
  });

  it('asks for a decision, again after an unknown answer', async () => {
    const t = setup();
    const decision = t.adapter.getClearanceDecision(item);
    t.type('x');
    t.type('push main');
    expect(await decision).toEqual({ action: 'push', target: 'main' });
    expect(t.text()).toBe(
      [
        '[Clearance] Quarterly report',
        'staged commit · clearance:7 · 2026-01-02T00:00:00.000Z',
        '[p]ush / [d]iscard / [l]ater: x',
        'Please answer p, d or l.',
        '[p]ush / [d]iscard / [l]ater: push main',
        '',
      ].join('\n'),
    );
  });

  it('defers when the input ends', async () => {
    const t = setup();
    const decision = t.adapter.getClearanceDecision(item);
    t.input.end();
    expect(await decision).toEqual({ action: 'defer' });
  });

  it('parses decisions', () => {
    expect(parseClearanceAnswer('p')).toEqual({ action: 'push' });
    expect(parseClearanceAnswer('Discard')).toEqual({ action: 'discard' });
    expect(parseClearanceAnswer('l')).toEqual({ action: 'defer' });
    expect(parseClearanceAnswer('later')).toEqual({ action: 'defer' });
    expect(parseClearanceAnswer('d now')).toBeUndefined();
    expect(parseClearanceAnswer('keep')).toBeUndefined();
  });

  it('shows results and reports state changes to the callbacks', () => {
    const t = setup();
    t.adapter.displayClearanceResult({ item, decision: { action: 'push' }, ok: true, message: 'pushed to main' });
    t.adapter.displayClearanceResult({ item, decision: { action: 'discard' }, ok: false, message: 'already gone' });
    expect(t.text()).toBe('✓ Pushed: Quarterly report (pushed to main)\n✗ Could not discard: Quarterly report (already gone)\n');
    const seen: number[] = [];
    t.adapter.onClearanceStateChange((items) => seen.push(items.length));
    t.adapter.onClearanceStateChange((items) => seen.push(items.length * 10));
    t.adapter.clearanceChanged([item]);
    expect(seen).toEqual([1, 10]);
  });
});

describe('TerminalAdapter diff', () => {
  const diff = { title: 'src/a.ts', diff: '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n-old\n+const next = "new";\n same\n' };

  it('prints the diff plain without color', async () => {
    const t = setup();
    await t.adapter.displayDiff(diff);
    expect(t.text()).toBe(`src/a.ts\n${diff.diff}`);
  });

  it('colors added, removed, hunk and header lines, and the code in its file’s language', async () => {
    const t = setup({ color: true });
    await t.adapter.displayDiff(diff);
    expect(t.text()).toBe(
      [
        '\x1b[1msrc/a.ts\x1b[22m',
        '\x1b[1m--- a/src/a.ts\x1b[22m',
        '\x1b[1m+++ b/src/a.ts\x1b[22m',
        '\x1b[36m@@ -1,2 +1,2 @@\x1b[39m',
        '\x1b[31m\x1b[1m-\x1b[22m\x1b[39m\x1b[31mold\x1b[39m',
        // A .ts file: the keyword magenta, the string yellow, the rest the addition's green.
        '\x1b[32m\x1b[1m+\x1b[22m\x1b[39m\x1b[35mconst\x1b[39m\x1b[32m next = \x1b[39m\x1b[33m"new"\x1b[39m\x1b[32m;\x1b[39m',
        ' same',
        '',
      ].join('\n'),
    );
  });
});
