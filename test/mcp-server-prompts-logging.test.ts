/**
 * What `golem mcp serve` announces it answers (issue 39: the conformance suite found
 * `prompts/list` and `logging/setLevel` answered "Method not found"): prompts, an empty list
 * (and a clear refusal for a name), and logging, each tool call at debug and each failure at
 * warning, filtered by the level the client set. Over stdio, with the MCP SDK's own client.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { GOLEM_BIN, golemEnv } from './helpers-tmux.js';
import { tempDir } from './helpers.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('golem mcp serve: prompts and logging', () => {
  it('lists no prompts, refuses one by name, and logs tool calls at the level the client set', async () => {
    const project = join(tempDir(), 'project');
    mkdirSync(project);
    const client = new Client({ name: 'logging-test', version: '1.0.0' });
    const logged: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push({ level: n.params.level, data: n.params.data }));
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [GOLEM_BIN, 'mcp', 'serve'],
        cwd: project,
        env: golemEnv() as Record<string, string>,
        stderr: 'pipe',
      }),
    );
    cleanups.push(() => client.close());
    expect(client.getServerCapabilities()).toMatchObject({ prompts: {}, logging: {} });

    expect((await client.listPrompts()).prompts).toEqual([]);
    await expect(client.getPrompt({ name: 'summarize' })).rejects.toThrow(/no prompt "summarize"/);

    await client.setLoggingLevel('debug');
    expect((await client.callTool({ name: 'list_sessions', arguments: {} })).isError).toBeFalsy();
    const failed = await client.callTool({ name: 'read_session', arguments: { sessionId: 'nope' } });
    expect(failed.isError).toBe(true);
    await expect.poll(() => logged.length).toBe(3);
    expect(logged.map((l) => l.level)).toEqual(['debug', 'debug', 'warning']);
    expect(logged[0]?.data).toBe('list_sessions called');
    expect(String(logged[2]?.data)).toMatch(/^read_session: .*SESSION_NOT_FOUND/);

    // At warning, the calls are not logged; the failure is.
    await client.setLoggingLevel('warning');
    logged.length = 0;
    await client.callTool({ name: 'list_sessions', arguments: {} });
    await client.callTool({ name: 'read_session', arguments: { sessionId: 'nope' } });
    await expect.poll(() => logged.length).toBe(1);
    expect(logged[0]?.level).toBe('warning');
  });
});
