/**
 * `mcpHttpHandler` mounted on its own in a plain Node HTTP server (issue 39: the conformance
 * suite's `dns-rebinding-protection` found it answered any Host and Origin): by default it
 * answers loopback names, IP addresses and the hosts allowed, and pages of loopback origins and
 * the origins allowed; anything else is 403 with HOST_NOT_ALLOWED or ORIGIN_NOT_ALLOWED, before
 * any tool runs. The MCP SDK's own client still connects.
 */
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { mcpHttpHandler, type McpHttpOptions } from '../src/mcp/index.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The handler in a Node HTTP server on loopback, through @hono/node-server's bridge; its port. */
async function mounted(options: McpHttpOptions = {}): Promise<number> {
  const ws = await createWorkspace();
  cleanups.push(() => ws.close());
  const { getRequestListener } = await import('@hono/node-server');
  const { createServer } = await import('node:http');
  const listener = getRequestListener(mcpHttpHandler(ws, options));
  const server: Server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

/** A tools/list posted with these Host and Origin headers (node:http: fetch will not set Host). */
function post(port: number, headers: { host?: string; origin?: string }): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: '/',
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  });
}

const codeOf = (body: string) => /^(HOST|ORIGIN)_NOT_ALLOWED/.exec((JSON.parse(body) as { error: { message: string } }).error.message)?.[0];

describe("mcpHttpHandler's Host and Origin check", () => {
  it('answers the SDK client on loopback, and refuses another host or another site’s page', async () => {
    const port = await mounted();
    const client = new Client({ name: 'guard-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/`)));
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('patch_ui_state');

    expect((await post(port, { host: `localhost:${port}` })).status).toBe(200);
    expect((await post(port, { host: `[::1]:${port}`, origin: 'http://localhost:5173' })).status).toBe(200);
    // A name made to resolve to this machine (DNS rebinding), and a page of another site calling by address.
    const rebound = await post(port, { host: `attacker.example:${port}` });
    expect([rebound.status, codeOf(rebound.body)]).toEqual([403, 'HOST_NOT_ALLOWED']);
    const cross = await post(port, { host: `127.0.0.1:${port}`, origin: 'https://evil.example' });
    expect([cross.status, codeOf(cross.body)]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
    const lookalike = await post(port, { host: `127.0.0.1:${port}`, origin: 'http://localhost.evil.example' });
    expect([lookalike.status, codeOf(lookalike.body)]).toEqual([403, 'ORIGIN_NOT_ALLOWED']);
  });

  it('answers the hosts and origins allowed, and with "*" leaves the check to the server in front', async () => {
    const port = await mounted({ allowedHosts: ['golem.internal:8080'], allowedOrigins: ['https://app.example.com'] });
    expect((await post(port, { host: 'golem.internal', origin: 'https://app.example.com' })).status).toBe(200);
    expect((await post(port, { host: 'Golem.Internal:9000' })).status).toBe(200);
    const other = await post(port, { host: 'other.internal', origin: 'https://app.example.com' });
    expect([other.status, codeOf(other.body)]).toEqual([403, 'HOST_NOT_ALLOWED']);
    expect(codeOf((await post(port, { host: 'golem.internal', origin: 'https://app.example.com.evil.example' })).body)).toBe('ORIGIN_NOT_ALLOWED');

    const open = await mounted({ allowedHosts: '*', allowedOrigins: '*' });
    expect((await post(open, { host: 'anything.example', origin: 'https://evil.example' })).status).toBe(200);
  });
});
