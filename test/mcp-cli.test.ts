/**
 * `golem mcp add | list | remove | tools` on the project's `.mcp.json`, and the servers it
 * lists reaching `golem`'s chat under the trust modes (a supervised MCP tool asks in the
 * terminal, with the server's name and the tool's hints), in tmux with the real binary.
 */
import { createRequire } from 'node:module';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../src/cli/main.js';
import { createWorkspace } from '../src/index.js';
import { tmuxHarness } from './helpers-tmux.js';
import { tempDir } from './helpers.js';

const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

async function golem(args: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), cwd }, process.env);
  return { code, stdout, stderr };
}

// Which project servers the user allowed: a file of this run's own (golem in tmux inherits the variable).
process.env.GOLEM_MCP_ALLOWED = join(tempDir(), 'allowed.json');

const { project, terminal } = tmuxHarness();

describe('golem mcp', () => {
  it('adds, lists, shows the tools of and removes servers in .mcp.json, in the shape other clients read', async () => {
    const cwd = tempDir();
    const added = await golem(['mcp', 'add', 'everything', '--', process.execPath, EVERYTHING, 'stdio'], cwd);
    expect(added).toMatchObject({ code: 0, stderr: '' });
    expect(
      await golem(['mcp', 'add', 'notes', '--url', 'http://127.0.0.1:9/mcp', '--header', 'Authorization: Bearer abc', '--trust', 'manual'], cwd),
    ).toMatchObject({
      code: 0,
    });
    expect(JSON.parse(readFileSync(join(cwd, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] },
        notes: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer abc' }, trust: { default: 'manual' } },
      },
    });
    // As JSON, header values (tokens) are not printed.
    expect(JSON.parse((await golem(['mcp', 'list', '--json'], cwd)).stdout)).toMatchObject({ notes: { headers: { Authorization: '…' } } });
    const listed = await golem(['mcp', 'list'], cwd);
    expect(listed.stdout).toContain('everything  ');
    expect(listed.stdout).toContain('notes  http://127.0.0.1:9/mcp  (tools manual)');

    // tools: each server connected; the one that cannot be reached is named with its code, and the exit code says so.
    const tools = await golem(['mcp', 'tools', '--json'], cwd);
    expect(tools.code).toBe(1);
    const report = JSON.parse(tools.stdout) as {
      servers: { server: string; tools: { action: string; trust: string; hints: string }[] }[];
      failures: { server: string; code: string }[];
    };
    expect(report.servers[0]?.tools).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: 'everything__echo', trust: 'supervised', hints: 'read-only' })]),
    );
    expect(report.failures).toEqual([expect.objectContaining({ server: 'notes', code: 'MCP_UNAVAILABLE' })]);
    expect((await golem(['mcp', 'tools', 'everything'], cwd)).stdout).toMatch(/^ {2}everything__echo {2}\[supervised; read-only\] {2}Echoes back the input/m);

    expect(await golem(['mcp', 'remove', 'notes'], cwd)).toMatchObject({ code: 0 });
    expect(Object.keys((JSON.parse(readFileSync(join(cwd, '.mcp.json'), 'utf8')) as { mcpServers: object }).mcpServers)).toEqual(['everything']);
    expect(await golem(['mcp', 'remove', 'notes'], cwd)).toMatchObject({ code: 1, stderr: expect.stringContaining('[MCP_SERVER_NOT_FOUND]') });
  });

  it('refuses a server it could not use, and a .mcp.json that is not valid, without touching the file', async () => {
    const cwd = tempDir();
    expect(await golem(['mcp', 'add', 'web', '--url', 'ftp://example.com'], cwd)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('[MCP_CONFIG_INVALID]'),
    });
    expect(await golem(['mcp', 'add', 'bad name', '--', 'x'], cwd)).toMatchObject({ code: 1, stderr: expect.stringContaining('[MCP_CONFIG_INVALID]') });
    expect(await golem(['mcp', 'add', 'nothing'], cwd)).toMatchObject({ code: 2, stderr: expect.stringContaining('needs a command after --') });
    writeFileSync(join(cwd, '.mcp.json'), '{ "mcpServers": { "a": { "args": [] } } }');
    const listed = await golem(['mcp', 'list'], cwd);
    expect(listed).toMatchObject({ code: 1, stderr: expect.stringMatching(/\[MCP_CONFIG_INVALID\].*"a"/) });
    expect(await golem(['mcp', 'add', 'b', '--', 'x'], cwd)).toMatchObject({ code: 1 });
    expect(readFileSync(join(cwd, '.mcp.json'), 'utf8')).toBe('{ "mcpServers": { "a": { "args": [] } } }');
  });
});

describe("a project's .mcp.json", () => {
  it('starts nothing it names until the user allows it, and asks again when a server is changed (its trust too)', async () => {
    const cwd = tempDir();
    const marker = join(cwd, 'started.txt');
    // A server whose command leaves a mark when it runs (then serves the everything tools).
    const config = (trust?: object) => ({
      mcpServers: {
        sneaky: {
          command: process.execPath,
          args: ['-e', `require('fs').appendFileSync(${JSON.stringify(marker)}, 'ran\\n'); import(${JSON.stringify(pathToFileURL(EVERYTHING).href)})`, 'stdio'],
          ...(trust !== undefined && { trust }),
        },
      },
    });
    writeFileSync(join(cwd, '.mcp.json'), JSON.stringify(config()));
    const before = await golem(['mcp', 'tools'], cwd);
    expect(before).toMatchObject({ code: 1, stderr: expect.stringContaining('sneaky: not allowed to start yet') });
    expect(existsSync(marker)).toBe(false);
    expect((await golem(['mcp', 'list'], cwd)).stdout).toContain('not allowed yet: golem mcp allow sneaky');

    expect(await golem(['mcp', 'allow'], cwd)).toMatchObject({ code: 0, stdout: expect.stringContaining('Allowed MCP server "sneaky"') });
    expect(await golem(['mcp', 'tools', 'sneaky'], cwd)).toMatchObject({ code: 0, stdout: expect.stringContaining('sneaky__echo  [supervised;') });
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');

    // The file now makes its tools autonomous: that is a change, and it waits for the user again.
    writeFileSync(join(cwd, '.mcp.json'), JSON.stringify(config({ default: 'autonomous' })));
    expect(await golem(['mcp', 'tools', 'sneaky'], cwd)).toMatchObject({ code: 1, stderr: expect.stringContaining('not allowed to start yet') });
    expect(readFileSync(marker, 'utf8')).toBe('ran\n');
    expect(statSync(process.env.GOLEM_MCP_ALLOWED ?? '').mode & 0o777).toBe(0o600);
  });
});

describe("golem's chat with the project's MCP servers", () => {
  it('a supervised MCP tool asks in the terminal with its server and hints, runs after yes, and a server that cannot start is named at start', async () => {
    const p = project();
    writeFileSync(
      join(p.dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] }, broken: { command: '/nonexistent/server' } } }),
    );
    expect(await golem(['mcp', 'allow'], p.dir)).toMatchObject({ code: 0 });
    const script = p.script([
      { toolCalls: [{ name: 'everything__get-sum', input: { a: 20, b: 22 } }] },
      { text: 'The sum is 42.' },
      { text: 'Sunny in Paris.' },
    ]);
    const t = terminal();
    await t.start(p.dir, ['--model', `scripted:${script}`]);
    await t.waitFor(/MCP server "broken" is not available \[MCP_UNAVAILABLE\]/);
    await t.waitFor(/^> ?$/m);
    await t.type('add them');
    const screen = await t.waitFor('[y]es / [n]o / [a]lways / [s]ession:');
    expect(screen).toMatch(/\[Approval Required\] everything · get-sum \{"a":20,"b":22\} \(MCP; read-only\)/);
    expect(screen).toContain('Risk: low');
    await t.type('y');
    await t.waitFor('The sum is 42.');

    // The server's prompts are slash commands: Tab completes them, a missing argument is named, the prompt is sent as the message.
    await t.type('/mcp__everything__args-prompt');
    await t.waitFor(/needs city: \/mcp__everything__args-prompt <city> <state>/);
    await t.keys('-l', '/mcp__everything__ar');
    await t.keys('Tab');
    await t.waitFor(/^> \/mcp__everything__args-prompt\s*$/m, { count: 2 }); // the line typed before, and the one Tab completed
    await t.type('Paris');
    await t.waitFor('Sunny in Paris.');
    const shown = await t.waitFor(/You: What's weather in Paris\?/);
    expect(shown).toContain('Sunny in Paris.');
    await t.type('/mcp');
    await t.waitFor(/everything: connected, \d+ tool\(s\), 4 prompt\(s\)/);
  });

  it("a server's request for input is asked in the terminal, field by field, and the answers go back typed", async () => {
    const p = project();
    writeFileSync(
      join(p.dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], trust: { default: 'autonomous' } } } }),
    );
    expect(await golem(['mcp', 'allow', 'everything'], p.dir)).toMatchObject({ code: 0 });
    const script = p.script([{ toolCalls: [{ name: 'everything__trigger-elicitation-request', input: {} }] }, { text: 'Thanks, Ada.' }]);
    const t = terminal();
    await t.start(p.dir, ['--model', `scripted:${script}`]);
    await t.waitFor(/^> ?$/m);
    await t.type('ask me');
    await t.waitFor('[everything asks] Please provide inputs for the following fields:');
    const answers: [string, string][] = [
      ['String *:', ''], // required: asked again
      ['String is required.', 'Ada Lovelace'],
      ['Boolean (y/n):', 'y'],
      ['String with default [It was a dark and stormy night.]:', ''],
      ['String with email format:', ''],
      ['String with uri format:', ''],
      ['String with date format:', ''],
      ['Integer [42]:', 'seven'], // not a number: asked again
      ['Integer must be a whole number.', '7'],
      ['Number in range 1-1000 [3.14]:', ''],
      ['Untitled Single Select Enum [Monica]:', '3'], // by its number: Joey
      ['Untitled Multiple Select Enum (several, separated by commas) [Guitar]:', ''],
      ['Titled Single Select Enum [hero-1]:', ''],
      ['Titled Multiple Select Enum (several, separated by commas) [fish-1]:', ''],
      ['Legacy Titled Single Select Enum [pet-1]:', ''],
      ['[s]end / [d]ecline / [c]ancel:', 's'],
    ];
    for (const [prompt, answer] of answers) {
      await t.waitFor(prompt);
      await t.type(answer);
    }
    await t.waitFor('Golem: Thanks, Ada.');
    await t.keys('C-d');
    await t.waitForExit();
    const ws = await createWorkspace({ dir: join(p.dir, '.golem') });
    try {
      const [session] = ws.sessions.list();
      const turns = await (await ws.sessions.open(session?.id ?? ''))?.transcript();
      const result = JSON.stringify(turns?.flatMap((t) => t.blocks.filter((b) => b.type === 'tool_result')));
      expect(result).toContain('- Name: Ada Lovelace');
      expect(result).toContain('Agreed to terms: true');
      expect(result).toContain('Joey');
    } finally {
      await ws.close();
    }
  });
});
