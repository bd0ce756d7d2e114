import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { WorkerEvent, WorkerInfo } from '../agent/ui-adapter.js';
import { TerminalAdapter } from './terminal-adapter.js';

const root: WorkerInfo = { id: 'root', depth: 0, task: 'Chat' };
const child: WorkerInfo = { id: 'w1', depth: 1, task: 'Check the tables' };

function setup() {
  const output = new PassThrough();
  output.setEncoding('utf8');
  let written = '';
  const adapter = new TerminalAdapter({ input: new PassThrough(), output, color: false, width: 40 });
  return {
    adapter,
    text: (): string => {
      for (let chunk = output.read() as string | null; chunk !== null; chunk = output.read() as string | null) written += chunk;
      return written;
    },
  };
}

describe("a sub-worker's box", () => {
  it("draws the worker's markdown, and its answer's last line as soon as the answer is complete", () => {
    const t = setup();
    const answer: WorkerEvent = { type: 'answer', worker: child, turnId: 't1', version: 1 };
    t.adapter.onEvent({ type: 'worker-start', worker: child, parent: root });
    t.adapter.onEvent({ type: 'text-delta', worker: child, text: '**Two** tables:\n- `a.md`\n- b.md, the last' });
    expect(t.text()).not.toContain('the last');
    t.adapter.onEvent(answer);
    expect(t.text().split('\n').slice(2)).toEqual([
      '│ Two tables:                          │',
      '│ • `a.md`                             │',
      '│ • b.md, the last                     │',
      '',
    ]);
  });
});
