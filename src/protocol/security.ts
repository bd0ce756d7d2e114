/**
 * What a command may reach (seed 002 "Security Considerations"): URL schemes and hosts on
 * an allowlist, selectors of known engines only, safe variable names. The schema manager
 * reports a refused value as a validation error; the executor checks again after
 * variables are filled in, and on every navigation.
 */
import type { SecurityPolicy } from './types.js';

export const DEFAULT_SCHEMES = ['http', 'https'] as const;
const DEFAULT_MAX_SELECTOR = 1_000;

/** Selector engines a model may use: CSS (the default), Playwright's text, role, xpath, id and test-id engines, and snapshot refs. */
const ENGINES = new Set(['css', 'text', 'role', 'xpath', 'id', 'data-testid', 'ref']);
/** A snapshot ref (`e7`; the form `s2/e7` of earlier versions is still read as a ref, and refused by the executor as unknown). */
export const SNAPSHOT_REF = /^(?:s\d+\/)?(?:f\d+)?e\d+$/;

/** Why the URL may not be opened, or undefined when it may. */
export function urlProblem(url: string, policy: SecurityPolicy = {}): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${clip(url)}" is not an absolute URL (write it with its scheme, e.g. https://example.com/)`;
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  const schemes = policy.allowedSchemes ?? DEFAULT_SCHEMES;
  if (!schemes.includes(scheme)) return `the scheme "${scheme}:" is not allowed (allowed: ${schemes.map((s) => `${s}:`).join(', ')})`;
  // Every URL with a host is held to the allowlist (ws:, ftp:, file://host when their scheme is allowed, not only http:).
  if (
    policy.allowedDomains !== undefined &&
    (scheme === 'http' || scheme === 'https' || parsed.hostname !== '') &&
    !hostAllowed(parsed.hostname, policy.allowedDomains)
  ) {
    return `the host "${parsed.hostname}" is not on the allowlist (${policy.allowedDomains.join(', ') || 'empty'})`;
  }
  return undefined;
}

/** True when `host` is one of `domains` (exact names, or '*.example.com' for example.com's subdomains and itself). */
export function hostAllowed(host: string, domains: readonly string[]): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  return domains.some((d) => {
    const domain = d.toLowerCase().replace(/^\[|\]$/g, '');
    if (domain.startsWith('*.')) return name === domain.slice(2) || name.endsWith(domain.slice(1));
    return name === domain;
  });
}

/** Why the selector is refused, or undefined when it is acceptable. */
export function selectorProblem(selector: string, policy: SecurityPolicy = {}): string | undefined {
  const max = policy.maxSelectorLength ?? DEFAULT_MAX_SELECTOR;
  if (selector.trim() === '') return 'the selector is empty';
  if (selector.length > max) return `the selector is ${selector.length} characters long; at most ${max} are accepted`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(selector)) return 'the selector contains control characters';
  const parts = selector.split('>>');
  for (const part of parts) {
    // A leading * marks the part whose element is the result (Playwright); the engine follows it.
    const segment = part.trim().replace(/^\*\s*/, '');
    const engine = /^([a-zA-Z_][\w-]*)\s*=/.exec(segment)?.[1]?.toLowerCase();
    if (engine === undefined) {
      if (segment.startsWith('internal:') || segment.startsWith('_')) return `the selector engine in "${clip(segment)}" is not allowed`;
      continue;
    }
    if (!ENGINES.has(engine)) return `the selector engine "${engine}=" is not allowed (use CSS, ref=, text=, role=, xpath=, id= or data-testid=)`;
    if (engine === 'ref' && !SNAPSHOT_REF.test(segment.slice(segment.indexOf('=') + 1).trim())) {
      return `"${clip(segment)}" is not a snapshot ref; refs look like ref=e7 (from a GET_DOM snapshot)`;
    }
    if (engine === 'ref' && parts.length > 1) return 'a ref names one element on its own: use ref=e7 as the whole selector, not chained with >>';
  }
  return undefined;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
