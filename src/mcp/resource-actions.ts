/**
 * A server's resources for the model: `<server>__list_resources` and `<server>__read_resource`,
 * offered when the server has resources. They only read, so a call may be repeated; their trust
 * is the server's default, as for its tools.
 */
import { z } from 'zod';
import { defineAction, type Action } from '../action/action.js';
import type { McpServerConfig } from './config.js';
import { renderOutput, type McpPart, type McpToolOutput } from './tool-action.js';

/** A resource a server offers. */
export interface McpResource {
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

/** What the actions need of a connection. */
export interface ResourceReader {
  readonly name: string;
  listResources(): Promise<McpResource[]>;
  readResource(uri: string, signal?: AbortSignal): Promise<McpPart[]>;
}

export function resourceActions(connection: ResourceReader, config: McpServerConfig): Action[] {
  const server = connection.name;
  const trust = config.trust?.default ?? 'supervised';
  const list = defineAction({
    name: `${server}__list_resources`,
    description: `Lists the resources (documents, files, records) the MCP server "${server}" offers: their URIs, names and types. Read one with ${server}__read_resource.`,
    input: z.object({}),
    trust,
    repeatable: true,
    run: () => connection.listResources(),
    describe: () => ({ type: 'tool_call', description: `${server} · list its resources (MCP; read-only)`, details: { server }, risk: 'low' }),
    grantKey: () => `mcp:${server}:list_resources`,
  });
  const read = defineAction({
    name: `${server}__read_resource`,
    description: `Reads a resource of the MCP server "${server}" by its URI (from ${server}__list_resources or a link in a tool's result).`,
    input: z.object({ uri: z.string().min(1).describe('The resource URI') }),
    trust,
    repeatable: true,
    run: async ({ uri }, ctx): Promise<McpToolOutput> => ({
      server,
      tool: 'read_resource',
      isError: false,
      content: await connection.readResource(uri, ctx.signal),
    }),
    describe: ({ uri }) => ({ type: 'tool_call', description: `${server} · read resource ${uri} (MCP; read-only)`, details: { server, uri }, risk: 'low' }),
    grantKey: () => `mcp:${server}:read_resource`,
    render: renderOutput,
  });
  return [list, read] as Action[];
}
