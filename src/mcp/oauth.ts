/**
 * OAuth 2.1 for MCP servers over HTTP, through the SDK's auth support (discovery, dynamic
 * client registration, PKCE, refresh): Golem is a native app with a loopback redirect
 * (RFC 8252). The user signs in at the address `onAuthorize` shows; the server's redirect
 * comes back to a listener on 127.0.0.1 for the time of the sign-in.
 *
 * Credentials are kept out of the command log and the workspace's records: in one file
 * readable by the user only (default ~/.golem/mcp-credentials.json), keyed by server URL, and
 * never shown to the model.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { GolemError } from '../core/errors.js';
import { readJsonFile, writeJsonFile } from './json-file.js';
import type { McpAuthOptions } from './auth-options.js';

interface Stored {
  client?: OAuthClientInformationMixed | undefined;
  /** The loopback port the client was registered with: listened on again, so the registration (and refresh) is reused. */
  port?: number | undefined;
  /** The sign-in's `state`, checked when the browser comes back. */
  state?: string | undefined;
  tokens?: OAuthTokens | undefined;
  verifier?: string | undefined;
}

/** The default place of the credentials file. */
export function defaultCredentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return env.GOLEM_MCP_CREDENTIALS !== undefined && env.GOLEM_MCP_CREDENTIALS !== ''
    ? env.GOLEM_MCP_CREDENTIALS
    : join(homedir(), '.golem', 'mcp-credentials.json');
}

/** One sign-in's state: the loopback listener, the provider the SDK asks, and the code when it arrives. */
export class LoopbackOAuth {
  readonly provider: OAuthClientProvider;
  readonly #server: string;
  readonly #url: string;
  readonly #file: string;
  readonly #options: McpAuthOptions;
  #listener: Server | undefined;
  #redirect = '';
  #authorizing: URL | undefined;
  #code: Promise<string> | undefined;

  private constructor(server: string, url: string, options: McpAuthOptions) {
    this.#server = server;
    this.#url = url;
    this.#options = options;
    this.#file = options.credentialsFile ?? defaultCredentialsFile();
    const redirect = () => this.#redirect;
    this.provider = {
      get redirectUrl() {
        return redirect();
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: 'Golem',
          redirect_uris: [redirect()],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        };
      },
      // A client registered with another loopback port (that port was taken this time) is registered again.
      clientInformation: () => {
        const client = this.#read().client;
        const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
        return uris === undefined || uris.includes(this.#redirect) ? client : undefined;
      },
      saveClientInformation: (client) => this.#write({ client, port: this.#port }),
      state: () => {
        const state = randomBytes(16).toString('hex');
        this.#write({ state });
        return state;
      },
      tokens: () => this.#read().tokens,
      saveTokens: (tokens) => this.#write({ tokens }),
      saveCodeVerifier: (verifier) => this.#write({ verifier }),
      codeVerifier: () => {
        const verifier = this.#read().verifier;
        if (verifier === undefined) throw new GolemError('MCP_AUTH_REQUIRED', `no sign-in to ${server} is in progress`);
        return verifier;
      },
      redirectToAuthorization: (url) => {
        this.#authorizing = url;
      },
      invalidateCredentials: (scope) => {
        if (scope === 'all') this.#write({ client: undefined, tokens: undefined, verifier: undefined });
        else if (scope === 'client') this.#write({ client: undefined });
        else if (scope === 'tokens') this.#write({ tokens: undefined });
        else if (scope === 'verifier') this.#write({ verifier: undefined });
      },
    };
  }

  /** Listens on a loopback port for the redirect; `close()` when the connection is made. */
  static async start(server: string, url: string, options: McpAuthOptions = {}): Promise<LoopbackOAuth> {
    const oauth = new LoopbackOAuth(server, url, options);
    await oauth.#listen();
    return oauth;
  }

  /** True when the SDK asked for a sign-in (a 401 with no usable token). */
  get needsSignIn(): boolean {
    return this.#authorizing !== undefined;
  }

  /** Shows the sign-in address and waits for the redirect's code; MCP_AUTH_REQUIRED when nobody can sign in, or in time. */
  async signIn(): Promise<string> {
    const url = this.#authorizing;
    const show = this.#options.onAuthorize;
    if (url === undefined || show === undefined) {
      throw new GolemError(
        'MCP_AUTH_REQUIRED',
        `MCP server "${this.#server}" needs you to sign in (OAuth); connect it from golem or golem mcp tools ${this.#server}, which show where`,
        {
          details: { server: this.#server },
        },
      );
    }
    show({ server: this.#server, url: url.toString() });
    const timeout = this.#options.timeoutMs ?? 300_000;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.#code as Promise<string>,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new GolemError('MCP_AUTH_REQUIRED', `the sign-in to MCP server "${this.#server}" was not finished within ${Math.round(timeout / 1000)} s`),
              ),
            timeout,
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    const listener = this.#listener;
    this.#listener = undefined;
    if (listener !== undefined) await new Promise<void>((resolve) => listener.close(() => resolve()));
  }

  get #port(): number {
    return Number(new URL(this.#redirect).port);
  }

  async #listen(): Promise<void> {
    let resolveCode: (code: string) => void = () => undefined;
    let rejectCode: (error: Error) => void = () => undefined;
    this.#code = new Promise<string>((resolve, reject) => ((resolveCode = resolve), (rejectCode = reject)));
    this.#code.catch(() => undefined);
    const listener = createServer((req, res) => {
      const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
      if (!req.url?.startsWith('/callback')) return void res.writeHead(404).end();
      // Only the browser this sign-in sent answers it (its state); anything else that calls here is turned away.
      if (query.get('state') !== this.#read().state) return void res.writeHead(400, { 'content-type': 'text/plain' }).end('Not this sign-in.');
      const code = query.get('code');
      const error = query.get('error');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        code !== null
          ? '<!doctype html><title>Golem</title><p>Signed in. You can close this tab and go back to Golem.</p>'
          : '<!doctype html><title>Golem</title><p>The sign-in did not finish. Go back to Golem.</p>',
      );
      if (code !== null) resolveCode(code);
      else rejectCode(new GolemError('MCP_AUTH_REQUIRED', `the sign-in to MCP server "${this.#server}" was refused: ${error ?? 'no code came back'}`));
    });
    // The port of the registration, if it is free: the registration goes on working (a refresh needs the same client).
    const listen = (port: number) =>
      new Promise<void>((resolve, reject) => {
        listener.once('error', reject);
        listener.listen(port, '127.0.0.1', () => (listener.off('error', reject), resolve()));
      });
    const known = this.#read().port;
    await (known === undefined ? listen(0) : listen(known).catch(() => listen(0)));
    this.#listener = listener;
    this.#redirect = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/callback`;
  }

  #read(): Stored {
    return readJsonFile<Record<string, Stored>>(this.#file)[this.#url] ?? {};
  }

  #write(change: Partial<Stored>): void {
    const all = readJsonFile<Record<string, Stored>>(this.#file);
    const entry = { ...all[this.#url], ...change };
    for (const key of Object.keys(entry) as (keyof Stored)[]) if (entry[key] === undefined) delete entry[key];
    writeJsonFile(this.#file, { ...all, [this.#url]: entry }, { private: true });
  }
}
