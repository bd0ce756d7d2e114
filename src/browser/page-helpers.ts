/**
 * What the browser executor does around a command on a page: the allowlist as host-resolver
 * rules, waiting for a page to settle, naming an element, hiding secrets in results, and
 * turning a failure on the page into a typed error.
 */
import type { Locator, Page } from 'playwright-core';
import { GolemError } from '../core/errors.js';
import { headOf } from '../core/text.js';
import { redactSecrets } from '../protocol/interpolation.js';
import type { SecurityPolicy } from '../protocol/types.js';

/** The few DOM members page functions read (the DOM library is not in this package's types). */
export interface DomElement {
  tagName: string;
  value?: string;
  innerText?: string;
  textContent: string | null;
  getAttribute(name: string): string | null;
}

/**
 * With an allowlist, Chromium resolves only the listed host names (every other fails as
 * not found), so nothing reaches another host: not a redirect, which request routing does
 * not see, nor anything a page loads (the rules cover IP addresses too).
 */
export function resolverRules(security: SecurityPolicy | undefined): string[] {
  const domains = security?.allowedDomains;
  if (domains === undefined) return [];
  const names = domains
    .map((d) => d.replace(/^\[|\]$/g, '')) // an IPv6 address is excluded without its brackets
    .flatMap((d) => (d.startsWith('*.') ? [d.slice(2), d] : [d]))
    .filter((d) => /^[a-zA-Z0-9*.:-]+$/.test(d));
  return [`--host-resolver-rules=${['MAP * ~NOTFOUND', ...names.map((d) => `EXCLUDE ${d}`)].join(', ')}`];
}

/** Waits briefly for what a command set off (a navigation, a re-render) to land. */
export async function settle(page: Page, timeout: number): Promise<void> {
  await page.waitForLoadState('domcontentloaded', { timeout }).catch(() => undefined);
  await page.waitForLoadState('load', { timeout: Math.min(timeout, 1_000) }).catch(() => undefined);
}

/** What a promise gives, or `fallback` when it fails or takes longer than `ms` (a page whose script never yields answers nothing). */
export async function within<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([promise.catch(() => fallback), late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function pageState(page: Page, timeout = 5_000): Promise<{ url: string; title: string }> {
  return { url: page.url(), title: await within(page.title(), timeout, '') };
}

/**
 * The element a command acted on, in a few words: its tag (an input's type too) and its name
 * (`button "Buy"`), secrets hidden before the name is cut to 60 characters (a cut first could
 * leave part of one that no longer matches).
 */
export async function describeElement(target: Locator, secrets: Readonly<Record<string, string>>): Promise<string> {
  // No named functions in the page function: a bundler's helpers for their names (esbuild's __name) are not in the page.
  const seen = await target
    .evaluate((node) => {
      const el = node as unknown as DomElement & { labels?: ArrayLike<{ innerText?: string }> | null };
      const type = el.tagName === 'INPUT' ? (el.getAttribute('type') ?? 'text').toLowerCase() : null;
      const control = ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName);
      // The first that says something (an input's innerText is ''), read to its first line: a select inside its label
      // would bring every option along. A password field's value is never a name.
      const names = [
        el.getAttribute('aria-label'),
        el.labels?.[0]?.innerText,
        control ? undefined : el.innerText,
        type !== null && type !== 'password' && type !== 'hidden' ? el.getAttribute('value') : undefined,
        el.getAttribute('title'),
        el.getAttribute('placeholder'),
      ].map((text) => (text ?? '').trim().split('\n')[0]?.trim() ?? '');
      return { tag: el.tagName.toLowerCase(), type, name: names.find((n) => n !== '') ?? '' };
    })
    .catch(() => undefined);
  if (seen === undefined) return 'element';
  const name = redactSecrets(seen.name, secrets);
  const shown = name.length > 60 ? `${headOf(name, 59)}…` : name;
  return `${seen.tag}${seen.type === null ? '' : `[type=${seen.type}]`}${shown === '' ? '' : ` "${shown}"`}`;
}

/** Every string in a value (keys stay as they are) with the secrets hidden. */
export function redactStrings<T>(value: T, secrets: Readonly<Record<string, string>>): T {
  if (typeof value === 'string') return redactSecrets(value, secrets) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => redactStrings(v, secrets)) as T;
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactStrings(v as unknown, secrets)])) as T;
  return value;
}

/** A failure on the page as a typed error. */
export function pageError(cause: unknown, allowlist: boolean): GolemError {
  if (GolemError.isInstance(cause)) return cause;
  const message = firstLine(cause);
  if ((cause as Error)?.name === 'TimeoutError' || /Timeout \d+ms exceeded/.test(message))
    return new GolemError('BROWSER_TIMEOUT', `the page did not respond in time: ${message}`, { cause });
  if (/ERR_BLOCKED_BY_CLIENT/.test(message))
    return new GolemError('URL_NOT_ALLOWED', 'the navigation was blocked: its host is not on the allowlist', { cause });
  // With an allowlist, Chromium resolves no other host: a redirect off the list ends here.
  if (allowlist && /ERR_NAME_NOT_RESOLVED/.test(message))
    return new GolemError(
      'URL_NOT_ALLOWED',
      `the page (or a redirect from it) leads to a host that is not on the allowlist, or that does not resolve: ${message}`,
      { cause },
    );
  return new GolemError('BROWSER_ERROR', message, { cause });
}

export function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

export function firstLine(cause: unknown): string {
  return (cause instanceof Error ? cause.message : String(cause)).split('\n')[0] ?? '';
}
