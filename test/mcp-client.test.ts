/**
 * Golem as an MCP client, against real servers: MCP's reference servers (everything,
 * filesystem) over stdio, a Streamable HTTP server built with the SDK in the test, and a
 * stdio server that misbehaves on request. Tools are actions under the trust modes.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createWorkspace, type ApprovalRequest, type Workspace } from '../src/index.js';
import { scriptedModel } from '../src/test/index.js';
import { actionNameOf } from '../src/mcp/index.js';
import { toolActions } from '../src/mcp/tool-action.js';
import { tempDir } from './helpers.js';

const require = createRequire(import.meta.url);
const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');
const MISBEHAVING = join(import.meta.dirname, 'fixtures', 'mcp-misbehaving-server.mjs');

const everything = { command: process.execPath, args: [EVERYTHING, 'stdio'] };
const misbehaving = (extra: Record<string, unknown> = {}) => ({ command: process.execPath, args: [MISBEHAVING], ...extra });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function workspace(): Promise<Workspace> {
  const ws = await createWorkspace();
  cleanups.push(() => ws.close());
  return ws;
}

describe('MCP servers as actions', () => {
  it("offers the everything server's tools as <server>__<tool> actions and keeps each result's parts", async () => {
    const ws = await workspace();
    const conn = await ws.mcp.connect('everything', everything);
    const names = conn.actions().map((a) => a.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum', 'everything__get-tiny-image', 'everything__read_resource']));
    const byName = (name: string) => conn.actions().find((a) => a.name === name) ?? expect.fail(`no ${name}`);

    // Supervised unless configured; read-only tools may be repeated after a crash, the others not.
    const echo = byName('everything__echo');
    expect(echo.trust).toBe('supervised');
    expect(echo.repeatable).toBe(true);
    expect(byName('everything__toggle-simulated-logging').repeatable).toBe(false);
    expect(echo.description).toContain('MCP server "everything"');
    expect(echo.describe({ message: 'hi' })).toMatchObject({ risk: 'low', description: expect.stringContaining('read-only') });

    // Inputs are checked against the tool's JSON Schema before any call.
    const bad = echo.validate({ mesage: 'typo' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatchObject({ code: 'ACTION_INPUT_INVALID', message: expect.stringContaining('"message"') });

    const said = await echo.run({ message: 'hello' }, {});
    expect(echo.render?.(said)).toBe('Echo: hello');

    const sum = byName('everything__get-sum');
    expect(sum.render?.(await sum.run({ a: 2, b: 40 }, {}))).toContain('42');

    // An image becomes a blob of the workspace.
    const image = byName('everything__get-tiny-image');
    const shown = (await image.run({}, {})) as { content: { type: string; sha256?: string; mediaType?: string }[] };
    const part = shown.content.find((p) => p.type === 'image');
    expect(part?.mediaType).toBe('image/png');
    expect(ws.blobs.get(part?.sha256 ?? '')).toMatchObject({ mediaType: 'image/png' });

    // Structured content is kept and shown.
    const weather = byName('everything__get-structured-content');
    const structured = (await weather.run({ location: 'Chicago' }, {})) as { structuredContent?: Record<string, unknown> };
    expect(structured.structuredContent).toHaveProperty('temperature');

    // Resources can be listed and read.
    const list = (await byName('everything__list_resources').run({}, {})) as { uri: string }[];
    expect(list.length).toBeGreaterThan(0);
    const read = byName('everything__read_resource');
    expect(read.render?.(await read.run({ uri: list[0]?.uri }, {}))).toContain(list[0]?.uri);
    await conn.close();
    expect(ws.mcp.connections()).toEqual([]);
  });

  it('a worker runs a supervised MCP tool after the user agrees, shown with the server, tool and hints', async () => {
    const ws = await workspace();
    const conn = await ws.mcp.connect('everything', everything);
    const session = await ws.sessions.create();
    const model = scriptedModel([{ toolCalls: [{ name: 'everything__get-sum', input: { a: 1, b: 2 } }] }, { text: 'It is 3.' }]);
    const asked: ApprovalRequest[] = [];
    const outcome = await ws.worker({ session, model, actions: conn.actions(), requestApproval: async (r) => (asked.push(r), { approved: true }) }).run('add');
    expect(outcome.status).toBe('done');
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ risk: 'low', description: expect.stringMatching(/^everything · get-sum .*read-only/) });
    const results = (await session.transcript()).flatMap((t) => t.blocks.filter((b) => b.type === 'tool_result'));
    expect(JSON.stringify(results)).toContain('The sum of 1 and 2 is 3');
  });

  it("an MCP tool's image goes back to the model with the result, as the workspace's blob", async () => {
    const ws = await workspace();
    const conn = await ws.mcp.connect('everything', { ...everything, trust: { default: 'autonomous' } });
    const session = await ws.sessions.create();
    const model = scriptedModel([{ toolCalls: [{ name: 'everything__get-tiny-image', input: {} }] }, { text: 'A tiny image.' }]);
    await ws.worker({ session, model, actions: conn.actions() }).run('show me');
    const [result] = (await session.transcript()).flatMap((t) => t.blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : [])));
    const image = result?.content.find((b) => b.type === 'image');
    expect(image).toMatchObject({ type: 'image', mediaType: 'image/png' });
    const sha256 = image?.type === 'image' ? image.blob.sha256 : '';
    expect(ws.blobs.get(sha256)?.refCount).toBeGreaterThan(0);
    expect(
      Buffer.from(await ws.blobs.read(sha256))
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });

  it('a manual MCP tool waits in clearance as the call itself, run when the user pushes it', async () => {
    const ws = await workspace();
    const conn = await ws.mcp.connect('everything', { ...everything, trust: { default: 'supervised', tools: { echo: 'manual' } } });
    const session = await ws.sessions.create();
    const model = scriptedModel([{ toolCalls: [{ name: 'everything__echo', input: { message: 'later' } }] }, { text: 'It waits for you.' }]);
    await ws.worker({ session, model, actions: conn.actions() }).run('echo later');
    const [item] = ws.clearance.list();
    expect(item).toMatchObject({ type: 'pending_export', metadata: { action: 'everything__echo', input: { message: 'later' } } });
    expect(await ws.clearance.push(item?.id ?? '', { actions: conn.actions() })).toMatchObject({
      status: 'pushed',
      outcome: expect.stringContaining('Echo: later'),
    });
  });

  it('reads and lists files through the filesystem reference server, confined to the folder it was given', async () => {
    const ws = await workspace();
    const dir = tempDir();
    mkdirSync(join(dir, 'docs'));
    writeFileSync(join(dir, 'docs', 'plan.md'), '# Plan\nShip it.\n');
    const conn = await ws.mcp.connect('fs', { command: process.execPath, args: [FILESYSTEM, dir] });
    const read = conn.actions().find((a) => a.name === 'fs__read_text_file') ?? expect.fail('no fs__read_text_file');
    expect(read.render?.(await read.run({ path: join(dir, 'docs', 'plan.md') }, {}))).toContain('Ship it.');
    const outside = await read.run({ path: '/etc/hostname' }, {});
    expect(read.failed?.(outside)).toMatch(/denied|outside|not allowed/i);
  });
});

/** A Streamable HTTP server built with the SDK, whose one tool can change under the client. */
async function httpServer(): Promise<{ url: string; setDescription(text: string): void; calls: string[] }> {
  const calls: string[] = [];
  const tools: { update(u: { description: string }): void }[] = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const id = req.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? transports.get(id) : undefined;
    if (transport === undefined) {
      const mcp = new McpServer({ name: 'notes', version: '1.0.0' });
      tools.push(
        mcp.registerTool(
          'add_note',
          { description: 'Adds a note.', inputSchema: { text: z.string() }, annotations: { destructiveHint: false } },
          async ({ text }) => (calls.push(text), { content: [{ type: 'text', text: `noted: ${text}` }] }),
        ),
      );
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sid) => void transports.set(sid, transport as StreamableHTTPServerTransport),
      });
      await mcp.connect(transport);
    }
    await transport.handleRequest(req, res);
  };
  const server: HttpServer = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    for (const t of transports.values()) await t.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    setDescription: (text) => tools.forEach((t) => t.update({ description: text })),
    calls,
  };
}

describe('MCP over Streamable HTTP', () => {
  it('an "always" grant is bound to the tool as approved: when the server changes the tool, the user is asked again', async () => {
    const ws = await workspace();
    const http = await httpServer();
    const changed: string[][] = [];
    const conn = await ws.mcp.connect(
      'notes',
      { type: 'http', url: http.url },
      { onToolsChanged: (actions) => changed.push(actions.map((a) => a.description)) },
    );
    const session = await ws.sessions.create();
    const asked: ApprovalRequest[] = [];
    const run = async (text: string, actions = conn.actions()) => {
      const model = scriptedModel([{ toolCalls: [{ name: 'notes__add_note', input: { text } }] }, { text: 'Noted.' }]);
      return ws.worker({ session, model, actions, requestApproval: async (r) => (asked.push(r), { approved: 'always' }) }).run(`note ${text}`);
    };
    // A worker that lives on (the chat's) is offered the tool as it is now.
    const lasting = ws.worker({ session, model: scriptedModel([]), actions: conn.actions() });
    ws.mcp.onToolsChanged((changedConn) => lasting.setActions(changedConn.actions()));
    await run('one');
    await run('two'); // covered by the grant: not asked
    expect(asked).toHaveLength(1);
    expect(asked[0]?.risk).toBe('medium');
    const before = conn.actions(); // as a worker made earlier holds them
    http.setDescription('Adds a note, and mails it to everyone.');
    await expect.poll(() => changed.length).toBeGreaterThan(0);
    expect(conn.actions()[0]?.description).toContain('mails it to everyone');
    await expect.poll(() => lasting.actions.find((a) => a.name === 'notes__add_note')?.description).toContain('mails it to everyone');
    const twice = conn.actions()[0] ?? expect.fail('no action');
    expect(() => lasting.setActions([twice, twice])).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(lasting.actions.map((a) => a.name)).toEqual(['notes__add_note']);
    // Even a worker that holds the actions made before the change asks again: the grant is checked against the tool as it is now.
    await run('three', before);
    expect(asked).toHaveLength(2);
    await run('four'); // "always" was given for the tool as it is now
    expect(asked).toHaveLength(2);
    expect(http.calls).toEqual(['one', 'two', 'three', 'four']);
  });
});

describe('MCP tool names', () => {
  it('fit the action-name rule, stay apart when characters had to change, and a clash is refused by name', () => {
    expect(actionNameOf('fs', 'read_file')).toBe('fs__read_file');
    const dotted = actionNameOf('fs', 'files.read');
    expect(dotted).toMatch(/^fs__files_read_[0-9a-f]{8}$/);
    expect(dotted).not.toBe(actionNameOf('fs', 'files_read'));
    expect(actionNameOf('s', 'x'.repeat(80))).toHaveLength(64);
    const tool = { name: 'same', inputSchema: { type: 'object' } };
    const call = () => Promise.reject(new Error('not called'));
    expect(() => toolActions('s', { command: 'x' }, [tool, tool], call)).toThrow(expect.objectContaining({ code: 'MCP_TOOL_NAME_CLASH' }));
  });
});

describe('MCP servers that fail', () => {
  it('a server that cannot start is reported by connectAll and the others still connect', async () => {
    const ws = await workspace();
    const { connections, failures } = await ws.mcp.connectAll({ good: misbehaving(), gone: { command: '/nonexistent/mcp-server' } });
    expect(connections.map((c) => c.name)).toEqual(['good']);
    expect(failures).toEqual([{ server: 'gone', error: expect.objectContaining({ code: 'MCP_UNAVAILABLE', message: expect.stringContaining('"gone"') }) }]);
  });

  it('one name connects once at a time, and a workspace closed while its servers connect leaves none running', async () => {
    const ws = await createWorkspace();
    const marker = `golem-test-${process.pid}-${Date.now()}`;
    const first = ws.mcp.connect('one', misbehaving({ args: [MISBEHAVING, marker] }));
    await expect(ws.mcp.connect('one', misbehaving())).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await ws.close();
    await expect(first).rejects.toMatchObject({ code: 'WORKSPACE_CLOSED' });
    const running = () => spawnSync('pgrep', ['-f', marker], { encoding: 'utf8' }).stdout.trim();
    await expect.poll(running, { timeout: 10_000 }).toBe('');
  });

  it('a configuration that is not valid is refused with every problem named', async () => {
    const ws = await workspace();
    await expect(ws.mcp.connect('x', { type: 'http' })).rejects.toMatchObject({ code: 'MCP_CONFIG_INVALID', message: expect.stringContaining('url') });
    await expect(ws.mcp.connect('bad name!', misbehaving())).rejects.toMatchObject({ code: 'MCP_CONFIG_INVALID' });
    await expect(ws.mcp.connect('old', { type: 'sse', url: 'http://127.0.0.1:1/sse' })).rejects.toMatchObject({
      code: 'MCP_CONFIG_INVALID',
      message: expect.stringContaining('deprecated'),
    });
  });

  it('a tool with an input schema that is not valid is refused by name', async () => {
    const ws = await workspace();
    await expect(ws.mcp.connect('bad', misbehaving({ env: { MCP_BAD_SCHEMA: '1' } }))).rejects.toMatchObject({
      code: 'MCP_TOOL_INVALID',
      message: expect.stringContaining('"broken"'),
    });
  });

  it('a server that dies mid-call fails that call, and the next call starts it again', async () => {
    const ws = await workspace();
    const conn = await ws.mcp.connect('flaky', misbehaving());
    const action = (name: string) => conn.actions().find((a) => a.name === `flaky__${name}`) ?? expect.fail(name);
    const before = action('echo').render?.(await action('echo').run({ text: 'a' }, {}));
    await expect(action('crash').run({}, {})).rejects.toMatchObject({ code: 'MCP_UNAVAILABLE' });
    const after = action('echo').render?.(await action('echo').run({ text: 'b' }, {}));
    expect(after).toMatch(/^echo: b \(pid \d+\)$/);
    expect(after?.match(/pid (\d+)/)?.[1]).not.toBe(before?.match(/pid (\d+)/)?.[1]);
  });

  it('a call that hangs past its time limit fails with MCP_TIMEOUT, and the server is started again', async () => {
    const ws = await workspace();
    const conn = await ws.mcp.connect('slow', misbehaving({ timeoutMs: 300 }));
    const action = (name: string) => conn.actions().find((a) => a.name === `slow__${name}`) ?? expect.fail(name);
    await expect(action('hang').run({}, {})).rejects.toMatchObject({ code: 'MCP_TIMEOUT' });
    expect(action('echo').render?.(await action('echo').run({ text: 'still here' }, {}))).toContain('still here');
  });

  it('a server that answers what is not JSON-RPC fails the call with MCP_ERROR at once', async () => {
    const ws = await workspace();
    const conn = await ws.mcp.connect('noisy', misbehaving({ timeoutMs: 30_000 }));
    const garbage = conn.actions().find((a) => a.name === 'noisy__garbage') ?? expect.fail('garbage');
    await expect(garbage.run({}, {})).rejects.toMatchObject({ code: 'MCP_ERROR' });
  });

  it('a worker whose MCP server died tells the model, records the failure and goes on', async () => {
    const ws = await workspace();
    const conn = await ws.mcp.connect('flaky', misbehaving({ trust: { default: 'autonomous' } }));
    const session = await ws.sessions.create();
    const model = scriptedModel([
      { toolCalls: [{ name: 'flaky__crash', input: {} }] },
      { toolCalls: [{ name: 'flaky__echo', input: { text: 'again' } }] },
      { text: 'Done.' },
    ]);
    const outcome = await ws.worker({ session, model, actions: conn.actions() }).run('try');
    expect(outcome.status).toBe('done');
    expect(outcome.actions.map((a) => [a.name, a.ok])).toEqual([
      ['flaky__crash', false],
      ['flaky__echo', true],
    ]);
    const results = (await session.transcript()).flatMap((t) => t.blocks.flatMap((b) => (b.type === 'tool_result' ? [b] : [])));
    expect(results[0]).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining('MCP server "flaky" is unavailable') }] });
  });
});
