/**
 * CORS for createGolemHandler: the origins whose pages may call the handler from a browser.
 * A preflight from one of them is answered with what it asked for (its method and headers);
 * a preflight from any other origin is refused, and its other requests get no CORS headers,
 * so the browser keeps their answers from that page. Same-origin requests need none of this.
 */
import { GolemError } from '../core/errors.js';

/** The allowed origins: a list (`https://app.example.com`, scheme, host and port), or a check of each request's Origin. */
export type CorsOrigins = readonly string[] | ((origin: string) => boolean | Promise<boolean>);

/** createGolemHandler's `cors`, in full. */
export interface CorsOptions {
  origins: CorsOrigins;
  /**
   * Let allowed pages send cookies (`Access-Control-Allow-Credentials`), for a `user` hook or
   * an `auth` check that reads one. Default false: a bearer token needs no credentials.
   */
  credentials?: boolean;
  /** How long a browser may keep a preflight's answer, in seconds (default 600). */
  maxAge?: number;
}

const METHODS = 'GET, HEAD, POST, DELETE, OPTIONS';

/** The CORS policy as a wrapper around a fetch handler. */
export function corsPolicy(option: CorsOrigins | CorsOptions): (request: Request, next: (request: Request) => Promise<Response>) => Promise<Response> {
  const options: CorsOptions = typeof option === 'function' || Array.isArray(option) ? { origins: option as CorsOrigins } : (option as CorsOptions);
  const allows = allowed(options.origins);
  const maxAge = String(options.maxAge ?? 600);
  return async (request, next) => {
    const origin = request.headers.get('origin');
    const ok = origin !== null && (await allows(origin));
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      if (!ok) {
        return Response.json(
          { error: { code: 'ORIGIN_NOT_ALLOWED', message: `pages of ${(origin ?? 'no origin').slice(0, 200)} may not call this server` } },
          { status: 403, headers: { vary: 'Origin' } },
        );
      }
      const headers = new Headers({
        'access-control-allow-origin': origin,
        'access-control-allow-methods': METHODS,
        'access-control-max-age': maxAge,
        vary: 'Origin, Access-Control-Request-Headers',
      });
      const asked = request.headers.get('access-control-request-headers');
      if (asked !== null) headers.set('access-control-allow-headers', asked);
      if (options.credentials === true) headers.set('access-control-allow-credentials', 'true');
      return new Response(null, { status: 204, headers });
    }
    const response = await next(request);
    const headers: Record<string, string> = ok ? { 'access-control-allow-origin': origin } : {};
    if (ok && options.credentials === true) headers['access-control-allow-credentials'] = 'true';
    return withHeaders(response, headers);
  };
}

/** The check of an Origin header against the option; a list is checked once, here, for entries that are not origins. */
function allowed(origins: CorsOrigins): (origin: string) => boolean | Promise<boolean> {
  if (typeof origins === 'function') return origins;
  const list = new Set(
    origins.map((entry) => {
      let url: URL | undefined;
      try {
        url = new URL(entry);
      } catch {
        url = undefined;
      }
      // Compared as browsers send it: scheme and host in lower case, no default port, nothing after.
      if (url === undefined || url.origin === 'null' || url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '') {
        throw new GolemError('INVALID_ARGUMENT', `cors: "${entry}" is not an origin; write it as scheme://host[:port], e.g. https://app.example.com`);
      }
      return url.origin;
    }),
  );
  return (origin) => list.has(origin);
}

/** The response with these headers set and Origin added to its Vary (a copy when its headers cannot change). */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  let out = response;
  const set = () => {
    for (const [name, value] of Object.entries(headers)) out.headers.set(name, value);
    const vary = out.headers.get('vary');
    if (vary === null || !/\borigin\b/i.test(vary)) out.headers.set('vary', vary === null ? 'Origin' : `${vary}, Origin`);
  };
  try {
    set();
  } catch {
    out = new Response(response.body, response);
    set();
  }
  return out;
}
