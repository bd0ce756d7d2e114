/**
 * Signing in to an MCP server over HTTP with OAuth 2.1, against the MCP SDK's own example
 * server (`simpleStreamableHttp --oauth`: an authorization server and a protected resource):
 * discovery, registration, PKCE, the loopback redirect, and the tokens kept in a file of the
 * user's own, never in the workspace.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkspace } from '../src/index.js';
import { tempDir } from './helpers.js';

const EXAMPLE = join(
  createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/client/index.js'),
  '..',
  '..',
  'examples',
  'server',
  'simpleStreamableHttp.js',
);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The SDK's example server with OAuth, on free ports; its MCP endpoint. */
async function oauthServer(): Promise<string> {
  const [mcpPort, authPort] = [await freePort(), await freePort()];
  const child: ChildProcess = spawn(process.execPath, [EXAMPLE, '--oauth'], {
    env: { ...process.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) },
    stdio: 'pipe',
  });
  cleanups.push(() => void child.kill());
  let out = '';
  await new Promise<void>((resolve, reject) => {
    const seen = () => out.includes(`listening on port ${mcpPort}`) && out.includes(`listening on port ${authPort}`) && resolve();
    child.stdout?.on('data', (chunk: Buffer) => ((out += chunk.toString()), seen()));
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the example server exited (${code}): ${out}`)));
  });
  return `http://localhost:${mcpPort}/mcp`;
}

/** What the user's browser does with the sign-in address: follows it to the redirect, which lands on Golem's loopback listener. */
async function browse(url: string): Promise<void> {
  let next = url;
  for (let hops = 0; hops < 5; hops++) {
    const response = await fetch(next, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (location === null) return;
    next = new URL(location, next).toString();
  }
}

describe('MCP over HTTP with OAuth', () => {
  it('signs in once through the loopback redirect, keeps the tokens in a private file, and reconnects with them', async () => {
    const url = await oauthServer();
    const credentialsFile = join(tempDir(), 'credentials.json');
    const ws = await createWorkspace();
    cleanups.push(() => ws.close());

    // Without a way to show the sign-in, the server is refused with MCP_AUTH_REQUIRED.
    await expect(ws.mcp.connect('demo', { type: 'http', url }, { auth: { credentialsFile } })).rejects.toMatchObject({ code: 'MCP_AUTH_REQUIRED' });

    const shown: string[] = [];
    const conn = await ws.mcp.connect(
      'demo',
      { type: 'http', url },
      { auth: { credentialsFile, onAuthorize: ({ url: at }) => (shown.push(at), void browse(at)) } },
    );
    expect(shown).toHaveLength(1);
    expect(new URL(shown[0] ?? '').searchParams.get('code_challenge_method')).toBe('S256');
    const greet = conn.actions().find((a) => a.name === 'demo__greet') ?? expect.fail('no demo__greet');
    expect(greet.render?.(await greet.run({ name: 'Ada' }, {}))).toContain('Ada');
    await conn.close();

    // The tokens are the user's own: a file only they can read, and nowhere in the workspace.
    const stored = JSON.parse(readFileSync(credentialsFile, 'utf8')) as Record<string, { tokens?: { access_token: string } }>;
    const token = stored[url]?.tokens?.access_token ?? expect.fail('no token kept');
    expect(statSync(credentialsFile).mode & 0o777).toBe(0o600);
    expect(JSON.stringify(await ws.manager.store.load())).not.toContain(token);

    // The next connection uses them: nobody is asked to sign in again.
    const again = await ws.mcp.connect('demo', { type: 'http', url }, { auth: { credentialsFile, onAuthorize: () => expect.fail('asked to sign in again') } });
    expect(again.actions().map((a) => a.name)).toContain('demo__greet');
    await again.close();

    // Tokens gone (expired and refused): the next sign-in reuses the registration (same loopback port, same client),
    // and only the browser this sign-in sent is heard on the loopback (a call without its state is turned away).
    const clientId = (stored[url] as { client?: { client_id: string } }).client?.client_id ?? expect.fail('no client kept');
    const kept = JSON.parse(readFileSync(credentialsFile, 'utf8')) as Record<string, Record<string, unknown>>;
    delete kept[url]?.tokens;
    writeFileSync(credentialsFile, JSON.stringify(kept));
    const forged: number[] = [];
    const third = await ws.mcp.connect(
      'demo',
      { type: 'http', url },
      {
        auth: {
          credentialsFile,
          onAuthorize: ({ url: at }) => {
            const redirect = new URL(at).searchParams.get('redirect_uri') ?? '';
            void fetch(`${redirect}?code=forged`)
              .then((r) => forged.push(r.status))
              .then(() => browse(at));
          },
        },
      },
    );
    expect(forged).toEqual([400]);
    expect(third.actions().map((a) => a.name)).toContain('demo__greet');
    const now = JSON.parse(readFileSync(credentialsFile, 'utf8')) as Record<string, { client?: { client_id: string } }>;
    expect(now[url]?.client?.client_id).toBe(clientId);
  });
});
