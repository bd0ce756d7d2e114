/**
 * Which requests `golem serve` answers at all, before the token is looked at. Its Host
 * must name this server (a loopback name, an IP address, the host it was started on, or
 * one allowed): a page of another site whose name was made to resolve to this machine
 * (DNS rebinding) is refused, as Vite and webpack-dev-server refuse it. A browser's
 * Origin must be the server's own (or one allowed): another site's page can neither open
 * the socket nor call the API with the user's browser.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { ErrorCode } from '../core/errors.js';
import { hostAllowed } from '../mcp/http-guard.js';

export interface RequestRefusal {
  code: Extract<ErrorCode, 'HOST_NOT_ALLOWED' | 'ORIGIN_NOT_ALLOWED'>;
  message: string;
}

export interface RequestGuardOptions {
  /** The address the server listens on. */
  host: string;
  /** Serving beyond loopback: a page is then reached by whatever name the machine has, its own origin being the Host it asked. */
  exposed: boolean;
  /** Host names accepted besides loopback's, IP addresses and `host`. */
  allowedHosts?: readonly string[];
  /** The origins allowed (the server's own and those given); read on every request, as they are known once it listens. */
  origins: () => ReadonlySet<string>;
}

/** The check, as a function of a request's headers: a refusal, or undefined when the request may go on. */
export function requestGuard(options: RequestGuardOptions): (headers: IncomingHttpHeaders) => RequestRefusal | undefined {
  const names = new Set(['localhost', options.host, ...(options.allowedHosts ?? [])].map(hostName));
  // The port of an allowed name does not matter: it is this server's.
  for (const name of options.allowedHosts ?? []) names.add(hostName(name).replace(/:\d+$/, ''));
  return (headers) => {
    const host = headers.host;
    // Every browser sends a Host; a client that sends none is not a page another site could use.
    if (host !== undefined && !hostAllowed(host, names)) {
      return {
        code: 'HOST_NOT_ALLOWED',
        message: `this server does not answer for the host "${host.slice(0, 200)}"; open it by its address (http://127.0.0.1:<port>), or allow that name with --allow-host (serve()'s allowedHosts)`,
      };
    }
    const origin = headers.origin;
    if (origin === undefined || options.origins().has(origin)) return undefined;
    // Exposed, its own origin is the Host it was asked by, over HTTP or behind a proxy that adds TLS.
    if (options.exposed && host !== undefined && (origin === `http://${host}` || origin === `https://${host}`)) return undefined;
    return { code: 'ORIGIN_NOT_ALLOWED', message: `requests from pages of ${origin.slice(0, 200)} are not allowed; use the page this server serves` };
  };
}

function hostName(host: string): string {
  return host.toLowerCase().replace(/^\[|\]$/g, '');
}
