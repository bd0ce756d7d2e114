import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { formatElapsed, Progress } from './progress.js';
import { Screen } from './screen.js';

function screenOn(tty: boolean) {
  const output = Object.assign(new PassThrough(), tty ? { isTTY: true, columns: 100 } : {});
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  const screen = new Screen({ output, color: false, width: undefined, live: tty });
  return { screen, written: () => written };
}

describe('the progress line', () => {
  it('says what runs, for how long, and how to interrupt it; it goes when the run ends', () => {
    let now = 1_000;
    const t = screenOn(true);
    const progress = new Progress(t.screen, { now: () => now });
    progress.start('Thinking…');
    expect(t.written()).toBe('⠋ Thinking… (0s · Esc to interrupt)\n');
    now += 65_000;
    progress.set('Running run_command("npm test")…');
    expect(progress.line()).toBe('⠋ Running run_command("npm test")… (1m 05s · Esc to interrupt)');
    progress.stop();
    // Erased: to the start of the line drawn, and cleared from there down.
    expect(t.written().endsWith('\x1b[1F\x1b[J')).toBe(true);
  });

  it('is cut to the width of the terminal', () => {
    const t = screenOn(true);
    const progress = new Progress(t.screen, { now: () => 0 });
    progress.start(`Running ${'x'.repeat(200)}`);
    expect(progress.line().length).toBeLessThan(100);
    progress.stop();
  });

  it('is not drawn when the output is not a terminal', () => {
    const t = screenOn(false);
    const progress = new Progress(t.screen, { now: () => 0 });
    progress.start('Thinking…');
    t.screen.write('text\n');
    progress.stop();
    expect(t.written()).toBe('text\n');
  });

  it('counts seconds, then minutes', () => {
    expect([formatElapsed(0), formatElapsed(59_999), formatElapsed(60_000), formatElapsed(3_723_000)]).toEqual(['0s', '59s', '1m 00s', '62m 03s']);
  });
});
