import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest, ClearanceItem, WorkerEvent, WorkerInfo } from '../agent/ui-adapter.js';
import { stripAnsi } from './ansi.js';
import { TerminalAdapter, type TerminalAdapterOptions } from './terminal-adapter.js';
import type { PlanTask } from './plan-view.js';

const open: TerminalAdapter[] = [];
afterEach(async () => {
  for (const adapter of open.splice(0)) await adapter.shutdown();
});

/**
 * A live adapter (its output a TTY; not, with `tty: false`) and what it wrote; `footer()` is what is
 * drawn after the last erase, `plain()` all of it without colors or cursor moves.
 */
function live(options: Partial<TerminalAdapterOptions> & { tty?: boolean } = {}) {
  const input = new PassThrough();
  const output = Object.assign(new PassThrough(), options.tty === false ? {} : { isTTY: true, columns: 70 });
  output.setEncoding('utf8');
  let written = '';
  const adapter = new TerminalAdapter({ input, output, color: false, ...options });
  open.push(adapter);
  const text = (): string => {
    for (let chunk = output.read() as string | null; chunk !== null; chunk = output.read() as string | null) written += chunk;
    return written;
  };
  // eslint-disable-next-line no-control-regex
  const withoutMoves = (t: string) => stripAnsi(t).replace(/\x1b\[[\d;?]*[A-Za-z]/g, '');
  return {
    input,
    adapter,
    text,
    plain: () => withoutMoves(text()),
    footer: () => {
      const at = text().lastIndexOf('\x1b[J');
      return withoutMoves(text().slice(at < 0 ? 0 : at + 3));
    },
  };
}

const root: WorkerInfo = { id: 'root', depth: 0, task: 'Chat' };
const a: WorkerInfo = { id: 'a', depth: 1, task: 'Read the docs' };
const b: WorkerInfo = { id: 'b', depth: 1, task: 'Run the tests' };
const side = (worker: WorkerInfo, index: number): WorkerEvent => ({ type: 'worker-start', worker, parent: root, batch: { index, size: 2 } });
const approval: ApprovalRequest = {
  id: 'approval:1',
  type: 'command',
  description: 'npm test',
  risk: 'medium',
  details: {},
  workerPath: [],
};

describe('the footer of a live terminal', () => {
  it('keeps the progress line under the workers running side by side, and takes the footer away while a question is asked', async () => {
    const t = live();
    await t.adapter.initialize();
    t.adapter.setBusy(true);
    expect(t.footer()).toMatch(/^. Thinking… \(0s · Esc to interrupt\)\n$/);
    t.adapter.onEvent(side(a, 0));
    t.adapter.onEvent(side(b, 1));
    const lines = t.footer().split('\n').slice(-5);
    expect(lines[0]).toMatch(/^ {2}1 ● read-the-docs · starting/);
    expect(lines[1]).toMatch(/^ {2}2 ● run-the-tests · starting/);
    expect(lines[2]).toBe('  type a number and Enter to expand a worker');
    expect(lines[3]).toMatch(/^. Thinking… \(\d+s · Esc to interrupt\)$/);
    // A question: the footer goes before it is asked, and comes back once it is answered.
    const answer = t.adapter.requestApproval(approval);
    expect(t.footer()).not.toContain('Esc to interrupt');
    expect(t.footer()).toContain('[Approval Required] npm test');
    // A key takes the answer only once the question offers its answer line (after the keyboard was quiet a moment).
    await vi.waitFor(() => expect(t.text()).toContain('[y]es / [n]o'));
    t.input.write('y');
    expect(await answer).toEqual({ approved: true });
    expect(t.footer()).toContain('Esc to interrupt');
    for (const worker of [a, b]) t.adapter.onEvent({ type: 'worker-end', worker, status: 'done', text: '' });
    expect(t.footer()).toMatch(/^. Thinking… \(\d+s · Esc to interrupt\)\n$/);
    // The run ended: nothing is drawn after the last erase.
    t.adapter.setBusy(false);
    expect(t.text().endsWith('\x1b[J')).toBe(true);
  });

  it('draws what the user typed ahead again under the footer each time the footer is drawn', async () => {
    const t = live();
    await t.adapter.initialize();
    t.adapter.setBusy(true);
    t.input.write('12');
    await new Promise((resolve) => setImmediate(resolve));
    t.adapter.updateStatus({ text: 'a line above the footer', level: 'info' });
    expect(t.footer()).toMatch(/^a line above the footer\n. Thinking… \(\d+s · Esc to interrupt\)\n12$/);
    // The cursor moved back one (←) is put back there after each redraw.
    t.input.write('\x1b[D');
    await new Promise((resolve) => setImmediate(resolve));
    t.adapter.updateStatus({ text: 'another line', level: 'info' });
    expect(t.text().endsWith('Esc to interrupt)\n12\x1b[1D')).toBe(true);
    t.adapter.setBusy(false);
  });

  it('erases a footer whose line typed ahead wrapped from its first row, leaving no copy of itself', async () => {
    const t = live();
    await t.adapter.initialize();
    t.adapter.setBusy(true);
    t.input.write('x'.repeat(150)); // over two rows at 70 columns
    await new Promise((resolve) => setImmediate(resolve));
    const before = t.text().length;
    t.adapter.updateStatus({ text: 'a line above the footer', level: 'info' });
    // Up to the progress line: its one row, and the two rows the typed line wrapped onto below it.
    expect(t.text().slice(before)).toContain('\x1b[3F\x1b[J');
    t.adapter.setBusy(false);
  });

  it("shows the answer's line being written above the progress line, its open marks closed, until the line is complete", async () => {
    const t = live();
    await t.adapter.initialize();
    t.adapter.setBusy(true);
    t.adapter.onEvent({ type: 'text-delta', worker: root, text: 'Here is **bold te' });
    expect(t.footer()).toMatch(/^Golem: Here is bold te\n. Writing… \(\d+s · Esc to interrupt\)\n$/);
    t.adapter.onEvent({ type: 'text-delta', worker: root, text: 'xt** and `co' });
    expect(t.footer()).toMatch(/^Golem: Here is bold text and `co`\n. Writing…/);
    t.adapter.onEvent({ type: 'text-delta', worker: root, text: 'de` done.\nNext' });
    // The complete line is drawn for good above the footer; the next one is shown meanwhile.
    expect(t.footer()).toMatch(/^Golem: Here is bold text and `code` done.\n {7}Next\n. Writing…/);
    t.adapter.onEvent({ type: 'worker-end', worker: root, status: 'done', text: '' });
    t.adapter.setBusy(false);
    // The last line drawn for good as the answer ended, over its preview; then nothing below.
    expect(stripAnsi(t.text())).toContain('\x1b[J       Next\n');
    expect(t.footer()).toBe('');
  });
});

const item = (id: string): ClearanceItem => ({ id, type: 'staged_commit', description: `Changes to ${id}`, createdAt: 0, metadata: {} });

describe('the status line of what waits for clearance', () => {
  it('is kept over the progress line while a run goes, follows the count, and goes when nothing waits', () => {
    const t = live();
    t.adapter.setBusy(true);
    expect(t.footer()).not.toContain('clearance');
    t.adapter.notifyClearancePending([item('a')]);
    // Just over the progress line (the notice of the new item is written above the footer).
    expect(t.footer()).toMatch(/\n1 item waits for clearance · \/clearance\n. Thinking… \(0s · Esc to interrupt\)\n$/);
    t.adapter.clearanceChanged([item('a'), item('b')]);
    expect(t.footer()).toMatch(/^2 items wait for clearance · \/clearance\n. Thinking…/);
    t.adapter.clearanceChanged([]);
    expect(t.footer()).not.toContain('clearance');
    t.adapter.setBusy(false);
  });

  it('is written over the chat prompt while items wait, and not once none does', async () => {
    const t = live();
    t.adapter.clearanceChanged([item('a'), item('b')]);
    const first = t.adapter.getUserInput();
    t.input.write('hi\r');
    expect(await first).toBe('hi');
    expect(t.plain()).toMatch(/^2 items wait for clearance · \/clearance\n> hi/m);
    t.adapter.clearanceChanged([]);
    const before = t.plain().length;
    const second = t.adapter.getUserInput();
    t.input.write('again\r');
    expect(await second).toBe('again');
    expect(t.plain().slice(before)).not.toContain('clearance');
  });
});

const a1: WorkerInfo = { id: 'a1', depth: 2, task: 'Grep the guide' };
const start = (worker: WorkerInfo, parent: WorkerInfo): WorkerEvent => ({ type: 'worker-start', worker, parent });
const action = (worker: WorkerInfo, ok: boolean): WorkerEvent => ({ type: 'action', worker, name: 'read_file', input: {}, ok, output: '' });
const end = (worker: WorkerInfo, status: 'done' | 'failed' | 'question', text = ''): WorkerEvent => ({ type: 'worker-end', worker, status, text });

describe('sub-workers in the summary progress mode', () => {
  it('keeps a line per running sub-worker, each under the one that started it, and prints one line as each ends, with no box', () => {
    const { adapter, plain, footer } = live({ progress: 'summary', width: 70 });
    adapter.setBusy(true);
    adapter.onEvent(start(root, root));
    adapter.onEvent(start(a, root));
    adapter.onEvent(start(b, root));
    // Started after its parent's sibling: still drawn under its parent.
    adapter.onEvent(start(a1, a));
    adapter.onEvent(action(a, true));
    adapter.onEvent({ type: 'text-delta', worker: b, text: 'Running them now' });
    const lines = footer().split('\n');
    expect(lines.slice(0, 3).map((l) => l.replace(/\d+\.\ds$/, 'Ts'))).toEqual([
      '  ● read-the-docs · read_file ✓ · 1 action · Ts',
      '    ● grep-the-guide · starting · Ts',
      '  ● run-the-tests · writing… · Ts',
    ]);
    expect(lines[3]).toMatch(/Thinking… \(\d+s · Esc to interrupt\)/);

    adapter.onEvent(action(a1, false));
    adapter.onEvent(end(a1, 'failed', 'no such file\nmore'));
    adapter.onEvent(end(a, 'done'));
    adapter.onEvent(end(b, 'question', 'Which suite?'));
    const shown = plain();
    expect(shown).toMatch(/^ {2}✗ grep-the-guide · failed: no such file · \d+\.\ds$/m);
    expect(shown).toMatch(/^✓ read-the-docs · 1 action · \d+\.\ds$/m);
    expect(shown).toMatch(/^\? run-the-tests · asks: Which suite\? · \d+\.\ds$/m);
    // What the workers wrote goes to their parents: not here, nor any box.
    expect(shown).not.toContain('Running them now');
    expect(shown).not.toMatch(/[┌└│]/);
    // None runs now: only the progress line is left at the bottom.
    expect(footer()).not.toContain('●');
    adapter.setBusy(false);
  });

  it('prints only the line of how each ended on an output that is not a terminal', () => {
    const { adapter, text } = live({ progress: 'summary', width: 70, tty: false });
    adapter.onEvent(start(a, root));
    adapter.onEvent(action(a, true));
    adapter.onEvent(action(a, false));
    adapter.onEvent(end(a, 'done'));
    expect(text().replace(/\d+\.\ds/, 'Ts')).toBe('✓ read-the-docs · 2 actions (1 failed) · Ts\n');
  });
});

const task = (id: string, title: string, steps: [string, PlanTask['steps'][number]['status']][], parentTask: PlanTask['parentTask'] = null): PlanTask => ({
  id,
  title,
  status: 'accepted',
  parentTask,
  steps: steps.map(([text, status]) => ({ text, status })),
});

describe('plans in the terminal', () => {
  it('keeps the checklist above the progress line while a run goes, a sub-worker’s plan under its parent’s step, and redraws it as steps change', () => {
    let plans: PlanTask[] = [
      task('t1', 'Fix the rounding', [
        ['Read the invoice code', 'done'],
        ['Fix it', 'in_progress'],
        ['Run the tests', 'pending'],
      ]),
      task(
        't2',
        'Find the callers',
        [
          ['Grep for round(', 'done'],
          ['List them', 'skipped'],
        ],
        { taskId: 't1', step: 1 },
      ),
    ];
    const t = live({ plans: () => plans });
    t.adapter.setBusy(true);
    expect(t.footer().split('\n').slice(0, 8)).toEqual([
      'Plan: Fix the rounding',
      '  ✓ 1. Read the invoice code',
      '  ● 2. Fix it',
      '    Plan: Find the callers',
      '      ✓ 1. Grep for round(',
      '      – 2. List them',
      '  ○ 3. Run the tests',
      expect.stringMatching(/^. Thinking… \(0s · Esc to interrupt\)$/),
    ]);
    plans = [
      task('t1', 'Fix the rounding', [
        ['Read the invoice code', 'done'],
        ['Fix it', 'done'],
        ['Run the tests', 'in_progress'],
      ]),
    ];
    t.adapter.plansChanged();
    expect(t.footer()).toMatch(/^Plan: Fix the rounding\n {2}✓ 1\. Read the invoice code\n {2}✓ 2\. Fix it\n {2}● 3\. Run the tests\n. Thinking…/);
    // The run ended: the checklist goes with the progress line.
    t.adapter.setBusy(false);
    expect(t.footer()).toBe('');
  });

  it('asks about a proposed plan with one key: accept, edit (the steps typed again) or decline with a reason', async () => {
    const edits: unknown[] = [];
    const t = live({ editPlan: async (taskId, e) => void edits.push([taskId, e]) });
    await t.adapter.initialize();
    const plan: ApprovalRequest = {
      ...approval,
      type: 'plan',
      description: 'Plan: Fix it',
      details: { taskId: 't1', title: 'Fix it', steps: ['Read', 'Fix'] },
    };
    const ask = async (keys: string[]) => {
      const answer = t.adapter.requestApproval(plan);
      for (const key of keys) {
        const before = (t.plain().match(/\[a\]ccept|^\d\. |Reason/gm) ?? []).length;
        await vi.waitFor(() => expect((t.plain().match(/\[a\]ccept|^\d\. |Reason/gm) ?? []).length).toBeGreaterThan(before));
        t.input.write(key);
      }
      return answer;
    };
    expect(await ask(['a'])).toEqual({ approved: true });
    expect(t.plain()).toContain('[Plan proposed] Fix it\n  ○ 1. Read\n  ○ 2. Fix\n');
    expect(await ask(['e', 'Read the code\r', 'Fix the bug\r', '\r'])).toEqual({ approved: true });
    expect(edits).toEqual([['t1', { steps: ['Read the code', 'Fix the bug'] }]]);
    expect(await ask(['d', 'not now\r'])).toEqual({ approved: false, reason: 'not now' });
  });
});
