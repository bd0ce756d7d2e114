import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalRequest, WorkerEvent, WorkerInfo } from '../agent/ui-adapter.js';
import { stripAnsi } from './ansi.js';
import { TerminalAdapter } from './terminal-adapter.js';

const open: TerminalAdapter[] = [];
afterEach(async () => {
  for (const adapter of open.splice(0)) await adapter.shutdown();
});

/** A live adapter (its output a TTY) and what it wrote; `footer()` is what is drawn after the last erase. */
function live() {
  const input = new PassThrough();
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 70 });
  output.setEncoding('utf8');
  let written = '';
  const adapter = new TerminalAdapter({ input, output, color: false });
  open.push(adapter);
  const text = (): string => {
    for (let chunk = output.read() as string | null; chunk !== null; chunk = output.read() as string | null) written += chunk;
    return written;
  };
  return {
    input,
    adapter,
    text,
    footer: () => {
      const at = text().lastIndexOf('\x1b[J');
      // eslint-disable-next-line no-control-regex
      return stripAnsi(text().slice(at < 0 ? 0 : at + 3)).replace(/\x1b\[\?\d+[hl]/g, '');
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
