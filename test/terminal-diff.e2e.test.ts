/**
 * End to end, `/diff <session>` in the chat: the real `golem` binary in tmux, opened on a
 * session with a what-if fork made beforehand; the comparison is read off the screen.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { whatIfBranches } from './fixtures/session-branches.js';
import { PROMPT, tmuxHarness } from './helpers-tmux.js';

const { project, golem } = tmuxHarness();

describe('/diff in the chat', () => {
  it('compares this session with another: where they parted, each side since, and what differs', async () => {
    const p = project();
    const ws = await createWorkspace({ dir: join(p.dir, '.golem') });
    const b = await whatIfBranches(ws);
    await ws.close();
    const t = await golem(p.dir, '--session', b.main, '--model', `scripted:${p.script([])}`);
    await t.waitFor(PROMPT);

    await t.type('/diff');
    await t.waitFor('/diff <number or id> compares this session with another: /sessions lists them.');
    await t.type('/diff nosuch');
    await t.waitFor('No session "nosuch": /sessions lists them.');

    await t.type(`/diff ${b.whatIf.slice(-8)}`);
    const screen = await t.waitFor('pending_export  book the Lisbon hotel');
    const shown = screen.slice(screen.lastIndexOf(`/diff ${b.whatIf.slice(-8)}`));
    const there = `…${b.whatIf.slice(-12)} "what if Lisbon"`;
    expect(shown.split('\n').slice(1, 15)).toEqual([
      `This session and ${there} parted after turn …${b.parted.id.slice(-12)} (version 0).`,
      'This session since then: 1 turn',
      '  user      yes, Porto',
      `${there} since then: 2 turns`,
      '  user      what about Lisbon?',
      '  assistant Lisbon for three nights.',
      'Environment (1 differ, here → there):',
      '  reader.current_page  "1" → "300"',
      'UI (2 differ, as RFC 6902 from here to there):',
      '  chart  only there',
      '  trip  replace /state/params/nights 3',
      '  trip  replace /state/params/city "Lisbon"',
      'Clearance waiting: 0 here, 1 there.',
      `  there ${b.item.slice(-12)}  pending_export  book the Lisbon hotel`,
    ]);
  });
});
