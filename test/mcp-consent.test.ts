/**
 * What the user is shown before a project's `.mcp.json` server may start, and what the
 * allowance covers, with the real `golem` binary as a separate process (its output bytes read).
 */
import { createRequire } from 'node:module';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { golemCli, makeProject, type Project } from './helpers-tmux.js';
import { tempDir } from './helpers.js';

const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

// Which project servers the user allowed: a file of this run's own (golem inherits the variable).
process.env.GOLEM_MCP_ALLOWED = join(tempDir(), 'allowed.json');

const projects: Project[] = [];
afterEach(() => {
  for (const p of projects.splice(0)) p.remove();
});

function project(): Project {
  const p = makeProject({ 'README.md': '# demo\n' });
  projects.push(p);
  return p;
}

/** A server script that leaves a line in `ran.txt` (in the project) each time it starts, then serves the everything tools. */
const server = (dir: string) =>
  `require('fs').appendFileSync(${JSON.stringify(join(dir, 'ran.txt'))}, 'ran\\n');\nimport(${JSON.stringify(pathToFileURL(EVERYTHING).href)});\n`;

describe("the consent for a project's MCP server", () => {
  it('shows the whole entry (env, cwd), escapes control characters, and flags loader variables', async () => {
    const p = project();
    mkdirSync(join(p.dir, 'srv'));
    writeFileSync(join(p.dir, 'srv', 'server.js'), server(p.dir));
    writeFileSync(join(p.dir, 'srv', 'preload.js'), `require('fs').appendFileSync(${JSON.stringify(join(p.dir, 'preloaded.txt'))}, 'x');\n`);
    const sneaky = '\x1b[2J\x1b[32mlooks fine\x1b[0m\x1b]0;title\x07\u202egnp.exe';
    writeFileSync(
      join(p.dir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          tricky: {
            command: process.execPath,
            args: ['server.js', 'stdio', sneaky],
            cwd: 'srv',
            env: { NODE_OPTIONS: '--require ./preload.js', GREETING: 'hi' },
          },
        },
      }),
    );

    const asked = await golemCli(p.dir, 'mcp', 'tools', 'tricky');
    expect(asked.code).toBe(1);
    expect(existsSync(join(p.dir, 'ran.txt'))).toBe(false);
    expect(existsSync(join(p.dir, 'preloaded.txt'))).toBe(false);
    for (const out of [asked.stderr, (await golemCli(p.dir, 'mcp', 'allow', 'tricky')).stdout]) {
      expect(out).toContain('cwd: "srv"');
      expect(out).toContain('NODE_OPTIONS="--require ./preload.js"');
      expect(out).toContain('GREETING="hi"');
      expect(out).toMatch(/warning: NODE_OPTIONS can make the program load or run other code/);
      expect(out).toContain(String.raw`"\u001b[2J\u001b[32mlooks fine\u001b[0m\u001b]0;title\u0007\u202egnp.exe"`);
      expect(out).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]/); // eslint-disable-line no-control-regex
      expect(out).toMatch(/covers .*srv\/server\.js/);
      expect(out).toMatch(/covers .*srv\/preload\.js/);
    }
    // Allowed: it starts, preload and all.
    expect((await golemCli(p.dir, 'mcp', 'tools', 'tricky')).code).toBe(0);
    expect(readFileSync(join(p.dir, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(readFileSync(join(p.dir, 'preloaded.txt'), 'utf8')).toBe('x');
  });

  it('does not start a server whose project script changed after it was allowed, and asks again naming the file', async () => {
    const p = project();
    writeFileSync(join(p.dir, 'server.js'), server(p.dir));
    writeFileSync(join(p.dir, '.mcp.json'), JSON.stringify({ mcpServers: { local: { command: process.execPath, args: ['server.js', 'stdio'] } } }));
    expect((await golemCli(p.dir, 'mcp', 'allow')).code).toBe(0);
    expect((await golemCli(p.dir, 'mcp', 'tools', 'local')).code).toBe(0);
    expect(readFileSync(join(p.dir, 'ran.txt'), 'utf8')).toBe('ran\n');

    // The agent (or a pull) changes the script: the allowance no longer holds.
    appendFileSync(join(p.dir, 'server.js'), "require('fs').appendFileSync('ran.txt', 'and more\\n');\n");
    const again = await golemCli(p.dir, 'mcp', 'tools', 'local');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('server.js changed since it was allowed');
    expect(readFileSync(join(p.dir, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect((await golemCli(p.dir, 'mcp', 'list')).stdout).toContain('not allowed yet');

    // Allowed again, as it is now: it starts.
    expect((await golemCli(p.dir, 'mcp', 'allow', 'local')).code).toBe(0);
    expect((await golemCli(p.dir, 'mcp', 'tools', 'local')).code).toBe(0);
    expect(readFileSync(join(p.dir, 'ran.txt'), 'utf8')).toBe('ran\nran\nand more\n');
  });

  it('says plainly that a package runner fetches what the allowance does not cover', async () => {
    const p = project();
    writeFileSync(join(p.dir, '.mcp.json'), JSON.stringify({ mcpServers: { pkg: { command: 'npx', args: ['-y', 'some-mcp-server'] } } }));
    const asked = await golemCli(p.dir, 'mcp', 'allow', 'pkg');
    expect(asked.stdout).toContain('npx downloads and runs a package; this allowance does not cover what it fetches');
    expect(asked.stdout).toContain('names no project file');
  });
});
