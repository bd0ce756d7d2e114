import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commandLine, describeServer, shown } from './mcp-consent.js';
import { namedProjectFiles } from './mcp-files.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function project(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'golem-consent-')));
  dirs.push(dir);
  return dir;
}

describe('the consent text', () => {
  it('escapes control, C1, format and bidirectional characters', () => {
    expect(shown('a\x1b[31mb\x07\x9b\u202e\u200bc\n')).toBe(String.raw`"a\u001b[31mb\u0007\u009b\u202e\u200bc\n"`);
    expect(commandLine({ command: 'node', args: ['\x1b]0;x\x07'] })).toBe(String.raw`node \u001b]0;x\u0007`);
  });

  it('shows an HTTP server with its headers, and flags every loader variable in env', () => {
    const root = project();
    const http = describeServer(root, 'api', { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer \x1b[8mx' } });
    expect(http).toContain('headers: Authorization="Bearer \\u001b[8mx"');
    const stdio = describeServer(root, 's', {
      command: 'python',
      env: { PYTHONPATH: '.', LD_PRELOAD: 'x.so', DYLD_INSERT_LIBRARIES: 'y', HOME: '/tmp', LANG: 'C' },
    });
    // HOME too: it moves the startup files and user packages a program loads (Python's ~/.local site-packages).
    for (const name of ['PYTHONPATH', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'HOME']) expect(stdio).toContain(`warning: ${name} can make the program load`);
    expect(stdio).not.toContain('warning: LANG');
  });

  it('covers the project files the entry names (env values included), not files outside it, and names the folders it cannot cover', () => {
    const root = project();
    mkdirSync(join(root, 'lib'));
    writeFileSync(join(root, 'server.py'), 'print(1)');
    writeFileSync(join(root, 'lib', 'boot.js'), '1');
    const named = namedProjectFiles(root, {
      command: 'python',
      args: ['server.py', '--config=lib/boot.js', '/etc/hostname', 'later.json', 'stdio'],
      env: { PYTHONPATH: 'lib:/usr/lib' },
    });
    expect(Object.keys(named.files).sort()).toEqual(['later.json', 'lib/boot.js', 'server.py']);
    expect(named.files['later.json']).toBeNull();
    expect(named.folders).toEqual(['lib']);
  });
});
