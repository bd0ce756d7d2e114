/**
 * Golem as an MCP server, driven by the MCP SDK's own Client: `golem mcp serve` over stdio
 * (the real binary) and `golem serve`'s /mcp over Streamable HTTP, behind its token. Another
 * agent builds a UI, reads it back, and talks to a session whose agent is a scripted model.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createWorkspace } from '../src/index.js';
import { serve } from '../src/serve/index.js';
import { scriptedModel } from '../src/test/index.js';
import { GOLEM_BIN, golemEnv } from './helpers-tmux.js';
import { deployAction, tempDir } from './helpers.js';
import { Reader } from './fixtures/reader.js';
import { whatIfBranches } from './fixtures/session-branches.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createMcpServer } from '../src/mcp/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A tool result's text read as JSON. */
const jsonOf = <T = unknown>(result: unknown): T => JSON.parse(textOf(result)) as T;

interface Answer {
  sessionId: string;
  status: string;
  answer: string;
}

const textOf = (result: unknown) => ((result as { content: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');

const createForm = {
  instanceId: '__CREATE__',
  newInstanceId: 'signup',
  patches: [
    { op: 'set', path: 'meta', value: { pageKey: 'signup', step: { current: 1, total: 1 }, status: 'idle' } },
    { op: 'set', path: 'state', value: { params: { title: 'Sign up' }, runtime: {} } },
    {
      op: 'set',
      path: 'blocks',
      value: [{ id: 'form', type: 'form', bind: 'state.params', props: { fields: [{ label: 'Name', key: 'name', type: 'text' }] } }],
    },
  ],
};

async function connected(transport: StdioClientTransport | StreamableHTTPClientTransport | InMemoryTransport): Promise<Client> {
  const client = new Client({ name: 'another-agent', version: '1.0.0' });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

describe('golem mcp serve (stdio)', () => {
  it('another agent builds a UI, reads it back, and has a conversation with the agent of a session', async () => {
    const base = tempDir();
    const project = join(base, 'project');
    mkdirSync(project);
    writeFileSync(join(base, 'script.json'), JSON.stringify([{ text: 'Hello from Golem.' }]));
    const client = await connected(
      new StdioClientTransport({
        command: process.execPath,
        args: [GOLEM_BIN, 'mcp', 'serve', '--model', `scripted:${join(base, 'script.json')}`],
        cwd: project,
        env: golemEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    expect(client.getServerVersion()?.name).toBe('golem');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'patch_ui_state',
        'get_ui_state',
        'list_ui_instances',
        'list_sessions',
        'read_session',
        'fork_session',
        'send_message',
        'list_clearance',
        'clearance_diff',
        'diff_sessions',
      ]),
    );

    const built = await client.callTool({ name: 'patch_ui_state', arguments: createForm });
    expect(jsonOf(built)).toMatchObject({ success: true, instanceId: 'signup' });
    expect(built.isError).not.toBe(true);
    expect(jsonOf(await client.callTool({ name: 'list_ui_instances', arguments: {} }))).toMatchObject({
      instances: [{ instanceId: 'signup', pageKey: 'signup', version: expect.any(Number), blocks: 1, fields: 1 }],
      total: 1,
    });
    const state = jsonOf<{ instance: { blocks: { id: string }[] } }>(await client.callTool({ name: 'get_ui_state', arguments: { instanceId: 'signup' } }));
    expect(state.instance.blocks[0]?.id).toBe('form');

    const answer = jsonOf<Answer>(await client.callTool({ name: 'send_message', arguments: { text: 'Hi Golem' } }));
    expect(answer).toMatchObject({ status: 'done', answer: 'Hello from Golem.', sessionId: expect.any(String) });
    const transcript = textOf(await client.callTool({ name: 'read_session', arguments: { sessionId: answer.sessionId } }));
    expect(transcript).toMatch(/user:\n {2}Hi Golem\n.*assistant:\n {2}Hello from Golem\./s);
    const fork = jsonOf<{ sessionId: string }>(await client.callTool({ name: 'fork_session', arguments: { sessionId: answer.sessionId } }));
    expect(
      jsonOf<{ sessionId: string }[]>(await client.callTool({ name: 'list_sessions', arguments: {} })).map((s: { sessionId: string }) => s.sessionId),
    ).toEqual(expect.arrayContaining([answer.sessionId, fork.sessionId]));

    // Resources: the sessions' transcripts and the UI instances.
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([`golem://sessions/${answer.sessionId}/transcript`, 'golem://ui/signup']));
    const read = await client.readResource({ uri: `golem://sessions/${answer.sessionId}/transcript` });
    expect((read.contents[0] as { text: string }).text).toContain('Hello from Golem.');
  });

  it('refuses bad calls with MCP errors: an input off its schema, an unknown tool, a missing session', async () => {
    const base = tempDir();
    const client = await connected(
      new StdioClientTransport({ command: process.execPath, args: [GOLEM_BIN, 'mcp', 'serve'], cwd: base, env: golemEnv() as Record<string, string> }),
    );
    const invalid = await client.callTool({ name: 'get_ui_state', arguments: { instance: 'x' } });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/^ACTION_INPUT_INVALID: .*"instanceId"/s);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    const missing = await client.callTool({ name: 'read_session', arguments: { sessionId: 'nope' } });
    expect(textOf(missing)).toMatch(/^SESSION_NOT_FOUND/);
    const noModel = await client.callTool({ name: 'send_message', arguments: { text: 'hello?' } });
    expect(noModel.isError).toBe(true);
    expect(textOf(noModel)).toMatch(/^NO_MODEL/);
    // A patch the seed 004 rules refuse is a failed result the model can read, and changes nothing.
    const refused = await client.callTool({
      name: 'patch_ui_state',
      arguments: { instanceId: 'ghost', patches: [{ op: 'set', path: 'meta.status', value: 'idle' }] },
    });
    expect(refused.isError).toBe(true);
    expect(jsonOf(await client.callTool({ name: 'list_ui_instances', arguments: {} }))).toEqual({ instances: [], total: 0 });
  });
});

describe('createMcpServer', () => {
  it("lets another agent edit an environment's fields through update_editable_status, its context a resource, its values kept", async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(ws, { environments: [new Reader()] }).connect(serverSide);
    const client = await connected(clientSide);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('update_editable_status');
    const context = await client.readResource({ uri: 'golem://environments/reader' });
    expect((context.contents[0] as { text: string }).text).toContain('call the update_editable_status tool with');
    const set = await client.callTool({ name: 'update_editable_status', arguments: { fieldName: 'selected_book_name', value: 'Anatomy' } });
    expect(set.isError).not.toBe(true);
    // A value the field's rule refuses is a failed call the agent reads, and changes nothing.
    const refused = await client.callTool({ name: 'update_editable_status', arguments: { fieldName: 'current_page', value: 9999 } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain('Page 9999 is not in Anatomy');
    // Kept in the workspace: an environment mounted on it later reads the value.
    const later = new Reader();
    await later.mount(ws.manager);
    expect(later.editableStatus.selected_book_name?.value).toBe('Anatomy');
    expect(later.editableStatus.current_page?.value).toBe('1');
  });

  it('offers only autonomous actions of its own: nobody is there to approve a call another agent makes', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const { deploy } = deployAction();
    expect(() => createMcpServer(ws, { tools: [deploy] })).toThrow(
      expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('deploy (supervised) must be autonomous') }),
    );
  });

  it('compares two sessions with diff_sessions: where they parted, the turns each has had since, and what differs', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const b = await whatIfBranches(ws);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(ws).connect(serverSide);
    const client = await connected(clientSide);
    expect((await client.listTools()).tools.find((t) => t.name === 'diff_sessions')?.inputSchema.required).toEqual(['a', 'b']);
    const result = await client.callTool({ name: 'diff_sessions', arguments: { a: b.main, b: b.whatIf } });
    expect(result.isError).not.toBe(true);
    const text = textOf(result);
    expect(text).toContain(`Sessions a (${b.main}) and b (${b.whatIf}) parted after turn ${b.parted.id} (version 0).`);
    expect(text).toContain(`Turns of a since then (1):\n[${b.onMain.id}] user:\n  yes, Porto\n`);
    expect(text).toContain(
      `Turns of b since then (2):\n[${b.asked.id}] user:\n  what about Lisbon?\n[${b.answered.id}] assistant:\n  Lisbon for three nights.\n`,
    );
    expect(text).toContain('Environment values that differ (1):\n  reader.current_page: a "1", b "300"\n');
    expect(text).toContain('UI instances that differ (2), as RFC 6902 from a to b:\n  chart (only in b): [{"op":"add","path":"","value":{');
    expect(text).toContain('{"op":"replace","path":"/state/params/city","value":"Lisbon"}');
    expect(text).toContain(
      `Clearance items waiting on a (0): none\n\nClearance items waiting on b (1):\n  ${b.item} pending_export (pending): book the Lisbon hotel`,
    );
    const unknown = await client.callTool({ name: 'diff_sessions', arguments: { a: b.main, b: 'nope' } });
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toContain('SESSION_NOT_FOUND');
  });
});

describe("golem serve's /mcp (Streamable HTTP)", () => {
  it('answers the SDK client behind the server token, and refuses a client without it', async () => {
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());
    const server = await serve(ws, { agent: { model: scriptedModel([{ text: 'Served over HTTP.' }]) } });
    cleanups.push(() => server.close());
    const url = new URL('/mcp', server.url);

    const refused = new Client({ name: 'stranger', version: '1.0.0' });
    await expect(refused.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow(/401|UNAUTHORIZED/);

    const client = await connected(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${server.token}` } } }));
    const answer = jsonOf<Answer>(await client.callTool({ name: 'send_message', arguments: { text: 'Hi' } }));
    expect(answer).toMatchObject({ status: 'done', answer: 'Served over HTTP.' });
    // Written through the workspace's one write path: the session is there for the page too.
    expect((await ws.sessions.open(answer.sessionId))?.record().label).toBe('Hi');
    await client.callTool({ name: 'patch_ui_state', arguments: createForm });
    expect(ws.ui.get('signup')?.instance.state.params.title).toBe('Sign up');

    // Another site's page cannot reach it (the Origin check of the rest of the server).
    const cross = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${server.token}`,
        origin: 'https://evil.example',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(cross.status).toBe(403);
  });
});
