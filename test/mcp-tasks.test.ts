/**
 * The tasks through Golem's MCP server, driven by the MCP SDK's own Client: list_tasks,
 * update_task and close_task as tools, golem://tasks and golem://tasks/<id> as resources, each
 * refusal a tool error with its code; what another agent marked is read back after a reopen.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import type { Workspace } from '../src/index.js';
import { createMcpServer } from '../src/mcp/index.js';
import { openClosed, tempDir } from './helpers.js';

const textOf = (result: unknown) => ((result as { content: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? '').join('\n');

async function clientOf(ws: Workspace): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(ws).connect(serverSide);
  const client = new Client({ name: 'another-agent', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
}

describe('tasks over MCP', () => {
  it('another agent lists the tasks, reads them as resources, marks steps and closes one; refusals carry their codes', async () => {
    const dir = tempDir();
    const ws = await openClosed({ dir });
    const chat = await ws.sessions.create({ topics: ['billing'] });
    const task = await ws.tasks.propose({ sessionId: chat.id, title: 'Fix rounding', steps: ['Find it', 'Fix it'] });
    await ws.tasks.accept(task.id);
    const proposal = await ws.tasks.propose({ sessionId: chat.id, title: 'Later', steps: ['Think'] });
    const client = await clientOf(ws);

    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['list_tasks', 'update_task', 'close_task']));
    const listed = JSON.parse(textOf(await client.callTool({ name: 'list_tasks', arguments: { topic: 'billing', status: 'accepted' } }))) as unknown[];
    expect(listed).toMatchObject([{ id: task.id, title: 'Fix rounding', steps: [{ step: 1, text: 'Find it', status: 'pending' }, { step: 2 }] }]);

    const resources = (await client.listResources()).resources.map((r) => r.uri);
    expect(resources).toEqual(expect.arrayContaining(['golem://tasks', `golem://tasks/${task.id}`, `golem://tasks/${proposal.id}`]));
    const read = await client.readResource({ uri: `golem://tasks/${task.id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: task.id, status: 'accepted' });
    const all = await client.readResource({ uri: 'golem://tasks' });
    expect(JSON.parse((all.contents[0] as { text: string }).text)).toHaveLength(2);
    await expect(client.readResource({ uri: 'golem://tasks/nope' })).rejects.toThrow(/TASK_NOT_FOUND/);

    const marked = await client.callTool({
      name: 'update_task',
      arguments: { taskId: task.id, set: [{ step: 1, status: 'done' }], add: [{ text: 'Test it' }] },
    });
    expect(marked.isError).not.toBe(true);
    expect(JSON.parse(textOf(marked))).toMatchObject({ status: 'accepted', steps: [{ status: 'done' }, { status: 'pending' }, { step: 3, text: 'Test it' }] });

    const past = await client.callTool({ name: 'update_task', arguments: { taskId: task.id, set: [{ step: 4, status: 'done' }] } });
    expect(past.isError).toBe(true);
    expect(textOf(past)).toBe(`INVALID_ARGUMENT: task "${task.id}" has 3 steps: there is no step 4`);
    const proposed = await client.callTool({ name: 'update_task', arguments: { taskId: proposal.id, set: [{ step: 1, status: 'done' }] } });
    expect(textOf(proposed)).toMatch(/^TASK_NOT_ACCEPTED: /);
    const missing = await client.callTool({ name: 'close_task', arguments: { taskId: 'nope', status: 'done' } });
    expect(textOf(missing)).toMatch(/^TASK_NOT_FOUND: /);

    const closed = await client.callTool({ name: 'close_task', arguments: { taskId: task.id, status: 'cancelled', reason: 'moved to another team' } });
    expect(JSON.parse(textOf(closed))).toMatchObject({ status: 'cancelled', reason: 'moved to another team' });
    const again = await client.callTool({ name: 'update_task', arguments: { taskId: task.id, set: [{ step: 2, status: 'done' }] } });
    expect(textOf(again)).toMatch(/^TASK_CLOSED: /);
    await client.close();

    const reopened = await openClosed({ dir });
    expect(reopened.tasks.get(task.id)).toMatchObject({
      status: 'cancelled',
      steps: [
        { text: 'Find it', status: 'done' },
        { text: 'Fix it', status: 'pending' },
        { text: 'Test it', status: 'pending' },
      ],
    });
  });
});
