/** MCP (golem/mcp): MCP servers' tools as Golem actions under the trust modes, and Golem as an MCP server. */
export { addMcpServer, MCP_CONFIG_FILE, parseServerConfig, readMcpConfig, removeMcpServer, type McpServerConfig, type McpServers } from './config.js';
export {
  McpConnection,
  type McpAuthOptions,
  type ElicitationAnswer,
  type ElicitationRequest,
  type McpBlobSink,
  type McpConnectOptions,
  type McpPrompt,
} from './connection.js';
export type { McpResource } from './resource-actions.js';
export { McpApi, type McpFailure } from './mcp-api.js';
export {
  actionNameOf,
  describeHints,
  renderOutput,
  toolFingerprint,
  toolRisk,
  toolTrust,
  type McpPart,
  type McpTool,
  type McpToolOutput,
} from './tool-action.js';
export { createMcpServer, mcpHttpHandler, type McpHttpOptions, type McpServedWorkspace, type McpServerOptions } from './server.js';
export { defaultCredentialsFile } from './oauth.js';
