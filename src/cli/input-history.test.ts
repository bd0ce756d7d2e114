import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { completeCommand } from './chat-commands.js';
import { historyPath, InputHistory } from './input-history.js';
import { nearest } from './usage-errors.js';

const dirs: string[] = [];
const temp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'golem-history-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the chat history file', () => {
  it('keeps messages newest first across instances, never /exit, and reads back what another run wrote', () => {
    const path = join(temp(), 'history');
    const first = new InputHistory(path);
    expect(first.entries()).toEqual([]);
    first.add('one');
    first.add('two\nlines');
    first.add('/exit');
    expect(new InputHistory(path).entries()).toEqual(['two\nlines', 'one']);
    expect(readFileSync(path, 'utf8')).toBe('"one"\n"two\\nlines"\n');
    // Sent again: ↑ finds it once, as the newest.
    first.add('one');
    expect(new InputHistory(path).entries()).toEqual(['one', 'two\nlines']);
  });

  it('is cut back to its cap when it holds twice that, keeping the newest', () => {
    const path = join(temp(), 'history');
    const history = new InputHistory(path, 3);
    for (const n of [1, 2, 3, 4, 5]) history.add(`m${n}`);
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(5);
    history.add('m6'); // six: twice the cap
    expect(readFileSync(path, 'utf8')).toBe('"m4"\n"m5"\n"m6"\n');
    expect(new InputHistory(path, 3).entries()).toEqual(['m6', 'm5', 'm4']);
    // A file grown over many runs (each adding less than the cap) is cut back when read.
    writeFileSync(path, ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((m) => `${JSON.stringify(m)}\n`).join(''));
    expect(new InputHistory(path, 3).entries()).toEqual(['g', 'f', 'e']);
    expect(readFileSync(path, 'utf8')).toBe('"e"\n"f"\n"g"\n');
  });

  it('skips a line cut short, and lives beside the workspace or, with no workspace folder, under ~/.golem per project', () => {
    const dir = temp();
    const path = join(dir, 'history');
    writeFileSync(path, '"kept"\n"cut sho\n{"not":"a string"}\n"also kept"\n');
    expect(new InputHistory(path).entries()).toEqual(['also kept', 'kept']);
    mkdirSync(join(dir, '.golem'));
    expect(historyPath(join(dir, '.golem'), '/p', '/home/me')).toBe(join(dir, '.golem', 'history'));
    const a = historyPath('postgres://db/x', '/code/a', '/home/me');
    const b = historyPath('postgres://db/x', '/code/b', '/home/me');
    expect(a.startsWith('/home/me/.golem/history/')).toBe(true);
    expect(a).not.toBe(b);
  });
});

describe('Tab at the chat prompt', () => {
  it("completes a command's name, or /clearance's subcommand; leaves a message alone", () => {
    expect(completeCommand('/cos')).toEqual([['/cost '], '/cos']);
    expect(completeCommand('/co')).toEqual([['/compact', '/cost'], '/co']);
    expect(completeCommand('/clearance re')).toEqual([['review '], 're']);
    expect(completeCommand('/clearance push ab')).toEqual([[], 'ab']);
    expect(completeCommand('hello /co')).toEqual([[], 'hello /co']);
  });
});

describe('a guess at a mistyped word', () => {
  it('is the nearest within a few edits, or none', () => {
    expect(nearest('nwe', ['new', 'dir', 'json'])).toBe('new');
    expect(nearest('sesion', ['session', 'sessions'])).toBe('session');
    expect(nearest('jsno', ['json', 'new'])).toBe('json');
    expect(nearest('frobnicate', ['chat', 'serve'])).toBeUndefined();
    expect(nearest('x', ['new'])).toBeUndefined();
  });
});
