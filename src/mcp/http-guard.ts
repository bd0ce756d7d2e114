/**
 * Who may call an HTTP server of Golem's by the names it is asked for: the Host and Origin
 * checks against DNS rebinding and other sites' pages, shared by `mcpHttpHandler` (used on its
 * own, in anyone's server) and `golem serve`'s request guard. No MCP SDK here: serve loads it.
 */
import { isIP } from 'node:net';

/** What `callerCheck` allows besides loopback: `'*'` allows every one (a check in front does it). */
export interface CallerRules {
  allowedHosts?: readonly string[] | '*';
  allowedOrigins?: readonly string[] | '*';
}

/** A Host header's name: an IP address (no rebinding goes through one), or a name that is accepted. */
export function hostAllowed(header: string, names: ReadonlySet<string>): boolean {
  // A name, or an address in brackets, and a port: nothing else (no user info, no path) is a Host a browser sends.
  if (!/^(?:[a-z0-9_.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i.test(header)) return false;
  let name: string;
  try {
    name = new URL(`http://${header}`).hostname;
  } catch {
    return false;
  }
  return isIP(name.replace(/^\[|\]$/g, '')) !== 0 || names.has(name);
}

/** The Host and Origin check of `mcpHttpHandler` (`McpHttpOptions`): the refusal's message, or undefined when the request may go on. */
export function callerCheck(options: CallerRules): (request: Request) => string | undefined {
  const hosts =
    options.allowedHosts === '*' ? undefined : new Set(['localhost', ...(options.allowedHosts ?? []).map((h) => h.toLowerCase().replace(/:\d+$/, ''))]);
  const origins = options.allowedOrigins === '*' ? undefined : new Set(options.allowedOrigins ?? []);
  return (request) => {
    const host = request.headers.get('host');
    if (hosts !== undefined && host !== null && !hostAllowed(host, hosts)) {
      return `HOST_NOT_ALLOWED: this MCP server does not answer for the host "${host.slice(0, 200)}"; allow it with mcpHttpHandler's allowedHosts`;
    }
    const origin = request.headers.get('origin');
    if (origins === undefined || origin === null || origins.has(origin) || loopbackOrigin(origin)) return undefined;
    return `ORIGIN_NOT_ALLOWED: requests from pages of ${origin.slice(0, 200)} are not allowed; allow the origin with mcpHttpHandler's allowedOrigins`;
  };
}

function loopbackOrigin(origin: string): boolean {
  try {
    const { protocol, hostname } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && ['localhost', '127.0.0.1', '[::1]'].includes(hostname);
  } catch {
    return false;
  }
}
