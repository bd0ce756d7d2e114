/** How a connection signs in to an HTTP server that uses OAuth (see oauth.ts). */
export interface McpAuthOptions {
  /** Where credentials are kept (default $GOLEM_MCP_CREDENTIALS, else ~/.golem/mcp-credentials.json). */
  credentialsFile?: string;
  /** Shows the user where to sign in; without it a server that needs a sign-in fails with MCP_AUTH_REQUIRED. */
  onAuthorize?: (request: { server: string; url: string }) => void;
  /** How long to wait for the sign-in (default 5 minutes). */
  timeoutMs?: number;
}
