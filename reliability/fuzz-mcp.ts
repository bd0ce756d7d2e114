/**
 * Golem's MCP server under hostile calls: the SDK's own Client, over its in-memory transport,
 * calls the server's tools (and names that are none) with arguments of any shape. Every call is
 * answered: a result, a failed result whose text starts with a code of Golem's table, or an MCP
 * error for a call that is not MCP; a refused call writes nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ERROR_CODES, type Workspace } from '../src/index.js';
import { createMcpServer } from '../src/mcp/server.js';
import { countedAsync, ensure, memoryWorkspace, stateOf, type FuzzTarget } from './fuzz-kit.js';

const TOOLS = [
  'patch_ui_state',
  'get_ui_state',
  'list_ui_instances',
  'list_sessions',
  'read_session',
  'fork_session',
  'send_message',
  'list_clearance',
  'clearance_diff',
];

const text = fc.oneof(fc.string(), fc.constantFrom('__CREATE__', '__DELETE__', 's1', 'p', '__proto__', 'constructor', ''));
/** Arguments of any shape, most of them close to a tool's own. */
const args = fc.oneof(
  // Calls a tool takes as they are.
  fc.constantFrom<unknown>(
    {},
    { sessionId: 's1' },
    { sessionId: 's1', last: 1 },
    { limit: 3 },
    { instanceId: 'p' },
    {
      instanceId: '__CREATE__',
      newInstanceId: 'p',
      patches: [{ op: 'set', path: 'meta', value: { pageKey: 'p', step: { current: 1, total: 1 }, status: 'idle' } }],
    },
  ),
  fc.record(
    {
      sessionId: text,
      instanceId: text,
      newInstanceId: text,
      targetInstanceId: text,
      turnId: text,
      text,
      id: text,
      label: fc.anything(),
      limit: fc.oneof(fc.integer(), fc.double(), fc.string()),
      last: fc.oneof(fc.integer(), fc.constant(null)),
      patches: fc.oneof(
        fc.anything(),
        fc.array(
          fc.record(
            { op: fc.constantFrom('set', 'add', 'remove', 'clear', 'replace', 'x'), path: text, value: fc.anything(), items: fc.anything() },
            { requiredKeys: [] },
          ),
        ),
      ),
    },
    { requiredKeys: [] },
  ),
  fc.anything(),
  fc.constant(JSON.parse('{"__proto__": {"polluted": true}, "instanceId": "p"}') as unknown),
);

let ws: Workspace | undefined;
let client: Client | undefined;

export const mcpServerTarget: FuzzTarget = {
  name: 'mcp-server',
  check: "Golem's MCP server tools (the SDK's Client, in memory)",
  runs: 60,
  async setup() {
    ws = await memoryWorkspace();
    const session = await ws.sessions.create({ id: 's1' });
    await session.addTurn({ role: 'user', blocks: [{ type: 'text', text: 'hello' }] });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(ws).connect(serverSide);
    client = new Client({ name: 'fuzz', version: '1.0.0' });
    await client.connect(clientSide);
  },
  async teardown() {
    await client?.close();
    await ws?.close();
  },
  property: (tally) =>
    countedAsync(tally, fc.tuple(fc.oneof(fc.constantFrom(...TOOLS), fc.string()), args), async ([name, input]) => {
      const workspace = ws as Workspace;
      const before = await stateOf(workspace);
      let result;
      try {
        // Sent as is (the client's own checks skipped): the server is what is tested.
        result = await (client as Client).request(
          { method: 'tools/call', params: { name, arguments: input as Record<string, unknown> } },
          CallToolResultSchema,
        );
      } catch (error) {
        ensure(error instanceof McpError, () => `the call failed with what is not an MCP error: ${String(error)}`);
        tally.reject(`MCP ${error.code}`);
        ensure(isDeepStrictEqual(await stateOf(workspace), before), 'a call refused with an MCP error changed the workspace');
        return;
      }
      const shown = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      if (result.isError !== true) {
        tally.accepted++;
        return;
      }
      const code = /^([A-Z_]+): /.exec(shown)?.[1];
      // patch_ui_state answers a refusal in seed 004's own shape: { success: false, errors: [{ code }] }.
      const seed004 = code === undefined ? (JSON.parse(shown) as { success?: boolean; errors?: { code: string }[] }) : undefined;
      ensure(
        code !== undefined ? Object.hasOwn(ERROR_CODES, code) : seed004?.success === false,
        () => `a failed call says no code of the table: ${shown.slice(0, 200)}`,
      );
      ensure(code !== 'INTERNAL', () => `a call failed with INTERNAL: ${shown.slice(0, 200)}`);
      tally.reject(code ?? seed004?.errors?.[0]?.code ?? 'UI_PATCH_REJECTED');
      ensure(isDeepStrictEqual(await stateOf(workspace), before), () => `a failed call changed the workspace: ${shown.slice(0, 200)}`);
    }),
};
